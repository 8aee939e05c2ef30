"""Bot processes: one child process per bot, speaking the JSON-lines protocol.

:class:`BotProcess` owns the process (start, bounded reads, stderr capture, an output cap,
kill of the whole process tree). :class:`ProcessAgent` makes it an Agent for the match
runner and keeps a :class:`FaultReport` (reason + stderr tail) for the bot's owner whenever
the bot faults. The command line comes from a launcher (``bots.running.launch`` for a plain child
process, ``bots.sandbox`` for bubblewrap), so the sandbox slots in without touching this
module.

Replies are read by the thread that waits for them, with ``poll`` on the bot's pipes (no
reader thread: a hand-over between threads cost more than the call itself). While it waits,
it also reads the pipes of the bot's :class:`Peers` that owe a reply, and timestamps their
lines as they arrive, so that simultaneous seats are each charged only for their own time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import select
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.languages import method_name
from bots.running import stalls, starved
from games.engine import untrusted
from games.engine.agents import Agent, AgentFault, BotCall, SeatInfo
from games.engine.game import Prompt

PROTOCOL = 1
#: longest line a bot may send (bytes); longer is an "output" fault
MAX_LINE = 64 * 1024
#: how much of a bot's stderr is kept in memory for its owner (the tail)
STDERR_TAIL = 16 * 1024
#: how much of the stderr tail goes into a fault report
REPORT_TAIL = 4 * 1024
#: bytes read from a pipe at once
CHUNK = 65536
#: most stderr read by one :meth:`BotProcess.settle_stderr` (a bot that never stops writing
#: cannot keep the arena there)
SETTLE_MAX = 16 * CHUNK
#: longest piece of a bot's own text (an exception's description) quoted in a fault reason
#: (300 once cut the end off descriptions that quote what the bot was given)
QUOTE = 1200
#: the signals an operator or a service manager stops a process with: one of them pending on
#: a bot's process while :meth:`BotProcess.pause` had it stopped was sent from outside (no
#: code of the bot's ran meanwhile), the platform's trouble (:meth:`BotProcess.resume`); so is
#: a sandboxed bot's death by one at any time (the sandbox refuses it every way to send one
#: to itself: bots.sandbox.seccomp). Unsandboxed, a death by one stays the bot's crash
OUTSIDE_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_OUTSIDE_MASK = sum(1 << (int(sig) - 1) for sig in OUTSIDE_SIGNALS)
#: what the hosts print when RLIMIT_CPU's soft limit strikes
CPU_MARKER = "CPU time limit exceeded"
#: what a host or a runtime prints when memory runs out (the fault is then "memory")
MEMORY_MARKERS = (
    "MemoryError",
    "JavaScript heap out of memory",
    "Array buffer allocation failed",
    "std::bad_alloc",
    "Cannot allocate memory",
)
#: what the Python host prints when the bot closed the descriptor its replies go out on
#: (bots/languages/python/host.py, CLOSED_OUTPUT: the same words)
CLOSED_MARKER = "the bot closed its output"


class BotStartError(Exception):
    """A bot that cannot even start: the message names the problem in one line."""


class PlatformError(BotStartError):
    """Trouble of the platform's own, not of the bot: no free sandbox slot, a machine that
    cannot run the sandbox, a sandbox that did not start (before any of the bot's code ran).
    It is never stored as the bot's fault, a rejection or a rated result: whoever plays the
    match gives it back to be played later (a worker), retries it (validation) or ends it
    unrated (a live table), and says so. The message names the trouble in one line."""


#: seconds the sandbox (prlimit, bwrap, its namespaces and mounts) has to name its init
#: process, which it does before any of the bot's code runs; a start slower than that is the
#: machine's trouble (a :class:`PlatformError`), never the bot's
SANDBOX_START_S = 20.0


@dataclass(frozen=True)
class Launch:
    """What to run: the command line, its environment and working folder, and how."""

    argv: Sequence[str]
    env: dict[str, str]
    cwd: str | None = None
    #: called once when the :class:`BotProcess` is closed (the sandbox releases its uid slot)
    cleanup: Any = None
    #: run the child as this user and group, with no supplementary groups (the worker must
    #: be root to switch); None keeps the worker's own
    user: int | None = None
    group: int | None = None
    #: data handed to the child on inherited file descriptors: every argv item equal to a key
    #: is replaced, at each start, by the number of a fresh descriptor holding those bytes
    fd_data: Mapping[str, bytes] = field(default_factory=dict)
    #: bytes a bot may write to stdout + stderr during one match (None: no cap beyond the
    #: line length); more is an "output" fault
    max_output: int | None = None
    #: restart the process between matches once it has used this much CPU time, so that a
    #: lifetime CPU limit never ends a match (None: never)
    recycle_cpu_s: float | None = None
    #: how many processes the OOM killer has ended in the bot's memory cgroup so far (a
    #: death it counts is a "memory" fault); None without a cgroup
    oom_kills: Any = None
    #: the bot's memory cgroup (a :class:`bots.sandbox.memcg.MemoryCgroup`), if it has one
    memory_cgroup: Any = None
    #: CPU seconds the bot's sandbox has used, as its CPU cgroup counts them
    #: (:meth:`bots.sandbox.cpucg.CpuCgroup.usage_s`), if it has one: read from outside the bot
    cpu_usage: Any = None
    #: the processes of the bot's sandbox, as its CPU cgroup lists them
    #: (:meth:`bots.sandbox.cpucg.CpuCgroup.pids`), if it has one (see BotProcess.pause)
    pids: Any = None
    #: the child is bubblewrap: its exit status over 128 is a signal, and the argv item
    #: INFO_FD becomes a pipe on which bwrap names its sandbox's init process
    sandbox: bool = False
    #: cores the bot may use at once (its CPU cgroup's quota): the most CPU the machine's
    #: starvation is measured against (bots.running.starved)
    cpu_cores: float = 1.0
    #: CPU seconds a process of the bot may use (RLIMIT_CPU's hard limit), if one is set:
    #: a SIGKILL once the bot used that much is its CPU limit's
    cpu_limit_s: float | None = None
    #: the isolation between matches that the language's host keeps
    #: (bots.languages.Language.isolation): the most a hello's ``isolation`` is taken for
    isolation: str = ""


#: the argv placeholder for bwrap's --info-fd
INFO_FD = "{info-fd}"
#: the argv placeholder for the Python host's --control: the write end of a pipe on which the
#: host's zygote says, after each of its children, that the child is gone (see
#: :meth:`BotProcess.await_fresh`)
CONTROL_FD = "{control-fd}"
#: the most deals a bot's process is dealt before it starts afresh (see BotProcess.dealt)
MAX_DEALT = 1 << 16

#: CPU seconds a bot may use in a match while it is not asked (a host's own work after its
#: reply takes microseconds) before its processes are stopped between its calls for good
#: (BotProcess.answered)
UNASKED_CPU_S = 0.02
#: how long a match waits for the last match's process to be gone before it restarts the
#: bot instead (no fault: the bot's next match simply starts a fresh sandbox)
FRESH_WAIT_S = 2.0


@dataclass
class Hello:
    name: str
    language: str
    methods: list[str] = field(default_factory=list)
    #: the host's ``begin`` needs no reply: it may be sent without waiting for one, in the
    #: same write as the match's first request
    quiet_begin: bool = False
    #: how the host keeps matches apart: "process" (a fresh child process per match, whose
    #: end the controller awaits on the control pipe), "realm" (a fresh JavaScript realm per
    #: match in the same process), or "" (an older host: one instance per match)
    isolation: str = ""
    #: the most matches the host plays at once, each in a lane of its own (requests carry
    #: ``lane``: docs/bot-protocol.md, "Lanes"); 0: one at a time
    lanes: int = 0
    #: the host takes a match's notices folded into its next request (``told``), not as
    #: ``tell`` lines of their own (docs/bot-protocol.md, 4)
    folds: bool = False


@dataclass(frozen=True)
class FaultReport:
    """What the owner of a bot is shown about one fault: kind, reason, the end of stderr."""

    kind: str
    reason: str
    stderr_tail: str
    seat: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "seat": self.seat,
            "stderr_tail": self.stderr_tail,
        }


class StderrSink:
    """Drains a bot's stderr so it can never block on a full pipe; keeps the tail in memory
    and, if given a log file, the first ``log_limit`` bytes there."""

    def __init__(self, log_path: Path | None, log_limit: int = 1 << 20) -> None:
        self.total = 0
        self._tail = bytearray()
        self._log = log_path.open("ab") if log_path else None
        self._log_limit = log_limit
        self._logged = 0
        self._lock = threading.Lock()
        #: what is fed is kept in the tail but not logged: its reader writes it into the log
        #: itself, as it sorts it (a process that plays in lanes: each match's part whole)
        self.sorted = False

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            self.total += len(chunk)
            self._tail += chunk
            del self._tail[:-STDERR_TAIL]
            if not self.sorted:
                self._write(chunk)

    def write(self, data: bytes) -> None:
        """Log ``data`` (within the log's limit), which the sink was fed already."""
        with self._lock:
            self._write(data)

    def _write(self, data: bytes) -> None:
        if self._log is not None and self._logged < self._log_limit:
            part = data[: self._log_limit - self._logged]
            self._log.write(part)
            self._logged += len(part)
            if self._logged >= self._log_limit:
                self._log.write(b"\n[stderr log truncated here]\n")
            self._log.flush()

    def mark(self, text: str) -> None:
        """A line of context in the log (match boundaries, faults), even past its limit."""
        with self._lock:
            if self._log is not None:
                self._log.write(text.encode("utf-8", "replace") + b"\n")
                self._log.flush()

    def redirect(self, log_path: Path) -> None:
        """Write the log from here on to ``log_path`` (appended to), instead of the file
        before (the arena's jobs keep each chunk of matches' part apart, see bots.arena)."""
        with self._lock:
            if self._log is not None:
                self._log.close()
            self._log = log_path.open("ab")

    def tail(self, limit: int = STDERR_TAIL) -> str:
        """The end of what the bot wrote, as text safe to show and store (invalid UTF-8 and
        NUL replaced)."""
        with self._lock:
            return untrusted.decode(bytes(self._tail[-limit:]))

    def since(self, total: int, limit: int = STDERR_TAIL) -> str:
        """What arrived after the sink had seen ``total`` bytes (as much as the tail holds),
        as text safe to show and store."""
        with self._lock:
            fresh = min(self.total - total, len(self._tail), limit)
            return untrusted.decode(bytes(self._tail[len(self._tail) - fresh :]))

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


@dataclass(eq=False)  # a start is itself: the poll objects of _wait are kept by it
class _Child:
    """One start of the process: its pipes (non-blocking) and what was read of them."""

    proc: subprocess.Popen[bytes]
    #: pidfd of the sandbox's init process (killing it ends the whole PID namespace)
    init_pidfd: int | None = None
    #: the pipe on which bwrap names that init, until it is read, and by when it must be
    info_fd: int | None = None
    named_by: float = 0.0
    #: when it was started (monotonic): no process of it is older
    spawned: float = 0.0
    #: a fault decided while reading (output cap), reported by the next read
    doom: AgentFault | None = None
    #: the stream whose write took the output over the cap
    over_on: str = ""
    #: when the last request was written (or the process started): the call's start, from
    #: which its run-queue wait is measured (bots.running.starved)
    sent: float = 0.0
    #: bytes written to stdout + stderr since the match began
    output: int = 0
    killed: bool = False
    #: the memory cgroup's count of OOM kills when this start began
    oom_kills: int = 0
    #: the read end of the host's control pipe (non-blocking), and what was read of it: how
    #: many of the host's children are gone, and the CPU seconds the last one used
    control_fd: int | None = None
    control: bytearray = field(default_factory=bytearray)
    exited: int = 0
    #: children the host ended at the controller's ``renew`` (each one more gone, besides
    #: the hello's: see :meth:`BotProcess.await_fresh`)
    renewed: int = 0
    #: stdout's bytes after its last complete line
    partial: bytearray = field(default_factory=bytearray)
    #: no more is read of stdout (end of file, or a line over MAX_LINE) / of stderr
    out_done: bool = False
    err_done: bool = False
    #: the pipes' descriptors (kept: a closed pipe's ``fileno()`` raises)
    in_fd: int = field(init=False)
    out_fd: int = field(init=False)
    err_fd: int = field(init=False)
    #: a poll object of stderr alone: whether it has something to read (settle_stderr)
    err_poll: Any = field(init=False)

    def __post_init__(self) -> None:
        self.in_fd = self.proc.stdin.fileno()  # type: ignore[union-attr]
        self.out_fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        self.err_fd = self.proc.stderr.fileno()  # type: ignore[union-attr]
        self.err_poll = select.poll()
        self.err_poll.register(self.err_fd, select.POLLIN)


class Peers:
    """Bot processes that may owe replies at the same time (the seats of a match, the bots of
    an arena). While a thread waits for one's reply it reads the others' pipes too, so that
    each line is timestamped when it arrives, not when its turn to be read comes."""

    def __init__(self) -> None:
        self._owing: set[BotProcess] = set()

    # (No lock: a set's add and discard, and a tuple made of it, are each one step that no
    # other thread can come between; a reader sees the set before or after a change.)
    def owe(self, process: BotProcess, owes: bool) -> None:
        if owes:
            self._owing.add(process)
        else:
            self._owing.discard(process)

    def others(self, process: BotProcess) -> list[BotProcess]:
        return [p for p in tuple(self._owing) if p is not process]


class BotProcess:
    """One running bot. Restartable: after a fault the process is killed and the next
    match starts a new one."""

    def __init__(
        self,
        launch: Launch,
        *,
        label: str,
        stderr_log: Path | None = None,
        peers: Peers | None = None,
        stops_unasked: bool = False,
    ) -> None:
        self.launch = launch
        stalls.watch()  # (a process held up is never a bot's slow reply: bots.running.stalls)
        #: stop the bot's processes from each reply to the next request (:meth:`answered`):
        #: from the start where a wait may be long (a live table waits for people), else
        #: once the bot is found to use CPU while it is not asked
        self.stops_unasked = stops_unasked
        #: the CPU cgroup's count at the bot's last reply, while it is watched unasked
        self._unasked_from: float | None = None
        #: CPU seconds the bot used unasked in this match (see :data:`UNASKED_CPU_S`)
        self.unasked_s = 0.0
        self.label = label
        self.stderr = StderrSink(stderr_log)
        self.hello: Hello | None = None
        self.starts = 0
        #: CPU seconds this start of the bot has used by the end of its last match: its CPU
        #: cgroup's count where it has one, else its host's word (see ProcessAgent._take_cpu)
        self.cpu_s = 0.0
        #: the CPU cgroup's count when this start began
        self._cpu_base = 0.0
        #: the processes whose pipes are read while this one's reply is awaited (and back)
        self.peers = peers or Peers()
        self._proc: subprocess.Popen[bytes] | None = None
        self._child: _Child | None = None
        #: complete stdout lines read and not yet taken, with their arrival times; None: EOF
        self._lines: deque[tuple[float, bytes | None]] = deque()
        #: replies requested and not yet read
        self._owed = 0
        #: tells not written yet: they go with the next request that takes a reply
        self._outbox = bytearray()
        #: a host that folds notices (Hello.folds): each lane's notices not sent yet, as the
        #: items of the ``told`` of its next request
        self._folds = False
        self._folded: dict[int, bytearray] = {}
        #: every request is kept back until :meth:`flush` (a process that plays in lanes:
        #: bots.running.lanes writes each process's requests of a round at once)
        self.holding = False
        #: a process that plays in lanes counts each match's output itself (its replies, and
        #: its stderr, which is handed to this as it is read), not the process's
        self.lane_output: Callable[[bytes], None] | None = None
        self._next_id = 0
        self._match_stderr = 0
        self._lock = threading.Lock()
        #: held while the pipes are read or closed (re-entrant: a read may kill)
        self._io = threading.RLock()
        self._closed = False
        #: the deals (match seeds) the bot's current process or realm has been dealt: it is
        #: never dealt one again (see :meth:`renew`)
        self.dealt: set[int] = set()
        #: matches begun since the bot's process or realm was last fresh
        self.played = 0
        #: the sandbox's processes stopped between matches (see :meth:`pause`)
        self._stopped: list[int] = []
        #: poll objects made by :meth:`_wait`, by the pipes they watch (made once each)
        self._pollers: dict[tuple[object, ...], tuple[Any, dict[int, Any]]] = {}
        #: the run-queue baseline of the call awaited (bots.running.starved), read once the
        #: call is PROBE_S old, and the request it is for (the id of the last written)
        self._probe: starved.Probe | None = None
        self._probe_id = -1
        #: seconds the machine kept the bot waiting for a CPU in the call last read (or timed
        #: out), which its deadline was moved on by: the machine's, not the bot's
        self.starved_s = 0.0
        #: seconds the last start's sandbox took to set itself up (from the start until bwrap
        #: named its init, at most: before any of the bot's code ran): the machine's
        self.sandbox_start_s = 0.0

    # ---- life cycle ---------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, timeout: float) -> Hello:
        """Start the process and read its hello. Raises AgentFault("startup", ...), or
        PlatformError if the sandbox itself does not start."""
        self.spawn(timeout)
        return self.greet(timeout)

    def spawn(self, timeout: float) -> None:
        """Start the process without waiting for its hello, nor for its sandbox to name its
        init (:meth:`greet` reads both), so that several bots start side by side. Raises
        AgentFault("startup", ...), or PlatformError if the program cannot be started (a
        sandbox that does not start is greet's PlatformError: see :data:`SANDBOX_START_S`)."""
        self.kill()
        self._lines = deque()
        self._owed = 0
        self.dealt = set()
        self.played = 0
        self.starts += 1
        self.cpu_s = 0.0
        self._cpu_base = self._cgroup_cpu() or 0.0
        self._match_stderr = self.stderr.total
        fds: dict[str, int] = {}
        info_read = control_read = -1
        oom_kills = self.launch.oom_kills() if self.launch.oom_kills is not None else 0
        try:
            for key, data in self.launch.fd_data.items():
                fds[key] = _memfd(key, data)
            if self.launch.sandbox and INFO_FD in self.launch.argv:
                info_read, fds[INFO_FD] = os.pipe()
            if CONTROL_FD in self.launch.argv:
                control_read, fds[CONTROL_FD] = os.pipe()
                os.set_blocking(control_read, False)
            argv = [str(fds[a]) if a in fds else a for a in self.launch.argv]
            extra: dict[str, Any] = {}
            if self.launch.user is not None:
                extra = {"user": self.launch.user, "group": self.launch.group, "extra_groups": []}
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.launch.env,
                cwd=self.launch.cwd,
                pass_fds=tuple(fds.values()),
                start_new_session=True,  # its own process group: killed as a whole
                **extra,
            )
        except OSError as exc:
            for fd in (info_read, control_read):
                if fd >= 0:
                    os.close(fd)
            # the programs started here are the platform's own (an interpreter, prlimit,
            # bwrap): none of the bot's code has run
            raise PlatformError(f"cannot start {self.launch.argv[0]}: {exc}") from None
        finally:
            for fd in fds.values():
                os.close(fd)
        now = time.monotonic()
        child = _Child(
            proc,
            oom_kills=oom_kills,
            control_fd=control_read if control_read >= 0 else None,
            sent=now,
            spawned=now,
        )
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            os.set_blocking(pipe.fileno(), False)  # type: ignore[union-attr]
        if info_read >= 0:
            # bwrap names its init right after creating it, before the bot even runs: read
            # by greet (or kill), so that several sandboxes start side by side
            child.info_fd = info_read
            child.named_by = time.monotonic() + SANDBOX_START_S
        self._proc, self._child = proc, child
        self._owe(1)

    def _await_named(self, child: _Child) -> None:
        """Wait until bwrap has named the sandbox's init (see :meth:`spawn`); raises
        PlatformError if it failed, or was still silent :data:`SANDBOX_START_S` after its
        start."""
        waited = child.info_fd is not None
        named = self._read_naming(child)
        if waited:  # (named_by is the start plus SANDBOX_START_S)
            started = child.named_by - SANDBOX_START_S
            self.sandbox_start_s = max(time.monotonic() - started, 0.0)
        if named != NAMED:
            self._platform_failure(slow=named == TOO_SLOW)

    def _read_naming(self, child: _Child, longest: float | None = None) -> str:
        """Read, once, how bwrap named the sandbox's init (NAMED, FAILED or TOO_SLOW; NAMED
        when it was read already), waiting until :data:`SANDBOX_START_S` after its start, or
        ``longest`` seconds at most, and keep the init's pidfd."""
        info_fd, child.info_fd = child.info_fd, None
        if info_fd is None:
            return NAMED
        try:
            left = max(child.named_by - time.monotonic(), 0.0)
            named, pidfd = _init_pidfd(
                info_fd, child.proc, left if longest is None else min(left, longest)
            )
        finally:
            os.close(info_fd)
        with self._lock:
            child.init_pidfd = pidfd
        return named

    def _platform_failure(self, *, slow: bool) -> None:
        """The sandbox never named its init: it failed (or, ``slow``, took too long) in its
        own set-up, before any of the bot's code ran. The machine's trouble, never the bot's."""
        self.kill()
        said = self.stderr.since(self._match_stderr, 1024).strip().splitlines()
        detail = said[-1][:200] if said else ""
        if slow:
            reason = f"the sandbox did not start within {SANDBOX_START_S:g} s (the machine is busy)"
        else:
            reason = "the sandbox failed in its own set-up" + (f": {detail}" if detail else "")
        self.stderr.mark(f"--- not started: {reason} ---")
        raise PlatformError(reason)

    def greet(self, timeout: float) -> Hello:
        """Read the hello of the process :meth:`spawn` started. Raises AgentFault, or
        PlatformError if its sandbox did not start."""
        if self._child is not None:
            self._await_named(self._child)
        _, message = self._read(timeout, "start-up")
        if message.get("type") == "fatal":
            self.kill()
            error = message.get("error", "the bot could not start")
            # the host's loading errors are long on purpose (a traceback's last lines)
            raise AgentFault("startup", _quote(error, 4 * QUOTE))
        if message.get("type") != "hello" or message.get("protocol") != PROTOCOL:
            self.kill()
            raise AgentFault("protocol", f"expected a hello line, got {_short(message)}")
        methods = message.get("methods")
        isolation = _isolation(message.get("isolation"), self.launch.isolation)
        self.hello = Hello(
            name=_quote(message.get("name") or "bot", 60),
            language=_quote(message.get("language") or "?", 20),
            methods=[_quote(m, 60) for m in methods[:100]] if isinstance(methods, list) else [],
            quiet_begin=message.get("quiet_begin") is True,
            isolation=isolation,
            # (matches at once in one process: only in realms of their own)
            lanes=_lanes(message.get("lanes")) if isolation == "realm" else 0,
            folds=message.get("folds") is True,
        )
        self._folds = self.hello.folds
        return self.hello

    def _cgroup_cpu(self) -> float | None:
        return self.launch.cpu_usage() if self.launch.cpu_usage is not None else None

    def measured_cpu_s(self) -> float | None:
        """CPU seconds this start has used, counted by its CPU cgroup (None without one):
        every process and thread of the sandbox, whatever the bot says of itself."""
        used = self._cgroup_cpu()
        return None if used is None else max(used - self._cpu_base, 0.0)

    def await_fresh(self, timeout: float = FRESH_WAIT_S) -> bool:
        """On a host that plays in child processes: True once every child that came before
        the current one (the hello's, and one per :meth:`renew`) is gone, as the host's
        zygote says on the control pipe, which no child holds. False if one is not gone in
        time, or if more are gone than that (a child ended by itself, and the next may have
        read what was left of its match): the caller then starts the bot afresh. Either way
        no child that saw a deal is sent a match after a renew: the controller sends it only
        after this."""
        child = self._child
        if child is None or child.control_fd is None:
            return True
        expected = child.renewed + 1
        deadline = time.monotonic() + timeout
        while True:
            self._read_control(child)
            if child.exited > expected:
                return False
            if child.exited == expected:
                return True
            left = deadline - time.monotonic()
            if left <= 0 or not self.alive:
                return False
            with contextlib.suppress(InterruptedError):
                select.select([child.control_fd], [], [], left)

    def renew(self, timeout: float) -> bool:
        """Before a match whose deal the bot's process or realm has been dealt (or might
        have been): the host ends that process (Python: the zygote's next child plays on) or
        realm (JavaScript: a new one), so that nothing the bot learned of the deal reaches
        the match. True once done; False if the host did not (the caller restarts the bot:
        a new sandbox)."""
        hello = self.hello
        if hello is None or hello.isolation not in ISOLATIONS:
            return False
        try:
            rid = self.request({"type": "renew"})
            _, message = self.reply(rid, timeout, "renewal")
        except (AgentFault, PlatformError):  # (killed from outside between matches: restart)
            return False
        child = self._child
        if message.get("type") != "ok" or child is None:
            return False
        if child.control_fd is not None:
            child.renewed += 1
            if not self.await_fresh():
                return False
        self.dealt.clear()
        self.played = 0
        return True

    def answered(self) -> None:
        """The bot has replied and is not asked anything until the next request, which
        lets it go on (:meth:`_send`). A bot's code could run meanwhile, on a host whose
        bot keeps threads and timers (not a realm, whose host never calls into it unasked):
        thinking while a person or another seat takes their turn, on their CPU and on a
        time nobody counts. Such a bot is stopped here (:meth:`pause`) where
        :attr:`stops_unasked`; else its CPU is read here and at the next request, about a
        microsecond each, and a bot found over :data:`UNASKED_CPU_S` in a match is stopped
        between its calls from then on (stopping costs every call two wake-ups of each of
        its processes, a third more CPU a match for a Python bot: not paid by the bots
        that do not need it)."""
        if self.stops_unasked:
            self.pause()
            return
        usage = self.launch.cpu_usage
        if usage is not None and self.hello is not None and self.hello.isolation != "realm":
            self._unasked_from = usage()

    def _watch_unasked(self, since: float) -> None:
        """At a request: the CPU the bot used since its last reply (see :meth:`answered`)."""
        self._unasked_from = None
        now = self.launch.cpu_usage()
        if now is None:
            return
        self.unasked_s += max(now - since, 0.0)
        if self.unasked_s > UNASKED_CPU_S:
            self.stops_unasked = True
            self.stderr.mark(
                f"--- the bot used {self.unasked_s * 1000:.0f} ms of CPU in this match while "
                "it was not asked (a thread or a timer of its own, or its runtime's: a JVM "
                "compiles in the background): from now on its processes are stopped from each "
                "reply to the next request, and it thinks only while it is asked ---"
            )

    def pause(self) -> None:
        """Between matches, and between calls where :meth:`answered` says so, on a host whose
        bot code could run there (a child process that holds the bot, its threads and
        timers: not a realm): stop every process of the sandbox with SIGSTOP, which no code
        can catch, until :meth:`resume` (which the next write of a request does first). They
        are the CPU cgroup's (``Launch.pids``): without one, nothing is stopped."""
        if self.launch.pids is None or self.hello is None or self.hello.isolation == "realm":
            return
        if not self.alive:
            return
        pids = self.launch.pids()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGSTOP)
        self._stopped = pids

    def resume(self) -> None:
        """Let the processes :meth:`pause` stopped go on (SIGCONT). Raises PlatformError
        (the process killed first) if one was sent SIGTERM, SIGINT or SIGHUP meanwhile
        (:data:`OUTSIDE_SIGNALS`): no code of the bot's ran while they were stopped, so an
        operator or a service manager sent it, and its death would not be the bot's."""
        sent = self._continue()
        if sent is not None:
            self._kill()
            self.stderr.mark(f"--- sent {sent} from outside while it was stopped ---")
            raise PlatformError(
                f"the bot's process was sent {sent} from outside while it was stopped between "
                "calls (an operator or a service manager: no code of the bot's ran meanwhile)"
            )

    def _continue(self) -> str | None:
        """SIGCONT the processes :meth:`pause` stopped; the signal from outside pending on one
        of them (:meth:`resume`), if any."""
        pids, self._stopped = self._stopped, []
        sent = next(filter(None, map(_outside_signal_pending, pids)), None)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGCONT)
        return sent

    def _read_control(self, child: _Child) -> None:
        assert child.control_fd is not None
        while True:
            try:
                chunk = os.read(child.control_fd, 4096)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                return
            child.control += chunk
            *lines, rest = child.control.split(b"\n")
            child.control = bytearray(rest)
            for line in lines:
                with contextlib.suppress(ValueError, TypeError, AttributeError):
                    said = json.loads(line)
                    child.exited = max(child.exited, int(said["exited"]))
                    if self.launch.cpu_usage is None:  # else the cgroup's count is kept
                        self.cpu_s = max(float(said["cpu"]), 0.0)

    def new_match(self) -> None:
        """A match begins: the output cap and the match's stderr count from here, and what
        the last match had still to tell (a seat that faulted is not told more) is dropped."""
        self._outbox.clear()
        self._folded.clear()
        self._unasked_from = None
        self.unasked_s = 0.0
        child = self._child
        if child is not None:
            self.settle_stderr()  # the last match's late lines stay with the last match
            child.output = 0
        self._match_stderr = self.stderr.total

    def match_stderr(self, limit: int = REPORT_TAIL) -> str:
        """What the bot wrote to stderr since the match began (its end, up to ``limit``)."""
        return self.stderr.since(self._match_stderr, limit)

    def kill(self) -> None:
        """End the process and everything it started, and wait until they are gone."""
        with self._io:
            self._kill()

    def _kill(self) -> None:
        # a stopped process reads no quit (SIGKILL ends it all the same); a signal an operator
        # sent it while stopped is nothing to raise here: it is being ended anyway (raised
        # from the worker's release of its idle processes, it took the worker down)
        sent = self._continue()
        if sent is not None:
            self.stderr.mark(f"--- sent {sent} from outside while it was stopped, as it ended ---")
        with self._lock:
            proc, child = self._proc, self._child
            self._proc = self._child = None
        self._outbox.clear()
        self._folded.clear()
        if self._owed:
            self._owed = 0
            self.peers.owe(self, False)
        if proc is None or child is None:
            return
        # never greeted: its init, named by now, is killed by its pidfd (else bwrap's group
        # is, and the init dies with bwrap: --die-with-parent)
        self._read_naming(child, longest=1.0)
        if proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                os.write(proc.stdin.fileno(), b'{"type":"quit"}\n')  # type: ignore[union-attr]
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.2)
        self._terminate(child)
        with self._lock:
            pidfd, child.init_pidfd = child.init_pidfd, None
        if pidfd is not None:
            # The namespace's init has exited only once every process in it has; bwrap
            # then reaps it and exits by itself.
            with contextlib.suppress(OSError):
                select.select([pidfd], [], [], 5)
            os.close(pidfd)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1)
        # The group goes even if the main process exited: whatever it left behind too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        # Everything is dead: the pipe's writers are closed, so its last bytes come quickly.
        self._drain_stderr(child, 1.0)
        _close_control(child)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]

    def _terminate(self, child: _Child) -> None:
        """SIGKILL the process tree: the sandbox's init, which takes its PID namespace with
        it (bwrap then exits), or else the process group. Safe to call from any thread, and
        more than once."""
        with self._lock:
            child.killed = True
            if child.init_pidfd is not None:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(child.init_pidfd, signal.SIGKILL)
                return
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.proc.pid, signal.SIGKILL)

    def forget(self) -> None:
        """In a forked copy of the process that runs this bot: let go of its pipes without
        touching the bot, which stays the original's (nor its uid slot or memory cgroup)."""
        with self._lock:
            proc, child = self._proc, self._child
            self._proc = self._child = None
        self._closed = True  # never closed from here
        self._owed = 0
        if proc is None or child is None:
            return
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError, ValueError):
                pipe.close()  # type: ignore[union-attr]
        for fd in (child.init_pidfd, child.info_fd):
            if fd is not None:
                os.close(fd)
        child.init_pidfd = child.info_fd = None
        _close_control(child)

    def ask_to_quit(self) -> None:
        """Ask the host to exit, without waiting (:meth:`close` waits): closing several
        processes, ask each first, and they wind down side by side."""
        with self._io:
            proc = self._proc
            if proc is None or proc.poll() is not None or self._stopped:
                return
            with contextlib.suppress(OSError, ValueError):
                os.write(proc.stdin.fileno(), b'{"type":"quit"}\n')  # type: ignore[union-attr]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.kill()
            self.stderr.close()
        finally:
            if self.launch.cleanup is not None:
                self.launch.cleanup()

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- requests -----------------------------------------------------------------------
    def request(self, message: dict[str, Any], *, reply: bool = True) -> int:
        """Send one request; returns its id. ``reply=False``: a request the host answers only
        if it fails, with its next reply (a ``tell``): it is written together with the next
        request that takes a reply, in one write (one wake-up of the bot, not two). Raises
        AgentFault("crash") if the pipe broke, AgentFault("timeout") if the bot left a pipe's
        worth of requests unread."""
        child = self._child
        if self._proc is None or child is None:
            raise self._death_fault("a request")
        self._next_id += 1
        line = _encode({"id": self._next_id, **message}).encode() + b"\n"
        if self._folded:
            kind, lane = message.get("type"), message.get("lane", 0)
            if kind == "end":  # the match's last notices go with it
                told = self._folded.pop(lane, None)
                if told is not None:
                    line = line[:-2] + _TOLD_END % told
            elif kind == "renew":  # a bot that has seen nothing: none are its
                self._folded.clear()
            else:  # a new match (its lane's are the last match's: a seat that faulted is
                self._folded.pop(lane, None)  # not told more)
        method = message.get("method")
        return self._write(child, line, reply, method if isinstance(method, str) else None, message)

    def call(self, method: str, args: Any, *, reply: bool = True, lane: int = 0) -> int:
        """:meth:`request` of a ``call`` (``reply``) or a ``tell`` of the bot's ``method``
        with ``args`` (in ``lane``, when not 0): the same line, made without a dict (a match
        makes dozens)."""
        child = self._child
        if self._proc is None or child is None:
            raise self._death_fault("a request")
        if not reply and self._folds:  # it goes in the lane's next request
            item = _TOLD.get(method)
            if item is None:
                item = b"[%b," % _encode(method).encode()
                if len(_TOLD) < 256:
                    _TOLD[method] = item
            item = b"%b%b]" % (item, "".join(_pieces(args, 0)).encode())
            folded = self._folded.get(lane)
            if folded is None:
                self._folded[lane] = bytearray(item)
            else:
                folded += b"," + item
            return 0
        self._next_id = rid = self._next_id + 1
        heads = _CALL_HEADS if reply else _TELL_HEADS
        head = heads.get(method)
        if head is None:
            kind = "call" if reply else "tell"
            head = f',"type":"{kind}","method":{_encode(method)},"args":'.encode()
            if len(heads) < 256:
                heads[method] = head
        told = self._folded.pop(lane, None) if self._folded else None
        tail = b"}\n" if told is None else _TOLD_END % told
        encoded = "".join(_pieces(args, 0)).encode()
        if lane:
            line = b'{"id":%d,"lane":%d%b%b%b' % (rid, lane, head, encoded, tail)
        else:
            line = b'{"id":%d%b%b%b' % (rid, head, encoded, tail)
        if not reply or self.holding:  # kept back (what _write does first, done here)
            self._outbox += line
            return rid
        return self._write(child, line, reply, method)

    def flush(self) -> None:
        """Write what :attr:`holding` kept back, in one write. Raises AgentFault as
        :meth:`request` does."""
        child = self._child
        if not self._outbox:
            return
        if self._proc is None or child is None:
            self._outbox.clear()
            raise self._death_fault("a request")
        data = bytes(self._outbox)
        self._outbox.clear()
        self._send(child, data, None, {"type": "request"})

    def _write(
        self,
        child: _Child,
        line: bytes,
        reply: bool,
        method: str | None,
        message: dict[str, Any] | None = None,
    ) -> int:
        """Send one request's ``line`` to ``child`` (see :meth:`request`): a call or tell of
        ``method``, else ``message``, as a fault's reason names it."""
        if not reply or self.holding:
            self._outbox += line
            return self._next_id
        # (A process that is gone fails the write, or its reply: no wait() before each.)
        if self._outbox:
            self._outbox += line
            data = bytes(self._outbox)
            self._outbox.clear()
        else:
            data = line
        self._send(child, data, method, message)
        if self._owed:  # (owing already: its peers know)
            self._owed += 1
        else:
            self._owe(1)
        return self._next_id

    def _send(
        self, child: _Child, data: bytes, method: str | None, message: dict[str, Any] | None
    ) -> None:
        """Write requests' ``data`` to ``child`` at once, the bot's processes let go on
        first if they were stopped (:meth:`pause`). Raises AgentFault (see :meth:`request`)."""
        if self._stopped:
            self.resume()
        elif self._unasked_from is not None:
            self._watch_unasked(self._unasked_from)
        child.sent = time.monotonic()
        try:
            written = os.write(child.in_fd, data)
        except BlockingIOError:
            written = 0
        except (OSError, ValueError):
            what = self._what(method, message)
            raise self._death_fault(f"a request ({what})") from None
        if written < len(data):
            # The pipe is full: the bot has not read what it was sent (a host stuck in a
            # notice, or one that never reads). Waiting could hang the arena; this cannot.
            self.kill()
            what = self._what(method, message)
            raise AgentFault("timeout", f"the bot stopped reading its requests before {what}")

    def _what(self, method: str | None, message: dict[str, Any] | None) -> str:
        """A request in a fault's reason: its method as the bot's language names it, else
        its type."""
        if method is None:
            return str((message or {}).get("type"))
        return method_name(self.hello.language, method) if self.hello else method

    def reply(self, request_id: int, timeout: float, what: str) -> tuple[float, dict[str, Any]]:
        """The reply to ``request_id``: (arrival time, message). Raises AgentFault."""
        arrived, message = self._read(timeout, what)
        if message.get("id") != request_id:
            self.kill()
            raise AgentFault("protocol", f"reply to {what} has the wrong id: {_short(message)}")
        return arrived, message

    def _owe(self, change: int) -> None:
        before = self._owed
        owed = before + change if before + change > 0 else 0
        self._owed = owed
        if (before > 0) != (owed > 0):
            self.peers.owe(self, owed > 0)

    def _next_line(self, timeout: float, what: str) -> tuple[float, bytes | None] | None:
        """The next stdout line and its arrival time, waiting up to ``timeout`` (None: none
        came), and longer by what the machine kept the bot waiting for a CPU meanwhile
        (:meth:`_extended`). Meanwhile it drains the bot's stderr and reads the lines of its
        peers."""
        with self._io:
            child = self._child
            if not self._lines and child is not None and not child.out_done:
                # A quick bot has answered by the time its reply is asked for: read it
                # without a poll (the peers' lines are read by the next wait that polls).
                self._pump(child, True)
            if self._lines:
                return self._lines.popleft()
            first = deadline = time.monotonic() + max(timeout, 0.0)
            allowance = 0.0  # (the call's, from its start: set once its deadline comes)
            while not self._lines:
                child = self._child
                if child is None:
                    return (time.monotonic(), None)
                now = time.monotonic()
                left = deadline - now
                if left <= 0:
                    if not allowance:
                        allowance = max(first - child.sent, starved.PROBE_S)
                    due = child.sent + starved.PROBE_S
                    if self._probe_id != self._next_id and due < first:
                        # The worker itself was kept from running past the call's deadline
                        # (a machine this busy keeps the bot from it too): its baseline now,
                        # and the time it was late is not the bot's.
                        self._take_probes(child)
                        first += now - due
                        deadline = first
                        continue
                    extended = self._extended(child, first, now, what, allowance)
                    if extended is None:
                        return None
                    deadline = extended
                    continue
                if self._probe_id != self._next_id:
                    # a call still unanswered PROBE_S after it began: its baseline
                    due = child.sent + starved.PROBE_S
                    if now >= due:
                        self._take_probes(child)
                    elif due - now < left:
                        left = due - now
                self._wait(child, left)
            return self._lines.popleft()

    def _take_probes(self, child: _Child) -> None:
        """Read the run-queue baseline of the call awaited (bots.running.starved), and of
        the calls its peers owe that have none yet (a seat read after another seat's reply
        is measured from here, not from when its own reader comes to it)."""
        self._probe = starved.probe(self.launch, child.proc.pid)
        self._probe_id = self._next_id
        for peer in self.peers.others(self):
            kid = peer._child
            if kid is not None and peer._owed and peer._probe_id != peer._next_id:
                peer._probe = starved.probe(peer.launch, kid.proc.pid)
                peer._probe_id = peer._next_id

    def _starved_now(self, child: _Child) -> float | None:
        """Seconds the machine kept the bot waiting for a CPU since the call's baseline
        (None: the call has none: it was answered, or timed out, within PROBE_S)."""
        base = self._probe if self._probe_id == self._next_id else None
        if base is None:
            return None
        now = starved.probe(self.launch, child.proc.pid)
        return starved.credit(base, now, self.launch.cpu_cores)

    def _extended(
        self, child: _Child, first: float, now: float, what: str, allowance: float
    ) -> float | None:
        """The call's deadline ``first`` has passed: the deadline moved on by the time the
        machine kept the bot waiting for a CPU since the call began, or None if that is
        past too (a timeout: the bot had its allowance). Raises PlatformError when the
        machine kept it waiting so long that the call would last over
        :data:`starved.CAP` times its allowance: the match is played again later."""
        credit = self._starved_now(child)
        if credit is None:
            return None
        self.starved_s = credit
        deadline = first + credit
        if deadline - now < starved.MIN_STEP_S:
            return None
        if deadline - child.sent > starved.CAP * allowance:
            self._kill()
            self.stderr.mark(f"--- stopped: the machine kept the bot waiting during {what} ---")
            raise PlatformError(starved.too_busy(credit, what, allowance))
        return deadline

    def _wait(self, child: _Child, timeout: float) -> None:
        """Poll this process's pipes and its owing peers' for up to ``timeout`` and read what
        is ready."""
        watched = [(self, child)] + [
            (p, p._child) for p in self.peers.others(self) if p._child is not None
        ]
        # the same pipes are watched wait after wait (a match's seats): one poll object each
        key = tuple((kid, kid.out_done, kid.err_done) for _, kid in watched)
        made = self._pollers.get(key)
        if made is None:
            poller = select.poll()
            ready: dict[int, tuple[BotProcess, _Child, bool]] = {}
            for process, kid in watched:
                assert kid is not None
                if not kid.out_done:
                    ready[kid.out_fd] = (process, kid, True)
                if not kid.err_done:
                    ready[kid.err_fd] = (process, kid, False)
            for fd in ready:
                poller.register(fd, select.POLLIN)
            if len(self._pollers) >= 16:  # pipes of processes gone since
                self._pollers.clear()
            self._pollers[key] = made = (poller, ready)
        poller, ready = made
        for fd, _ in poller.poll(math.ceil(timeout * 1000)):
            process, kid, out = ready[fd]
            if process is self:
                process._pump(kid, out)
            elif process._io.acquire(blocking=False):  # its own reader is busy with it
                try:
                    if process._child is kid:
                        process._pump(kid, out)
                finally:
                    process._io.release()

    def _pump(self, child: _Child, out: bool) -> int:
        """Read once from stdout (``out``) or stderr; returns the bytes read. Call with
        ``_io`` held."""
        fd = child.out_fd if out else child.err_fd
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:
            return 0
        except (OSError, ValueError):
            chunk = b""
        now = time.monotonic()
        if not chunk:
            if out:
                child.out_done = True
                self._lines.append((now, None))
            else:
                child.err_done = True
            return 0
        if not out:
            self.stderr.feed(chunk)
            if self.lane_output is not None:
                self.lane_output(chunk)
            else:
                self._count_output(child, len(chunk), "stderr")
            return len(chunk)
        if self.lane_output is None:
            self._count_output(child, len(chunk), "stdout")
        partial = child.partial
        start = len(partial)
        if not start and chunk.endswith(b"\n") and b"\r" not in chunk:
            # whole lines, as replies usually come (one, or in lanes several): split at once
            # (splitlines splits at \r too: none here)
            append = self._lines.append
            for line in chunk.splitlines(True):
                append((now, line))
            return len(chunk)
        partial += chunk
        end = partial.find(b"\n", start)
        while end >= 0:
            self._lines.append((now, bytes(partial[: end + 1])))
            del partial[: end + 1]
            end = partial.find(b"\n")
        if len(partial) > MAX_LINE:
            # the reader hears of the oversized line and kills the bot
            self._lines.append((now, bytes(partial[: MAX_LINE + 1])))
            child.out_done = True
        return len(chunk)

    def _drain_stderr(self, child: _Child, timeout: float) -> None:
        """Read stderr until its end of file (the process is dead), for up to ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._io:
            while not child.err_done:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                with contextlib.suppress(OSError, ValueError):
                    if not select.select([child.err_fd], [], [], left)[0]:
                        return
                    self._pump(child, False)
                    continue
                return

    def _read(self, timeout: float, what: str) -> tuple[float, dict[str, Any]]:
        self.starved_s = 0.0
        asked = time.monotonic()
        got = self._next_line(timeout, what)
        child = self._child
        if child is not None:
            # this process held up while the bot had the call: its time cannot be told
            stalled = stalls.held_up(child.sent, got[0] if got is not None else None)
            if stalled:
                self._kill()
                self.stderr.mark(f"--- stopped: the match's process was held up during {what} ---")
                raise PlatformError(stalls.held_up_words(stalled, what))
        doom = self._child.doom if self._child else None
        if got is not None and doom is not None:
            # A fault decided while reading (the output cap) wins over a line that came after
            # it: killing the sandbox's init takes a moment to reach the bot's own process.
            doom = self._doom_during(doom, what)
            self.kill()
            raise doom
        if got is None:
            doom = self._child.doom if self._child else None
            if doom is not None:
                doom = self._doom_during(doom, what)
            self.kill()
            if doom is None and any(m in self.match_stderr(STDERR_TAIL) for m in MEMORY_MARKERS):
                # It was dying of it when the deadline came (a runtime's last garbage
                # collections can take a while).
                doom = AgentFault("memory", f"the bot ran out of memory during {what}")
            # A bot that closed its stdout without exiting ends here too: the sandbox's
            # outer process still holds the pipe, so no end of file ever comes.
            more = starved.given_more(self.starved_s)
            if child is not None and child.sent < asked:
                # the time the bot had since its request was written, not what was left of
                # it when the reply was asked for (a notice told first, or the match's other
                # seats asked first, took some: "within 0.28 s, the 0.3 s per call")
                timeout += asked - child.sent
            raise doom or AgentFault("timeout", f"no answer to {what} within {timeout:.2f} s{more}")
        arrived, line = got
        if self._probe_id == self._next_id:  # a call of over PROBE_S: what it was kept waiting
            child = self._child
            if child is not None and line is not None:
                self.starved_s = self._starved_now(child) or 0.0
            self._probe_id = -1
        if line is None:
            self._lines.appendleft((arrived, None))  # stays closed for later reads
            raise self._death_fault(what)
        if self._owed > 1:  # (still owing: its peers need not hear of it)
            self._owed -= 1
        else:
            self._owe(-1)
        return arrived, self.parse(line, what)

    def parse(self, line: bytes, what: str) -> dict[str, Any]:
        """A reply line, read as the untrusted text it is: the message, or AgentFault (the
        process killed) for a line too long, not JSON or not an object."""
        quick = _INT_RETURN.fullmatch(line)
        if quick is not None:
            return {"type": "return", "value": int(quick[1]), "id": int(quick[2])}
        if len(line) > MAX_LINE:
            self.kill()
            raise AgentFault("output", f"a line of over {MAX_LINE} bytes during {what}")
        try:
            message = untrusted.loads(line)
        except untrusted.Untrusted as exc:
            self.kill()
            raise AgentFault("invalid", f"the reply to {what} is {exc}") from None
        except ValueError:  # malformed JSON, or not UTF-8
            self.kill()
            raise AgentFault("protocol", f"not a JSON line during {what}: {_short(line)}") from None
        if not isinstance(message, dict):
            self.kill()
            raise AgentFault("protocol", f"not a JSON object during {what}: {_short(line)}")
        return message

    def _death_fault(self, what: str) -> AgentFault:
        """The process is gone (or going): why, as a fault. Kills what is left of it. Raises
        PlatformError for a SIGKILL from outside (:meth:`_outside_kill`)."""
        child = self._child
        if child is not None and child.doom is not None:
            doom = self._doom_during(child.doom, what)
            self.kill()
            return doom
        code = self._exit_code()
        if code is not None and child is not None:
            self._drain_stderr(child, 1.0)  # its last words may explain the death
        stderr = self.match_stderr(STDERR_TAIL)
        # whether the platform killed it (the output cap, a fault, closing): before kill()
        # below, which kills what is left whatever the reason
        ours = child is not None and child.killed
        self.kill()
        sig = None
        if code is not None and code < 0:
            sig = -code
        elif code is not None and code > 128 and self.launch.sandbox:
            sig = code - 128  # bwrap reports a child killed by signal N as 128 + N
        if sig == signal.SIGXCPU or CPU_MARKER in stderr:
            return AgentFault("timeout", f"the bot used up its CPU-time limit during {what}")
        if any(marker in stderr for marker in MEMORY_MARKERS):
            return AgentFault("memory", f"the bot ran out of memory during {what}")
        if (
            sig == signal.SIGKILL
            and self.launch.oom_kills is not None
            and self.launch.oom_kills() > (child.oom_kills if child else 0)
        ):
            return AgentFault(
                "memory",
                f"the bot went over its memory limit during {what} (heap, files in /tmp and "
                "shared memory count together)",
            )
        if sig == signal.SIGKILL and child is not None and not ours:
            return self._outside_kill(what, child)
        if sig in OUTSIDE_SIGNALS and child is not None and not ours and self.launch.sandbox:
            # the sandbox refuses the bot every way to send itself one (a signal, a timer's,
            # a terminal's, its parent's death: bots.sandbox.seccomp): an operator or a
            # service manager sent it, and the bot did nothing (it was stored as its crash,
            # a rated loss at a tournament or a live table)
            name = signal.Signals(sig).name
            self.stderr.mark(f"--- killed by {name} from outside during {what} ---")
            raise PlatformError(
                f"the bot's process was killed by {name} from outside during {what} (an "
                "operator or a service manager: the sandbox lets no bot send it)"
            )
        if sig == signal.SIGXFSZ:
            return AgentFault("crash", f"the bot wrote a file over the size limit during {what}")
        if sig == signal.SIGSYS and self.launch.sandbox:
            return AgentFault(
                "crash",
                f"the sandbox ended the bot during {what}: it exited with a status of 128 or "
                "more (which would pass for a signal's), or made a system call of another "
                "architecture",
            )
        if sig is None and CLOSED_MARKER in stderr:
            return AgentFault("crash", f"the bot closed its output during {what}")
        if sig is not None:
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            return AgentFault("crash", f"the bot was killed by {name} during {what}")
        if code is None:
            return AgentFault("crash", f"the bot closed its output during {what}")
        return AgentFault("crash", f"the bot exited with status {code} during {what}")

    def _outside_kill(self, what: str, child: _Child) -> AgentFault:
        """A SIGKILL the platform did not send, nor the bot's memory cgroup: its CPU-time
        limit's (RLIMIT_CPU's hard limit: the bot's CPU time is at it), else someone else's
        (the machine's OOM killer, an operator), which the bot cannot have sent itself (the
        seccomp filter refuses it SIGKILL, bots.sandbox.seccomp): raises PlatformError, the
        match is played again later. Where no CPU cgroup measures the CPU time and a limit is
        set, it may be the limit's, the bot's crash, unless the process was too young to have
        used that much with every core of the machine (a web process's live tables run
        without cgroups: a SIGKILL from outside there was the bot's crash)."""
        limit = self.launch.cpu_limit_s
        used = self.measured_cpu_s()
        if limit is not None and used is not None and used >= limit - 1.0:
            return AgentFault("timeout", f"the bot used up its CPU-time limit during {what}")
        if limit is not None and used is None:
            most = (time.monotonic() - child.spawned) * (os.cpu_count() or 1)
            if most >= limit - 1.0:
                return AgentFault(
                    "crash",
                    f"the bot was killed by SIGKILL during {what} (its CPU-time limit, or the "
                    "machine ran out of memory)",
                )
        cpu = f" after {used:.1f} s of CPU" if used is not None else ""
        self.stderr.mark(f"--- killed by SIGKILL from outside during {what} ---")
        raise PlatformError(
            f"the bot's process was killed by SIGKILL from outside during {what}{cpu}: by the "
            "machine's OOM killer or an operator, not by the bot's own memory or CPU-time limit"
        )

    def _exit_code(self) -> int | None:
        proc = self._proc
        if proc is None:
            return None
        code = proc.poll()
        if code is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = proc.wait(timeout=0.5)
        return code

    # ---- output ---------------------------------------------------------------------------
    def _count_output(self, child: _Child, size: int, stream: str) -> None:
        limit = self.launch.max_output
        if limit is None or child.killed:
            return
        child.output += size
        if child.output > limit:
            child.doom = AgentFault("output", output_over(limit, stream))
            child.over_on = stream
            self._terminate(child)

    def _doom_during(self, doom: AgentFault, what: str) -> AgentFault:
        """A fault decided while reading, naming the call it came in (``what``)."""
        child, limit = self._child, self.launch.max_output
        if doom.kind != "output" or child is None or limit is None or not child.over_on:
            return doom
        return AgentFault("output", output_over(limit, child.over_on, what))

    def settle_output(self) -> None:
        """:meth:`settle_stderr`, then the fault it found, raised: output over the match's
        cap (a reply read at once, without a poll, leaves what the bot wrote to stderr
        before it in the pipe until now)."""
        self.settle_stderr()
        child = self._child
        if child is not None and child.doom is not None:
            doom = child.doom
            self.kill()
            raise doom

    def settle_stderr(self) -> None:
        """Take into the log what the bot has written to stderr so far. A host writes a
        traceback before the reply that reports the exception, so once the reply is read the
        traceback is in the pipe: what is there is read at once, and nothing is waited for."""
        child = self._child
        if child is None:
            return
        with self._io:
            taken = 0
            while self._child is child and not child.err_done and taken < SETTLE_MAX:
                # (asked first: a read of an empty pipe raises, which costs more than a poll,
                # and it is empty as a rule)
                if not child.err_poll.poll(0):
                    return
                got = self._pump(child, False)
                if not got:
                    return
                taken += got


def _close_control(child: _Child) -> None:
    fd, child.control_fd = child.control_fd, None
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


def output_over(limit: int, stream: str, what: str | None = None) -> str:
    """Why a bot's match stopped at the output cap: ``limit`` bytes, the last of them written
    to ``stream`` during the call ``what`` (None: not known)."""
    during = f", during {what}" if what else ""
    return (
        f"the bot wrote over {limit:,} bytes to stdout and stderr in one match (the last of "
        f"it to {stream}{during}): print less, or only while debugging"
    )


def _lanes(value: Any) -> int:
    """A hello's ``lanes``: a count of 2 to MAX_LANES, else 0 (one match at a time)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2:
        return min(value, MAX_LANES)
    return 0


#: the most lanes a process is given, whatever its host says it takes
MAX_LANES = 64

#: the values a hello's ``isolation`` may take (see :class:`Hello`)
ISOLATIONS = ("process", "realm")


def _isolation(claimed: Any, declared: str) -> str:
    """The isolation a hello claims, taken only where the bot's language declares its host
    keeps it (``Launch.isolation``): a C++ bot is compiled into its host, and a Java bot's
    static initialiser runs before its host's hello, so their own code can write a hello
    that claims a fresh process or realm per deal, answer ``renew`` itself, and play the
    other seating of a deal remembering the first's cards. Anything else: none (a fresh
    start before every deal it has been dealt)."""
    return declared if claimed == declared and declared in ISOLATIONS else ""


def _compact_encoder() -> Any:
    """A function that writes a request as compact JSON, in pieces (``"".join`` them: see
    :func:`_encode`). ``json.dumps`` builds a new encoder for every call (a third of what
    encoding a request costs): this builds the C encoder once, as ``json.JSONEncoder`` would
    with these options, and is that encoder itself (no call of Python's in between), or uses
    ``json.JSONEncoder`` where there is none. Requests hold only what the arena built: JSON
    data."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        encode = json.JSONEncoder(separators=(",", ":")).encode
        return lambda value, _level: (encode(value),)

    def not_json(value: object) -> Any:
        raise TypeError(f"{type(value).__name__} is not JSON data")

    return make(
        None, not_json, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True
    )


#: requests as compact JSON, in pieces: ``"".join(_pieces(value, 0))``
_pieces = _compact_encoder()


def _encode(value: Any) -> str:
    """``value`` as compact JSON (a call's arguments are joined from :data:`_pieces` in
    place: a match encodes dozens)."""
    return "".join(_pieces(value, 0))


#: the middle of a call's line by method: from its type to its args
_CALL_HEADS: dict[str, bytes] = {}
#: the same, of a tell's line
_TELL_HEADS: dict[str, bytes] = {}
#: the start of a folded notice, ``[method,``, by method
_TOLD: dict[str, bytes] = {}
#: the usual reply, a call's value that is an integer (an index, as most games' moves are),
#: as the hosts write it: read without the JSON decoder, as the same message (JSON integers
#: have no leading zero; 15 digits at most, as a host's ids)
_INT_RETURN = re.compile(
    rb'\{"type":"return","value":(-?(?:0|[1-9][0-9]{0,14})),"id":(0|[1-9][0-9]{0,14})\}\n'
)


#: the end of a request's line that carries a lane's folded notices: ``_TOLD_END % told``
_TOLD_END = b',"told":[%b]}\n'


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name.strip("{}") or "data", os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


#: what :func:`_init_pidfd` found: bwrap named its init; it closed --info-fd (it failed)
#: without naming it; it was still silent when the time was up
NAMED, FAILED, TOO_SLOW = "named", "failed", "too slow"


def _init_pidfd(
    info_fd: int, proc: subprocess.Popen[bytes], timeout: float
) -> tuple[str, int | None]:
    """Whether bwrap named the sandbox's init on its --info-fd within ``timeout`` (it does
    before any of the bot's code runs: if it did not, bwrap failed or is stuck in its own
    set-up): NAMED, FAILED or TOO_SLOW; and a pidfd of that init (None if it is gone)."""
    data = b""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([info_fd], [], [], left)[0]:
            return TOO_SLOW, None
        chunk = os.read(info_fd, 4096)
        if not chunk:
            break
        data += chunk
        with contextlib.suppress(ValueError):
            json.loads(data)
            break
    try:
        pid = int(json.loads(data)["child-pid"])
    except (ValueError, KeyError, TypeError):
        return FAILED, None
    if proc.poll() is not None:
        return NAMED, None  # bwrap is gone: the pid may already name another process
    try:
        return NAMED, os.pidfd_open(pid)
    except OSError:
        return NAMED, None


def _short(value: object, limit: int = 120) -> str:
    """A bot's line or message quoted in a fault reason: short, and safe to store. A
    message's nesting is bounded by :func:`untrusted.loads`, so ``repr`` cannot recurse deep."""
    text = (
        untrusted.decode(value) if isinstance(value, bytes) else untrusted.clean_text(repr(value))
    )
    return untrusted.shorten(text.strip(), limit)


def _outside_signal_pending(pid: int) -> str | None:
    """The name of an :data:`OUTSIDE_SIGNALS` signal pending on process ``pid`` and not
    blocked by all of its threads (it would end the process as it goes on), or None."""
    pending, blocked = 0, -1  # (blocked: by every thread)
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/status") as status:
                for line in status:
                    key, _, value = line.partition(":")
                    if key in ("SigPnd", "ShdPnd"):
                        pending |= int(value, 16)
                    elif key == "SigBlk":
                        blocked &= int(value, 16)
    except (OSError, ValueError):
        return None  # (gone: its death says why)
    live = pending & ~blocked & _OUTSIDE_MASK
    for sig in OUTSIDE_SIGNALS:
        if live & (1 << (int(sig) - 1)):
            return sig.name
    return None


def _quote(value: object, limit: int = QUOTE) -> str:
    """Text a bot chose (its name, an exception's description) for a reason or a label."""
    text = value if isinstance(value, str) else repr(value)
    return untrusted.shorten(untrusted.clean_text(text), limit)


class ProcessAgent(Agent):
    """A seat played by a bot process. One process serves consecutive matches; each match
    begins with ``begin`` (the host makes a fresh bot instance where the bot's contract says
    so). Every fault is kept in ``fault_reports`` for the bot's owner.

    A notice goes as a ``tell``, which the host answers only if it fails, with its next
    reply: ``receive`` then returns at once, and the notice's time is counted in the next
    call's (the host is still busy with it). The match's last notices are confirmed by
    :meth:`confirm`, which ends the match in the same round trip."""

    hears_later = True

    def __init__(self, process: BotProcess, bot_call: BotCall, *, startup_timeout: float = 10.0):
        self.process = process
        self.bot_call = bot_call
        self.startup_timeout = startup_timeout
        self.name = process.hello.name if process.hello else process.label
        self.fault_reports: list[FaultReport] = []
        self._pending: tuple[int, str] | None = None
        #: the methods told since the last reply (a failure of theirs comes with the next)
        self._told: list[str] = []
        #: the match was ended by :meth:`confirm`
        self._ended = False
        #: the id of the ``end`` that :meth:`ask_confirm` sent, until :meth:`confirm` reads
        #: its reply
        self._end_asked: int | None = None
        #: the id of the ``begin`` that :meth:`begin` sent, until :meth:`started` reads its
        #: reply
        self._begin_asked: int | None = None
        self._seat: int | None = None
        self._reported = False
        #: the next match as its stderr log's header names it, besides the game (the arena
        #: sets it: the match's number, record file, seat and opponents); else the seat
        self.match_label = ""
        #: the contract's method names as the bot's language writes them (see call_name)
        self._names: dict[str, str] = {}

    @property
    def unconfirmed(self) -> bool:
        return bool(self._told)

    def begin(self, info: SeatInfo, timeout: float) -> None:
        self._seat = info.seat
        self.platform_s = 0.0
        self._reported = False
        self._told = []
        self._ended = False
        self._end_asked = None
        self._begin_asked = None
        self._pending = None
        where = self.match_label or f"seat {info.seat}"
        process = self.process
        # what the last match wrote comes before this one's header (a reply read at once,
        # without a poll, leaves the stderr written before it in the pipe)
        process.settle_stderr()
        process.stderr.mark(f"--- match start: {info.game}, {where} ---")
        with self._reporting():
            process.resume()
            if process.alive and process._owed:  # a match left with its replies unread
                process.stderr.mark("--- restarting the bot: its last match was cut short ---")
                process.kill()
            recycle = process.launch.recycle_cpu_s
            if recycle is not None and process.alive and process.cpu_s >= recycle:
                used = f"{process.cpu_s:.1f} s of CPU"
                process.stderr.mark(f"--- restarting the bot: it used {used} ---")
                process.kill()
            if process.alive and not process.await_fresh():
                process.stderr.mark("--- restarting the bot: its last process lingered ---")
                process.kill()
            # never a deal its process has been dealt (an unknown deal: maybe one); and the
            # deals it keeps in mind are bounded
            seen = info.deal is None or info.deal in process.dealt
            seen = seen or len(process.dealt) >= MAX_DEALT
            if process.alive and process.played and seen:
                process.stderr.mark("--- the bot starts afresh: a new process or realm ---")
                if not process.renew(timeout):
                    process.stderr.mark("--- restarting the bot: it did not start afresh ---")
                    process.kill()
            if not process.alive:
                process.start(timeout)
                # the sandbox's own set-up is the machine's time, not the bot's start
                self.platform_s = process.sandbox_start_s
                # the bot's whole start-up allowance: a machine under load must not make a
                # slow end of the hello's process look like a bot that keeps it alive
                if not process.await_fresh(timeout):
                    process.kill()
                    raise AgentFault(
                        "startup",
                        "the bot's process did not end after its hello (the bot's code kept it "
                        "alive: matches are played by a process of their own, "
                        "docs/bot-protocol.md)",
                    )
            process.played += 1
            if info.deal is not None:
                process.dealt.add(info.deal)
            process.new_match()
            begin = {"type": "begin", "game": info.game, "seat": info.seat, "seats": info.num_seats}
            hello = process.hello
            if hello is not None and hello.quiet_begin:
                # Nothing to wait for: it goes with the first question, in the same write.
                process.request(begin | {"reply": False}, reply=False)
                return
            # its reply is awaited in started(), once every seat has been begun
            self._begin_asked = process.request(begin)

    def started(self, timeout: float) -> None:
        rid, self._begin_asked = self._begin_asked, None
        if rid is None:
            return
        with self._reporting():
            arrived, message = self.process.reply(rid, timeout, "start of match")
            self.answered_at = arrived
            self.process.answered()
            if message.get("type") == "error" and message.get("kind") == "load":
                # the bot's process could not load the bot file
                raise AgentFault("startup", _quote(message.get("error", "?"), 4 * QUOTE))
            if message.get("type") == "error" and message.get("kind") != "memory":
                # the host made the bot's instance and it raised: the bot could not start
                error = _quote(message.get("error", "?"))
                raise AgentFault("startup", f"the bot's constructor raised {error}")
            self._check(arrived, message, what="start of match")

    def call_name(self, prompt: Prompt) -> str:
        return self._name(self.bot_call(prompt)[0])

    def _name(self, method: str) -> str:
        """A method of the contract as the bot's own file names it (``draftPick`` in
        JavaScript): what its faults quote."""
        name = self._names.get(method)
        if name is None:
            hello = self.process.hello
            name = method_name(hello.language, method) if hello else method
            if len(self._names) < 100:
                self._names[method] = name
        return name

    def send(self, prompt: Prompt) -> None:
        method, args = self.bot_call(prompt)
        self._pending = None
        # (try/except rather than ``_reporting``: this runs for every question and notice)
        try:
            if not prompt.expects_answer:
                self.process.call(method, args, reply=False)
                self._told.append(method)
                return
            rid = self.process.call(method, args)
        except AgentFault as exc:
            self._report(exc.kind, exc.reason)
            raise
        self._pending = (rid, self._name(method))

    def receive(self, timeout: float) -> Any:
        if self._pending is None:  # a notice: its failure, if any, comes with the next reply
            self.answered_at = None
            return None
        rid, method = self._pending
        self._pending = None
        try:
            arrived, message = self._reply(rid, timeout, method)
            self.answered_at = arrived
            self.process.answered()
            return self._check(arrived, message, what=method)
        except AgentFault as exc:
            self._report(exc.kind, exc.reason)
            raise

    def ask_confirm(self) -> None:
        """The match is over: end it (the reply, awaited by :meth:`confirm`, comes once the
        notices told are done), without waiting."""
        with self._reporting():
            self._end_asked = self.process.request({"type": "end"})

    def confirm(self, timeout: float) -> None:
        """The match is over: wait until the notices told are done (a failure in one is a
        fault), ending the match with the same request (sent by :meth:`ask_confirm`, or
        now)."""
        with self._reporting():
            rid, self._end_asked = self._end_asked, None
            if rid is None:
                rid = self.process.request({"type": "end"})
            arrived, message = self._reply(rid, timeout, "end of match")
            self.answered_at = arrived
            self._ended = True
            try:
                # what it wrote is the match's: read now (its replies were read at once)
                self.process.settle_output()
                self._check(arrived, message, what="end of match")
                self._take_cpu(message)
            finally:  # its match is over, whatever its last notice did
                self.process.pause()

    def end(self, result: dict[str, Any]) -> None:
        if self._ended:
            self._ended = False
            return
        if self._begin_asked is not None:  # begun, never waited for (a match resumed)
            self._begin_asked = None
            self.process.kill()
        if self.process.alive:
            try:
                rid = self.process.request({"type": "end"})
                _, message = self.process.reply(rid, 1.0, "end of match")
                # what it wrote is the match's (see confirm); the match is decided, so
                # output over the cap only ends the process, and its owner hears why
                self.process.settle_output()
            except AgentFault as exc:
                if exc.kind == "output":
                    self._report(exc.kind, exc.reason)
                self.process.kill()
            except PlatformError:  # the match is decided: nothing to play again
                self.process.kill()
            else:
                self._take_cpu(message)
                self.process.pause()

    def _take_cpu(self, message: dict[str, Any]) -> None:
        measured = self.process.measured_cpu_s()
        if measured is not None:  # the cgroup's count: the bot has no say in it
            self.process.cpu_s = measured
            return
        cpu = message.get("cpu")
        if isinstance(cpu, int | float) and not isinstance(cpu, bool):
            # a bot's own figure: 10**400 is an int no float holds
            with contextlib.suppress(OverflowError):
                self.process.cpu_s = max(float(cpu), 0.0)

    @property
    def starved_s(self) -> float:
        """Seconds the machine kept the bot waiting for a CPU in its last call (see
        BotProcess.starved_s): the runner charges them to no time of the bot's."""
        return self.process.starved_s

    #: seconds of its last ``begin`` that the sandbox took to set itself up, when it started
    #: the bot's process (BotProcess.sandbox_start_s): the runner charges them to no time of
    #: the bot's start
    platform_s = 0.0

    def _reply(self, rid: int, timeout: float, what: str) -> tuple[float, dict[str, Any]]:
        """The reply to a request. A death names the notice told before it (the bot may
        have died there). A timeout keeps the request's words: a notice's time is counted in
        the next call's, as the protocol says, and validation quotes those words."""
        try:
            return self.process.reply(rid, timeout, what)
        except AgentFault as exc:
            if not self._told or exc.kind in ("exception", "protocol", "invalid", "timeout"):
                raise
            told = self._name(self._told[-1])
            during = f", during {what})"
            if exc.kind == "output" and during in exc.reason:  # (output_over's words)
                reason = exc.reason.replace(during, f", during {what} or the {told} before it)")
                raise AgentFault(exc.kind, reason) from None
            raise AgentFault(exc.kind, f"{exc.reason} (or the {told} before it)") from None

    def record_fault(self, kind: str, reason: str) -> None:
        """The fault the match recorded for this seat, once the match is over: a fault the
        rules found (an invalid action) is reported to the owner like the ones the agent
        raises itself; one the agent reported already takes the record's words (the runner
        adds what a timed-out call was given), so the owner reads what the record says."""
        if not self._reported:
            self._report(kind, reason)
        elif self.fault_reports and self.fault_reports[-1].kind == kind:
            if self.fault_reports[-1].reason != reason:  # the log's line said less
                self._note(f"--- the match recorded it as: {reason} ---")
            self.fault_reports[-1] = dataclasses.replace(self.fault_reports[-1], reason=reason)

    def _report(self, kind: str, reason: str) -> None:
        self._reported = True
        self.process.settle_stderr()
        tail = self.log_tail(REPORT_TAIL)
        self.fault_reports.append(FaultReport(kind, reason, tail, self._seat))
        self._note(f"--- fault ({kind}): {reason} ---")

    def _note(self, text: str) -> None:
        """A line of the platform's in this match's part of the bot's log."""
        self.process.stderr.mark(text)

    def log_tail(self, limit: int) -> str:
        """The end of what the bot wrote in this match, as text safe to show and store."""
        return self.process.match_stderr(limit)

    @contextlib.contextmanager
    def _reporting(self) -> Iterator[None]:
        try:
            yield
        except AgentFault as exc:
            self._report(exc.kind, exc.reason)
            raise

    def _check(self, arrived: float, message: dict[str, Any], what: str) -> Any:
        kind = message.get("type")
        told = self._told
        if told:
            self._told = []
        if kind == "return":  # (the usual reply: first)
            return message.get("value")
        if kind == "error" and "told" in message:  # a notice failed: it is named
            method = message.get("method")
            what = self._name(method) if isinstance(method, str) and method in told else what
        if kind == "error":
            error = message.get("error", "?")
            if message.get("kind") == "load":  # a fresh realm could not load the bot file
                raise AgentFault("startup", _quote(error, 4 * QUOTE))
            if message.get("kind") == "memory":
                raise AgentFault("memory", f"{what} ran out of memory ({_short(error)})")
            if message.get("kind") == "nested":  # a value too deep for the host to write
                raise AgentFault(
                    "invalid", f"the reply to {what} is nested more than {untrusted.MAX_DEPTH} deep"
                )
            raise AgentFault("exception", f"{what} raised {_quote(error)}")
        if kind == "ok":
            return None
        self.process.kill()
        raise AgentFault("protocol", f"unexpected reply to {what}: {_short(message)}")
