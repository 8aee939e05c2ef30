"""The sandbox every bot from outside the project runs in: bubblewrap, limits, seccomp.

:func:`sandbox_launch` turns a bot file into a :class:`~bots.running.process.Launch` that
:class:`~bots.running.process.BotProcess` runs like any other. Inside, the bot sees:

- no network (new, empty network namespace; non-Unix sockets refused by seccomp),
- its runtime's closure read-only (the interpreter, its standard library, the shared
  libraries they need, the dynamic loader), bound from a copy in memory that
  :mod:`bots.sandbox.mirror` keeps (with the ``/bin``, ``/lib``... links; the rest of
  ``/usr`` stays out), so that every file it can read is in memory whatever any bot does
  (timing a read tells it nothing), a fresh ``/proc`` of its own PID namespace, a
  minimal read-only ``/dev``, a private ``/tmp`` of a few MiB, and nothing else: its own
  file at ``/bot/NAME`` and the host script at ``/sandbox/`` (for a compiled language, the
  program :mod:`bots.sandbox.compiling` made of the bot's file), both read-only copies handed
  over on file descriptors (nothing of the project is mounted, and nothing is ever written
  into a folder the sandbox can reach),
- an environment holding PATH, LANG, HOME and TMPDIR only,
- a user of its own: when the worker runs as root, each live sandbox runs as uid
  ``uid_base + slot`` (so RLIMIT_NPROC counts that sandbox alone), with no capabilities;
  live tables never take the slots reserved for the workers, a worker's bot waits a while
  for a free one, and no free slot is a :class:`SandboxBusy`, the platform's trouble, never
  the bot's (see :func:`acquire_slot`, and :func:`sweep` for what a slot's taker kills),
- limits from :class:`SandboxLimits` (memory, as a whole, in a memory cgroup of its own
  where the machine allows one (:mod:`bots.sandbox.memcg`); address space, CPU time, processes,
  file size, open files, /tmp size, output per match) and the seccomp filter of
  :mod:`bots.sandbox.seccomp`.

The process tree dies with the sandbox's PID namespace: when the bot is killed (fault, end,
worker shutting down) and, through ``--die-with-parent``, when the worker dies.
docs/sandbox.md explains the choices and the defaults.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import pwd
import re
import select
import signal
import stat
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from bots.languages import Language, default_language, get_language, language_of, languages
from bots.running.process import CONTROL_FD, INFO_FD, BotStartError, Launch, PlatformError
from bots.running.settings import project_settings
from bots.sandbox import cpucg, memcg, mirror
from bots.sandbox.cpucg import CpuCgroup
from bots.sandbox.memcg import MemoryCgroup
from bots.sandbox.seccomp import SeccompUnavailable, filter_bpf

log = logging.getLogger("bots.sandbox")

MiB = 1 << 20
#: runs as the sandbox's uid and moves itself into the bot's memory cgroup (see memcg)
SHELL = "/bin/sh"
#: the largest bot file the sandbox accepts
MAX_BOT_BYTES = 1 * MiB


class SandboxError(BotStartError):
    """The sandbox cannot run this bot (or any bot); the message says why."""


class SandboxUnavailable(SandboxError, PlatformError):
    """This machine cannot run the sandbox (missing program, no user namespaces...)."""


class SandboxBusy(SandboxError, PlatformError):
    """No sandbox slot is free now (every uid a launch of this kind may take is in use)."""


#: the environment variable that marks the processes of a slot's launch (the shell, prlimit
#: and bwrap: bwrap clears the bot's environment), so that a sweep can show they are its own
SLOT_ENV = "CARD_ARENA_SLOT"


@dataclass(frozen=True)
class SandboxLimits:
    """Per-game resource limits of one sandboxed bot process (see docs/sandbox.md)."""

    #: memory in MiB: everything the bot holds (heap, /tmp, anything in memory) together,
    #: the limit of its memory cgroup. Python: RLIMIT_AS is this less ``tmp_mb``.
    #: JavaScript: V8's heap limit (--max-old-space-size); its cgroup's limit is this plus
    #: ``node_runtime_mb``, and RLIMIT_AS this plus ``node_reserve_mb``
    memory_mb: int = 256
    #: address space Node 20 reserves besides its heap; it does not start under ~700 MiB
    node_reserve_mb: int = 768
    #: memory Node itself uses besides the V8 heap's limit (its code, young generation,
    #: buffers), counted in the memory cgroup of a JavaScript bot
    node_runtime_mb: int = 64
    #: CPU seconds over the process's life (RLIMIT_CPU: SIGXCPU, SIGKILL 5 s later)
    cpu_s: int = 300
    #: cores the sandbox may use at once, all its threads together (its CPU cgroup's CFS
    #: quota, bots.sandbox.cpucg; 0: no cap)
    cpu_cores: float = 1.0
    #: restart the process between matches once it has used this much CPU, so that the
    #: lifetime limit above never ends a match that stays within its time control
    recycle_cpu_s: float = 120.0
    #: processes and threads of the sandbox's user (RLIMIT_NPROC; only when the worker is
    #: root, since it counts every process of the uid). Node needs about ten threads
    processes: int = 64
    #: largest file the bot may write (RLIMIT_FSIZE), MiB
    file_mb: int = 16
    #: size of the private /tmp, MiB
    tmp_mb: int = 16
    #: open file descriptors (RLIMIT_NOFILE); Node opens about twenty
    open_files: int = 64
    #: bytes written to stdout + stderr in one match
    output_bytes: int = 1 * MiB

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


DEFAULT_LIMITS = SandboxLimits()


def limits_for(game: Any) -> SandboxLimits:
    """The sandbox limits of a game (a GameSpec, a slug or None for the defaults): the
    defaults, with what the game's spec changes (``GameSpec.sandbox_limits``)."""
    if game is None:
        return DEFAULT_LIMITS
    if isinstance(game, str):
        from games.registry import get_game

        try:
            game = get_game(game)
        except KeyError:
            return DEFAULT_LIMITS
    own = getattr(game, "sandbox_limits", None) or {}
    return replace(DEFAULT_LIMITS, **own) if own else DEFAULT_LIMITS


