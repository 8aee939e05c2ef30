"""The command-line arena: a round-robin tournament of local bot files and built-ins.

Every round, every pair of bots plays one match; seats alternate between rounds. Needs no
database. Used by ``manage.py arena`` and the benchmarks.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.launch import UnsupportedBot, plain_launch
from bots.process import BotProcess, ProcessAgent
from games.engine.agents import Agent, AgentFault, InProcessAgent
from games.engine.runner import MatchOutcome, MatchRunner, TimeControl
from games.registry import GameSpec


class ArenaError(Exception):
    """Bad input to the arena, in one line that names the problem."""


@dataclass
class Entrant:
    source: str
    agent: Agent
    process: BotProcess | None = None
    name: str = ""
    score: int = 0
    games: int = 0
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    fault_kinds: Counter[str] = field(default_factory=Counter)
    think_s: float = 0.0
    calls: int = 0
    head_to_head: dict[str, list[int]] = field(default_factory=dict)

    @property
    def win_rate(self) -> float:
        return self.score / self.games if self.games else 0.0

    def as_json(self) -> dict[str, Any]:
        low, high = wilson_interval(self.score, self.games)
        return {
            "name": self.name,
            "source": self.source,
            "score": self.score,
            "games": self.games,
            "wins": self.wins,
            "faults": self.faults,
            "matches": self.matches,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.win_rate, 6),
            "win_rate_ci95": [round(low, 6), round(high, 6)],
            "fault_kinds": dict(self.fault_kinds),
            "mean_call_ms": round(1000 * self.think_s / self.calls, 3) if self.calls else None,
            "head_to_head": {
                other: {"won": won, "lost": lost}
                for other, (won, lost) in self.head_to_head.items()
            },
        }


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def match_seed(seed: int, round_no: int, i: int, j: int) -> int:
    """A per-match seed derived from the tournament seed: stable across runs and machines."""
    digest = hashlib.sha256(f"{seed}:{round_no}:{i}:{j}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60] or "bot"


class Arena:
    def __init__(
        self,
        game: GameSpec,
        sources: list[str],
        *,
        logs: Path | None = None,
        time_control: TimeControl | None = None,
        in_process_builtins: bool = True,
    ) -> None:
        if len(sources) < 2:
            raise ArenaError("an arena needs at least two bots")
        self.game = game
        self.logs = logs
        self.tc = time_control or game.time_control
        self.in_process_builtins = in_process_builtins
        self.entrants: list[Entrant] = []
        self.error_dir = logs / "stderr" if logs else Path(tempfile.mkdtemp(prefix="arena-logs-"))
        self.error_dir.mkdir(parents=True, exist_ok=True)
        try:
            for source in sources:
                self.entrants.append(self._entrant(source))
        except BaseException:
            self.close()
            raise
        self._name_entrants()

    # ---- setting up ---------------------------------------------------------------------
    def _entrant(self, source: str) -> Entrant:
        if source.startswith("builtin:"):
            name = source.removeprefix("builtin:")
            try:
                path = self.game.builtin_path(name)
            except KeyError as exc:
                raise ArenaError(str(exc.args[0])) from None
            if self.in_process_builtins:
                cls = self.game.builtin_class(name)
                agent = InProcessAgent(cls, self.game.bot_call, getattr(cls, "name", name))
                return Entrant(source=source, agent=agent, name=agent.name)
            return self._process_entrant(source, path)
        path = Path(source)
        if not path.exists():
            raise ArenaError(f"{source}: no such file")
        if not path.is_file():
            raise ArenaError(f"{source}: not a file")
        return self._process_entrant(source, path)

    def _process_entrant(self, source: str, path: Path) -> Entrant:
        try:
            launch = plain_launch(path)
        except UnsupportedBot as exc:
            raise ArenaError(str(exc)) from None
        log = self.error_dir / f"{len(self.entrants):02d}-{_safe(path.stem)}.stderr.log"
        process = BotProcess(launch, label=path.stem, stderr_log=log)
        try:
            hello = process.start(self.tc.startup)
        except AgentFault as exc:
            process.close()
            where = f" (traceback in {log})" if log.exists() and log.stat().st_size else ""
            raise ArenaError(f"{source}: {exc.reason}{where}") from None
        missing = [m for m in self.game.methods if m not in hello.methods]
        if missing:
            process.close()
            raise ArenaError(f"{source}: class Bot has no method {', '.join(missing)}")
        agent = ProcessAgent(process, self.game.bot_call, startup_timeout=self.tc.startup)
        return Entrant(source=source, agent=agent, process=process, name=hello.name)

    def _name_entrants(self) -> None:
        seen: Counter[str] = Counter()
        for e in self.entrants:
            seen[e.name] += 1
            if seen[e.name] > 1:
                e.name = f"{e.name}#{seen[e.name]}"
            e.agent.name = e.name

    # ---- playing ------------------------------------------------------------------------
    def schedule(self, rounds: int, seed: int) -> Iterator[tuple[int, int, int, int]]:
        """(round, seat A entrant, seat B entrant, match seed) in playing order."""
        n = len(self.entrants)
        for r in range(rounds):
            for i in range(n):
                for j in range(i + 1, n):
                    a, b = (i, j) if r % 2 == 0 else (j, i)
                    yield r, a, b, match_seed(seed, r, i, j)

    def run(
        self,
        rounds: int,
        seed: int,
        on_match: Callable[[int, MatchOutcome], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> dict[str, Any]:
        runner = MatchRunner(clock, self.tc)
        started = clock()
        played = 0
        for r, a, b, s in self.schedule(rounds, seed):
            seats = [self.entrants[a], self.entrants[b]]
            state = self.game.state_class.new(s, num_seats=2)
            outcome = runner.run(
                state, [e.agent for e in seats], seed=s, seat_names=[e.name for e in seats]
            )
            self._score(seats, outcome)
            played += 1
            if self.logs:
                self._log_match(r, played, seats, outcome)
            if on_match:
                on_match(played, outcome)
        return self.summary(rounds, seed, played, clock() - started)

    def _score(self, seats: list[Entrant], outcome: MatchOutcome) -> None:
        scores = outcome.result["scores"]
        total = sum(scores)
        for seat, entrant in enumerate(seats):
            other = seats[1 - seat]
            mine, theirs = scores[seat], scores[1 - seat]
            entrant.matches += 1
            entrant.score += mine
            entrant.games += total
            if mine > theirs:
                entrant.wins += 1
            elif mine < theirs:
                entrant.losses += 1
            else:
                entrant.draws += 1
            h2h = entrant.head_to_head.setdefault(other.name, [0, 0])
            h2h[0] += mine
            h2h[1] += theirs
            fault = outcome.faults.get(seat)
            if fault:
                entrant.faults += 1
                entrant.fault_kinds[fault.kind] += 1
            stats = outcome.stats[seat]
            entrant.think_s += stats.think_s
            entrant.calls += stats.calls

    def _log_match(self, r: int, n: int, seats: list[Entrant], outcome: MatchOutcome) -> None:
        assert self.logs is not None
        folder = self.logs / "matches"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{n:05d}-r{r + 1:03d}-{_safe(seats[0].name)}-vs-{_safe(seats[1].name)}.json"
        (folder / name).write_text(json.dumps(outcome.record, indent=1))

    def summary(self, rounds: int, seed: int, matches: int, elapsed: float) -> dict[str, Any]:
        ranked = sorted(self.entrants, key=lambda e: (-e.score, e.faults, e.name))
        return {
            "game": self.game.slug,
            "seed": seed,
            "rounds": rounds,
            "matches": matches,
            "elapsed_s": round(elapsed, 3),
            "bots": [e.as_json() for e in ranked],
        }

    def close(self) -> None:
        for e in self.entrants:
            if e.process is not None:
                e.process.close()
            if self.logs and isinstance(e.agent, InProcessAgent) and e.agent.errors:
                path = self.error_dir / f"{_safe(e.name)}.stderr.log"
                path.write_text("\n".join(e.agent.errors))

    def __enter__(self) -> Arena:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
