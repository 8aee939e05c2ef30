"""The one match loop, whoever sits at the table.

It asks each pending seat's Agent for a decision within a deadline, checks the answer with
the engine, applies it, tells every seat what it may see, and turns every fault (exception,
timeout, invalid answer, crash) into a recorded outcome. It never raises for a seat's fault.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from games.engine import untrusted
from games.engine.agents import Agent, AgentFault, SeatInfo
from games.engine.game import Fault, GameState, IllegalAction, Prompt
from games.engine.journal import Journal

RECORD_VERSION = 1
#: a call this long or shorter has no wait for a CPU measured (bots.running.starved measures
#: a call still unanswered 0.05 s after it began, ``PROBE_S``), so its agent's
#: ``starved_s`` is not read: the quick calls of a match pay nothing for it
WAITS_FROM_S = 0.01


@dataclass(frozen=True)
class TimeControl:
    """Seconds a seat may think: ``move`` per call, plus a ``bank`` per match that pays for
    calls running over ``move``, and ``startup`` for the start of a match. ``streak``, when
    set (validation sets it), is how many calls in a row may run over ``move``: the bank pays
    for occasional slow calls, and a seat slow on that many calls in a row times out, its last
    call cut off at ``move`` (from then on the outcome is certain). Only a move (a call that
    asks for an answer) made within ``move`` ends a row; a quick notice does not."""

    move: float = 1.0
    bank: float = 10.0
    startup: float = 10.0
    streak: int = 0
    #: when set, the most seconds the seat may take in the whole match, its start included
    #: (the worker sets it to what the seat's bot has left of its worker time in the
    #: tournament, see bots.competition): a call still unanswered when it runs out is cut off
    #: there, and the seat faults ``time``
    budget: float | None = None
    #: when set, the ``budget`` is shared: it bounds the own time of every seat whose time
    #: control shares it, together, not this seat's alone (a playground run pays for every
    #: bot at its table: bots.playground), and this names it in the fault's reason ("the
    #: run's 60 s of worker time")
    shared_by: str = ""

    def as_dict(self) -> dict[str, float]:
        limits = {"move": self.move, "bank": self.bank, "startup": self.startup}
        limits |= {"streak": self.streak} if self.streak else {}
        return limits | ({"budget": round(self.budget, 3)} if self.budget is not None else {})


@dataclass
class SeatStats:
    calls: int = 0
    think_s: float = 0.0
    slowest_s: float = 0.0
    bank_left: float = 0.0
    #: the calls that ran over the per-call time since its last move within it, described
    #: (a streak: see TimeControl; not recorded)
    slow: list[str] = field(default_factory=list)
    #: seconds the seat took to start the match (its ``begin``, on the runner's clock: a
    #: process started then, or a cached one told of the new match; not recorded)
    startup_s: float = 0.0
    #: seconds waited for the seat's calls that ended in a fault (not recorded)
    faulted_s: float = 0.0
    #: the seat was cut off where its ``budget`` ran out: it used all of it (what the worker
    #: charges it, bots.competition.charges; not recorded)
    budget_spent: bool = False
    #: seconds of its calls in which the machine kept its bot waiting for a CPU, wherever
    #: they were measured (an agent's ``starved_s``, read for a call over
    #: :data:`WAITS_FROM_S`: bots.running.starved): the machine's, charged to none of its
    #: worker time; of a call over ``move``, none to its time bank either (not recorded)
    starved_s: float = 0.0
    #: seconds of its start that the machine took to set up its sandbox (an agent's
    #: ``platform_s``), left out of ``startup_s``: the machine's (not recorded)
    platform_s: float = 0.0

    @property
    def own_s(self) -> float:
        """Every second the runner waited for this seat alone: its start, its answers and
        the calls it faulted on, less what the machine kept its bot waiting for a CPU in
        them (what the worker charges its bot, bots.competition.charges)."""
        own = self.startup_s + self.think_s + self.faulted_s - self.starved_s
        return own if own > 0.0 else 0.0

    def budget_left(self, tc: TimeControl) -> float | None:
        """What is left of the seat's ``budget`` in this match (None: no budget)."""
        return None if tc.budget is None else max(tc.budget - self.own_s, 0.0)

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

    def _budget_left(self, seat: int, stats: Sequence[SeatStats]) -> float | None:
        """What is left of the seat's ``budget`` in this match (None: no budget): of a
        shared one, less the own time of every seat that shares it."""
        tc = self.tc_of(seat)
        if not tc.shared_by or tc.budget is None:
            return stats[seat].budget_left(tc)
        sharing = (s.own_s for n, s in enumerate(stats) if self.tc_of(n).shared_by == tc.shared_by)
        return max(tc.budget - sum(sharing), 0.0)

    def run(
        self,
        state: GameState,
        agents: Sequence[Agent],
        *,
        seed: int | None,
        seat_names: Sequence[str] | None = None,
        observer: Callable[[GameState], None] | None = None,
    ) -> MatchOutcome:
        """Play the match to its end, waiting on each seat's Agent in the calling thread (a
        worker's). ``observer`` (live tables) is called with the state whenever it may have
        changed and before every decision is asked for; it must not change the state."""
        stats = self._stats(state, agents)
        # direct: the match loop calls each agent itself, as this loop would for every call
        # it yielded (a match makes over a hundred calls: no hop out of the loop for each)
        if _next(self._match(state, agents, stats, observer, seed, direct=True), None):
            raise RuntimeError("a direct match loop yielded a call")
        return self._outcome(state, agents, stats, seed, seat_names)

    def steps(
        self, state: GameState, agents: Sequence[Agent], *, seed: int | None
    ) -> tuple[Steps, list[SeatStats]]:
        """The match as a generator, for a driver of its own (one that plays several matches
        at once: bots.running.lanes), and the seats' stats it keeps. The loop makes every
        call itself but the ``receive`` and ``confirm`` of an agent that ``parks``, which it
        yields as a :class:`_Call`: the driver sends back what the agent's method returned,
        or the AgentFault it raised, once its reply has come. Once it stops,
        :meth:`outcome` is the match's."""
        stats = self._stats(state, agents)
        return self._match(state, agents, stats, None, seed, direct=True), stats

    def outcome(
        self,
        state: GameState,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        *,
        seed: int | None,
        seat_names: Sequence[str] | None = None,
    ) -> MatchOutcome:
        """The outcome of a match played through :meth:`steps`."""
        return self._outcome(state, agents, stats, seed, seat_names)

    async def run_async(
        self,
        state: GameState,
        agents: Sequence[Agent],
        *,
        seed: int | None,
        seat_names: Sequence[str] | None = None,
        observer: Callable[[GameState], None] | None = None,
        offload: Offload | None = None,
        journal: Journal | None = None,
    ) -> MatchOutcome:
        """:meth:`run` on an event loop (a live table): the same match, call for call. An
        agent with a coroutine twin of a call (``receive_async``: a person) is awaited; a
        ``blocking`` one (a bot process, a built-in that thinks long) is called through
        ``offload`` (another thread; ``asyncio.to_thread`` by default); any other is called
        directly, on the loop.

        With a ``journal`` the replies that decide the match are recorded in it as they come,
        and a match it kept steps of is first played again up to its last kept step
        (``state`` must then be the same fresh deal): see :mod:`games.engine.journal`."""
        offload = offload or _to_thread
        stats = self._stats(state, agents)
        steps = self._match(state, agents, stats, observer, seed)
        reply: Any = None
        index = -1
        #: per seat, a question sent while catching up to an agent that was not called
        unsent: dict[int, _Call] = {}
        #: per seat, the number of its begin call
        begun: dict[int, int] = {}
        while (call := _next(steps, reply)) is not None:
            agent = agents[call.seat]
            if call.method == "started":
                # a seat's start awaited: carried out whenever its begin is (a match being
                # resumed starts its agents anew too); a failure is kept as its begin's
                reply = await _call(agent, call, offload)
                if journal is not None and isinstance(reply, AgentFault):
                    at = begun[call.seat]
                    step = _fault_step(call._replace(method="begin"), reply, state)
                    if journal.catching_up(index):
                        journal.diverge(at, step)  # it started the first time
                    else:
                        journal.record(at, step)
                continue
            index += 1
            if call.method == "begin":
                begun[call.seat] = index
            if journal is None:
                reply = await _call(agent, call, offload)
                continue
            if journal.catching_up(index):
                reply = await self._replay(journal, index, call, agent, state, offload, unsent)
                continue
            if journal.go_live():
                for question in unsent.values():  # asked again: the answer was not kept
                    await _call(agents[question.seat], question, offload)
            reply = await _call(agent, call, offload)
            self._record(journal, index, call, agent, reply, state)
        return self._outcome(state, agents, stats, seed, seat_names)

    async def _replay(
        self,
        journal: Journal,
        index: int,
        call: _Call,
        agent: Agent,
        state: GameState,
        offload: Offload,
        unsent: dict[int, _Call],
    ) -> Any:
        """Call ``index`` of a match being resumed: the agent hears it if it catches up (its
        reply is not used), and the loop gets the kept reply."""
        step = journal.step(index, call.seat, call.method, len(state.log))
        if agent.catch_up or call.method == "begin":
            heard = await _call(agent, call, offload)
            if isinstance(heard, AgentFault) and (step is None or "f" not in step):
                # it fails where it did not the first time: its fault, at this point
                journal.diverge(index, _fault_step(call, heard, state))
                return heard
        elif call.method == "send":
            unsent[call.seat] = call
        elif call.method == "receive":
            unsent.pop(call.seat, None)
        journal.replayed(call.seat, step)
        if step is None:
            if call.method == "receive":
                agent.answered_at = call.started
            return None
        if "f" in step:
            kind, reason = step["f"]
            return AgentFault(str(kind), str(reason))
        agent.answered_at = (call.started or 0.0) + float(step.get("t", 0.0))
        return step.get("a")

    def _record(
        self,
        journal: Journal,
        index: int,
        call: _Call,
        agent: Agent,
        reply: Any,
        state: GameState,
    ) -> None:
        """Keep the reply of a live call if it decides anything (see games.engine.journal)."""
        if isinstance(reply, AgentFault):
            if call.method != "end":
                journal.record(index, _fault_step(call, reply, state))
            return
        if call.method != "receive":
            return
        if agent.answered_at is None:
            agent.answered_at = self.clock()  # what the loop would read: now the same
        used = max(agent.answered_at - (call.started or 0.0), 0.0)
        if reply is None and used <= self.tc_of(call.seat).move:
            return  # a notice heard in time
        step = {"s": call.seat, "m": call.method, "n": len(state.log)}
        journal.record(index, step | {"a": reply, "t": round(used, 6)})

    # ---- the match, whoever waits on the agents ------------------------------------------
    # The match is a generator of :class:`_Call`: each asks one seat's agent for one thing
    # (``begin``, ``send``, ``receive``, ``end``) and is sent back what it returned or the
    # AgentFault it raised. The two drivers above only carry the calls out.

    def _stats(self, state: GameState, agents: Sequence[Agent]) -> list[SeatStats]:
        if len(agents) != state.num_seats:
            raise ValueError(f"{len(agents)} agents for {state.num_seats} seats")
        return [SeatStats(bank_left=self.tc_of(seat).bank) for seat in range(len(agents))]

    def _match(
        self,
        state: GameState,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        observer: Callable[[GameState], None] | None,
        seed: int | None = None,
        direct: bool = False,
    ) -> Steps:
        """The match, call by call: each call of an agent is yielded as a :class:`_Call`
        and sent back its return value or AgentFault, or, ``direct``, made here."""
        faults: dict[int, Fault] = {}
        began: dict[int, float] = {}
        # Every seat is begun first, then each is waited for: they start side by side.
        for seat in range(len(stats)):
            info = SeatInfo(state.game, seat, state.num_seats, dict(state.config), seed)
            began[seat] = self.clock()
            agents[seat].answered_at = None
            call = _Call(seat, "begin", (info, self.tc_of(seat).startup))
            reply = _made(agents, call) if direct else (yield call)
            # an agent that starts within begin: its start ends here (one that waits for it
            # in started says when it came, in answered_at); the time the machine took to set
            # up its sandbox is not the seat's (an agent's ``platform_s``)
            platform = getattr(agents[seat], "platform_s", 0.0)
            stats[seat].startup_s = max(self.clock() - began[seat] - platform, 0.0)
            stats[seat].platform_s = platform
            if isinstance(reply, AgentFault):
                faults[seat] = _startup_fault(reply, self.tc_of(seat))
                del began[seat]
        for seat, started in began.items():
            tc = self.tc_of(seat)
            timeout = max(started + tc.startup - self.clock(), 0.0)
            call = _Call(seat, "started", (timeout,))
            reply = _made(agents, call) if direct else (yield call)
            finished = agents[seat].answered_at
            platform = getattr(agents[seat], "platform_s", 0.0)
            if finished is not None:
                stats[seat].startup_s = max(finished - started - platform, 0.0)
            elif isinstance(reply, AgentFault):
                stats[seat].startup_s = max(self.clock() - started - platform, 0.0)
            if isinstance(reply, AgentFault):
                faults[seat] = _startup_fault(reply, tc)
            elif self._budget_left(seat, stats) == 0:
                faults[seat] = _out_of_time(tc, "the start of the match", stats[seat])
        if faults:
            state.forfeit(faults)
        seating = self._seats(agents)
        independent = state.independent_moves
        while True:
            notices = state.take_notices()
            if notices:
                if direct and seating.hear_later:
                    self._tell(state, agents, stats, notices)
                else:
                    yield from self._deliver(state, agents, stats, notices, direct, seating)
            if observer is not None:
                observer(state)
            if state.is_over():
                break
            seats = state.pending()
            if state.faults:  # (none, as a rule: no comprehension a turn then)
                seats = [s for s in seats if s not in state.faults]
            if not seats:
                raise RuntimeError(f"{state.game}: no seat to act but the match is not over")
            prompts = {seat: state.prompt(seat) for seat in seats}
            answers, faults = yield from self._exchange(agents, stats, prompts, direct, seating)
            legal: dict[int, Any] = {}
            for seat in sorted(answers):
                why = refusal(state, seat, answers[seat])
                if why is None:
                    legal[seat] = answers[seat]
                    continue
                fault = state.reject(seat, answers[seat], why)
                if fault is not None:
                    faults[seat] = _named(fault, agents[seat].call_name(prompts[seat]))
            if faults:
                state.forfeit(faults)  # settled first: the rules may end the match
            # the first action was verified against this very state (refusal), unless a
            # forfeit or a refused answer's rule changed it since; with independent moves,
            # so was every other (the first changed nothing they depend on)
            first = not faults and len(legal) == len(answers)
            for seat, action in legal.items():
                if first:  # (so its seat is pending still: nothing changed since it was asked)
                    state.accept(seat, action)
                    first = independent
                elif seat in state.pending():  # another seat's action may have changed that
                    state.apply(seat, action)
        if (yield from self._confirm(state, agents, stats, direct)) and observer is not None:
            observer(state)
        result = state.result()
        for seat in range(len(stats)):
            # The match is decided; a seat failing to hear the result changes nothing.
            call = _Call(seat, "end", (result,))
            if direct:
                _made(agents, call)
            else:
                yield call

    def _outcome(
        self,
        state: GameState,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        seed: int | None,
        seat_names: Sequence[str] | None,
    ) -> MatchOutcome:
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
            "result": state.result(),
            "stats": [s.as_dict() for s in stats],
        }
        return MatchOutcome(record=record, state=state, stats=stats)

    def _deliver(
        self,
        state: GameState,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        notices: list[tuple[int, Prompt]],
        direct: bool,
        seats: _Seats,
    ) -> Steps:
        # Notices are grouped into waves of at most one per seat so that seats hear news
        # in parallel and in order.
        while notices:
            wave, notices = _wave(state, notices)
            _, faults = yield from self._exchange(agents, stats, wave, direct, seats)
            if faults:
                state.forfeit(faults)

    @staticmethod
    def _tell(
        state: GameState,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        notices: list[tuple[int, Prompt]],
    ) -> None:
        """:meth:`_deliver` made here, for seats that all hear later (see Agent.hears_later):
        a notice is only sent, and counted, so no wave waits on another. The waves are kept
        for faults: a seat's failure skips its later notices, and the failures of one wave
        are forfeited together, as :meth:`_deliver` does."""
        while notices:
            faults: dict[int, Fault] = {}
            wave, notices = _wave(state, notices)
            for seat in sorted(wave) if len(wave) > 1 else wave:
                agent = agents[seat]
                agent.answered_at = None
                try:
                    agent.send(wave[seat])
                except AgentFault as exc:
                    faults[seat] = Fault(exc.kind, exc.reason)
                    continue
                stats[seat].calls += 1
            if faults:
                state.forfeit(faults)

    def _confirm(
        self,
        state: GameState,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        direct: bool = False,
    ) -> Generator[_Call, Any, bool]:
        """The match is over: seats that took their last notices without waiting for them
        (bot processes) are waited for, on their clocks as a call would be; a failure in a
        notice is still that seat's fault in this match. True if a seat faulted."""
        faults: dict[int, Fault] = {}
        asked: dict[int, float] = {}
        for seat, agent in enumerate(agents):
            if seat in state.faults or not agent.unconfirmed:
                continue
            # Every seat is asked first, then each is waited for: they finish side by side.
            started = self.clock()
            call = _Call(seat, "ask_confirm", ())
            reply = _made(agents, call) if direct else (yield call)
            if isinstance(reply, AgentFault):
                faults[seat] = Fault(reply.kind, reply.reason)
                continue
            asked[seat] = started
        for seat, started in asked.items():
            agent, seat_stats, tc = agents[seat], stats[seat], self.tc_of(seat)
            agent.answered_at = None
            allowed = tc.move + max(seat_stats.bank_left, 0.0)
            # (a shared budget is the playground's: the loop's hot path reads the seat's own)
            left = self._budget_left(seat, stats) if tc.shared_by else seat_stats.budget_left(tc)
            cut = left is not None and left < allowed
            allowed = min(allowed, left) if left is not None else allowed
            timeout = max(started + allowed - self.clock(), 0.0)
            call = _Call(seat, "confirm", (timeout,), started)
            reply = _made(agents, call) if direct and not agent.parks else (yield call)
            if isinstance(reply, AgentFault):
                faulted = max(self.clock() - started, 0.0)
                seat_stats.faulted_s += faulted
                seat_stats.starved_s += min(getattr(agent, "starved_s", 0.0), faulted)
                reason = reply.reason
                if reply.kind == "timeout" and cut:
                    faults[seat] = _out_of_time(tc, "the last notices", seat_stats)
                    continue
                if reply.kind == "timeout":
                    reason += _allowance(tc, seat_stats)
                faults[seat] = Fault(reply.kind, reason)
                continue
            finished = agent.answered_at if agent.answered_at is not None else self.clock()
            used = max(finished - started, 0.0)
            seat_stats.think_s += used
            seat_stats.slowest_s = max(seat_stats.slowest_s, used)
            # the machine's share of the call is not the bot's worker time, nor, over the
            # per-call time, its time bank's
            waited = min(getattr(agent, "starved_s", 0.0), used)
            seat_stats.starved_s += waited
            if used > tc.move:
                used -= min(waited, used - tc.move)
            seat_stats.bank_left -= max(used - tc.move, 0.0)
            if seat_stats.bank_left < 0:
                faults[seat] = Fault(
                    "timeout",
                    f"the last notices took {used:.2f} s, over the {tc.move:g} s per call and "
                    f"the {tc.bank:g} s time bank",
                )
        if faults:
            state.forfeit(faults)
        return bool(faults)

    def _exchange(
        self,
        agents: Sequence[Agent],
        stats: list[SeatStats],
        prompts: dict[int, Prompt],
        direct: bool,
        seats: _Seats,
    ) -> Generator[_Call, Any, tuple[dict[int, Any], dict[int, Fault]]]:
        """Send every prompt first, then collect: simultaneous seats think in parallel.
        ``seats``: what the match's calls read of its seats (worked out once a match)."""
        faults: dict[int, Fault] = {}
        sent: list[tuple[int, float]] = []
        # (this runs for every call of every match: no max() of two numbers, no method
        # where a comparison does, nothing looked up twice)
        clock = self.clock
        for seat, prompt in sorted(prompts.items()) if len(prompts) > 1 else prompts.items():
            agent = agents[seat]
            agent.answered_at = None
            started = clock()
            if direct:
                try:
                    reply = agent.send(prompt)
                except AgentFault as exc:
                    reply = exc
            else:
                reply = yield _Call(seat, "send", (prompt,))
            if isinstance(reply, AgentFault):
                faults[seat] = Fault(reply.kind, reply.reason)
                continue
            if direct and agent.hears_later and not prompt.expects_answer:
                stats[seat].calls += 1  # a notice: nothing to collect (see Agent.hears_later)
                continue
            sent.append((seat, started))
            if agent.answers_on_send:
                agent.answered_at = clock()
        answers: dict[int, Any] = {}
        if seats.awaited and len(sent) > 1:
            # Seats that answer from another process (a bot's, timed by when its reply
            # came) are collected before seats that are awaited (a person at a live
            # table): a bot's reply is stamped when it is read, and nothing reads it
            # while a person is awaited, so collecting the person first charged the bot
            # the person's time.
            sent.sort(key=lambda item: not agents[item[0]].blocking)
        tcs = seats.tcs
        for seat, started in sent:
            agent, seat_stats, tc = agents[seat], stats[seat], tcs[seat]
            move = tc.move
            bank_left = seat_stats.bank_left
            allowed = move + bank_left if bank_left > 0.0 else move
            slow = seat_stats.slow
            # the last slow call a streak allows: over ``move`` it ends the streak anyway
            last_chance = 0 < tc.streak <= len(slow) + 1 if slow else tc.streak == 1
            if last_chance and allowed > move:
                allowed = move
            cut = False
            if tc.budget is not None:
                left = self._budget_left(seat, stats)
                assert left is not None
                cut = left < allowed
                if cut:
                    allowed = left
            timeout = started + allowed - clock()
            if timeout < 0.0:
                timeout = 0.0
            if direct and not agent.parks:
                try:
                    answer = agent.receive(timeout)
                except AgentFault as exc:
                    answer = exc
            else:
                answer = yield _Call(seat, "receive", (timeout,), started)
            if isinstance(answer, AgentFault):
                faulted = max(self.clock() - started, 0.0)
                seat_stats.faulted_s += faulted
                seat_stats.starved_s += min(getattr(agent, "starved_s", 0.0), faulted)
                if cut and answer.kind == "timeout":
                    faults[seat] = _out_of_time(tc, agent.call_name(prompts[seat]), seat_stats)
                elif last_chance and answer.kind == "timeout":
                    faults[seat] = Fault("timeout", _streak_reason(tc, seat_stats, answer.reason))
                elif answer.kind == "timeout":  # the limit it ran into, in the contract's terms
                    faults[seat] = Fault("timeout", answer.reason + _allowance(tc, seat_stats))
                else:
                    faults[seat] = Fault(answer.kind, answer.reason)
                continue
            finished = agent.answered_at
            if finished is None:
                finished = clock()
            used = finished - started if finished > started else 0.0
            seat_stats.calls += 1
            seat_stats.think_s += used
            if used > seat_stats.slowest_s:
                seat_stats.slowest_s = used
            if used > WAITS_FROM_S:
                # the time the machine kept the bot waiting for a CPU is not the bot's worker
                # time, nor, over the per-call time, its time bank's (read only for a call
                # long enough to have it measured: bots.running.starved)
                waited = getattr(agent, "starved_s", 0.0)
                if waited > 0.0:
                    if waited > used:
                        waited = used
                    seat_stats.starved_s += waited
                    if used > move:
                        used -= waited if waited < used - move else used - move
            if used > move:
                seat_stats.bank_left -= used - move
                slow.append(f"{agent.call_name(prompts[seat])} took {used:.2f} s")
            elif slow and prompts[seat].expects_answer:
                slow.clear()  # a move in time ends a streak; a quick notice does not
            if seat_stats.bank_left < 0:
                faults[seat] = Fault(
                    "timeout",
                    f"{agent.call_name(prompts[seat])} took {used:.2f} s, over the "
                    f"{move:g} s per call and the {tc.bank:g} s time bank",
                )
                continue
            if slow and tc.streak and len(slow) >= tc.streak:
                faults[seat] = Fault("timeout", _streak_reason(tc, seat_stats))
                continue
            answers[seat] = answer
        return answers, faults

    def _seats(self, agents: Sequence[Agent]) -> _Seats:
        return _Seats(
            [self.tc_of(seat) for seat in range(len(agents))],
            any(not agent.blocking for agent in agents),
            all(agent.hears_later for agent in agents),
        )