@dataclass(frozen=True)
class SandboxConfig:
    """Where the sandbox's programs are and which uids it may use (per machine)."""

    bwrap: str = "/usr/bin/bwrap"
    prlimit: str = "/usr/bin/prlimit"
    #: a language's runtime where it is not the language's own default (its
    #: ``runtime_default``: Debian's, never the worker's virtualenv), by language
    runtimes: dict[str, str] = field(default_factory=dict)
    #: sandbox users are uid_base .. uid_base + slots - 1 (same gid); used when root only
    uid_base: int = 60000
    slots: int = 64
    #: where slot lock files live; default: one folder for the machine (machine_lock_dir)
    lock_dir: str | None = None
    #: slots the web processes' live tables may never take: the last ``worker_reserve`` of
    #: the range stay for the workers (tournaments, validation, the playground)
    worker_reserve: int = 16
    #: seconds a worker's bot waits for a free slot before its job is given back
    slot_wait_s: float = 30.0

    @property
    def table_slots(self) -> int:
        """How many slots the live tables may take: those below the workers' reserve."""
        return max(self.slots - max(self.worker_reserve, 0), 0)

    @classmethod
    def from_settings(cls) -> SandboxConfig:
        """The defaults, overridden by the project's settings ``SANDBOX_*`` when there are
        any (bots.running.settings)."""
        settings = project_settings()
        if settings is None:
            return cls()
        names = (
            "bwrap", "prlimit", "uid_base", "slots", "lock_dir", "worker_reserve", "slot_wait_s",
        )  # fmt: skip
        values = {n: getattr(settings, f"SANDBOX_{n.upper()}", None) for n in names}
        given: dict[str, Any] = {n: v for n, v in values.items() if v is not None}
        # each language's runtime, by its own setting (SANDBOX_PYTHON...)
        runtimes = {
            language.name: getattr(settings, language.runtime_setting, None)
            for language in languages()
        }
        given["runtimes"] = {name: path for name, path in runtimes.items() if path}
        return cls(**given)


