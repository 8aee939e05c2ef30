"""Compiling a bot of a language that compiles (``Language.compiled``: C++): untrusted work,
done in the sandbox with limits of its own, once per machine for each code.

The compiler is trusted, what it reads is not: a bot's file can ask it for any amount of
time, memory and messages (a template recursion, an include of ``/dev/zero``, a macro that
doubles at every step). So it runs like a bot does: as the sandbox's uid of a slot, in
bubblewrap's namespaces (no network), under the seccomp filter less its rules on making
processes (the compiler starts its own: the front end, the assembler, the linker), with only
what the compiler needs of the system read-only (:func:`compile_mounts`: never /usr/local or
/usr/share, whose files an ``#include`` would quote) and a private ``/tmp``, and with
:class:`CompileLimits`: CPU time and a deadline, memory (a memory cgroup where the machine
has one, else the address space), processes, the program's size and the messages kept. The
program comes out on its standard output; the compiler's messages on its standard error, cut
to their first lines.

What comes out, a program or the compiler's refusal, is kept by the hash of everything that
went in (the files, the compiler's version, its flags) in the machine's cache
(``VAR_DIR/compiled/``), a program compressed (:func:`_packed`): a version is compiled once
per machine, never per match. The cache has a size (:func:`cache_limit`, the setting
``COMPILE_CACHE_MB``): an entry read is touched, and a new entry that would pass the size
first evicts the least recently used whole entries (:func:`_make_room`). Code compiled for
one use only (a playground run's own, :func:`transient`) never has its program kept there,
only its refusal, for a day (:data:`ONE_USE_REFUSAL_S`). A refusal is the bot's
:class:`CompileError` (its start fails with the compiler's words, like a Python traceback);
a sandbox that cannot start is the platform's trouble, as for a bot
(:class:`~bots.sandbox.SandboxUnavailable`, :class:`~bots.sandbox.SandboxBusy`), and so is a
compile the machine was too busy to give its time (:class:`CompileBusy`, below).

The code's limit is its CPU time: a compile that reaches it is the code's (kept, as any
refusal). The wall clock is only a backstop, four times the CPU limit: a compile it stops had
under a quarter of a core, so the machine was too loaded to give it its time (a legitimate g++
once took 262 s of wall time for 70 s of CPU here). That is never the code's verdict:
:class:`CompileBusy`, no refusal kept, tried again later; the CPU it had (the compiler's whole
process tree's, read from ``/proc`` when the clock stops it:
:func:`bots.running.starved.tree_cpu_s`) is said, for whoever asked for the compile to be
charged it, and each such stop of a code is counted a day (:func:`busy_stops`) so that those
who try it again can stop trying. A compile that sleeps without computing (every thread
waiting for something, not for a CPU: :data:`BLOCKED_S`, or most of its wall time) reads
something that never ends: the code's refusal, kept. Its sandbox has no such thing to read:
of /dev only :data:`COMPILE_DEVICES`, and no /proc for a language that runs without it
(``compile_proc`` False: C++), so neither a terminal's device nor the compiler's own pipes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import selectors
import subprocess
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.languages import Language
from bots.running.process import BotStartError, PlatformError
from bots.running.settings import project_settings
from bots.running.starved import _tree, tree_cpu_s
from bots.sandbox import (
    SHELL,
    MiB,
    SandboxBusy,
    SandboxConfig,
    SandboxUnavailable,
    _memfd,
    acquire_slot,
    isolation,
    joining,
    launcher_env,
    memcg,
    root_links,
)
from bots.sandbox.seccomp import filter_bpf
from games.engine.table import plural

log = logging.getLogger("bots.sandbox.compiling")

#: how the compiler says it ran out of memory (its address space or its cgroup)
MEMORY_MARKERS = ("out of memory", "virtual memory exhausted", "Cannot allocate memory")
#: how the compiler says a file it wrote reached the largest size (RLIMIT_FSIZE)
SIZE_MARKER = "File size limit exceeded"
#: where a compiled program is in the compiler's sandbox (read back from its stdout)
PROGRAM = "/tmp/program"


#: how a refusal for the compile's time (its CPU limit) begins: :func:`_took_s`
TOOK = "compiling took over"
#: seconds a compile may wait without computing: every thread of it asleep (waiting for
#: something, not for a CPU), with under :data:`BLOCKED_CPU` of a core, for this long, and it
#: reads something that never ends (a device, a pipe): the code's refusal (:func:`_run`)
BLOCKED_S = 30.0
#: the share of a core, running and waiting for a CPU together, under which a compile whose
#: threads all sleep is not computing
BLOCKED_CPU = 0.05
#: seconds between two looks at whether a compile computes; a look later than twice this
#: (the machine, or this process, was held up) starts the count again
LOOK_S = 1.0
#: how the words of a compile stopped by the clock begin (:class:`CompileBusy`)
BUSY = "the machine was too busy to compile the bot"
#: how long the stops of a code by the clock are counted (:func:`busy_stops`)
BUSY_KEPT_S = 24 * 3600


class CompileError(BotStartError):
    """The compiler refused the bot's code, or went over a limit compiling it: the bot's
    fault, said with the compiler's first messages. ``took_s``: stopped at its CPU limit, the
    seconds of wall time it took at least (that limit), else None; ``cached``: a refusal read
    from the machine's cache, not compiled now."""

    def __init__(self, message: str, *, took_s: float | None = None, cached: bool = False) -> None:
        super().__init__(message)
        self.took_s = took_s
        self.cached = cached


