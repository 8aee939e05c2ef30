"""Compiling a bot of a language that compiles (``Language.compiled``: C++): untrusted work,
done in the sandbox with limits of its own, once per machine for each code.

The compiler is trusted, what it reads is not: a bot's file can ask it for any amount of
time, memory and messages (a template recursion, an include of ``/dev/zero``, a macro that
doubles at every step). So it runs like a bot does: as the sandbox's uid of a slot, in
bubblewrap's namespaces (no network), under the seccomp filter less its rules on making
processes (the compiler starts its own: the front end, the assembler, the linker), with
``/usr`` read-only and a private ``/tmp``, and with :class:`CompileLimits`: CPU time and a
deadline, memory (a memory cgroup where the machine has one, else the address space),
processes, the program's size and the messages kept. The program comes out on its standard
output; the compiler's messages on its standard error, cut to their first lines.

What comes out, a program or the compiler's refusal, is kept by the hash of everything that
went in (the files, the compiler's version, its flags) in the machine's cache
(``VAR_DIR/compiled/``): a version is compiled once per machine, never per match. A
refusal is the bot's :class:`CompileError` (its start fails with the compiler's words,
like a Python traceback); a sandbox that cannot start is the platform's trouble, as for a
bot (:class:`~bots.sandbox.SandboxUnavailable`, :class:`~bots.sandbox.SandboxBusy`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import selectors
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.languages import Language
from bots.running.process import BotStartError
from bots.running.settings import project_settings
from bots.sandbox import (
    SHELL,
    MiB,
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

#: how the compiler says it ran out of memory (its address space or its cgroup)
MEMORY_MARKERS = ("out of memory", "virtual memory exhausted", "Cannot allocate memory")
#: where a compiled program is in the compiler's sandbox (read back from its stdout)
PROGRAM = "/tmp/program"


class CompileError(BotStartError):
    """The compiler refused the bot's code, or went over a limit compiling it: the bot's
    fault, said with the compiler's first messages."""


@dataclass(frozen=True)
class CompileLimits:
    """What compiling one bot may take (docs/sandbox.md, "Compiled languages")."""

    #: CPU seconds, every process of the compiler together (RLIMIT_CPU of each, and the
    #: deadline below counts the wall clock)
    cpu_s: int = 60
    #: seconds of wall time before the compiler is stopped
    wall_s: float = 120.0
    #: memory in MiB (its memory cgroup; the address space of each of its processes too)
    memory_mb: int = 2048
    #: the private /tmp (object files, the program), MiB
    tmp_mb: int = 512
    #: the largest program, MiB (RLIMIT_FSIZE)
    program_mb: int = 64
    #: processes and threads of the compiler's uid
    processes: int = 64
    #: bytes of the compiler's messages read; past them it is stopped
    messages_bytes: int = 1 * MiB
    #: lines of its messages shown to the bot's author
    shown_lines: int = 40


LIMITS = CompileLimits()