# ---- uid slots ---------------------------------------------------------------------------
@dataclass
class Slot:
    """A sandbox uid held (by an flock) until released: one per live sandboxed process,
    across every worker process on the machine."""

    uid: int
    _fd: int | None
    #: the lock file: the slot's name on the machine, which its launches carry (SLOT_ENV)
    lock: str = ""

    @property
    def marker(self) -> str:
        """The value of :data:`SLOT_ENV` in the environment of the slot's launches."""
        return self.lock or f"uid-{self.uid}"

    @property
    def cgroup_name(self) -> str:
        """The name of the slot's memory cgroup: its uid and its lock file's, so that two
        lock folders (two installations, say) never share one."""
        digest = hashlib.sha256(self.marker.encode()).hexdigest()[:10]
        return f"sandbox-{self.uid}-{digest}"

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # drops the flock

    def __del__(self) -> None:
        self.release()


def machine_lock_dir() -> Path:
    """The folder of the uid slots' locks when the config names none: one for the whole
    machine, whatever ``TMPDIR`` or private /tmp a process has. A lock kept anywhere else
    would let two processes take the same uid, and each would sweep the other's bots."""
    run = Path("/run")
    base = run if run.is_dir() and os.access(run, os.W_OK) else Path("/tmp")
    return base / f"card-arena-slots-{os.geteuid()}"


def _lock_dir(config: SandboxConfig) -> Path:
    path = Path(config.lock_dir) if config.lock_dir else machine_lock_dir()
    if problem := mirror.own_folder(path, 0o700):
        raise SandboxUnavailable(problem)
    return path


def machine_lock_file(name: str, config: SandboxConfig | None = None) -> Path:
    """The file of the machine-wide lock ``name``, in the folder of the uid slots' locks
    (checked as theirs is): every process of the site on this machine flocks the same file.
    Raises :class:`SandboxUnavailable` where that folder is not safe to use."""
    return _lock_dir(config or SandboxConfig.from_settings()) / f"{name}.lock"


def acquire_slot(config: SandboxConfig, *, worker: bool = True) -> Slot | None:
    """A free sandbox uid, or None when the worker is not root (then the sandbox runs as
    the worker's own user). ``worker``: a worker's bot, which may take any slot and waits up
    to ``config.slot_wait_s`` for one; else a live table's (a web process), which may take
    only the slots below the workers' reserve and never waits. Raises :class:`SandboxBusy`
    when there is none."""
    if os.geteuid() != 0:
        return None
    folder = _lock_dir(config)
    count = config.slots if worker else min(config.table_slots, config.slots)
    deadline = time.monotonic() + (max(config.slot_wait_s, 0.0) if worker else 0.0)
    # a worker takes the highest free uid, its reserve first, and a table the lowest: the
    # workers' bots (kept between matches) leave the tables' share alone while they can
    uids = range(config.uid_base, config.uid_base + count)
    order = uids[::-1] if worker else uids
    while True:
        slot = _free_slot(config, folder, order)
        if slot is not None:
            return slot
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(SLOT_POLL_S, left))
    if worker:
        raise SandboxBusy(
            f"no free sandbox slot: all {count} (uids {config.uid_base}-"
            f"{config.uid_base + count - 1}) in use"
        )
    raise SandboxBusy(
        f"no free sandbox slot for a live table: the {count} the tables may take are in use"
        f" ({max(config.worker_reserve, 0)} more stay for the workers)"
    )


#: how often a worker waiting for a slot looks for one again
SLOT_POLL_S = 0.25


