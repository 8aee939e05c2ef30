"""Playing one match of stored bot versions, each in its own sandbox.

The versions' code is written to a private temporary folder (mode 0700, removed afterwards)
and launched with :func:`bots.launch.bot_launch` (always sandboxed). Built-in bots, which are
part of the project, may sit at the table as in-process agents (validation does that).
Nothing here touches the database: the caller hands in code and gets a :class:`Played`.
"""

from __future__ import annotations

import functools
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.launch import bot_launch
from bots.process import BotProcess, BotStartError, ProcessAgent
from bots.sandbox import SandboxUnavailable
from games.engine import untrusted
from games.engine.agents import Agent, AgentFault, InProcessAgent, SeatInfo
from games.engine.files import safe_filename
from games.engine.game import GameState, Prompt
from games.engine.runner import MatchOutcome, MatchRunner, Offload, TimeControl
from games.registry import GameSpec

#: what of a bot's stderr is kept per match for its owner
STDERR_KEEP = 16 * 1024


@dataclass(frozen=True)
class Entry:
    """One seat: uploaded code (run in the sandbox) or a built-in bot's name (in-process)."""

    name: str
    code: str | None = None
    filename: str = "bot.py"
    builtin: str | None = None
    #: identifies the code (a BotVersion id) for a :class:`ProcessCache`
    key: Any = None
    #: a seat that is not a bot (a person at a live table) brings its own Agent
    agent: Agent | None = None


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
    allows (docs/bot-protocol.md); after a fault it is restarted by the next match. Each
    live process holds a sandbox uid slot."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, Any], BotProcess] = OrderedDict()

    def get(self, game: GameSpec, entry: Entry, folder: Path, seat: int) -> BotProcess | Agent:
        key = (game.slug, entry.key)
        process = self._items.pop(key, None)
        if process is None:
            made = _launch(game, entry, folder, seat)
            if not isinstance(made, BotProcess):
                return made
            process = made
        self._items[key] = process
        while len(self._items) > self.size:
            _, oldest = self._items.popitem(last=False)
            oldest.close()
        return process

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
    a bot's behaviour (SandboxUnavailable, a fault of the machine, does propagate).
    Processes come from ``cache`` when given (entries with a key), else live for this match.
    Live tables play with :func:`play_async`, passing their people's clocks
    (``seat_time_controls``) and an ``observer`` that shows the table (see
    :meth:`MatchRunner.run`)."""
    started = time.monotonic()
    seating = _Seating(game, entries, cache)
    try:
        runner = MatchRunner(
            time.monotonic, time_control or game.time_control, seat_time_controls=seat_time_controls
        )
        outcome = runner.run(
            seating.new_state(seed, config), seating.agents, seed=seed,
            seat_names=seating.names, observer=observer,
        )  # fmt: skip
        reports = _reports(outcome, seating.agents, seating.processes)
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
) -> Played:
    """:func:`play` on an event loop (a live table): whatever may block (a bot process's
    pipe, a slow built-in, closing processes) goes through ``offload`` to another thread."""
    started = time.monotonic()
    seating = _Seating(game, entries, None)
    blocking = any(process is not None for process in seating.processes)
    try:
        runner = MatchRunner(
            time.monotonic, game.time_control, seat_time_controls=seat_time_controls
        )
        outcome = await runner.run_async(
            seating.new_state(seed, config), seating.agents, seed=seed,
            seat_names=seating.names, observer=observer, offload=offload,
        )  # fmt: skip
        report = functools.partial(_reports, outcome, seating.agents, seating.processes)
        reports = await offload(report) if blocking else report()
    finally:
        if blocking:
            await offload(seating.close)
        else:
            seating.close()
    return Played(outcome, reports, time.monotonic() - started)


class _Seating:
    """One match's agents, launched (not started) from its entries, and what to close after
    it: processes it owns and the private folder their code was written to."""

    def __init__(self, game: GameSpec, entries: list[Entry], cache: ProcessCache | None):
        self.game = game
        self.names = [e.name for e in entries]
        self.agents: list[Agent] = []
        self.processes: list[BotProcess | None] = []
        self.owned: list[BotProcess] = []
        # a private folder only for code to write (people and built-ins need none)
        code = any(entry.agent is None and entry.builtin is None for entry in entries)
        self.folder = tempfile.TemporaryDirectory(prefix="match-") if code else None
        where = Path(self.folder.name if self.folder is not None else tempfile.gettempdir())
        try:
            for seat, entry in enumerate(entries):
                agent, process = _agent(game, entry, where, seat, cache, self.owned)
                self.agents.append(agent)
                self.processes.append(process)
        except BaseException:
            self.close()
            raise

    def new_state(self, seed: int, config: dict[str, Any] | None) -> GameState:
        return self.game.state_class.new(seed, num_seats=len(self.agents), config=config)

    def close(self) -> None:
        try:
            for process in self.owned:
                process.close()
        finally:
            if self.folder is not None:
                self.folder.cleanup()


def _agent(
    game: GameSpec,
    entry: Entry,
    folder: Path,
    seat: int,
    cache: ProcessCache | None,
    owned: list[BotProcess],
) -> tuple[Agent, BotProcess | None]:
    if entry.agent is not None:
        return entry.agent, None
    if entry.builtin is not None:
        cls = game.builtin_class(entry.builtin)
        return InProcessAgent(cls, game.bot_call, entry.name), None
    if cache is not None and entry.key is not None:
        made = cache.get(game, entry, folder, seat)
    else:
        made = _launch(game, entry, folder, seat)
        if isinstance(made, BotProcess):
            owned.append(made)
    if not isinstance(made, BotProcess):
        return made, None
    agent = ProcessAgent(made, game.bot_call, startup_timeout=game.time_control.startup)
    agent.name = entry.name
    return agent, made


def _launch(game: GameSpec, entry: Entry, folder: Path, seat: int) -> BotProcess | Agent:
    """A BotProcess for uploaded code (not started), or a BrokenAgent saying why not. The
    sandbox reads the file at launch, so the folder may go right after."""
    assert entry.code is not None
    seat_dir = folder / f"seat{seat}"
    seat_dir.mkdir(mode=0o700)
    path = seat_dir / safe_filename(entry.filename)
    path.write_text(entry.code)
    try:
        launch = bot_launch(path, game=game, sandboxed=True)
    except SandboxUnavailable:
        raise
    except (BotStartError, ValueError) as exc:
        return BrokenAgent(entry.name, "startup", str(exc))
    return BotProcess(launch, label=entry.name)


def _reports(
    outcome: MatchOutcome, agents: list[Agent], processes: list[BotProcess | None]
) -> list[SeatReport]:
    scores = outcome.result.get("scores", [0] * len(agents))
    reports = []
    for seat, agent in enumerate(agents):
        fault = outcome.faults.get(seat)
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