class _Seats(NamedTuple):
    """What a match's calls read of its seats, worked out once a match: each seat's time
    control, and whether any is awaited (a person: see MatchRunner._exchange)."""

    tcs: list[TimeControl]
    awaited: bool
    #: every seat hears its notices later (see Agent.hears_later)
    hear_later: bool


def _wave(
    state: GameState, notices: list[tuple[int, Prompt]]
) -> tuple[dict[int, Prompt], list[tuple[int, Prompt]]]:
    """The next wave of ``notices`` (the first still due to each seat that has not faulted),
    and the notices left for the waves after it."""
    wave: dict[int, Prompt] = {}
    rest: list[tuple[int, Prompt]] = []
    for seat, prompt in notices:
        if seat in state.faults:
            continue
        if seat in wave:
            rest.append((seat, prompt))
        else:
            wave[seat] = prompt
    return wave, rest


def _named(fault: Fault, call: str) -> Fault:
    """An illegal answer's fault, naming the call that gave it: the rules say what is wrong
    with the answer, not which question it answered."""
    reason = f"{call} returned an illegal answer: {fault.reason}"
    return Fault(fault.kind, untrusted.shorten(reason, MAX_REASON))


def _startup_fault(reply: AgentFault, tc: TimeControl) -> Fault:
    """A seat that failed to start the match: a timeout names the limit, in the contract's
    terms."""
    reason = reply.reason
    if reply.kind == "timeout":
        reason += f" (the {tc.startup:g} s a bot has to start a match)"
    return Fault(reply.kind, reason)