def _free_slot(config: SandboxConfig, folder: Path, uids: Sequence[int]) -> Slot | None:
    """The first of ``uids`` whose lock is free and that nothing foreign runs as, locked;
    None if there is none."""
    for uid in uids:
        if _has_account(uid):
            continue  # a real account: never run bots as it
        lock = folder / f"slot-{uid}.lock"
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(lock, flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        slot = Slot(uid, fd, str(lock))
        _, foreign = sweep(uid, marker=slot.marker, cgroup=memcg.slot_cgroup(slot.cgroup_name))
        if foreign:
            # Processes of this uid that are not this slot's (another installation with a
            # lock folder of its own, someone's account): neither killed nor shared.
            log.warning(
                "event=sandbox.slot_skipped uid=%s foreign_processes=%s (not this slot's: "
                "left alone): %s",
                uid,
                len(foreign),
                "; ".join(foreign),
            )
            slot.release()
            continue
        return slot
    return None


def sweep(uid: int, *, marker: str, cgroup: str | None = None) -> tuple[int, list[str]]:
    """SIGKILL the processes of a sandbox uid whose slot we now hold that can be shown to be
    that slot's: those whose environment carries the slot's ``marker`` (:data:`SLOT_ENV`, set
    on the shell, prlimit and bwrap of each of its launches) or that sit in the slot's memory
    cgroup (``cgroup``, as /proc/PID/cgroup names it). With the slot's lock held, such a
    process is a leftover of a worker that died (bwrap's set-up can be orphaned if its
    parent dies in the first milliseconds, bubblewrap issue #633). Any other process of the
    uid is left alone. Returns how many were killed, and the others that run as the uid
    (each as "pid state command", for the operator's log)."""
    killed, foreign = 0, []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid != uid:
                continue
            pidfd = os.pidfd_open(int(name))
        except OSError:
            continue
        try:
            # read after the pidfd pins the process: if it is gone, the signal goes nowhere
            if os.stat(f"/proc/{name}").st_uid != uid:
                continue
            if _is_slots(name, marker, cgroup):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                killed += 1
            elif not _is_zombie(name) and not select.select([pidfd], [], [], EXITING_S)[0]:
                # (a process on its way out has left its cgroup already: it is given a
                # moment to end; its pidfd is readable once it has)
                foreign.append(_describe(name))
        except OSError:
            pass
        finally:
            os.close(pidfd)
    return killed, foreign


#: how long :func:`sweep` waits for a process of the slot's uid that it cannot show is the
#: slot's to end (one exiting has left its cgroup) before it counts it as another's
EXITING_S = 0.5


def _is_slots(pid: str, marker: str, cgroup: str | None) -> bool:
    """Whether process ``pid`` shows it is of the slot ``marker`` names: that marker in its
    environment, or its place in the slot's memory cgroup."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        environ = b""
    if f"{SLOT_ENV}={marker}".encode() in environ.split(b"\0"):
        return True
    return cgroup is not None and memcg.cgroup_of(pid) == cgroup


def _describe(pid: str) -> str:
    """``pid``, its state and its command line (cut), as a log line names a process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").strip()
    except (OSError, IndexError):
        return f"{pid} (gone)"
    return f"{pid} {state} {command.decode(errors='replace')[:80]!r}"


def _is_zombie(pid: str) -> bool:
    """A process that has exited and waits to be reaped (nothing to kill, nothing to show)."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat_line.rpartition(")")[2].split()[:1] == ["Z"]


@cache
def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


# ---- the command line --------------------------------------------------------------------
def read_bot(path: Path) -> bytes:
    """The bot file's bytes, read without following a symlink (the worker may be root)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise SandboxError(f"{path}: cannot open the bot file: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SandboxError(f"{path}: not a regular file")
        if info.st_size > MAX_BOT_BYTES:
            raise SandboxError(f"{path}: over {MAX_BOT_BYTES // MiB} MiB")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(MAX_BOT_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_BOT_BYTES:
        raise SandboxError(f"{path}: over {MAX_BOT_BYTES // MiB} MiB")
    return data


def safe_name(path: Path) -> str:
    """The bot file's name in the sandbox (``/bot/NAME``) and in ``arena --no-sandbox``'s
    private folder, so that ``__file__`` ends the same in both."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", path.stem)[:60].strip("_") or "bot"
    return stem + path.suffix.lower()


def _system_mounts(language: Language, config: SandboxConfig) -> list[str]:
    """What the bot's runtime needs of the system, read-only, and nothing more: its closure
    (the interpreter and the links to it, its standard library, the shared libraries they
    need, the dynamic loader and its cache, the C.UTF-8 locale), bound from the language's
    copy in memory (:mod:`bots.sandbox.mirror`) to the same paths, and the top-level links
    that lead there. Every file the bot can read is so in memory whatever any bot does:
    timing a read tells it nothing (docs/sandbox.md). Raises :class:`SandboxUnavailable`
    where the copy cannot be made (no /dev/shm, no room): never the machine's own /usr/lib
    instead."""
    try:
        args = mirror.runtime_mounts(language, config)
    except mirror.MirrorError as exc:
        raise SandboxUnavailable(
            f"the sandbox cannot start: no in-memory copy of the {language.title} runtime "
            f"({exc}; see docs/sandbox.md)"
        ) from None
    # the links only: a top-level folder of the machine's own (no merged /usr) is never
    # bound (the copy holds what the runtime needs of it, or was refused)
    return args + top_links(folders=False)


def top_links(*, folders: bool = True) -> list[str]:
    """bwrap's arguments for the top-level links that lead into /usr (/bin, /lib64, where
    the dynamic loader is found...), and with ``folders`` those of them that are folders
    here, bound read-only."""
    args: list[str] = []
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif folders and os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def root_links() -> list[str]:
    """bwrap's arguments for the top-level links (or folders) that lead into /usr and the
    loader's cache, read-only, from the machine itself (a compile's sandbox:
    bots.sandbox.compiling)."""
    return [*top_links(), "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]


def joining(procs: list[str]) -> list[str]:
    """The shell that writes its own pid into each cgroup of ``procs`` (their
    ``cgroup.procs`` files), then becomes the command that follows: what it starts is born
    inside them. If it cannot, nothing runs. Nothing when there is no cgroup."""
    if not procs:
        return []
    joins = " && ".join(f'echo $$ > "${n}"' for n in range(len(procs)))
    return [SHELL, "-c", f'{joins} && shift {len(procs) - 1} && exec "$@"', *procs]


def isolation(*, keepers: bool = False) -> list[str]:
    """bwrap's namespaces, capabilities and environment for whatever runs in a sandbox (a
    bot, a compiler): its own of everything, no capability, no further user namespace,
    PATH, LANG, HOME and TMPDIR only. ``keepers``: a host whose keepers give each process
    they fork a /tmp of its own (the Python host: see :func:`makes_namespaces`), which
    starts with the two capabilities that takes, in the sandbox's own user namespace:
    CAP_SYS_ADMIN (a mount namespace, a tmpfs mounted in it) and CAP_SETPCAP (to drop every
    capability, bounding set included, before it forks a process for the bot)."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}
    args = [
        "--unshare-all", "--unshare-user", "--disable-userns", "--hostname", "sandbox",
        "--die-with-parent", "--as-pid-1", "--new-session", "--cap-drop", "ALL",
        *(["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"] if keepers else []),
        "--clearenv",
    ]  # fmt: skip
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def makes_namespaces(language: Language) -> bool:
    """Whether the language's host makes a mount namespace for each process it forks (the
    Python host's keepers, each of which mounts a /tmp of its own there for its child: see
    docs/sandbox.md, "What a fresh process starts without"): its seccomp filter is the one
    that lets it (``filter_bpf(processes=False)``, bots.sandbox.seccomp.KEEPER_CALLS)."""
    return language.seccomp_data().get("{seccomp}") == filter_bpf(processes=False)