def cache_dir() -> Path:
    """The machine's cache of compiled programs: ``VAR_DIR/compiled`` (a folder of the
    platform's: never mounted into a sandbox)."""
    var = getattr(project_settings(), "VAR_DIR", None)  # (None: no settings)
    base = Path(var) if var else Path(tempfile.gettempdir()) / "card-arena"
    return base / "compiled"


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
    CompileError, or the sandbox's errors for the platform's trouble."""
    files = language.compile_files(bot_name, source, game)
    # the compiler's script (the files under /: the sandbox's paths), part of the cache key
    script = language.compile_script(sorted(files), config)
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
    folder = cache_dir() / language.name
    kept, refused = folder / digest.hexdigest(), folder / f"{digest.hexdigest()}.refused"
    found = _cached(language, kept, refused, limits)
    if found is not None:
        return found
    # one compile of a code on the machine at a time: the workers that need it at once
    # (a version's first matches, side by side) wait for the first one's, and find it kept
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f".{digest.hexdigest()}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = _cached(language, kept, refused, limits)
        if found is not None:
            return found
        return _compile_and_keep(
            language, files, script, config, limits, sandboxed, worker, kept, refused
        )


def _cached(language: Language, kept: Path, refused: Path, limits: CompileLimits) -> bytes | None:
    """The program kept for this code, or its refusal raised; None if neither is kept."""
    with contextlib.suppress(OSError):
        return kept.read_bytes()
    with contextlib.suppress(OSError, ValueError):
        said = json.loads(refused.read_text("utf-8"))
        raise _refusal(language, str(said["messages"]), said["why"], limits)
    return None


def _compile_and_keep(
    language: Language,
    files: dict[str, bytes],
    script: str,
    config: SandboxConfig | None,
    limits: CompileLimits,
    sandboxed: bool,
    worker: bool,
    kept: Path,
    refused: Path,
) -> bytes:
    config = config or SandboxConfig.from_settings()
    for tool in language.compile_tools(config):
        if not os.path.exists(tool):
            raise SandboxUnavailable(
                f"{tool} is missing: {language.title} bots cannot be compiled here "
                "(docs/sandbox.md, what it needs on the machine)"
            )
    code, made, messages, why = _compile(language, files, script, config, limits, sandboxed, worker)
    if why is None and code == 0 and made:
        _keep(kept, made)
        return made
    if why is None and any(marker in messages for marker in MEMORY_MARKERS):
        why = f"compiling needed over {limits.memory_mb} MiB of memory"
    if why is None and not messages.strip():
        raise SandboxUnavailable(f"the compiler's sandbox failed without a word (status {code})")
    # what the compiler said is kept as it said it: how it is shown may change
    messages = messages[: limits.messages_bytes]
    _keep(refused, json.dumps({"why": why, "messages": messages}).encode())
    raise _refusal(language, messages, why, limits)


def _keep(path: Path, data: bytes) -> None:
    """Write a cache entry whole or not at all (two workers compiling the same code each
    write their own and the last one stays: the same either way)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


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
        code, out, messages, why = _run(
            command, env=launcher_env(slot), pass_fds=tuple(fds.values()), limits=limits, **extra
        )
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
        f"--fsize={limits.program_mb * MiB}",
        "--nofile=256",
        "--core=0",
        *([f"--nproc={limits.processes}"] if slotted else []),
        "--",
        config.bwrap,
        *isolation(),
        "--ro-bind", "/usr", "/usr",
        *root_links(),
    ]  # fmt: skip
    command += language.compile_binds()
    command += ["--proc", "/proc", "--dev", "/dev"]
    command += ["--size", str(limits.tmp_mb * MiB), "--tmpfs", "/tmp"]
    for name in files:
        command += ["--perms", "0444", "--ro-bind-data", f"{{file:{name}}}", name]
    command += ["--remount-ro", "/", "--chdir", "/tmp", "--seccomp", "{seccomp}", "--"]
    return command + _printing(script, PROGRAM)


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
    **extra: Any,
) -> tuple[int | None, bytes, str, str | None]:
    """Run the compiler: (exit status, what it wrote to stdout, its messages, why it was
    stopped or None). Its messages and the program are read as they come, within the
    limits (a compiler that writes more, or takes longer, is stopped)."""
    try:
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd="/", pass_fds=pass_fds, start_new_session=True, **extra,
        )  # fmt: skip
    except OSError as exc:
        raise SandboxUnavailable(f"the compiler's sandbox does not start: {exc}") from None
    out, err = bytearray(), bytearray()
    why = None
    deadline = time.monotonic() + limits.wall_s
    assert proc.stdout is not None and proc.stderr is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, out)
        selector.register(proc.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                why = f"compiling took over {limits.wall_s:g} s"
                break
            for key, _ in selector.select(left):
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
        proc.kill()
    code = proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    if why is None and code in (-24, 128 + 24, 137, -9):  # SIGXCPU, or killed after it
        why = f"compiling took over {limits.cpu_s} s of CPU"
    return code, bytes(out), err.decode("utf-8", "replace"), why


def _refusal(
    language: Language, messages: str, why: str | None, limits: CompileLimits
) -> CompileError:
    """The bot's CompileError: what went over a limit, if anything, and the compiler's first
    lines."""
    shown = _first_lines(messages, limits.shown_lines)
    head = f"{language.title} compile error" + (f": {why}" if why else "")
    return CompileError(head + (f"\n{shown}" if shown else ""))


def _first_lines(text: str, count: int) -> str:
    """The compiler's first ``count`` lines (each cut at 300 characters), and how many more
    there were; lines about the platform's own file that includes the bot's are left out."""
    lines = [
        line if len(line) <= 300 else line[:297] + "..."
        for line in text.strip().splitlines()
        if not line.startswith("In file included from /src/main.cpp")
    ]
    if len(lines) <= count:
        return "\n".join(lines)
    return "\n".join(lines[:count]) + f"\n... ({len(lines) - count} more lines)"
