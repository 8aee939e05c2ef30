"""Seats and matches: how a bot becomes an agent at the table, and one match of them.

Every seat is an :class:`Entry`, and :func:`seat_agent` turns it into its agent wherever bots
play: the worker and validation (through :func:`play`), live tables (:func:`play_async`) and
the command-line arena (``bots.arena``, which keeps its agents for a whole tournament).
Uploaded code is written to a private temporary folder (mode 0700, removed afterwards) and
launched with :func:`bots.running.launch.bot_launch` in the sandbox; built-in bots, which are part
of the project, sit at the table as in-process agents. :class:`Launching` holds what the
arena may change about that. Nothing here touches the database: the caller hands in code and
gets a :class:`Played`.
"""

from __future__ import annotations

import functools
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bots.running.launch import bot_launch, plain_launch
from bots.running.process import BotProcess, BotStartError, Peers, PlatformError, ProcessAgent
from bots.sandbox import SandboxBusy, SandboxConfig, SandboxLimits
from games.engine import untrusted
from games.engine.agents import Agent, AgentFault, InProcessAgent, SeatInfo
from games.engine.files import safe_filename
from games.engine.game import GameState, Prompt
from games.engine.journal import Journal
from games.engine.runner import MatchOutcome, MatchRunner, Offload, TimeControl
from games.registry import GameSpec

#: what of a bot's stderr is kept per match for its owner
STDERR_KEEP = 16 * 1024

#: what launching a bot raises when the bot cannot be launched (a file type no host runs, a
#: file the sandbox refuses...): in a match the seat's "startup" fault, in the arena its error.
#: A PlatformError (no free sandbox slot, a machine that cannot run the sandbox: the
#: platform's trouble, never the bot's) is one of them too, but a match never makes it a
#: fault: it propagates, for the caller to play the match later or end it unrated.
LAUNCH_ERRORS = (BotStartError, ValueError)


@dataclass(frozen=True)
class Entry:
    """One seat: uploaded code or a bot file (run in the sandbox), a built-in bot's name
    (in-process), or an agent of its own."""

    name: str
    code: str | None = None
    filename: str = "bot.py"
    builtin: str | None = None
    #: identifies the code (a BotVersion id) for a :class:`ProcessCache`
    key: Any = None
    #: a seat that is not a bot (a person at a live table) brings its own Agent
    agent: Agent | None = None
    #: a bot file run where it is (the arena's), instead of ``code`` written to a folder
    path: Path | None = None
    #: a file that keeps all the bot process's stderr (the arena's logs), not only its tail
    stderr_log: Path | None = None


@dataclass(frozen=True)
class Launching:
    """How the entries' bots run. The defaults are the site's (worker, validation, live
    tables); the command-line arena passes its options: built-ins as child processes (what a
    process costs), bot files outside the sandbox (an author debugging their own bot), other
    sandbox limits or machine settings (tests, benchmarks)."""

    #: bot files and uploaded code in the sandbox; built-in bots are trusted and never are
    sandbox: bool = True
    limits: SandboxLimits | None = None
    config: SandboxConfig | None = None
    #: built-in bots as in-process agents, else as plain child processes
    in_process_builtins: bool = True
    #: a worker's sandboxes, which may take any slot and wait for a free one; False: a live
    #: table's (a web process), kept off the slots reserved for the workers
    worker: bool = True


#: fault kinds that a shutdown of the worker playing the match can cause (a service manager
#: signals every process of the worker's group: its bots die, or stop answering)
SHUTDOWN_FAULTS = frozenset({"crash", "timeout", "startup"})


def shutdown_fault(kind: str) -> bool:
    """Whether a fault of this kind may have been the worker's shutdown rather than the bot."""
    return kind in SHUTDOWN_FAULTS


def shutdown_faults(played: Played) -> bool:
    """Whether a seat of ``played`` faulted in a way the worker's shutdown may have caused:
    a stopping worker stores no such match (it is played again)."""
    return any(shutdown_fault(report.fault_kind) for report in played.seats)


#: the site's way: bots from outside in the sandbox, with the game's limits
SITE = Launching()
#: the same at a live table: its sandboxes leave the workers' reserve of slots alone
TABLES = Launching(worker=False)


@dataclass
class SeatReport:
    score: float
    fault_kind: str = ""
    fault_reason: str = ""
    stderr: str = ""


@dataclass
class Played:
    outcome: MatchOutcome
    seats: list[SeatReport] = field(default_factory=list)
    duration_s: float = 0.0


