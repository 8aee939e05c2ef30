"""The one match loop, whoever sits at the table.

It asks each pending seat's Agent for a decision within a deadline, checks the answer with
the engine, applies it, tells every seat what it may see, and turns every fault (exception,
timeout, invalid answer, crash) into a recorded outcome. It never raises for a seat's fault.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.agents import Agent, AgentFault, SeatInfo
from games.engine.game import Fault, GameState, IllegalAction, Prompt

RECORD_VERSION = 1


@dataclass(frozen=True)
class TimeControl:
    """Seconds a seat may think: ``move`` per call, plus a ``bank`` per match that pays for
    calls running over ``move``, and ``startup`` for the start of a match."""

    move: float = 1.0
    bank: float = 10.0
    startup: float = 10.0

    def as_dict(self) -> dict[str, float]:
        return {"move": self.move, "bank": self.bank, "startup": self.startup}


@dataclass
class SeatStats:
    calls: int = 0
    think_s: float = 0.0
    slowest_s: float = 0.0
    bank_left: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return {
            "calls": self.calls,
            "think_s": round(self.think_s, 6),
            "slowest_s": round(self.slowest_s, 6),
            "bank_left": round(self.bank_left, 6),
        }


@dataclass
class MatchOutcome:
    record: dict[str, Any]
    state: GameState
    stats: list[SeatStats] = field(default_factory=list)

    @property
    def result(self) -> dict[str, Any]:
        return self.record["result"]

    @property
    def faults(self) -> dict[int, Fault]:
        return self.state.faults


class MatchRunner:
    """Runs one match to the end. ``clock`` is injected (``time.monotonic`` in real use)."""

    def __init__(
        self,
        clock: Callable[[], float],
        time_control: TimeControl | None = None,
        *,
        seat_time_controls: dict[int, TimeControl] | None = None,
    ):
        self.clock = clock
        self.tc = time_control or TimeControl()
        #: seats that think on another clock than ``tc`` (a person at a live table)
        self.seat_tc = dict(seat_time_controls or {})

    def tc_of(self, seat: int) -> TimeControl:
        return self.seat_tc.get(seat, self.tc)

    def run(
        self,
        state: GameState,
        agents: Sequence[Agent],
        *,
        seed: int | None,
        seat_names: Sequence[str] | None = None,
        observer: Callable[[GameState], None] | None = None,
    ) -> MatchOutcome:
        """Play the match to its end. ``observer`` (live tables) is called with the state
        whenever it may have changed and before every decision is asked for; it must not
        change the state."""
        if len(agents) != state.num_seats:
            raise ValueError(f"{len(agents)} agents for {state.num_seats} seats")
        stats = [SeatStats(bank_left=self.tc_of(seat).bank) for seat in range(len(agents))]
        self._begin(state, agents, stats)
        while True:
            self._deliver(state, agents, stats, state.take_notices())
            if observer is not None:
                observer(state)
            if state.is_over():
                break
            seats = [s for s in state.pending() if s not in state.faults]
            if not seats:
                raise RuntimeError(f"{state.game}: no seat to act but the match is not over")
            prompts = {seat: state.prompt(seat) for seat in seats}
            answers, faults = self._exchange(agents, stats, prompts)
            legal: dict[int, Any] = {}
            for seat in sorted(answers):
                try:
                    state.verify(seat, answers[seat])
                except IllegalAction as exc:
                    fault = state.reject(seat, answers[seat], str(exc))
                    if fault is not None:
                        faults[seat] = fault
                else:
                    legal[seat] = answers[seat]
            if faults:
                state.forfeit(faults)  # settled first: the rules may end the match
            for seat, action in legal.items():
                if seat in state.pending():
                    state.apply(seat, action)
        result = state.result()
        for agent in agents:
            # The match is decided; a seat failing to hear the result changes nothing.
            with contextlib.suppress(AgentFault):
                agent.end(result)
        names = list(seat_names) if seat_names else [a.name for a in agents]
        record = {
            "version": RECORD_VERSION,
            "game": state.game,
            "config": state.config,
            "seed": seed,
            "seats": [{"name": n} for n in names],
            "time_control": self.tc.as_dict(),
            **(
                {"seat_time_controls": {str(s): tc.as_dict() for s, tc in self.seat_tc.items()}}
                if self.seat_tc
                else {}
            ),
            "events": state.log,
            "result": result,
            "stats": [s.as_dict() for s in stats],
        }
        return MatchOutcome(record=record, state=state, stats=stats)

    # ---- helpers ------------------------------------------------------------------------
    def _begin(self, state: GameState, agents: Sequence[Agent], stats: list[SeatStats]) -> None:
        faults: dict[int, Fault] = {}
        for seat, agent in enumerate(agents):
            info = SeatInfo(state.game, seat, state.num_seats, dict(state.config))
            try:
                agent.begin(info, self.tc_of(seat).startup)
            except AgentFault as exc:
                faults[seat] = Fault(exc.kind, exc.reason)
        if faults:
            state.forfeit(faults)

    def _deliver(
        self,
        state: GameState,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        notices: list[tuple[int, Prompt]],
    ) -> None:
        # Notices are grouped into waves of at most one per seat so that seats hear news
        # in parallel and in order.
        while notices:
            wave: dict[int, Prompt] = {}
            rest: list[tuple[int, Prompt]] = []
            for seat, prompt in notices:
                if seat in state.faults:
                    continue
                if seat in wave:
                    rest.append((seat, prompt))
                else:
                    wave[seat] = prompt
            notices = rest
            _, faults = self._exchange(agents, stats, wave)
            if faults:
                state.forfeit(faults)

    def _exchange(
        self, agents: Sequence[Agent], stats: list[SeatStats], prompts: dict[int, Prompt]
    ) -> tuple[dict[int, Any], dict[int, Fault]]:
        """Send every prompt first, then collect: simultaneous seats think in parallel."""
        faults: dict[int, Fault] = {}
        sent: dict[int, float] = {}
        for seat, prompt in sorted(prompts.items()):
            agent = agents[seat]
            agent.answered_at = None
            started = self.clock()
            try:
                agent.send(prompt)
            except AgentFault as exc:
                faults[seat] = Fault(exc.kind, exc.reason)
                continue
            sent[seat] = started
            if agent.answers_on_send:
                agent.answered_at = self.clock()
        answers: dict[int, Any] = {}
        for seat, started in sent.items():
            agent, seat_stats, tc = agents[seat], stats[seat], self.tc_of(seat)
            allowed = tc.move + max(seat_stats.bank_left, 0.0)
            try:
                answer = agent.receive(max(started + allowed - self.clock(), 0.0))
            except AgentFault as exc:
                faults[seat] = Fault(exc.kind, exc.reason)
                continue
            finished = agent.answered_at if agent.answered_at is not None else self.clock()
            used = max(finished - started, 0.0)
            seat_stats.calls += 1
            seat_stats.think_s += used
            seat_stats.slowest_s = max(seat_stats.slowest_s, used)
            seat_stats.bank_left -= max(used - tc.move, 0.0)
            if seat_stats.bank_left < 0:
                faults[seat] = Fault(
                    "timeout",
                    f"{prompts[seat].kind} took {used:.2f} s, over the {tc.move:g} s per "
                    f"call and the {tc.bank:g} s time bank",
                )
                continue
            answers[seat] = answer
        return answers, faults