def memory_limit(limits: SandboxLimits, language: Language) -> int:
    """Bytes the bot's memory cgroup allows: heap, /tmp and anything else in memory (and
    what the language's runtime needs beside the bot's own)."""
    return (limits.memory_mb + language.memory_extra_mb(limits)) * MiB


def rlimit_args(limits: SandboxLimits, language: Language, slot: Slot | None) -> list[str]:
    memory = language.address_space_mb(limits)
    args = [
        f"--as={memory * MiB}",
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 5}",
        f"--fsize={limits.file_mb * MiB}",
        f"--nofile={limits.open_files}",
        "--core=0",
    ]
    if slot is not None:
        args.append(f"--nproc={limits.processes}")
    return args


def sandbox_command(
    language: Language,
    bot_name: str,
    *,
    limits: SandboxLimits,
    config: SandboxConfig,
    slot: Slot | None,
    game: str | None,
    toolkit: tuple[str, ...] = (),
    cgroup: MemoryCgroup | None = None,
    cpu: CpuCgroup | None = None,
) -> list[str]:
    """argv for prlimit + bwrap (behind a shell that joins ``cgroup`` first, when there is
    one); ``{host}``, ``{bot}``, ``{seccomp}`` and ``{info-fd}`` name the descriptors
    BotProcess hands over at each start."""
    host = language.host_name
    procs = [cgroup.procs_file] if cgroup is not None else []
    procs += cpu.procs_files if cpu is not None else []
    # prlimit is born inside the cgroups, and bwrap and the bot with it
    argv = joining(procs)
    argv += [config.prlimit, *rlimit_args(limits, language, slot), "--", config.bwrap]
    argv += isolation(keepers=makes_namespaces(language))
    # a native program (C++'s) is its own host: its mirror holds its libraries alone
    runs = language.runtime_args(limits, config)
    argv += _system_mounts(language, config)
    argv += [*proc_args(language, runs), "--dev", "/dev"]
    argv += ["--size", str(limits.tmp_mb * MiB), "--tmpfs", "/tmp"]
    perms = "0555" if language.compiled else "0444"
    argv += ["--perms", perms, "--ro-bind-data", "{host}", f"/sandbox/{host}"]
    for name in toolkit:  # the game's importable helpers, beside the bot (it wins a clash)
        argv += ["--perms", "0444", "--ro-bind-data", f"{{toolkit:{name}}}", f"/bot/{name}"]
    argv += ["--perms", "0444", "--ro-bind-data", "{bot}", f"/bot/{bot_name}"]
    argv += language.sandbox_binds()
    argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
    argv += ["--info-fd", INFO_FD, "--seccomp", "{seccomp}", "--"]
    argv += [*runs, f"/sandbox/{host}"]
    argv += language.host_args(control=CONTROL_FD, wipe="/tmp", sandboxed=True)
    argv.append(f"/bot/{bot_name}")
    argv += language.bot_args(game)
    return argv


