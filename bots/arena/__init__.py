"""The command-line arena: a local tournament of bot files and built-in bots.

The game's tournament format (``games/<game>/tournament.py``) decides who plays whom and
how results add up; this module loads the bots, plays the scheduled matches through the
match runner and collects the standings. Each bot is a seat entry of ``bots.running.playing``, made
into its agent there like the worker's and the live tables' bots, once for the whole
tournament: its process is started and checked before the first match. Needs no database.
Used by ``manage.py arena`` and the benchmarks.

Matches are independent (each has its own seed, and every bot a fresh instance), so with
``jobs`` > 1 they are played in chunks of consecutive matches by this process and ``jobs - 1``
forked ones, each with its own bot processes; this one takes their outcomes back in schedule
order and tallies, logs and reports them as if it had played them itself, so results,
output and logs do not depend on the number of jobs. The bots' stderr logs too: while a chunk
is played, each bot process writes its log into a part of that chunk's own, and this process
appends the parts to the bots' logs in schedule order, so that each match's part of a log is
whole and the matches follow each other as they were scheduled. What is said as matches
end (the progress bar, a bot's first timeout) is said as each ends, in whichever process: a
job tells this one at once (:class:`MatchEnd`), and a match's record is written then, by the
process that played it; only the tally waits for the schedule's order.

Stopped (Ctrl-C, a SIGTERM: KeyboardInterrupt), an arena stops its jobs at once, adds the
parts of the bots' logs they had written to the logs (in schedule order), and keeps the
records of every match that ended; a ``--logs`` folder in which no match ended is left as
it was, without empty log files that would refuse a rerun.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import multiprocessing
import os
import queue
import re
import shutil
import signal
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any, NoReturn

from bots.languages import language_of
from bots.names import declared_name
from bots.running import cpus as placement
from bots.running.contract import entry_text, missing_methods
from bots.running.lanes import LaneAgent, LaneHost, LaneMatch, LanePlayer
from bots.running.playing import LAUNCH_ERRORS, Entry, Launching, seat_agent
from bots.running.process import BotProcess, FaultReport, Peers, PlatformError, ProcessAgent
from bots.running.timing import site_time_control
from bots.sandbox import MAX_BOT_BYTES, SandboxConfig, SandboxError, SandboxLimits, self_test
from games.engine import interrupts
from games.engine.agents import Agent, AgentFault, InProcessAgent
from games.engine.chance import SeededChance
from games.engine.files import safe_filename
from games.engine.runner import MatchOutcome, MatchRunner, TimeControl
from games.engine.tournament import Format, Standing, Table
from games.engine.untrusted import printable
from games.registry import GameSpec


def _record_faults(outcome: MatchOutcome, agents: list[Agent]) -> None:
    """Hand a match's faults to its bot processes' agents: the rules' faults (an invalid
    action) reach the owner too, and the ones an agent reported take the record's words."""
    for seat, fault in outcome.faults.items():
        agent = agents[seat]
        if isinstance(agent, ProcessAgent):
            agent.record_fault(fault.kind, fault.reason)


def _reports_of(agent: Agent) -> list[FaultReport]:
    return getattr(agent, "fault_reports", [])


def _errors_of(agent: Agent) -> list[str]:
    return getattr(agent, "errors", [])


def _file_name(path: Path) -> str:
    """A bot file's name: the one its code declares, else its stem (bots.names)."""
    try:
        if path.stat().st_size > MAX_BOT_BYTES:
            return path.stem  # refused at its start, with the size said
        return declared_name(path.name, path.read_bytes())
    except OSError:
        return path.stem


def match_file(number: int, table: Table, seated: list[Entrant]) -> str:
    """The file name of a match record under ``--logs DIR/matches``: the match's number
    (from 1, in schedule order; the game's own logs use the same), round and bots."""
    names = "-vs-".join(safe_filename(e.name) for e in seated)
    return f"{number:05d}-r{table.round + 1:03d}-{names}.json"