class BrokenAgent(Agent):
    """A seat whose bot could not even be launched (sandbox refused the file...)."""

    blocking = False

    def __init__(self, name: str, kind: str, reason: str) -> None:
        self.name = name
        self.kind, self.reason = kind, reason

    def begin(self, info: SeatInfo, timeout: float) -> None:
        raise AgentFault(self.kind, self.reason)

    def send(self, prompt: Prompt) -> None:
        raise AgentFault(self.kind, self.reason)

    def receive(self, timeout: float) -> Any:
        raise AgentFault(self.kind, self.reason)


class ProcessCache:
    """Sandboxed bot processes kept alive between matches (a worker's), at most ``size``,
    least recently used closed first. A process serves consecutive matches as the protocol
    allows (docs/bot-protocol.md); after a fault it is restarted by the next match. A bot
    may have two: a process is never dealt a deal it has been dealt (it starts afresh
    first: bots.running.process), so where the other seating of a deal comes and there is room, a
    second process plays it and both go on warm (a round robin plays each table's first
    seatings, then its second: one process plays each). Each
    live process holds a sandbox uid slot: when no slot is free for a new one, the idle
    processes kept (those the match being seated does not use) give theirs up first, least
    recently used first, so that workers' caches never hold the machine's slots against
    each other."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, Any], BotProcess] = OrderedDict()

    def get(
        self,
        game: GameSpec,
        entry: Entry,
        folder: CodeFolder | None,
        seat: int,
        launching: Launching = SITE,
        busy: Sequence[BotProcess] = (),
        deal: int | None = None,
    ) -> BotProcess:
        """The entry's process for a match of ``deal``: a kept one that has not been dealt
        it, else a second one launched while there is room, else a kept one (which starts
        afresh at the match's begin). Raises as launching does. ``busy``: the processes of
        the match being seated, which stay whatever happens."""
        # two a bot, and more only for seats of one match that the same bot plays
        keys = [(game.slug, entry.key, n) for n in range(2 + len(busy))]
        kept = [k for k in keys if k in self._items and self._items[k] not in busy]
        new = [k for k in kept if deal is not None and deal not in self._items[k].dealt]
        if new:
            key = new[0]
        elif kept and (deal is None or len(kept) >= 2 or len(self._items) >= self.size):
            key = kept[0]
        else:
            key = next(k for k in keys if k not in self._items)
        process = self._items.pop(key, None)
        if process is None:
            process = self._launch(game, entry, folder, seat, launching, busy)
        self._items[key] = process
        # the least recently used go first; never one that the match being seated uses
        while len(self._items) > self.size:
            idle = next((k for k, p in self._items.items() if p not in busy and k != key), None)
            if idle is None:
                break
            self._items.pop(idle).close()
        return process

    def _launch(
        self,
        game: GameSpec,
        entry: Entry,
        folder: CodeFolder | None,
        seat: int,
        launching: Launching,
        busy: Sequence[BotProcess],
    ) -> BotProcess:
        """A new process; while no slot is free, an idle kept process is closed (its slot
        freed) and the launch tried again at once; with none left idle, the launch waits for
        a slot as any does."""
        config = launching.config or SandboxConfig.from_settings()
        at_once = replace(launching, config=replace(config, slot_wait_s=0))
        while True:
            idle = [key for key, kept in self._items.items() if kept not in busy]
            try:
                return _process(game, entry, at_once if idle else launching, folder, seat)
            except SandboxBusy:
                if not idle:
                    raise
                self._items.pop(idle[0]).close()

    def __len__(self) -> int:
        return len(self._items)

    def close(self) -> None:
        while self._items:
            _, process = self._items.popitem()
            process.close()


def play(
    game: GameSpec,
    entries: list[Entry],
    *,
    seed: int,
    time_control: TimeControl | None = None,
    config: dict[str, Any] | None = None,
    cache: ProcessCache | None = None,
    seat_time_controls: dict[int, TimeControl] | None = None,
    observer: Callable[[GameState], None] | None = None,
) -> Played:
    """Play one match. Every fault of a seat ends up in the outcome; this never raises for
    a bot's behaviour (a PlatformError, the platform's trouble, does propagate: no free
    sandbox slot, a sandbox that cannot start...).
    Processes come from ``cache`` when given (entries with a key), else live for this match.
    Live tables play with :func:`play_async`, passing their people's clocks
    (``seat_time_controls``) and an ``observer`` that shows the table (see
    :meth:`MatchRunner.run`)."""
    seating = _Seating(game, entries, cache, deal=seed)
    # timed from here: seating (a process from the cache, or a launch: a sandbox slot waited
    # for, a compiled language's first compile on this machine) is no seat's time
    started = time.monotonic()
    try:
        runner = MatchRunner(
            time.monotonic, time_control or game.time_control, seat_time_controls=seat_time_controls
        )
        outcome = runner.run(
            seating.new_state(seed, config), seating.agents, seed=seed,
            seat_names=seating.names, observer=observer,
        )  # fmt: skip
        reports = _reports(outcome, seating.agents, seating.processes)
    except BaseException:
        seating.abandon()
        raise
    finally:
        seating.close()
    return Played(outcome, reports, time.monotonic() - started)


async def play_async(
    game: GameSpec,
    entries: list[Entry],
    *,
    seed: int,
    config: dict[str, Any] | None = None,
    seat_time_controls: dict[int, TimeControl] | None = None,
    observer: Callable[[GameState], None] | None = None,
    offload: Offload,
    journal: Journal | None = None,
    launching: Launching = TABLES,
) -> Played:
    """:func:`play` on an event loop (a live table): whatever may block (a bot process's
    pipe, a slow built-in, closing processes) goes through ``offload`` to another thread.
    A ``journal`` keeps the replies that decide the match, and resumes the match it kept
    (:mod:`games.engine.journal`): the bots are started afresh and brought to that point.
    Sandboxes are launched as a live table's (:data:`TABLES`) unless told otherwise."""
    # off the loop: a launch may wait for a sandbox slot, or compile the bot (see play)
    seating = await offload(functools.partial(_Seating, game, entries, None, launching))
    started = time.monotonic()
    blocking = any(process is not None for process in seating.processes)
    try:
        runner = MatchRunner(
            time.monotonic, game.time_control, seat_time_controls=seat_time_controls
        )
        outcome = await runner.run_async(
            seating.new_state(seed, config), seating.agents, seed=seed,
            seat_names=seating.names, observer=observer, offload=offload, journal=journal,
        )  # fmt: skip
        report = functools.partial(_reports, outcome, seating.agents, seating.processes)
        reports = await offload(report) if blocking else report()
    except BaseException:
        if blocking:
            await offload(seating.abandon)
        raise
    finally:
        if blocking:
            await offload(seating.close)
        else:
            seating.close()
    return Played(outcome, reports, time.monotonic() - started)