def _allowance(tc: TimeControl, stats: SeatStats) -> str:
    """What a call was given, as the contract quotes limits: the time per call, and what
    was left of the match's time bank ("no answer to act within 11.00 s, the 1 s per call
    plus 10.00 s left of the 10 s time bank")."""
    if tc.bank <= 0:
        return f", the {tc.move:g} s per call"
    left = max(stats.bank_left, 0.0)
    return f", the {tc.move:g} s per call plus {left:.2f} s left of the {tc.bank:g} s time bank"


def _out_of_time(tc: TimeControl, what: str, stats: SeatStats) -> Fault:
    """A seat that used the whole of its ``budget`` (the worker time its bot had left), so
    marked in its ``stats``."""
    stats.budget_spent = True
    if tc.shared_by:
        return Fault(
            "time",
            f"out of worker time: {what} ran past the {tc.budget or 0:.2f} s this match had "
            f"of {tc.shared_by}",
        )
    return Fault(
        "time",
        f"out of worker time: {what} ran past the {tc.budget or 0:.2f} s the bot had left of "
        "its worker time in this tournament",
    )


def _streak_reason(tc: TimeControl, stats: SeatStats, last: str = "") -> str:
    """Why a seat slow on ``tc.streak`` calls in a row times out: each of those calls, the
    last one by what cut it off (``last``) when it did not answer at all."""
    calls = [*stats.slow, last] if last else list(stats.slow)
    over = f"over the {tc.move:g} s per call ({'; '.join(calls)})"
    if tc.streak == 1:
        return f"a call {over}: no time bank in this match"
    return (
        f"{len(calls)} calls in a row {over}: the {tc.bank:g} s time bank pays for occasional "
        f"slow calls, not for {tc.streak} in a row"
    )