def _no_negative_zero(value: Any) -> Any:
    """``value`` with every ``-0.0`` (a rounded sum of nothing lost) made ``0.0``, so that
    neither the table nor the JSON says a bot won -0.0."""
    if isinstance(value, float):
        return value + 0.0
    if isinstance(value, dict):
        return {k: _no_negative_zero(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_negative_zero(v) for v in value]
    return value


class ArenaError(Exception):
    """Bad input to the arena, in one line that names the problem (a compile error: the
    compiler's lines under it)."""


def shown(text: str) -> str:
    """What a bot wrote (its name, a fault's reason) for one line of the terminal: each
    character the terminal would act on shown as its escape (``untrusted.printable``), and
    its new lines too (``\\n``), so that none of it passes for a line of the arena's own."""
    return printable(text).replace("\n", "\\n")


def is_faulty(faults: int, matches: int) -> bool:
    """A bot that faulted in most of its matches (it is marked so in the results)."""
    return matches > 0 and 2 * faults > matches


#: matches in one chunk handed to a job: about a tenth of a job's share, within these bounds
#: (the last chunks are smaller: see chunk_sizes). Large enough that handing chunks out costs
#: little (each chunk's results cross between processes, its bots' logs are split and joined,
#: and its matches' lanes empty at its end: 1000 matches in 2 jobs took 1.57 s in chunks of 10
#: and 1.46 s in chunks of 50, medians of 4 runs)
CHUNK_MIN, CHUNK_MAX = 10, 100


def _first(chunks: list[list[Table]], index: int) -> int:
    """The number of the first match of chunk ``index``."""
    return 1 + sum(len(chunk) for chunk in chunks[:index])


def chunk_size(matches: int, jobs: int) -> int:
    """How many consecutive matches a job takes at a time, while much is left."""
    return max(CHUNK_MIN, min(CHUNK_MAX, matches // (max(jobs, 1) * 10)))


def chunk_sizes(matches: int, jobs: int) -> list[int]:
    """The sizes of a tournament's chunks, in order: :func:`chunk_size` while much is left,
    then smaller as the end nears (a share of what is left: two chunks for each process, and
    CHUNK_MIN at least). The processes end together: the last to take a chunk plays alone for
    about CHUNK_MIN matches at most, not for a whole chunk while the others wait."""
    size, shares = chunk_size(matches, jobs), 2 * max(jobs, 1)
    sizes, left = [], matches
    while left > 0:
        take = min(size, max(CHUNK_MIN, left // shares), left)
        sizes.append(take)
        left -= take
    return sizes


def busy_jobs(matches: int, jobs: int) -> int:
    """How many of ``jobs`` processes a tournament of ``matches`` keeps busy (a chunk each at
    least): an arena forks its jobs, and they start their bots, before the tournament."""
    return max(1, min(jobs, len(chunk_sizes(matches, jobs))))


def _received(jobs: _Jobs, waiting: dict[int, list[_Played]], *, wait: bool) -> bool:
    """Put the chunks the jobs have handed back into ``waiting``: those that have come (or,
    ``wait``, the next to come, a second at most). True if any came. Raises ArenaError if a
    job failed or died."""
    came = False
    while True:
        try:
            got, played = jobs.results.get(timeout=1.0) if wait else jobs.results.get_nowait()
        except queue.Empty:
            if any(w.exitcode not in (None, 0) for w in jobs.workers):
                raise ArenaError("a process playing matches died") from None
            return came
        if isinstance(played, str):
            raise ArenaError(f"a process playing matches failed: {played}")
        waiting[got] = played
        came, wait = True, False


#: the garbage collector's first threshold while a tournament is played (Python's own is
#: 700): a match makes thousands of small objects, nearly all freed as soon as they are done
#: with, and a collection every 700 of them visited the matches being played again and again.
#: Measured in a job's process, 500 matches of RPS Poker: 36-41 ms of collections at Python's
#: thresholds, 24-29 ms with what was set up frozen, 5-9 ms with this too. At most this many
#: objects wait for a collection, a few megabytes.
TOURNAMENT_GC_THRESHOLD = 10_000


@contextlib.contextmanager
def _collecting_seldom() -> Iterator[None]:
    """While a tournament is played in this process: what is set up by then (modules, bots,
    the schedule) lasts the whole tournament and is frozen (the collector need not visit
    it), and the young objects are collected every TOURNAMENT_GC_THRESHOLD, not every 700.
    Both are as they were after."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], TOURNAMENT_GC_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _spent() -> None:
    """A match's chance, in the process that a job hands the match back to (see below)."""
    return None


# A job hands each match back to this process whole (its record, its state) but for its
# chance's generator: the match is over and nothing draws from it again, and its 625 numbers
# were most of what a match sent (5.5 KB a match of RPS Poker, 1.7 KB without them, in less
# than half the time). Only the arena's jobs send matches from one process to another.
ForkingPickler.register(SeededChance, lambda _chance: (_spent, ()))


@contextlib.contextmanager
def _told(
    jobs: _Jobs, ended: Callable[[MatchEnd], None], untold: Callable[[], bool]
) -> Iterator[None]:
    """While the jobs play: a thread that tells (``ended``) each match a job says has ended,
    as it ends. After a tournament played to its end it waits for the last of them (while
    ``untold()``, a few seconds at most); stopped, it waits for none."""
    stop, whole = threading.Event(), threading.Event()

    def watch() -> None:
        last = None
        while True:
            if stop.is_set():
                last = last or time.monotonic() + 5
                if not (whole.is_set() and untold()) or time.monotonic() > last:
                    return
            try:
                batch = jobs.ends.get(timeout=0.1)
            except queue.Empty:
                continue
            except (EOFError, OSError, ValueError):  # (its queue closed)
                return
            for match in batch:
                ended(match)

    thread = threading.Thread(target=watch, name="arena-ends", daemon=True)
    thread.start()
    try:
        yield
        whole.set()
    finally:
        stop.set()
        with contextlib.suppress(OSError, ValueError):  # (its queue closed: stopped)
            jobs.ends.put([])  # wakes it now, not at its next look (0.1 s on every run)
        thread.join(timeout=6 if whole.is_set() else 0.5)


#: how often a job tells its parent of the matches it has ended (a match with a fault at
#: once): a message a match cost the arena about a fifth of its time (a queue's writer thread
#: woken in every job, against the thread that plays)
ENDS_EVERY_S = 0.1


class _EndsToTell:
    """The matches a job has ended, told to its parent (``put``) in batches: a match with a
    fault at once (a first timeout is said as it happens), the others at most every
    :data:`ENDS_EVERY_S`, and what is left when a chunk is done (:meth:`flush`)."""

    def __init__(self, put: Callable[[list[MatchEnd]], None]) -> None:
        self.put = put
        self.held: list[MatchEnd] = []
        self.since = time.monotonic()

    def __call__(self, match: MatchEnd) -> None:
        self.held.append(match)
        now = time.monotonic()
        if match.faults or now - self.since >= ENDS_EVERY_S:
            self.flush(now)

    def flush(self, now: float | None = None) -> None:
        if self.held:
            self.put(self.held)
            self.held = []
        self.since = time.monotonic() if now is None else now


@dataclass
class _Played:
    """One match played, as a job hands it back: the outcome, and per seat what the match
    added to the bot's fault reports and (a built-in in-process) its tracebacks."""

    table: Table
    outcome: MatchOutcome
    reports: list[list[FaultReport]] = field(default_factory=list)
    errors: list[list[str]] = field(default_factory=list)
    #: played in another process, or held back (its faults are to be added to this arena's
    #: bots when it is tallied)
    remote: bool = False


@dataclass(frozen=True)
class MatchEnd:
    """A match that has just ended, in whichever process played it, as it is told at once
    (before the tally, which waits for the schedule's order): its number, its seats' bots
    (their places in the arena's entrants) and each faulted seat's fault (kind, reason)."""

    number: int
    seats: tuple[int, ...]
    faults: dict[int, tuple[str, str]]


@dataclass
class FaultNote:
    """A bot's faults of one kind in the tournament: how many, and the first of them (the
    match it happened in, its reason and where to read more), for its author."""

    count: int
    match: int
    reason: str
    #: the match's record and the bot's stderr log, when the arena keeps logs
    match_file: Path | None = None
    stderr_log: Path | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "first_match": self.match,
            "reason": self.reason,
            "match_file": str(self.match_file) if self.match_file else None,
            "stderr_log": str(self.stderr_log) if self.stderr_log else None,
        }


#: the signals that stop an arena and its jobs (Ctrl-C, a kill)
STOPPING = {signal.SIGINT, signal.SIGTERM}


@dataclass
class _Jobs:
    """The processes an arena forked to play matches beside its own (Arena._fork_jobs):
    each is sent the tournament's chunks once it begins, and they all take the next chunk
    nobody has taken."""

    workers: list[multiprocessing.process.BaseProcess]
    #: each worker's chunks (None: there are none for it, it ends)
    todo: list[Any]
    #: how many chunks have been taken
    taken: Any
    #: what each worker played (chunk, matches), or (-1, what went wrong)
    results: Any
    #: the folder of the chunks' parts of the bots' logs
    parts: Path
    #: the matches as they end in a worker (lists of MatchEnd: _EndsToTell)
    ends: Any = None
    sent: bool = False

    @property
    def count(self) -> int:
        return len(self.workers)

    def start(self, chunks: list[list[Table]] | None) -> None:
        """Send the workers the chunks (None: there is nothing for them to play)."""
        if not self.sent:
            self.sent = True
            for todo in self.todo:
                todo.put(chunks)

    def chunks(self, number: int) -> list[list[Table]] | None:
        """In worker ``number``: the chunks, once they are sent (None if its parent is gone
        first)."""
        parent = os.getppid()
        while True:
            try:
                return self.todo[number].get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent:
                    return None

    def take(self, count: int) -> int | None:
        """The next chunk of ``count`` nobody has taken (None: there are none left)."""
        with self.taken.get_lock():
            index = self.taken.value
            self.taken.value += 1
        return index if index < count else None

    def close(self, *, at_once: bool = False, keep_parts: bool = False) -> None:
        """End the workers: once they have nothing more to play, or ``at_once`` (stopped:
        each is sent a SIGTERM, on which it closes its bots and ends), the one still there
        after 5 s killed. ``keep_parts``: the folder of the logs' parts is left (see
        Arena._stop_jobs)."""
        if at_once:
            for todo in self.todo:  # (not to wait, at the exit, on what no worker reads)
                todo.cancel_join_thread()
            for worker in self.workers:
                if worker.is_alive():
                    worker.terminate()
        else:
            self.start(None)
        deadline = time.monotonic() + 5
        for worker in self.workers:
            worker.join(timeout=max(deadline - time.monotonic(), 0.0))
            if worker.is_alive():
                worker.kill()
                worker.join(timeout=1)
        if not keep_parts:
            shutil.rmtree(self.parts, ignore_errors=True)


@dataclass
class Entrant:
    source: str
    agent: Agent
    standing: Standing
    process: BotProcess | None = None
    entry: Entry | None = None
    #: fault kind -> the bot's faults of that kind, in the order they first happened
    fault_notes: dict[str, FaultNote] = field(default_factory=dict)
    #: the name its file or class gives it, before a second bot of that name is told apart
    #: as ``NAME#2`` (see Arena._name_entrants)
    given_name: str = ""

    @property
    def name(self) -> str:
        return self.standing.name


class Arena:
    def __init__(
        self,
        game: GameSpec,
        sources: list[str],
        *,
        logs: Path | None = None,
        time_control: TimeControl | None = None,
        in_process_builtins: bool = True,
        fmt: Format | None = None,
        sandbox: bool = True,
        sandbox_limits: SandboxLimits | None = None,
        sandbox_config: SandboxConfig | None = None,
        config: dict[str, Any] | None = None,
        lanes: int = 1,
        jobs: int = 1,
        job_cpus: list[list[int]] | None = None,
        _error_dir: Path | None = None,
    ) -> None:
        #: how a job makes its own arena of the same bots
        self._args = (game, sources)
        self._kwargs: dict[str, Any] = dict(
            logs=logs, time_control=time_control, in_process_builtins=in_process_builtins,
            fmt=fmt, sandbox=sandbox, sandbox_limits=sandbox_limits,
            sandbox_config=sandbox_config, config=config, lanes=lanes,
        )  # fmt: skip
        if game.tournament is None and fmt is None:
            raise ArenaError(f"{game.slug} has no arena tournament format")
        self.game = game
        self.format = fmt or game.tournament()  # type: ignore[misc]
        if len(sources) < self.format.min_bots:
            hint = getattr(self.format, "too_few_hint", "")
            raise ArenaError(f"an arena needs at least {self.format.min_bots} bots{hint}")
        self.logs = logs
        #: the site's time rules (bots.running.timing), so that what passes here passes validation
        self.tc = time_control or site_time_control(game)
        #: the game's settings for every match (Ultimate Texas Hold'em: rounds per session)
        self.config = dict(config or {})
        #: the most matches played at once by a job, each bot process playing them in lanes
        #: (bots.running.lanes) when its host can; 1: one at a time
        self.lanes = lanes
        self._hosts: dict[int, LaneHost] | None = None
        #: bot files run in the sandbox; built-ins (trusted) in-process or as plain processes
        self.launching = Launching(
            sandbox=sandbox,
            limits=sandbox_limits,
            config=sandbox_config,
            in_process_builtins=in_process_builtins,
        )
        self.entrants: list[Entrant] = []
        #: the bots' processes read each other's replies as they come (fair timing)
        self.peers = Peers()
        #: without --logs the bots' stderr goes to a temporary folder, removed on close
        #: unless a message names a file in it (``keep_error_dir``)
        self._temporary_errors = _error_dir is None and logs is None
        self.keep_error_dir = False
        #: the --logs folder is this arena's own (not a job's, which writes into its
        #: parent's): made here if it was not there
        self._own_logs = _error_dir is None and logs is not None
        self._made_logs = self._own_logs and logs is not None and not logs.exists()
        #: what is told of each match as it ends (run sets it: see MatchEnd), and how many
        #: have ended
        self._on_end: Callable[[MatchEnd], None] | None = None
        self.ended = 0
        self.error_dir = _error_dir or (
            logs / "stderr" if logs else Path(tempfile.mkdtemp(prefix="arena-logs-"))
        )
        self.error_dir.mkdir(parents=True, exist_ok=True)
        #: the forked processes that play matches beside this one (see _fork_jobs)
        self._jobs: _Jobs | None = None
        #: those that have played the tournament and are ending (their bots closing): waited
        #: for by close, while this process's own bots close too
        self._ending: _Jobs | None = None
        try:
            for source in sources:
                self.entrants.append(self._entrant(source))
            if jobs > 1:  # their bots start beside these (on their own CPUs)
                self._jobs = self._fork_jobs(jobs - 1, job_cpus or [])
            # The bots start side by side: each start is mostly waiting for a runtime to load.
            for entrant in self.entrants:
                self._spawn(entrant)
            for entrant in self.entrants:
                self._greet(entrant)
        except BaseException:
            self.close()
            raise
        self._name_entrants()

    # ---- setting up ---------------------------------------------------------------------
    def _entrant(self, source: str) -> Entrant:
        entry = self._entry(source)
        try:
            agent, process = seat_agent(
                self.game, entry, launching=self.launching, startup_timeout=self.tc.startup
            )
        except LAUNCH_ERRORS as exc:
            raise ArenaError(str(exc)) from None
        if process is None:  # a built-in bot in this process
            return Entrant(source, agent, Standing(agent.name, source))
        process.peers = self.peers
        # named by its hello once started (see _greet)
        return Entrant(source, agent, Standing(agent.name, source), process=process, entry=entry)

    def _entry(self, source: str) -> Entry:
        """The seat entry of a source: a built-in bot (named as its class says) or a bot file,
        run where it is, with its stderr log."""
        if source.startswith("builtin:"):
            name = source.removeprefix("builtin:")
            try:
                path = self.game.builtin_path(name)
            except KeyError as exc:
                raise ArenaError(str(exc.args[0])) from None
            own_name = getattr(self.game.builtin_class(name), "name", name)
            entry = Entry(own_name, builtin=name)
        else:
            path = Path(source)
            if not path.exists():
                raise ArenaError(f"{source}: no such file")
            if not path.is_file():
                raise ArenaError(f"{source}: not a file")
            entry = Entry(_file_name(path), path=path)
        log = self.error_dir / f"{len(self.entrants):02d}-{safe_filename(path.stem)}.stderr.log"
        return replace(entry, stderr_log=log)

    def _spawn(self, entrant: Entrant) -> None:
        """Start a bot's process (its hello is read by :meth:`_greet`)."""
        if entrant.process is not None:
            try:
                entrant.process.spawn(self.tc.startup)
            except AgentFault as exc:
                self._refuse(entrant, exc)
            except PlatformError as exc:  # the machine's trouble: said as it is
                entrant.process.close()
                raise ArenaError(f"{entrant.source}: {exc}") from None

    def _greet(self, entrant: Entrant) -> None:
        """Check a started bot before the tournament: one that cannot start, or that lacks
        a method of the game's contract, is refused in one line."""
        process = entrant.process
        if process is None:
            return
        try:
            hello = process.greet(self.tc.startup)
        except AgentFault as exc:
            self._refuse(entrant, exc)
        except PlatformError as exc:  # the machine's trouble (its sandbox did not start)
            process.close()
            raise ArenaError(f"{entrant.source}: {exc}") from None
        reason = missing_methods(self.game, hello, lambda: entry_text(entrant.entry))
        if reason:  # (it names the methods the bot's hello listed: its own text)
            process.close()
            raise ArenaError(f"{entrant.source}: {shown(reason)}{self._said(entrant)}")
        # a bot file is named as upload_bot names it (bots.names), a built-in as it says
        name = entrant.entry.name if entrant.entry and entrant.entry.path else hello.name
        entrant.standing = Standing(name, entrant.source)

    def _refuse(self, entrant: Entrant, exc: AgentFault) -> NoReturn:
        """A bot that could not start: the arena's error, naming why."""
        process, entry = entrant.process, entrant.entry
        assert process is not None and entry is not None
        process.close()
        if process.launch.sandbox and entry.path is not None:
            self._check_sandbox(entry.path)
        said = self._said(entrant, exc)
        raise ArenaError(f"{entrant.source}: {shown(exc.reason)}{said}") from None

    def _said(self, entrant: Entrant, exc: AgentFault | None = None) -> str:
        """Where what a bot that could not start wrote to stderr is (" (traceback in LOG)",
        for an exception), kept for its author; "" if it wrote nothing."""
        log = entrant.entry.stderr_log if entrant.entry else None
        if not (log and log.exists() and log.stat().st_size):
            return ""
        self.keep_error_dir = True
        if exc is not None and re.search(r"^failed at |\braised ", exc.reason):
            return f" (traceback in {log})"
        return f" (what it wrote to stderr: {log})"

    def _check_sandbox(self, path: Path) -> None:
        """A bot failed to start in the sandbox: say so if the sandbox itself is broken."""
        try:
            self_test(self.launching.config, language_of(path))
        except SandboxError as exc:
            raise ArenaError(
                f"{exc} (--no-sandbox runs your own bots without it, for debugging)"
            ) from None

    def _name_entrants(self) -> None:
        seen: Counter[str] = Counter()
        for e in self.entrants:
            e.given_name = e.name
            seen[e.name] += 1
            if seen[e.name] > 1:
                e.standing.name = f"{e.name}#{seen[e.name]}"
            e.agent.name = e.name

    # ---- playing ------------------------------------------------------------------------
    def count(self, rounds: int) -> int:
        return self.format.count(len(self.entrants), rounds)

    def run(
        self,
        rounds: int,
        seed: int,
        on_match: Callable[[int, MatchOutcome], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_end: Callable[[int, MatchEnd], None] | None = None,
    ) -> dict[str, Any]:
        """Play the tournament. An arena made with ``jobs`` > 1 plays its first in that many
        processes (see :meth:`_fork_jobs`), with the same results for bots that keep nothing
        from one match to the next. ``on_match(n, outcome)``: each match as it is tallied,
        in schedule order; ``on_end(ended, match)``: each match as it ends, in whichever
        process, with how many have ended (from this thread or another, one at a time)."""
        started = clock()
        tables = list(self.format.schedule(len(self.entrants), rounds, seed))
        jobs, self._jobs = self._jobs, None
        chunks, at = [], 0
        for size in chunk_sizes(len(tables), jobs.count + 1 if jobs else 1):
            chunks.append(tables[at : at + size])
            at += size
        lock = threading.Lock()

        def ended(match: MatchEnd) -> None:
            with lock:
                self.ended += 1
                if on_end is not None:
                    on_end(self.ended, match)

        self._on_end = ended
        try:
            with _collecting_seldom():
                if jobs is not None and len(chunks) > 1:
                    with _told(jobs, ended, lambda: self.ended < len(tables)):
                        played = self._tally(self._play_in_jobs(chunks, jobs), on_match)
                else:
                    if jobs is not None:
                        jobs.close()  # (nothing for them to do)
                    flat = [table for chunk in chunks for table in chunk]
                    played = self._tally(self._play(flat, clock=clock), on_match)
        finally:
            self._on_end = None
        summary = self.summary(rounds, seed, played, clock() - started)
        if self.logs and hasattr(self.format, "write_logs"):
            self.format.write_logs(self.logs, summary)  # the game's own tables (Last Card)
        return summary

    def _tally(
        self,
        played_matches: Iterator[_Played],
        on_match: Callable[[int, MatchOutcome], None] | None,
    ) -> int:
        """Add up the matches in schedule order; returns how many were played."""
        played = 0
        for match in played_matches:
            seated = [self.entrants[i] for i in match.table.seats]
            if match.remote:  # its faults, reported in another process, become this arena's
                for entrant, reports, errors in zip(
                    seated, match.reports, match.errors, strict=True
                ):
                    getattr(entrant.agent, "fault_reports", []).extend(reports)
                    getattr(entrant.agent, "errors", []).extend(errors)
            self.format.tally([e.standing for e in seated], match.outcome)
            played += 1
            self._note_faults(match.table, played, seated, match.outcome)
            if self.logs and hasattr(self.format, "log_match"):  # (its record: _end)
                self.format.log_match(self.logs, played, match.outcome)  # Last Card's logs
            if on_match:
                on_match(played, match.outcome)
        return played

    def _note_faults(
        self, table: Table, n: int, seated: list[Entrant], outcome: MatchOutcome
    ) -> None:
        """Count match ``n``'s faults by bot and kind, keeping the first of each kind."""
        for seat, fault in outcome.faults.items():
            entrant = seated[seat]
            note = entrant.fault_notes.get(fault.kind)
            if note is not None:
                note.count += 1
                continue
            entrant.fault_notes[fault.kind] = FaultNote(
                1,
                n,
                fault.reason,
                self._match_path(table, n, seated) if self.logs else None,
                self._stderr_log(entrant) if self.logs else None,
            )

    def _stderr_log(self, entrant: Entrant) -> Path | None:
        """Where the arena writes what the bot wrote to stderr (for a built-in bot played in
        this process: its tracebacks, written when the arena closes)."""
        if entrant.entry is not None:
            return entrant.entry.stderr_log
        if isinstance(entrant.agent, InProcessAgent):
            return self.error_dir / f"{safe_filename(entrant.name)}.stderr.log"
        return None

    def _play(
        self, tables: list[Table], first: int = 1, clock: Callable[[], float] = time.monotonic
    ) -> Iterator[_Played]:
        """Play the tables here, one after the other (or, in lanes, several at once);
        ``first`` is the number of the first (matches are numbered from 1 in schedule order,
        as their files are)."""
        runner = MatchRunner(clock, self.tc)
        hosts = self._lane_hosts()
        if hosts is not None:
            yield from self._play_in_lanes(runner, hosts, tables, first, clock)
            return
        for number, table in enumerate(tables, first):
            seated = [self.entrants[i] for i in table.seats]
            self._label_match(number, table, seated)
            before = [(len(_reports_of(e.agent)), len(_errors_of(e.agent))) for e in seated]
            state = self.game.state_class.new(table.seed, num_seats=len(seated), config=self.config)
            outcome = runner.run(
                state,
                [e.agent for e in seated],
                seed=table.seed,
                seat_names=[e.name for e in seated],
            )
            _record_faults(outcome, [e.agent for e in seated])
            self._end(number, table, seated, outcome)
            yield _Played(
                table,
                outcome,
                [_reports_of(e.agent)[n:] for e, (n, _) in zip(seated, before, strict=True)],
                [_errors_of(e.agent)[n:] for e, (_, n) in zip(seated, before, strict=True)],
            )

    def _lane_hosts(self) -> dict[int, LaneHost] | None:
        """Each bot process as a host of lanes, by its entrant's place; None when matches are
        played one at a time (``lanes`` 1, or a bot whose host plays one match at a time)."""
        if self.lanes < 2:
            return None
        if self._hosts is None:
            processes = {}
            for i, entrant in enumerate(self.entrants):
                process = entrant.process
                if process is None:
                    if not isinstance(entrant.agent, InProcessAgent):
                        return None
                    continue
                hello = process.hello
                # (a realm: none of the bot's code runs between a lane's requests but its own)
                if hello is None or hello.lanes < 2 or hello.isolation != "realm":
                    return None
                processes[i] = process
            # (only once every entrant can: a LaneHost holds its process's requests back until
            # its round writes them, so one made for a bot listed before another that cannot
            # play in lanes left that bot's requests unwritten, and it timed out in every match)
            self._hosts = {i: LaneHost(process, self.lanes) for i, process in processes.items()}
        return self._hosts

    def _play_in_lanes(
        self,
        runner: MatchRunner,
        hosts: dict[int, LaneHost],
        tables: list[Table],
        first: int,
        clock: Callable[[], float],
    ) -> Iterator[_Played]:
        """:meth:`_play` with up to ``lanes`` matches at once, yielded in schedule order. A
        built-in played in this process gets an agent of its own in each match."""
        player = LanePlayer(runner, width=self.lanes, startup_timeout=self.tc.startup)

        def matches() -> Iterator[LaneMatch]:
            for number, table in enumerate(tables, first):
                seated = [self.entrants[i] for i in table.seats]
                seats: list[tuple[LaneHost, ProcessAgent] | Callable[[], Agent]] = []
                for i, entrant in zip(table.seats, seated, strict=True):
                    agent = entrant.agent
                    if i in hosts:
                        assert isinstance(agent, ProcessAgent)
                        seats.append((hosts[i], agent))
                    else:
                        assert isinstance(agent, InProcessAgent)
                        seats.append(
                            functools.partial(
                                InProcessAgent, agent.factory, agent.bot_call, agent.name
                            )
                        )
                deal = functools.partial(
                    self.game.state_class.new, table.seed, num_seats=len(seated),
                    config=self.config,
                )  # fmt: skip
                yield LaneMatch(
                    deal, table.seed, seats, [e.name for e in seated],
                    labels=self._labels(number, table, seated), where=f"match {number}",
                    tag=(number, table),
                )  # fmt: skip

        held: dict[int, _Played] = {}
        seated_agents: dict[int, list[Agent]] = {}
        upcoming = first
        for match, outcome in player.play(matches()):
            number, table = match.tag
            _record_faults(outcome, match.agents)
            self._end(number, table, [self.entrants[i] for i in table.seats], outcome)
            seated_agents[number] = match.agents
            held[number] = _Played(
                table,
                outcome,
                [list(_reports_of(agent)) for agent in match.agents],
                [list(_errors_of(agent)) for agent in match.agents],
                remote=True,  # its faults reach the bots when it is tallied
            )
            while upcoming in held:
                played = held.pop(upcoming)
                for agent in seated_agents.pop(upcoming):
                    if isinstance(agent, LaneAgent):
                        agent.write_log()  # its part of the bot's log, whole, in order
                yield played
                upcoming += 1

    def _fork_jobs(self, count: int, job_cpus: list[list[int]]) -> _Jobs:
        """Fork ``count`` processes that play matches beside this one, the i-th on
        ``job_cpus[i]`` if given. Each starts its own bots at once, beside this arena's (so
        the machine's other CPUs start them while this one starts its own: forked before
        they are, a job does not wait for its CPU behind them), then waits for the
        tournament's chunks (:meth:`_play_in_jobs`)."""
        context = multiprocessing.get_context("fork")
        jobs = _Jobs(
            workers=[],
            todo=[context.Queue() for _ in range(count)],
            taken=context.Value("i", 0),
            results=context.Queue(),
            parts=Path(tempfile.mkdtemp(prefix=".parts-", dir=self.error_dir)),
            ends=context.Queue(),
        )
        # A Ctrl-C while a job starts waits until the job can take it (:meth:`_job`): one that
        # came during multiprocessing's own start of the process printed its traceback. The
        # signals are held back here while it is forked, and the job inherits that.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
        try:
            for i in range(count):
                cpus = job_cpus[i] if i < len(job_cpus) else None
                worker = context.Process(target=self._job, args=(jobs, i, cpus), daemon=True)
                worker.start()
                jobs.workers.append(worker)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        return jobs

    def _play_in_jobs(self, chunks: list[list[Table]], jobs: _Jobs) -> Iterator[_Played]:
        """Play the chunks here and in the forked processes, each taking the next chunk
        nobody has taken, and yield their matches in schedule order. What the others have
        handed back is taken in (and so tallied, its logs joined) between the chunks played
        here, while the others still play: not all at the end, while they wait."""
        jobs.start(chunks)
        parts = jobs.parts
        ended = False
        try:
            waiting: dict[int, list[_Played]] = {}
            for index in range(len(chunks)):
                while index not in waiting:
                    if _received(jobs, waiting, wait=False) and index in waiting:
                        break
                    mine = jobs.take(len(chunks))
                    if mine is not None:
                        self._log_into(parts / str(mine))
                        try:
                            waiting[mine] = self._play_held(chunks[mine], _first(chunks, mine))
                        finally:
                            self._log_into(None)
                        continue
                    _received(jobs, waiting, wait=True)
                self._append_part(parts / str(index))
                yield from waiting.pop(index)
            ended = True
        finally:
            if ended:  # every chunk is in: they end on their own, waited for by close
                self._ending = jobs
            else:
                self._stop_jobs(jobs)

    def _stop_jobs(self, jobs: _Jobs) -> None:
        """The tournament stopped before its end (Ctrl-C, a job that failed): the jobs are
        stopped at once, and under ``--logs`` the parts of the bots' logs not added yet are
        added, in schedule order (a part whose matches did not all end included: its
        matches are labelled in it), so that no bot's output is lost."""
        jobs.close(at_once=True, keep_parts=True)
        try:
            if self.logs:
                numbered = [p for p in jobs.parts.iterdir() if p.name.isdigit()]
                for part in sorted(numbered, key=lambda p: int(p.name)):
                    self._append_part(part)
        finally:
            shutil.rmtree(jobs.parts, ignore_errors=True)

    def _log_into(self, part: Path | None) -> None:
        """Send what each bot process writes to stderr from now on into the folder ``part``
        (under its log's own name), or back to its log (None). What the bot wrote before
        stays where it was going."""
        if part is not None:
            part.mkdir(exist_ok=True)
        for entrant in self.entrants:
            log = entrant.entry.stderr_log if entrant.entry else None
            if entrant.process is None or log is None:
                continue
            entrant.process.settle_stderr()
            entrant.process.stderr.redirect(log if part is None else part / log.name)

    def _append_part(self, part: Path) -> None:
        """Add a chunk's part of each bot's stderr log to the end of the log, then drop it."""
        for entrant in self.entrants:
            log = entrant.entry.stderr_log if entrant.entry else None
            piece = part / log.name if log else None
            if log is None or piece is None or not piece.exists():
                continue
            with log.open("ab") as out, piece.open("rb") as fh:
                shutil.copyfileobj(fh, out)
        shutil.rmtree(part, ignore_errors=True)

    def _play_held(self, tables: list[Table], first: int) -> list[_Played]:
        """Play tables here, among chunks played elsewhere: their faults reach the bots when
        they are tallied, in schedule order, as the other jobs' do (not as they happen)."""
        before = [(len(_reports_of(e.agent)), len(_errors_of(e.agent))) for e in self.entrants]
        played = list(self._play(tables, first))
        for entrant, (reports, errors) in zip(self.entrants, before, strict=True):
            del _reports_of(entrant.agent)[reports:]
            del _errors_of(entrant.agent)[errors:]
        for match in played:
            match.remote = True
        return played

    def _job(self, jobs: _Jobs, number: int, cpus: list[int] | None = None) -> None:
        """A forked process's work: it lets go of the parent's bot processes, and an arena of
        the same bots (its own processes, started on its ``cpus`` when given) plays the chunks
        it takes until there are none, each bot's stderr going into the part of the chunk it
        plays (its start's, into a folder of this job's own, which is dropped)."""
        for entrant in self.entrants:
            if entrant.process is not None:
                entrant.process.forget()
        try:
            # stopped by its parent (a SIGTERM) as by Ctrl-C: it closes its bots and ends
            interrupts.install()
            # (held back while it was forked: one that came meanwhile is taken here)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)
            if cpus:
                placement.pin(cpus)
            own = Path(tempfile.mkdtemp(prefix="job-", dir=jobs.parts))
            with (
                Arena(*self._args, **(self._kwargs | {"_error_dir": own})) as arena,
                _collecting_seldom(),
            ):
                tell = _EndsToTell(jobs.ends.put)
                arena._on_end = tell  # each match told as it ends (in batches)
                chunks = jobs.chunks(number)
                while chunks is not None and (index := jobs.take(len(chunks))) is not None:
                    arena._log_into(jobs.parts / str(index))
                    try:
                        played = list(arena._play(chunks[index], _first(chunks, index)))
                    finally:
                        arena._log_into(None)
                        tell.flush()
                    for match in played:
                        match.remote = True
                    jobs.results.put((index, played))
        except KeyboardInterrupt:  # stopped: nothing more is read of what it would send
            jobs.results.cancel_join_thread()
            jobs.ends.cancel_join_thread()
        except BaseException:  # noqa: BLE001 - the parent says what went wrong
            try:
                jobs.results.put((-1, traceback.format_exc(limit=5)))
            except KeyboardInterrupt:
                # stopped while it says so (its parent ends, for an error of its own, and
                # stops its jobs): a traceback of this handler followed the arena's error
                jobs.results.cancel_join_thread()
                jobs.ends.cancel_join_thread()
        finally:
            # a SIGTERM from here on (its parent stopping it as it ends) ends it quietly: a
            # KeyboardInterrupt out of this function printed "Process ForkProcess-1:" and a
            # traceback under the arena's own error
            signal.signal(signal.SIGTERM, signal.SIG_DFL)

    def _label_match(self, number: int, table: Table, seated: list[Entrant]) -> None:
        """Tell each bot process which match its stderr log's next part belongs to."""
        for entrant, label in zip(seated, self._labels(number, table, seated), strict=True):
            if isinstance(entrant.agent, ProcessAgent):
                entrant.agent.match_label = label

    def _labels(self, number: int, table: Table, seated: list[Entrant]) -> list[str]:
        """Each seat's match as its bot's stderr log names it: its number and record file
        (as ``--logs`` names it) and the opponents."""
        labels = []
        for seat, entrant in enumerate(seated):
            # names are the bots' own text: escaped, so none forges a line of a log
            others = ", ".join(
                " ".join(printable(e.name).split()) for e in seated if e is not entrant
            )
            label = f"match {number} ({match_file(number, table, seated)}), seat {seat}"
            labels.append(label + (f", against {others}" if others else ""))
        return labels

    def _end(self, n: int, table: Table, seated: list[Entrant], outcome: MatchOutcome) -> None:
        """Match ``n`` has just ended here: its record is written (under ``--logs``), and it
        is told (``_on_end``: to run's caller, or by a job to its parent)."""
        if self.logs:
            path = self._match_path(table, n, seated)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(outcome.record, indent=1))
        if self._on_end is not None:
            faults = {seat: (f.kind, f.reason) for seat, f in outcome.faults.items()}
            self._on_end(MatchEnd(n, tuple(table.seats), faults))

    def _match_path(self, table: Table, n: int, seated: list[Entrant]) -> Path:
        """The file of match ``n``'s record under ``--logs``."""
        assert self.logs is not None
        return self.logs / "matches" / match_file(n, table, seated)

    def summary(self, rounds: int, seed: int, matches: int, elapsed: float) -> dict[str, Any]:
        bots = [self._bot_json(e) for e in self.entrants]
        return {
            "game": self.game.slug,
            "seed": seed,
            "rounds": rounds,
            "matches": matches,
            "elapsed_s": round(elapsed, 3),
            "bots": self.format.rank([_no_negative_zero(bot) for bot in bots]),
        }

    def _bot_json(self, entrant: Entrant) -> dict[str, Any]:
        standing = entrant.standing
        reports = getattr(entrant.agent, "fault_reports", [])
        own = self.format.bot_json(standing) | {
            "head_to_head": self.format.head_to_head_json(standing)
        }
        # the keys every game's --json has (README), where the game has none of its own
        stable = {k: v for k, v in standing.stable_json().items() if k not in own}
        return (
            own
            | stable
            | {
                "faulty": is_faulty(standing.faults, standing.matches),
                # the last few faults with the end of the bot's stderr, for its author
                "fault_reports": [r.as_dict() for r in reports[-3:]],
                # per fault kind: how many, and the first (its match, reason, record and log)
                "fault_details": {k: n.as_dict() for k, n in entrant.fault_notes.items()},
            }
        )

    def close(self) -> None:
        if self._jobs is not None:  # (never given a tournament: nothing to wait for)
            self._jobs.close(at_once=True)
            self._jobs = None
        for e in self.entrants:  # all asked first: they wind down side by side
            if e.process is not None:
                e.process.ask_to_quit()
        if self._ending is not None:  # (their bots end meanwhile, beside these)
            self._ending.close()
            self._ending = None
        for e in self.entrants:
            if e.process is not None:
                e.process.close()
            if self.logs and isinstance(e.agent, InProcessAgent) and e.agent.errors:
                path = self.error_dir / f"{safe_filename(e.name)}.stderr.log"
                path.write_text("\n".join(e.agent.errors))
        if self._temporary_errors and not self.keep_error_dir:
            shutil.rmtree(self.error_dir, ignore_errors=True)
        if self._own_logs and not self.ended:
            self._unmake_logs()

    def _unmake_logs(self) -> None:
        """No match ended (a bot refused at its start, Ctrl-C before the first match's end):
        the ``--logs`` folder is left as it was, but for what a bot wrote (its log named by
        the error), so that a rerun into it is not refused for empty files."""
        assert self.logs is not None
        with contextlib.suppress(OSError):
            for log in self.error_dir.glob("*.stderr.log"):
                if not log.stat().st_size:
                    log.unlink()
            for folder in (self.error_dir, self.logs) if self._made_logs else (self.error_dir,):
                if folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()

    def __enter__(self) -> Arena:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