class CodeFolder:
    """A match's private folder for uploaded code (mode 0700), made when a seat first needs
    it: a match whose bots are all kept processes writes no code, and makes no folder."""

    def __init__(self) -> None:
        self._made: tempfile.TemporaryDirectory[str] | None = None

    @property
    def path(self) -> Path:
        if self._made is None:
            self._made = tempfile.TemporaryDirectory(prefix="match-")
        return Path(self._made.name)

    def close(self) -> None:
        made, self._made = self._made, None
        if made is not None:
            made.cleanup()


class _Seating:
    """One match's agents, launched (not started) from its entries, and what to close after
    it: processes it owns and the private folder their code was written to."""

    def __init__(
        self,
        game: GameSpec,
        entries: list[Entry],
        cache: ProcessCache | None,
        launching: Launching = SITE,
        deal: int | None = None,
    ):
        self.game = game
        self.names = [e.name for e in entries]
        self.agents: list[Agent] = []
        self.processes: list[BotProcess | None] = []
        self.owned: list[BotProcess] = []
        # a private folder, made only for code to write (people, built-ins, files and kept
        # processes need none)
        self.folder = CodeFolder()
        #: the seats' processes read each other's replies as they come (fair timing)
        peers = Peers()
        try:
            for seat, entry in enumerate(entries):
                try:
                    agent, process = seat_agent(
                        game, entry, launching=launching, folder=self.folder, seat=seat,
                        cache=cache, owned=self.owned,
                        busy=[p for p in self.processes if p is not None], deal=deal,
                    )  # fmt: skip
                except PlatformError:
                    raise  # the platform's trouble: the caller plays the match later
                except LAUNCH_ERRORS as exc:  # the seat faults at the start of the match
                    agent, process = BrokenAgent(entry.name, "startup", str(exc)), None
                if process is not None:
                    process.peers = peers
                self.agents.append(agent)
                self.processes.append(process)
        except BaseException:
            self.close()
            raise

    def new_state(self, seed: int, config: dict[str, Any] | None) -> GameState:
        return self.game.state_class.new(seed, num_seats=len(self.agents), config=config)

    def abandon(self) -> None:
        """The match did not end (the platform's trouble raised through it): every process
        of it is ended, kept ones too, so that none goes on to its next match still owing
        this one's replies (read there, they would be that match's protocol fault, an
        innocent bot's, rated). A kept one starts afresh at its next match."""
        for process in self.processes:
            if process is not None:
                process.kill()

    def close(self) -> None:
        try:
            for process in self.owned:
                process.close()
        finally:
            self.folder.close()