class CompileBusy(SandboxBusy):
    """The compile was stopped at its wall-clock limit (before its CPU limit): the machine
    was too busy to give it its time. The platform's trouble (a
    :class:`~bots.running.process.PlatformError`), never the bot's verdict: no refusal is
    kept, and the work is tried again later. ``cpu_s``: the CPU it had, which whoever asked
    for the compile is charged; ``stops``: the CPU of each stop of this code by the clock in
    the last :data:`BUSY_KEPT_S` (this one last), for those who try it again to stop at a
    few; ``cpu_limit``: its CPU limit."""

    def __init__(
        self, message: str, *, cpu_s: float = 0.0, stops: tuple[float, ...] = (),
        cpu_limit: int = 0,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.cpu_s = cpu_s
        self.stops = stops or (cpu_s,)
        self.cpu_limit = cpu_limit


class CompileKilled(PlatformError):
    """The compiler was killed (SIGKILL) by none of the compile's limits: not its memory
    cgroup's, and before any of its processes could reach the CPU limit. An operator or the
    machine's out-of-memory killer: the platform's trouble, never the code's; tried again."""


@dataclass(frozen=True)
class CompileLimits:
    """What compiling one bot may take (docs/sandbox.md, "Compiled languages")."""

    #: CPU seconds, every process of the compiler together (RLIMIT_CPU of each, and the
    #: deadline below counts the wall clock): the code's limit
    cpu_s: int = 60
    #: seconds of wall time before the compiler is stopped: a backstop, four times the CPU
    #: limit, that only a loaded machine reaches (:class:`CompileBusy`, never the code's)
    wall_s: float = 240.0
    #: memory in MiB (its memory cgroup; the address space of each of its processes too)
    memory_mb: int = 2048
    #: the private /tmp (object files, the program), MiB
    tmp_mb: int = 512
    #: the largest program, MiB (read from the compiler's stdout; past it, it is stopped): the
    #: starters' are about 0.2 MiB (C++) and 20 KiB (a jar), so 8 leaves a bot's own tables
    #: room; a static array of 60 MiB does not fit (a program is kept in the machine's cache)
    program_mb: int = 8
    #: the largest file the compiler writes in its /tmp, MiB (RLIMIT_FSIZE: object files, a
    #: jar's entries unpacked to be checked)
    files_mb: int = 64
    #: processes and threads of the compiler's uid
    processes: int = 64
    #: bytes of the compiler's messages read; past them it is stopped
    messages_bytes: int = 1 * MiB
    #: lines of its messages shown to the bot's author
    shown_lines: int = 40


LIMITS = CompileLimits()

#: the cache's total size in MiB where the setting ``COMPILE_CACHE_MB`` does not say
CACHE_MB = 1024
#: seconds after which a temporary file or a lock file of the cache is a dead writer's
STALE_S = 3600
#: an entry read is touched (its modification time made now) when it is older than this:
#: least recently used is good to the minute, and most reads write nothing
TOUCH_S = 60
#: how a program kept compressed begins (zlib follows); one that compression would not make
#: smaller (a jar) is kept as it is: an ELF program or a jar never begins so
PACKED = b"CAZ1"
#: the cache's own lock, held while an entry is made room for and put in place
EVICT_LOCK = ".evict.lock"
#: seconds the refusal of code compiled for one use (:func:`transient`: a playground run's)
#: is kept: the same code run again within them is not compiled again (its program is never
#: kept; a refusal is the compiler's words, a few KiB)
ONE_USE_REFUSAL_S = 24 * 3600


def cache_dir() -> Path:
    """The machine's cache of compiled programs: ``VAR_DIR/compiled`` (a folder of the
    platform's: never mounted into a sandbox)."""
    var = getattr(project_settings(), "VAR_DIR", None)  # (None: no settings)
    base = Path(var) if var else Path(tempfile.gettempdir()) / "card-arena"
    return base / "compiled"


def cache_limit() -> int:
    """The most bytes the machine's cache of compiled programs holds (the setting
    ``COMPILE_CACHE_MB``, MiB; :data:`CACHE_MB` without settings)."""
    settings = project_settings()
    mb = getattr(settings, "COMPILE_CACHE_MB", CACHE_MB) if settings is not None else CACHE_MB
    return max(0, int(mb)) * MiB


@dataclass
class OneUse:
    """Code compiled for one use (:func:`transient`): its programs or refusals, by cache key,
    kept in this process for as long as the use lasts; its program never on disk."""

    source: str
    #: what it is compiled within (None: :data:`LIMITS`, or what the caller passes)
    limits: CompileLimits | None = None
    made: dict[str, bytes | CompileError] = field(default_factory=dict)
    #: its refusal, compiled now or read from the cache, if it was refused
    refusal: CompileError | None = None


_transient: list[OneUse] = []
_transient_lock = threading.Lock()


@contextlib.contextmanager
def transient(source: bytes, limits: CompileLimits | None = None) -> Iterator[OneUse]:
    """While in the block, a bot file of exactly ``source`` that is not in the machine's cache
    is compiled for this process's use only, within ``limits`` if given: its program kept in
    memory until the block ends, never written to the cache (a playground run's one-off code,
    which may change at every run: kept, it would fill the disk). Its refusal is kept in the
    cache, for :data:`ONE_USE_REFUSAL_S` (by the hash of everything that went in, the limits
    too): the same code run again in that time is refused without a compile, on any worker
    of the machine. An entry the cache already holds (an uploaded version of the same code)
    is used as always. Yields the :class:`OneUse`, which says what came of it."""
    scope = OneUse(hashlib.sha256(source).hexdigest(), limits)
    with _transient_lock:
        _transient.append(scope)
    try:
        yield scope
    finally:
        with _transient_lock:
            _transient.remove(scope)


def _transient_for(source: bytes) -> OneUse | None:
    with _transient_lock:
        if not _transient:
            return None
        digest = hashlib.sha256(source).hexdigest()
        return next((t for t in reversed(_transient) if t.source == digest), None)


def program(
    language: Language,
    bot_name: str,
    source: bytes,
    game: Any,
    *,
    config: SandboxConfig | None = None,
    limits: CompileLimits = LIMITS,
    sandboxed: bool = True,
    worker: bool = True,
) -> bytes:
    """The bot's program, compiled from ``source`` (its file ``bot_name``) for ``game``:
    from the machine's cache, else compiled now (in the sandbox; ``sandboxed=False``: as a
    plain child process, for ``arena --no-sandbox`` only) and kept; a ``worker``'s compile
    may take any sandbox slot, a live table's not the workers' reserve. Raises
    CompileError (its messages naming the bot's file ``bot_name``: :func:`_as_given`), or the
    sandbox's errors for the platform's trouble."""
    files = language.compile_files(bot_name, source, game)
    # the compiler's script (the files under /: the sandbox's paths), part of the cache key
    script = language.compile_script(sorted(files), config)
    folder = cache_dir() / language.name
    key = _key(language, files, script, config, sandboxed, limits)
    try:
        found = _cached(language, folder / key, folder / f"{key}.refused", limits)
        if found is not None:
            return found
        scope = _transient_for(source)
        if scope is not None:  # compiled for this use only: its program in memory, never kept
            return _one_use(scope, language, files, script, config, limits, sandboxed, worker)
        return _compile_once(
            language, files, script, config, limits, sandboxed, worker, folder, key, one_use=False
        )
    except CompileError as exc:
        raise _as_given(exc, files, bot_name) from None


def _as_given(refusal: CompileError, files: dict[str, bytes], bot_name: str) -> CompileError:
    """A refusal whose messages name the bot's file as it was given (``gc_compile.cpp:23:5:
    error``), not by its path in the compiler's sandbox (``/bot/gc_compile.cpp``, or, for a
    language whose files are named after their class, ``/bot/GoofspielStarter.java``). The
    refusal kept is the compiler's own words: the same code given under another name is
    named so."""
    suffix = Path(bot_name).suffix
    message = str(refusal)
    for name in files:
        if name.startswith("/bot/") and Path(name).suffix == suffix:
            message = message.replace(name, bot_name)
    return CompileError(message, took_s=refusal.took_s, cached=refusal.cached)


def _key(
    language: Language,
    files: dict[str, bytes],
    script: str,
    config: SandboxConfig | None,
    sandboxed: bool,
    limits: CompileLimits,
) -> str:
    """The cache key: the hash of everything that went in."""
    digest = hashlib.sha256()
    for part in (
        language.name,
        language.toolchain(config),
        script,
        "sandbox" if sandboxed else "plain",
        repr(limits),
    ):
        digest.update(part.encode() + b"\0")
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()


def _one_use(
    scope: OneUse,
    language: Language,
    files: dict[str, bytes],
    script: str,
    config: SandboxConfig | None,
    limits: CompileLimits,
    sandboxed: bool,
    worker: bool,
) -> bytes:
    """The program of code compiled for one use (:func:`transient`), within the scope's
    limits: compiled once in the scope; its refusal kept in the cache a while."""
    limits = scope.limits or limits
    key = _key(language, files, script, config, sandboxed, limits)
    if key not in scope.made:
        try:
            scope.made[key] = _compile_once(
                language, files, script, config, limits, sandboxed, worker,
                cache_dir() / language.name, key, one_use=True,
            )  # fmt: skip
        except CompileError as exc:
            scope.made[key] = scope.refusal = exc
    made = scope.made[key]
    if isinstance(made, CompileError):
        raise CompileError(str(made), took_s=made.took_s, cached=made.cached)
    return made


def _compile_once(
    language: Language,
    files: dict[str, bytes],
    script: str,
    config: SandboxConfig | None,
    limits: CompileLimits,
    sandboxed: bool,
    worker: bool,
    folder: Path,
    key: str,
    *,
    one_use: bool,
) -> bytes:
    """Compile, one compile of a code on the machine at a time: the workers that need it at
    once (a version's first matches, side by side) wait for the first one's, and find it
    kept. ``one_use``: only a refusal is kept, for :data:`ONE_USE_REFUSAL_S`."""
    kept, refused = folder / key, folder / f"{key}.refused"
    folder.mkdir(parents=True, exist_ok=True)
    lock_path = folder / f".{key}.lock"
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            found = _cached(language, kept, refused, limits)
            if found is not None:
                return found
            return _compile_and_keep(
                language, files, script, config, limits, sandboxed, worker,
                None if one_use else kept, refused,
                ONE_USE_REFUSAL_S if one_use else None,
            )  # fmt: skip
        finally:
            # the lock file goes with the compile (one a code would pile up): a worker that
            # waits on it finds the entry kept; one that makes a new lock file finds it too
            # (at worst, with the entry evicted meanwhile, it compiles the code again)
            with contextlib.suppress(OSError):
                lock_path.unlink()


def _cached(language: Language, kept: Path, refused: Path, limits: CompileLimits) -> bytes | None:
    """The program kept for this code, or its refusal raised; None if neither is kept (or
    the refusal of code compiled for one use is past its time, or it is a stop by the clock
    kept before one said whose it was: compiled again). The entry read is touched (least
    recently used goes first, :func:`_make_room`)."""
    with contextlib.suppress(OSError, zlib.error):
        return _unpacked(_read_touched(kept))
    with contextlib.suppress(OSError, ValueError, TypeError):
        said = json.loads(_read_touched(refused).decode("utf-8"))
        if float(said.get("until", "inf")) < time.time():
            return None  # (compiled again, and kept again)
        why = said["why"]
        if isinstance(why, str) and why.startswith(TOOK) and not why.endswith(" s of CPU"):
            return None  # a stop by the clock kept by an earlier version: the machine's load
        raise _refusal(language, str(said["messages"]), said["why"], limits, cached=True)
    return None


def _read_touched(path: Path) -> bytes:
    """A cache entry's bytes, read whole from one open file (an entry evicted meanwhile is
    unlinked, not cut: what is open reads to its end), and its time made now if it was not
    used in the last :data:`TOUCH_S` seconds."""
    with open(path, "rb") as entry:
        data = entry.read()
        if os.fstat(entry.fileno()).st_mtime < time.time() - TOUCH_S:
            with contextlib.suppress(OSError):
                os.utime(entry.fileno())
    return data


def _compile_and_keep(
    language: Language,
    files: dict[str, bytes],
    script: str,
    config: SandboxConfig | None,
    limits: CompileLimits,
    sandboxed: bool,
    worker: bool,
    kept: Path | None,
    refused: Path | None,
    remember_s: float | None = None,
) -> bytes:
    """Compile; keep the program, or the refusal, in the cache (not with ``kept`` or
    ``refused`` None; a refusal for ``remember_s`` seconds if given, else until evicted).
    Raises CompileError, or the platform's errors (:class:`CompileBusy`: nothing kept)."""
    config = config or SandboxConfig.from_settings()
    for tool in language.compile_tools(config):
        if not os.path.exists(tool):
            raise SandboxUnavailable(
                f"{tool} is missing: {language.title} bots cannot be compiled here "
                "(docs/sandbox.md, what it needs on the machine)"
            )
    try:
        code, made, messages, why = _compile(
            language, files, script, config, limits, sandboxed, worker
        )
    except CompileBusy as exc:
        if refused is None:
            raise
        stops = _count_busy(refused.with_suffix(".busy"), exc.cpu_s)
        raise CompileBusy(
            str(exc) + _stops_text(stops), cpu_s=exc.cpu_s, stops=stops, cpu_limit=limits.cpu_s
        ) from None
    if why is None and code == 0 and made:
        if kept is not None:
            _keep(kept, _packed(made))
        if refused is not None:
            with contextlib.suppress(OSError):
                refused.with_suffix(".busy").unlink()
        return made
    if why is None and any(marker in messages for marker in MEMORY_MARKERS):
        why = f"compiling needed over {limits.memory_mb} MiB of memory"
    if why is None and SIZE_MARKER in messages:  # an object file or the program: RLIMIT_FSIZE
        why = f"the compiler wrote a file over {limits.files_mb} MiB"
    if why is None and not messages.strip():
        raise SandboxUnavailable(f"the compiler's sandbox failed without a word (status {code})")
    # what the compiler said is kept as it said it: how it is shown may change
    messages = messages[: limits.messages_bytes]
    if refused is not None:
        said: dict[str, Any] = {"why": why, "messages": messages}
        if remember_s is not None:
            said["until"] = time.time() + remember_s
        _keep(refused, json.dumps(said).encode())
    raise _refusal(language, messages, why, limits)


def busy_stops(
    language: Language, bot_name: str, source: bytes, game: Any, *,
    config: SandboxConfig | None = None, limits: CompileLimits = LIMITS,
) -> tuple[float, ...]:  # fmt: skip
    """The CPU of each stop of this code's compile by the clock in the last
    :data:`BUSY_KEPT_S` (none: never stopped, or compiled since)."""
    files = language.compile_files(bot_name, source, game)
    script = language.compile_script(sorted(files), config)
    key = _key(language, files, script, config, True, limits)
    return _read_busy(cache_dir() / language.name / f"{key}.busy")


def _read_busy(path: Path) -> tuple[float, ...]:
    with contextlib.suppress(OSError, ValueError, TypeError):
        said = json.loads(path.read_bytes().decode("utf-8"))
        if float(said["until"]) >= time.time():
            return tuple(float(cpu) for cpu in said["cpu"])
    return ()


def _count_busy(path: Path, cpu: float) -> tuple[float, ...]:
    """Count a stop of a code by the clock (with ``cpu`` seconds of CPU) in its entry: the
    stops of the last :data:`BUSY_KEPT_S`, this one last."""
    stops = (*_read_busy(path), round(cpu, 1))[-10:]
    with contextlib.suppress(OSError):
        _keep(path, json.dumps({"cpu": stops, "until": time.time() + BUSY_KEPT_S}).encode())
    return stops


def seconds_text(values: tuple[float, ...] | list[float]) -> str:
    """``24 s, 23 s and 28 s``."""
    said = [f"{value:.0f} s" for value in values]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + f" and {said[-1]}"


def _stops_text(stops: tuple[float, ...]) -> str:
    if len(stops) < 2:
        return ""
    return (
        f"; the clock stopped this code's compile {len(stops)} times in a day, with "
        f"{seconds_text(stops)} of CPU"
    )


def _packed(program: bytes) -> bytes:
    """A program as the cache keeps it: compressed (a static table of zeros, kilobytes in
    place of megabytes: one person's uploads cannot fill the cache for little), or as it is
    where that is no smaller."""
    packed = PACKED + zlib.compress(program, 6)
    return packed if len(packed) < len(program) else program


def _unpacked(data: bytes) -> bytes:
    """A program kept in the cache (:func:`_packed`), as it was made."""
    if data.startswith(PACKED):
        return zlib.decompress(data[len(PACKED) :])  # (the platform's own writing)
    return data


def _keep(path: Path, data: bytes) -> bool:
    """Write a cache entry whole or not at all (two workers compiling the same code each
    write their own and the last one stays: the same either way), after making room for it
    (:func:`_make_room`). False if it was not kept: larger than the whole cache."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        root = path.parent.parent
        with open(root / EVICT_LOCK, "a") as lock:
            # one worker at a time makes room and puts its entry in place: what it counted
            # stays true until its entry is there
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _make_room(root, len(data), cache_limit(), keep=path):
                os.unlink(temporary)
                return False
            os.replace(temporary, path)
        return True
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _entries(root: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """The cache's entries (a program, or a refusal: one file each), every language's,
    with their status; temporaries and lock files (``.``-named) are not entries."""
    with contextlib.suppress(OSError):
        for folder in os.scandir(root):
            if folder.name.startswith(".") or not folder.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                for item in os.scandir(folder.path):
                    with contextlib.suppress(OSError):
                        if not item.name.startswith(".") and item.is_file(follow_symlinks=False):
                            yield Path(item.path), item.stat(follow_symlinks=False)


def _make_room(root: Path, size: int, limit: int, keep: Path | None = None) -> bool:
    """Evict the least recently used entries (by their time, which a read touches) until a
    new entry of ``size`` bytes fits in ``limit`` with them; the entry ``keep`` replaces is
    not counted. False (and nothing evicted) if ``size`` alone is over the limit. An entry
    goes whole: a file unlinked, which a worker reading it reads to its end. A dead writer's
    temporaries go too."""
    if size > limit:
        return False
    entries = sorted((info.st_mtime, path, info.st_size) for path, info in _entries(root))
    total = sum(bytes_ for _, path, bytes_ in entries if path != keep)
    for _, path, bytes_ in entries:
        if total + size <= limit:
            break
        if path == keep:
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            name = f"{path.parent.name}/{path.name}"
            log.info("event=compiled.evicted entry=%s bytes=%d", name, bytes_)
        total -= bytes_
    _sweep(root)
    return True


def _sweep(root: Path) -> None:
    """Temporaries (``.part-*``) that a worker that died left, and lock files of compiles
    that ended without removing theirs, older than :data:`STALE_S`."""
    old = time.time() - STALE_S
    with contextlib.suppress(OSError):
        for folder in os.scandir(root):
            if folder.name.startswith(".") or not folder.is_dir(follow_symlinks=False):
                continue
            for item in os.scandir(folder.path):
                stale = item.name.startswith(".part-") or item.name.endswith(".lock")
                with contextlib.suppress(OSError):
                    if stale and item.name.startswith(".") and item.stat().st_mtime < old:
                        os.unlink(item.path)


def _compile(
    language: Language,
    files: dict[str, bytes],
    script: str,
    config: SandboxConfig,
    limits: CompileLimits,
    sandboxed: bool,
    worker: bool,
) -> tuple[int | None, bytes, str, str | None]:
    """Run the compiler: (exit status, the program it wrote, its messages, why it was
    stopped or None)."""
    if not sandboxed:
        return _compile_plain(language, files, config, limits)
    slot = acquire_slot(config, worker=worker)
    cgroup = memcg.create(
        limits.memory_mb * MiB,
        uid=slot.uid if slot else None,
        name=slot.cgroup_name if slot else None,
    )
    fds: dict[str, int] = {}
    try:
        command = _sandbox_command(
            language, files, script, config, limits, slot is not None, cgroup
        )
        data = {f"{{file:{name}}}": body for name, body in files.items()}
        data["{seccomp}"] = filter_bpf(processes=False)
        fds = {key: _memfd(value) for key, value in data.items()}
        command = [str(fds[a]) if a in fds else a for a in command]
        extra: dict[str, Any] = {}
        if slot is not None:
            extra = {"user": slot.uid, "group": slot.uid, "extra_groups": []}
        before = cgroup.oom_kills() if cgroup is not None else 0

        def oom_killed() -> bool:  # (by its own limit: the machine's OOM killer counts too)
            return cgroup is not None and cgroup.oom_kills() > before and cgroup.limit_reached()

        code, out, messages, why = _run(
            command, env=launcher_env(slot), pass_fds=tuple(fds.values()), limits=limits,
            oom_killed=oom_killed, **extra,
        )  # fmt: skip
        if why is None and code != 0 and cgroup is not None and cgroup.oom_kills() > before:
            why = f"compiling needed over {limits.memory_mb} MiB of memory"
    finally:
        for fd in fds.values():
            os.close(fd)
        if cgroup is not None:
            cgroup.remove()
        if slot is not None:
            slot.release()
    return code, out, messages, why


def _compile_plain(
    language: Language,
    files: dict[str, bytes],
    config: SandboxConfig,
    limits: CompileLimits,
) -> tuple[int | None, bytes, str, str | None]:
    """``arena --no-sandbox``: the same compiler and flags on the author's own file, in a
    private folder laid out as the sandbox's (its paths under it)."""
    with tempfile.TemporaryDirectory(prefix="arena-compile-") as root:
        for name, body in files.items():
            path = Path(root) / name.lstrip("/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
        (Path(root) / "tmp").mkdir(exist_ok=True)
        script = language.compile_script(sorted(files), config, root=f"{root}/")
        output = f"{root}{PROGRAM}"
        command = _printing(script, output)
        code, out, messages, why = _run(
            command, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, pass_fds=(), limits=limits
        )
        messages = messages.replace(f"{root}/", "/").replace(root, "")
    return code, out, messages, why


def _sandbox_command(
    language: Language,
    files: dict[str, bytes],
    script: str,
    config: SandboxConfig,
    limits: CompileLimits,
    slotted: bool,
    cgroup: memcg.MemoryCgroup | None,
) -> list[str]:
    command = joining([cgroup.procs_file] if cgroup is not None else [])
    command += [
        config.prlimit,
        f"--as={limits.memory_mb * MiB}",
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 5}",
        f"--fsize={limits.files_mb * MiB}",
        "--nofile=256",
        "--core=0",
        *([f"--nproc={limits.processes}"] if slotted else []),
        "--",
        config.bwrap,
        *isolation(),
        *compile_mounts(language, config),
    ]  # fmt: skip
    if getattr(language, "compile_proc", True):  # (a JVM finds its libraries through it)
        command += ["--proc", "/proc"]
    for device in COMPILE_DEVICES:
        command += ["--dev-bind", device, device]
    command += ["--size", str(limits.tmp_mb * MiB), "--tmpfs", "/tmp"]
    for name in files:
        command += ["--perms", "0444", "--ro-bind-data", f"{{file:{name}}}", name]
    command += ["--remount-ro", "/", "--chdir", "/tmp", "--seccomp", "{seccomp}", "--"]
    return command + _printing(script, PROGRAM)


#: the devices a compile's /dev holds, and nothing else: bwrap's whole /dev (``--dev``) has
#: a terminal's (``/dev/ptmx``, ``/dev/tty``), whose read waits for ever, and ``/dev/fd``,
#: ``/dev/stdin`` into /proc, which holds the compiler's own pipes. ``/dev/random`` is Java's
#: seed (``securerandom.source``): without it the JDK seeds its SecureRandom by timing threads
#: that spin, and ``jar``, which names its temporary file with one, spent 8 s of CPU on every
#: Java compile (9.2 s in all, against 0.7 s with it)
COMPILE_DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
#: the system's folders every compiler's sandbox has, read-only: the shared libraries, and
#: what a compiler keeps there (gcc's cc1plus and collect2, its own headers and libstdc++; a JDK)
LIB_FOLDERS = ("/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32")
#: the programs the compile's shell runs itself, besides the language's (:func:`_printing`)
SCRIPT_TOOLS = (SHELL, "/usr/bin/cat")


def compile_mounts(language: Language, config: SandboxConfig) -> list[str]:
    """bwrap's arguments for what of the system a compile sees, read-only, and nothing more
    (traced with ``strace`` on Debian 12): :data:`LIB_FOLDERS`, the top-level links into
    /usr, the language's own folders (``compile_binds``: C++'s /usr/include, the JDK's
    configuration), and each program and file of the script and of the language's
    ``compile_tools`` (a link to one stays a link). The rest of /usr (/usr/local, /usr/share,
    the rest of /usr/bin) is not there: an ``#include`` of a file of it is not found."""
    args: list[str] = []
    for folder in LIB_FOLDERS:
        if os.path.isdir(folder) and not os.path.islink(folder):
            args += ["--ro-bind", folder, folder]
    args += root_links() + language.compile_binds()
    bound = [args[i + 2] for i, arg in enumerate(args) if arg in ("--ro-bind", "--ro-bind-try")]
    seen: set[str] = set()
    for tool in (*SCRIPT_TOOLS, *language.compile_tools(config)):
        path = _in_real_folder(tool)  # (/bin/sh is /usr/bin/sh)
        for _ in range(8):  # its links, each a link in the sandbox: g++ -> g++-12 -> ...
            if not os.path.islink(path):
                break
            target = os.readlink(path)
            if path not in seen:
                seen.add(path)
                args += ["--symlink", target, path]
            path = _in_real_folder(os.path.join(os.path.dirname(path), target))
        if path in seen or any(path == f or path.startswith(f"{f}/") for f in bound):
            continue
        seen.add(path)
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _in_real_folder(path: str) -> str:
    """``path`` with its folder's links resolved, not its own."""
    path = os.path.normpath(path)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _printing(script: str, program: str) -> list[str]:
    """The shell that runs the compile ``script`` with its messages on stderr, then writes
    the ``program`` it made to stdout (where the sandbox's caller reads it)."""
    return [SHELL, "-c", f"({script}) 1>&2 && cat {program}"]


def _run(
    command: list[str],
    *,
    env: dict[str, str],
    pass_fds: tuple[int, ...],
    limits: CompileLimits,
    oom_killed: Callable[[], bool] | None = None,
    **extra: Any,
) -> tuple[int | None, bytes, str, str | None]:
    """Run the compiler: (exit status, what it wrote to stdout, its messages, why it was
    stopped or None). Its messages and the program are read as they come, within the
    limits (a compiler that writes more, or takes longer, is stopped). A compiler killed
    by none of these is the code's if ``oom_killed`` says its memory limit did, or if it
    had the CPU the CPU limit allows; else :class:`CompileKilled` is raised."""
    try:
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd="/", pass_fds=pass_fds, start_new_session=True, **extra,
        )  # fmt: skip
    except OSError as exc:
        raise SandboxUnavailable(f"the compiler's sandbox does not start: {exc}") from None
    out, err = bytearray(), bytearray()
    why = None
    cpu_at_deadline: float | None = None  # (stopped by the clock: the compile's CPU then)
    deadline = time.monotonic() + limits.wall_s
    waiting = _Waiting(proc.pid)
    assert proc.stdout is not None and proc.stderr is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, out)
        selector.register(proc.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            now = time.monotonic()
            left = deadline - now
            if now >= waiting.next_look:
                waiting.look(now)
                if waiting.streak >= BLOCKED_S:
                    why = _blocked(waiting.streak, tree_cpu_s(proc.pid))
                    break
            if left <= 0:
                cpu_at_deadline = tree_cpu_s(proc.pid)
                if waiting.total >= limits.wall_s / 2:  # asleep most of it: not the machine
                    why = _blocked(waiting.total, cpu_at_deadline)
                    cpu_at_deadline = None
                    break
                why = f"{TOOK} {limits.wall_s:g} s"
                break
            for key, _ in selector.select(max(0.0, min(left, waiting.next_look - now))):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
            if len(err) > limits.messages_bytes:
                why = f"the compiler wrote over {limits.messages_bytes // 1024} KiB of messages"
                break
            if len(out) > limits.program_mb * MiB:
                why = f"the compiled program is over {limits.program_mb} MiB"
                break
    if why is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, 9)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(proc.pid, 9)  # (not Popen.kill: it may reap it, and wait4 below must)
    # (the CPU of the whole tree, every process of which its parent waited for)
    _, status, usage = os.wait4(proc.pid, 0)
    code = proc.returncode = os.waitstatus_to_exitcode(status)
    cpu_s = usage.ru_utime + usage.ru_stime
    proc.stdout.close()
    proc.stderr.close()
    if cpu_at_deadline is not None:
        _wall_clock_stop(cpu_at_deadline, limits)
    messages = err.decode("utf-8", "replace")
    if why is None and code in (-24, 128 + 24):  # SIGXCPU: the CPU limit's first word
        why = f"{TOOK} {limits.cpu_s} s of CPU"
    elif why is None and code != 0 and _DRIVER_OUT_OF_CPU.search(messages):
        # g++ itself lives on when the CPU limit ends its compiler proper (cc1plus), and
        # says so as "internal compiler error: CPU time limit exceeded": the limit's, not
        # a crash of the compiler's to report
        why = f"{TOOK} {limits.cpu_s} s of CPU"
    elif why is None and (code in (137, -9) or (code != 0 and _DRIVER_KILLED.search(messages))):
        # SIGKILL: the memory cgroup's, the CPU limit's last word (after a SIGXCPU its
        # process ignored), or someone else's: an operator, the machine's OOM killer
        if oom_killed is not None and oom_killed():
            why = f"compiling needed over {limits.memory_mb} MiB of memory"
        elif cpu_s >= limits.cpu_s * CPU_SEEN_SHARE:
            why = f"{TOOK} {limits.cpu_s} s of CPU"
        else:
            raise CompileKilled(
                f"the compiler was killed from outside after {cpu_s:.1f} s of CPU, within "
                f"its limits (an operator, or the machine short of memory): tried again later"
            )
    return code, bytes(out), messages, why