class _Call(NamedTuple):
    """One thing the match needs of one seat's agent: ``begin``, ``started``, ``send``,
    ``receive`` or ``end``, with its arguments. (A tuple: a match makes over a hundred, and a frozen
    dataclass costs several times as much to make.)"""

    seat: int
    method: str
    args: tuple[Any, ...]
    #: a ``receive``: when its question was sent; a ``confirm``: when the seat was asked
    #: (on the runner's clock)
    started: float | None = None


#: the match loop: yields calls, is sent each call's return value or AgentFault
Steps = Generator[_Call, Any, None]
#: runs a blocking call off the event loop: ``await offload(fn)``
Offload = Callable[[Callable[[], Any]], Awaitable[Any]]


#: longest reason kept for an illegal answer (the rules quote the answer, which a bot chose)
MAX_REASON = 500


def refusal(state: GameState, seat: int, answer: Any) -> str | None:
    """Why the rules refuse a seat's answer, or None if they take it. An answer the rules
    cannot even check (a check that raises something other than :class:`IllegalAction` on
    a value no game expects) is refused too: whatever a seat answers is that seat's fault,
    never the match's end."""
    try:
        state.verify(seat, answer)
    except IllegalAction as exc:
        return untrusted.shorten(untrusted.clean_text(str(exc)), MAX_REASON)
    except Exception as exc:  # noqa: BLE001 - the answer is the seat's responsibility
        return f"the answer could not be checked ({type(exc).__name__})"
    return None


def _made(agents: Sequence[Agent], call: _Call) -> Any:
    """``call`` made on its seat's agent: what it returned, or the AgentFault it raised."""
    try:
        return getattr(agents[call.seat], call.method)(*call.args)
    except AgentFault as exc:
        return exc


def _next(steps: Steps, reply: Any) -> _Call | None:
    try:
        return steps.send(reply)
    except StopIteration:
        return None


async def _call(agent: Agent, call: _Call, offload: Offload) -> Any:
    """Carry out one call on an event loop: what it returned, or the AgentFault it raised."""
    try:
        native = getattr(agent, f"{call.method}_async", None)
        if native is not None:
            return await native(*call.args)
        if agent.blocking:
            return await offload(functools.partial(getattr(agent, call.method), *call.args))
        return getattr(agent, call.method)(*call.args)
    except AgentFault as exc:
        return exc


def _fault_step(call: _Call, fault: AgentFault, state: GameState) -> dict[str, Any]:
    return {"s": call.seat, "m": call.method, "n": len(state.log), "f": [fault.kind, fault.reason]}


async def _to_thread(fn: Callable[[], Any]) -> Any:
    import asyncio  # (here: a match played directly, as the arena plays them, needs none)

    return await asyncio.to_thread(fn)