def seat_agent(
    game: GameSpec,
    entry: Entry,
    *,
    launching: Launching = SITE,
    folder: CodeFolder | None = None,
    seat: int = 0,
    cache: ProcessCache | None = None,
    owned: list[BotProcess] | None = None,
    startup_timeout: float | None = None,
    busy: Sequence[BotProcess] = (),
    deal: int | None = None,
) -> tuple[Agent, BotProcess | None]:
    """The agent that plays ``entry``, and its bot process if it has one (launched, not
    started: :class:`ProcessAgent` starts it at its first match). Uploaded code is written
    into ``folder`` (one folder per seat). A process comes from ``cache`` when given (entries
    with a key; ``busy``: the processes of the other seats of the match, which the cache
    keeps; ``deal``: the match's, which picks among a bot's kept processes); otherwise it is
    appended to ``owned``, whose holder closes it. Raises
    :data:`LAUNCH_ERRORS` if the bot cannot be launched."""
    if entry.agent is not None:
        return entry.agent, None
    if entry.builtin is not None and launching.in_process_builtins:
        cls = game.builtin_class(entry.builtin)
        return InProcessAgent(cls, game.bot_call, entry.name), None
    if cache is not None and entry.key is not None:
        process = cache.get(game, entry, folder, seat, launching, busy, deal)
    else:
        process = _process(game, entry, launching, folder, seat)
        if owned is not None:
            owned.append(process)
    timeout = game.time_control.startup if startup_timeout is None else startup_timeout
    agent = ProcessAgent(process, game.bot_call, startup_timeout=timeout)
    agent.name = entry.name
    return agent, process


def _process(
    game: GameSpec,
    entry: Entry,
    launching: Launching,
    folder: CodeFolder | None,
    seat: int,
) -> BotProcess:
    """A BotProcess (not started) for a built-in bot's own file (trusted: never in the
    sandbox), a bot file where it is, or uploaded code written into ``folder`` (the sandbox
    reads the file at launch, so the folder may go right after)."""
    if entry.builtin is not None:
        launch = plain_launch(game.builtin_path(entry.builtin), game=game.slug)
    else:
        path = entry.path if entry.path is not None else _write_code(entry, folder, seat)
        launch = bot_launch(
            path,
            game=game,
            sandboxed=launching.sandbox,
            limits=launching.limits,
            config=launching.config,
            worker=launching.worker,
        )
    # a live table waits for people, minutes at a time: its bots are stopped whenever they
    # are not asked (BotProcess.answered)
    return BotProcess(
        launch,
        label=entry.name,
        stderr_log=entry.stderr_log,
        stops_unasked=not launching.worker,
    )


def _write_code(entry: Entry, folder: CodeFolder | None, seat: int) -> Path:
    assert entry.code is not None and folder is not None, "code needs a folder to go to"
    seat_dir = folder.path / f"seat{seat}"
    seat_dir.mkdir(mode=0o700, exist_ok=True)  # a launch tried again writes it again
    path = seat_dir / safe_filename(entry.filename)
    path.write_text(entry.code)
    return path


def _reports(
    outcome: MatchOutcome, agents: list[Agent], processes: list[BotProcess | None]
) -> list[SeatReport]:
    scores = outcome.result.get("scores", [0] * len(agents))
    reports = []
    for seat, agent in enumerate(agents):
        fault = outcome.faults.get(seat)
        if fault is not None and isinstance(agent, ProcessAgent):
            agent.record_fault(fault.kind, fault.reason)  # its owner reads the record's words
        stderr = ""
        process = processes[seat]
        if process is not None:
            process.settle_stderr()  # lines still in the pipe belong to this match
            stderr = process.match_stderr(STDERR_KEEP)
        elif isinstance(agent, InProcessAgent) and agent.errors:
            stderr = "\n".join(agent.errors)[-STDERR_KEEP:]
        reports.append(
            SeatReport(
                score=float(scores[seat]),
                fault_kind=fault.kind if fault else "",
                # what a bot wrote is made storable here, once for every caller
                fault_reason=untrusted.clean_text(fault.reason) if fault else "",
                stderr=untrusted.clean_text(stderr),
            )
        )
    return reports