#: a compiler driver's line saying the CPU limit ended the program it ran (GCC: "g++:
#: internal compiler error: CPU time limit exceeded signal terminated program cc1plus")
_DRIVER_OUT_OF_CPU = re.compile(
    r"^[\w.+-]+: (?:internal compiler error|fatal error): CPU time limit exceeded", re.MULTILINE
)


#: of the CPU limit, what a compile killed by SIGKILL must have been seen to use to be taken
#: as stopped by it (its hard limit, after a SIGXCPU ignored): the CPU its parent is told of
#: runs short of what the limit counted (0.8-0.9 s for a process killed at a limit of 1 s, on
#: a loaded machine)
CPU_SEEN_SHARE = 0.5
#: a compiler driver's line saying a program it ran was killed (SIGKILL: GCC's "g++: fatal
#: error: Killed signal terminated program cc1plus")
_DRIVER_KILLED = re.compile(
    r"^[\w.+-]+: (?:internal compiler error|fatal error): Killed signal", re.MULTILINE
)


def _blocked(seconds: float, cpu: float) -> str:
    """Why a compile that waited ``seconds`` without computing (``cpu``: the CPU it had) is
    refused: it reads something that never ends, the code's doing."""
    return (
        f"the compiler waited {seconds:.0f} s without computing (it had {cpu:.1f} s of CPU): "
        "the code makes it read something that never ends, such as a device"
    )