#: the files of /proc that count what the whole machine did since it started: counters that
#: only grow, many of which nothing else on a worker moves, and that a bot moves by as much as
#: it likes (a huge page faulted in, a page locked and unlocked, a thread started, a yield,
#: a stall on its own memory). A process that leaves a count in them leaves it for every
#: later one: an audit's bot set ``thp_fault_alloc`` in /proc/vmstat to its first cards,
#: modulo 243, in one match and read them back in the next, in another process and sandbox.
#: Each is covered, in the sandbox's /proc, by the machine's /dev/null, read-only and
#: without devices: opening it fails with EACCES, as for the files /proc keeps from anyone
#: but root (slabinfo, kmsg). No runtime needs them (glibc counts the CPUs it may use
#: without /proc/stat). ``/proc/uptime``'s second figure is the time every CPU of the
#: machine has been idle since it started (/proc/stat's idle, summed): CPUs times its
#: first less it is the CPU time of every process since, which a bot moves by burning CPU
#: where it could have slept, as long as it likes (sysinfo(2) and the clocks still give
#: the uptime).
GLOBAL_COUNTERS = (
    "/proc/vmstat", "/proc/zoneinfo", "/proc/stat", "/proc/interrupts", "/proc/softirqs",
    "/proc/schedstat", "/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/diskstats",
    "/proc/pressure/cpu", "/proc/pressure/io", "/proc/pressure/memory", "/proc/pressure/irq",
    "/proc/uptime",
)  # fmt: skip