class _Waiting:
    """How long the compile under process ``root`` has waited without computing, looked at
    every :data:`LOOK_S`: between two looks, every thread of it asleep at both ('S': waiting
    for something, not for a CPU, nor for the disk, 'D'; or a zombie), the same threads, and
    under :data:`BLOCKED_CPU` of a core ran and waited for a CPU (``/proc/<tid>/schedstat``).
    ``streak``: the seconds of the last such run of looks; ``total``: of all of them. A look
    more than twice :data:`LOOK_S` after the last (this process held up) counts nothing."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.next_look = time.monotonic() + LOOK_S
        self.streak = 0.0
        self.total = 0.0
        self._last: tuple[float, dict[int, int], bool] | None = None

    def look(self, now: float) -> None:
        counts, asleep = _thread_counts(self.root)
        asleep = asleep and bool(counts)
        if self._last is not None:
            at, before, was_asleep = self._last
            gap = now - at
            used = sum(counts.values()) - sum(before.values())
            if (
                asleep
                and was_asleep
                and counts.keys() == before.keys()
                and gap <= 2 * LOOK_S
                and used <= BLOCKED_CPU * gap * 1e9
            ):
                self.streak += gap
                self.total += gap
            else:
                self.streak = 0.0
        self._last = (now, counts, asleep)
        self.next_look = now + LOOK_S


def _thread_counts(root: int) -> tuple[dict[int, int], bool]:
    """Each thread of the process tree under ``root``: {tid: nanoseconds it ran and waited
    for a CPU}, and whether every one of them is asleep ('S') or a zombie."""
    counts: dict[int, int] = {}
    asleep = True
    for pid in _tree(root):
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    with open(f"/proc/{pid}/task/{tid}/stat", "rb") as file:
                        stat = file.read()
                    with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as file:
                        ran, waited = file.read().split()[:2]
                    counts[int(tid)] = int(ran) + int(waited)
                    asleep = asleep and stat[stat.rindex(b")") + 2 :][:1] in (b"S", b"Z")
    return counts, asleep


def _wall_clock_stop(cpu: float, limits: CompileLimits) -> None:
    """A compile stopped at its wall-clock limit, having had ``cpu`` seconds of CPU (under
    its CPU limit, which would have stopped it first): raises :class:`CompileBusy`. The
    machine, not the code, took the time: never the code's verdict."""
    raise CompileBusy(
        f"{BUSY}: it was stopped at its {limits.wall_s:g} s of wall time having had "
        f"{cpu:.1f} s of CPU of its {limits.cpu_s} s; no refusal was kept, and it can be "
        "tried again",
        cpu_s=cpu,
        cpu_limit=limits.cpu_s,
    )