def counter_masks() -> list[str]:
    """bwrap's arguments that cover :data:`GLOBAL_COUNTERS` in the sandbox's /proc (after
    ``--proc``): those this kernel has (a file bwrap would have to make in /proc stops the
    sandbox)."""
    args: list[str] = []
    for path in GLOBAL_COUNTERS:
        if os.path.exists(path):
            args += ["--ro-bind", os.devnull, path]
    return args


def proc_args(language: Language, runtime: list[str]) -> list[str]:
    """bwrap's arguments for the sandbox's /proc: its own (``--proc``), less the machine's
    counters (:func:`counter_masks`), for a runtime that needs it (Python's host: its zygote
    and keepers read it, and each keeper mounts an empty one for its match's process, where
    the bot's code runs); none where the bot's code could reach it and its runtime does
    without: a native program (C++'s, no ``runtime``: the language's
    :meth:`~bots.languages.Language.runtime_args`) and the JVM, whose launcher finds its
    libraries through /proc/self/exe (``$ORIGIN``) unless told where they are
    (``LD_LIBRARY_PATH``, the JDK's ``lib``; its other reads of /proc, the container's
    limits and the CPUs, are settled by its flags: ``-Xmx``, ``-XX:ActiveProcessorCount``).
    A JavaScript bot's realm has no call that reaches /proc.

    Every file of a process's own in /proc (``/proc/self/...``, each descriptor's entry in
    ``/proc/self/fd``) takes its inode's number, when it is looked up, from the counter of
    the machine's that numbers pipes and sockets (the kernel's ``get_next_ino``,
    bots.sandbox.seccomp.INODE_CALLS): a process that looks up N entries (a descriptor
    opened, its entry looked up, closed and looked up again: a new one each time) moves it by
    N, and the next process of the machine that looks one up reads it (``stat``). An
    audit's bot moved it by 50,000 late in one match and the next match's process, in
    another sandbox, read a number 31 past the last of them. So a bot without /proc can
    neither move nor read it that way (nor by pipe or socket: seccomp)."""
    if not runtime:
        return []
    instead = language.without_proc(runtime)
    if instead is not None:
        return instead
    return ["--proc", "/proc", *counter_masks()]


def check_programs(config: SandboxConfig, language: Language) -> None:
    """Raise SandboxUnavailable unless the programs the sandbox runs are there."""
    for program in (config.bwrap, config.prlimit, language.runtime(config)):
        if not os.access(program, os.X_OK):
            raise SandboxUnavailable(f"{program} is missing (see docs/sandbox.md)")
    try:
        language.seccomp_data()  # (and what a language builds with its filters: Java's seal)
    except SeccompUnavailable as exc:
        raise SandboxUnavailable(str(exc)) from None