def _refusal(
    language: Language,
    messages: str,
    why: str | None,
    limits: CompileLimits,
    *,
    cached: bool = False,
) -> CompileError:
    """The bot's CompileError: what went over a limit, if anything, and the compiler's first
    lines (``cached``: read from the cache)."""
    shown = _first_lines(messages, limits.shown_lines)
    head = f"{language.title} compile error" + (f": {why}" if why else "")
    message = head + (f"\n{shown}" if shown else "")
    return CompileError(message, took_s=_took_s(why, limits), cached=cached)


def _took_s(why: str | None, limits: CompileLimits) -> float | None:
    """The wall time a compile stopped at its time took at least (the limit that stopped
    it: a process's CPU time is no more than its wall time), or None if it was not."""
    if why == f"{TOOK} {limits.cpu_s} s of CPU":
        return float(limits.cpu_s)
    return None


def _first_lines(text: str, count: int) -> str:
    """The compiler's first ``count`` lines (each cut at 300 characters), and how many more
    there were; lines about the platform's own file that includes the bot's are left out
    (``In file included from /src/main.cpp:3:``, and the ``from /src/main.cpp:3:`` that ends
    a chain of includes, the line before it then ending as a chain's last line does)."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        if line.startswith("In file included from /src/main.cpp"):
            continue
        if line[:1].isspace() and line.lstrip().startswith("from /src/main.cpp:"):
            before = lines[-1].lstrip() if lines else ""
            if before.startswith(("In file included from ", "from ")) and before.endswith(","):
                lines[-1] = lines[-1][:-1] + ":"
            continue
        lines.append(line)
    lines = [line if len(line) <= 300 else line[:297] + "..." for line in lines]
    if len(lines) <= count:
        return "\n".join(lines)
    return "\n".join(lines[:count]) + f"\n... ({plural(len(lines) - count, 'more line')})"