def sandbox_launch(
    path: Path,
    *,
    game: Any = None,
    limits: SandboxLimits | None = None,
    config: SandboxConfig | None = None,
    worker: bool = True,
    program: bytes | None = None,
) -> Launch:
    """A Launch that runs the bot file in the sandbox (for a compiled language, its
    ``program``, which bots.sandbox.compiling made of it). Holds a uid slot (when root) until
    the BotProcess running it is closed: a worker's (``worker``) may take any slot and waits
    for one, a live table's only those below the workers' reserve (see :func:`acquire_slot`).
    Raises SandboxError (:class:`SandboxBusy` and :class:`SandboxUnavailable`, the
    platform's trouble, are PlatformErrors)."""
    config = config or SandboxConfig.from_settings()
    limits = limits or limits_for(game)
    language = language_of(path)
    check_programs(config, language)
    source = read_bot(path)
    slug = game if isinstance(game, str) or game is None else getattr(game, "slug", None)
    toolkit = toolkit_sources(game) if language.uses_toolkit else {}
    name = safe_name(path)
    if language.compiled and program is None:
        raise ValueError(f"{path}: its program first (bots.running.launch.bot_launch compiles it)")
    # a compiled language's host is the bot's program (bots.sandbox.compiling)
    host = program if program is not None else language.host_source
    slot = acquire_slot(config, worker=worker)
    cgroup = memcg.create(
        memory_limit(limits, language),
        uid=slot.uid if slot else None,
        name=slot.cgroup_name if slot else None,
    )
    cpu = cpucg.create(
        limits.cpu_cores, uid=slot.uid if slot else None, name=slot.cgroup_name if slot else None
    )
    argv = sandbox_command(
        language, name, limits=limits, config=config, slot=slot, game=slug,
        toolkit=tuple(n for n in toolkit if n != name), cgroup=cgroup, cpu=cpu,
    )  # fmt: skip

    def cleanup() -> None:
        # before another worker can take the slot (and its cgroups' names)
        if cgroup is not None:
            cgroup.remove()
        if cpu is not None:
            cpu.remove()
        if slot is not None:
            slot.release()

    return Launch(
        argv=argv,
        env=launcher_env(slot),
        cwd="/",
        cleanup=cleanup,
        oom_kills=cgroup.oom_kills if cgroup else None,
        memory_cgroup=cgroup,
        cpu_usage=cpu.usage_s if cpu else None,
        pids=cpu.pids if cpu else None,
        user=slot.uid if slot else None,
        group=slot.uid if slot else None,
        fd_data={
            "{host}": host,
            "{bot}": source,
            **language.seccomp_data(),
            **{f"{{toolkit:{n}}}": data for n, data in toolkit.items() if n != name},
        },
        max_output=limits.output_bytes,
        recycle_cpu_s=limits.recycle_cpu_s,
        sandbox=True,
        cpu_cores=limits.cpu_cores if cpu is not None and limits.cpu_cores > 0 else 1.0,
        cpu_limit_s=limits.cpu_s + 5,
        isolation=language.isolation,
    )


def launcher_env(slot: Slot | None) -> dict[str, str]:
    """The environment of the programs that start a sandbox (the shell, prlimit, bwrap),
    marked with the slot they run in; the bot's own is cleared by bwrap."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    if slot is not None:
        env[SLOT_ENV] = slot.marker
    return env


def toolkit_sources(game: Any) -> dict[str, bytes]:
    """The game's toolkit modules (``GameSpec.toolkit``), by file name."""
    if game is None:
        return {}
    if isinstance(game, str):
        from games.registry import get_game

        game = get_game(game)
    return {name: path.read_bytes() for name, path in game.toolkit_files().items()}


def self_test(config: SandboxConfig | None = None, language: str | Language | None = None) -> None:
    """Start one trivial sandbox (of ``language``, by default the first the site offers);
    raise SandboxUnavailable with bwrap's words if it fails (no user namespaces, bwrap too
    old...). The arena calls it once before a tournament."""
    config = config or SandboxConfig.from_settings()
    if not isinstance(language, Language):
        language = get_language(language) if language else default_language()
    check_programs(config, language)
    slot = acquire_slot(config)
    try:
        argv = sandbox_command(
            language, "probe", limits=DEFAULT_LIMITS, config=config, slot=slot, game=None
        )
        # the runtime alone (a native language: none), with arguments that run nothing
        start = argv.index("--", argv.index("--seccomp")) + 1
        runs = language.runtime_args(DEFAULT_LIMITS, config)
        argv = [*argv[:start], *runs[:1], *language.probe_args()]
        data = {"{host}": b"", "{bot}": b"", **language.seccomp_data()}
        fds = {key: _memfd(value) for key, value in data.items()}
        fds[INFO_FD] = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        try:
            argv = [str(fds[a]) if a in fds else a for a in argv]
            extra: dict[str, Any] = {}
            if slot is not None:
                extra = {"user": slot.uid, "group": slot.uid, "extra_groups": []}
            result = subprocess.run(
                argv, capture_output=True, env=launcher_env(slot), cwd="/",
                pass_fds=tuple(fds.values()), timeout=30, check=False, **extra,
            )  # fmt: skip
        finally:
            for fd in fds.values():
                os.close(fd)
    finally:
        if slot is not None:
            slot.release()
    if result.returncode != 0:
        said = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SandboxUnavailable(
            f"the sandbox does not start here: {said[-1] if said else result.returncode}"
        )


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("sandbox", os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
