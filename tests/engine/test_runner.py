"""The match runner: asking, validating, applying, informing, and faults as outcomes."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.agents import Agent, AgentFault, InProcessAgent, ScriptedAgent
from games.engine.game import Fault, Prompt
from games.engine.runner import MatchRunner, TimeControl
from games.rps_poker import botapi
from games.rps_poker.bots import minimal
from games.rps_poker.rules import RpsPokerState


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowAgent(Agent):
    """Thinks ``delay`` seconds of fake time per prompt, in parallel with other seats (as a
    real bot process does): it reports when its answer was ready."""

    def __init__(self, clock: FakeClock, delay: float, name: str = "slow") -> None:
        self.clock, self.delay, self.name = clock, delay, name
        self.prompt: Prompt | None = None
        self.asked_at = 0.0

    def send(self, prompt: Prompt) -> None:
        self.prompt = prompt
        self.asked_at = self.clock.now

    def receive(self, timeout: float) -> Any:
        assert self.prompt is not None
        deadline = self.clock.now + timeout
        ready = self.asked_at + self.delay
        if ready > deadline:
            self.clock.now = deadline
            raise AgentFault("timeout", f"no answer within {timeout:.2f} s")
        self.clock.now = max(self.clock.now, ready)
        self.answered_at = ready
        return 0 if self.prompt.expects_answer else None


def minimal_agent(name: str = "minimal") -> InProcessAgent:
    return InProcessAgent(minimal.Bot, botapi.bot_call, name)


class Raising:
    """Raises in ``method`` on its ``after``-th call of it."""

    def __init__(self, method: str, after: int = 0) -> None:
        self.method, self.after, self.calls = method, after, 0

    def __call__(self) -> Any:
        outer = self

        class Bot(minimal.Bot):
            def __getattribute__(self, name: str) -> Any:
                if name == outer.method:
                    outer.calls += 1
                    if outer.calls > outer.after:
                        raise RuntimeError(f"boom in {name}")
                return super().__getattribute__(name)

        return Bot()


def run(agents: list[Agent], seed: int = 7, tc: TimeControl | None = None, clock=None):
    runner = MatchRunner(clock or FakeClock(), tc or TimeControl())
    return runner.run(RpsPokerState.new(seed), agents, seed=seed)


def test_it_plays_a_whole_match_and_records_it():
    outcome = run([minimal_agent("a"), minimal_agent("b")])
    assert sum(outcome.result["scores"]) == 10
    assert outcome.record["seats"] == [{"name": "a"}, {"name": "b"}]
    kinds = [e["type"] for e in outcome.record["events"]]
    assert kinds.count("action") == 2 * (5 + 10)
    assert kinds.count("chance") == 4  # full deck, remaining deck, two player decks
    assert outcome.faults == {}


def test_it_asks_both_seats_of_a_simultaneous_move_before_collecting_answers():
    order: list[str] = []

    class Logged(ScriptedAgent):
        def send(self, prompt):
            order.append(f"send {self.name} {prompt.kind}")
            super().send(prompt)

        def receive(self, timeout):
            order.append(f"receive {self.name}")
            return super().receive(timeout)

    run([Logged([0] * 15, "a"), Logged([0] * 15, "b")])
    assert order[:4] == ["send a draft_pick", "send b draft_pick", "receive a", "receive b"]


def test_it_tells_each_seat_only_its_own_cards():
    a, b = ScriptedAgent([0] * 15, "a"), ScriptedAgent([1] * 5 + [0] * 10, "b")
    outcome = run([a, b])
    full = next(e for e in outcome.record["events"] if e["label"] == "full-deck")["outcome"]
    first_offers = [p.data["cards"] for p in a.seen if p.kind == "draft_pick"]
    assert first_offers[0] == full[0:2]
    assert next(p.data["cards"] for p in b.seen if p.kind == "draft_pick") == full[2:4]
    received = [p.data["card"] for p in a.seen if p.kind == "draft_receive"]
    # b picks index 1 each step, so a receives b's index-0 card
    assert received[0] == full[2]
    for prompt in a.seen:
        if prompt.kind == "main_play":
            assert not set(prompt.data["hand"]) & set(outcome.state.decks[1])


def test_it_records_an_exception_as_a_fault_and_credits_the_opponent():
    raising = InProcessAgent(Raising("main_play", after=3), botapi.bot_call, "raiser")
    outcome = run([raising, minimal_agent()])
    fault = outcome.faults[0]
    assert fault.kind == "exception"
    assert "main_play raised RuntimeError: boom in main_play" in fault.reason
    games = outcome.result["games"]
    assert len(games) == 3
    assert outcome.result["scores"][1] == 7 + sum(g["winner"] == 1 for g in games)
    assert sum(outcome.result["scores"]) == 10
    assert "RuntimeError" in raising.errors[0]


def test_it_counts_an_exception_in_a_notice_as_a_fault():
    raising = InProcessAgent(Raising("draft_receive"), botapi.bot_call, "raiser")
    outcome = run([minimal_agent(), raising])
    assert outcome.faults[1].kind == "exception"
    assert outcome.result["scores"] == [10, 0]


def test_it_records_an_invalid_answer_with_the_reason():
    outcome = run([ScriptedAgent([0, 0, 5]), ScriptedAgent([0] * 15)])
    assert outcome.faults[0].kind == "invalid"
    # the reason names the call the answer was given to, then what the rules refuse
    assert outcome.faults[0].reason == (
        "draft_pick returned an illegal answer: index 5 is out of range 0-1"
    )
    assert outcome.result["scores"] == [0, 10]


def test_it_refuses_a_bool_as_an_index():
    outcome = run([ScriptedAgent([True]), ScriptedAgent([0] * 15)])
    assert outcome.faults[0].kind == "invalid"
    assert "True" in outcome.faults[0].reason


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def test_an_answer_the_rules_cannot_even_check_is_that_seats_fault():
    # The rules quote a bad answer with repr, which recurses once per level: RecursionError.
    outcome = run([ScriptedAgent([nested(5000)]), ScriptedAgent([0] * 15)])
    assert outcome.faults[0] == Fault(
        "invalid",
        "draft_pick returned an illegal answer: the answer could not be checked (RecursionError)",
    )
    assert outcome.result["scores"] == [0, 10]


def test_a_long_answer_is_quoted_short_in_the_reason():
    outcome = run([ScriptedAgent(["x" * 100_000]), ScriptedAgent([0] * 15)])
    reason = outcome.faults[0].reason
    assert outcome.faults[0].kind == "invalid"
    assert len(reason) <= 500 and reason.endswith("...")


def test_it_records_a_startup_fault_before_any_move():
    broken = InProcessAgent(lambda: 1 / 0, botapi.bot_call, "broken")
    outcome = run([minimal_agent(), broken])
    assert outcome.faults[1].kind == "startup"
    assert outcome.result["scores"] == [10, 0]
    assert outcome.result["forfeited_games"] == 10


def test_it_credits_nobody_when_both_seats_fault_at_once():
    outcome = run([ScriptedAgent([7]), ScriptedAgent(["x"])])
    assert set(outcome.faults) == {0, 1}
    assert outcome.result["scores"] == [0, 0]
    assert outcome.result["winner"] is None


def test_it_times_out_a_seat_that_overruns_its_call_and_bank():
    clock = FakeClock()
    tc = TimeControl(move=1.0, bank=2.0, startup=5.0)
    slow = SlowAgent(clock, delay=1.8)
    outcome = run([slow, SlowAgent(clock, delay=0.1, name="fast")], tc=tc, clock=clock)
    # Each call overruns by 0.8 s: the bank of 2 s pays for two, the third call is given
    # only what is left of the bank (1 s + 0.4 s) and times out.
    # The reason says what the limit was, in the contract's terms.
    assert outcome.faults[0] == Fault(
        "timeout",
        "no answer within 1.40 s, the 1 s per call plus 0.40 s left of the 2 s time bank",
    )
    assert outcome.stats[0].calls == 2
    assert 1 not in outcome.faults


def test_it_does_not_charge_a_seat_for_time_spent_waiting_on_another():
    clock = FakeClock()
    tc = TimeControl(move=1.0, bank=1.0)
    outcome = run(
        [SlowAgent(clock, delay=1.5), SlowAgent(clock, 0.01, "quick")], tc=tc, clock=clock
    )
    assert outcome.faults[0].kind == "timeout"
    assert 1 not in outcome.faults
    assert outcome.stats[1].bank_left == 1.0
    assert outcome.stats[1].slowest_s == pytest.approx(0.01)


def test_it_times_an_in_process_bot_by_its_own_work_not_by_its_opponents():
    clock = FakeClock()

    class Thinking(minimal.Bot):
        def draft_pick(self, cards):
            clock.now += 0.25  # this bot's own work, done while the runner waits on send()
            return 0

    thinker = InProcessAgent(Thinking, botapi.bot_call, "thinker")
    tc = TimeControl(move=1.0, bank=1.0)
    outcome = run([SlowAgent(clock, delay=0.9), thinker], tc=tc, clock=clock)
    assert 1 not in outcome.faults
    # Charged 0.25 s per draft pick, never the 0.9 s the other seat took.
    assert outcome.stats[1].slowest_s == pytest.approx(0.25)
    assert outcome.stats[1].bank_left == 1.0


class PatternAgent(SlowAgent):
    """Thinks the next of ``delays`` (in turn) on every move, and 0.01 s on a notice."""

    def __init__(self, clock: FakeClock, delays: list[float], name: str = "pattern") -> None:
        super().__init__(clock, delays[0], name)
        self.delays, self.moves = delays, 0

    def send(self, prompt: Prompt) -> None:
        super().send(prompt)
        self.delay = 0.01
        if prompt.expects_answer:
            self.delay = self.delays[self.moves % len(self.delays)]
            self.moves += 1


def test_a_streak_limit_times_out_a_seat_slow_on_every_call_at_the_last_allowed_one():
    clock = FakeClock()
    tc = TimeControl(move=1.0, bank=10.0, startup=5.0, streak=3)
    slow = SlowAgent(clock, delay=1.5)
    outcome = run([slow, SlowAgent(clock, delay=0.1, name="fast")], tc=tc, clock=clock)
    # two slow calls are paid by the bank; the third is cut off at the per-call time
    assert outcome.faults[0] == Fault(
        "timeout",
        "3 calls in a row over the 1 s per call (draft_pick took 1.50 s; "
        "draft_receive took 1.50 s; no answer within 1.00 s): the 10 s time bank pays for "
        "occasional slow calls, not for 3 in a row",
    )
    assert outcome.stats[0].calls == 2
    assert outcome.stats[0].bank_left == pytest.approx(9.0)
    assert 1 not in outcome.faults
    assert outcome.record["time_control"]["streak"] == 3


def test_a_streak_limit_leaves_occasional_slow_calls_to_the_bank():
    clock = FakeClock()
    tc = TimeControl(move=1.0, bank=10.0, startup=5.0, streak=2)
    # slow, quick, slow, quick...: never two slow moves in a row, and the bank lasts
    outcome = run(
        [PatternAgent(clock, [1.2, 0.1]), SlowAgent(clock, delay=0.1, name="fast")],
        tc=tc,
        clock=clock,
    )
    assert outcome.faults == {}
    assert outcome.stats[0].bank_left < 10.0
    # without a streak limit nothing changes: the record shows no streak either
    plain = run([SlowAgent(FakeClock(), 0.1), SlowAgent(FakeClock(), 0.1)], tc=TimeControl())
    assert "streak" not in plain.record["time_control"]


def test_quick_notices_between_slow_moves_do_not_end_a_streak():
    clock = FakeClock()
    tc = TimeControl(move=1.0, bank=10.0, startup=5.0, streak=2)
    outcome = run(
        [PatternAgent(clock, [1.2]), SlowAgent(clock, delay=0.1, name="fast")], tc=tc, clock=clock
    )
    fault = outcome.faults[0]
    assert fault.kind == "timeout"
    assert fault.reason.startswith("2 calls in a row over the 1 s per call (draft_pick took 1.20")
    assert outcome.stats[0].bank_left == pytest.approx(9.8)


class Unconfirmed(ScriptedAgent):
    """Takes notices without waiting for them (as a bot process does), and confirms them at
    the end in ``took`` seconds of fake time after it was asked; logs the calls."""

    def __init__(self, clock: FakeClock, took: float, name: str, order: list[str]) -> None:
        super().__init__([0] * 15, name)
        self.clock, self.took, self.order = clock, took, order
        self.asked_at: float | None = None

    @property
    def unconfirmed(self) -> bool:  # type: ignore[override]
        return self.asked_at is None

    def ask_confirm(self) -> None:
        self.order.append(f"ask {self.name}")
        self.asked_at = self.clock.now

    def confirm(self, timeout: float) -> None:
        self.order.append(f"confirm {self.name}")
        assert self.asked_at is not None
        self.answered_at = self.asked_at + self.took
        self.clock.now = max(self.clock.now, self.answered_at)


def test_every_seat_is_asked_to_confirm_before_any_is_waited_for():
    clock, order = FakeClock(), []
    seats = [Unconfirmed(clock, 3.0, "a", order), Unconfirmed(clock, 3.0, "b", order)]
    outcome = run(seats, tc=TimeControl(move=1.0, bank=10.0), clock=clock)
    assert order == ["ask a", "ask b", "confirm a", "confirm b"]
    # both finished their last notices side by side: each is charged its own 3 s, no more
    assert [s.bank_left for s in outcome.stats] == [pytest.approx(8.0), pytest.approx(8.0)]
    assert outcome.faults == {}


class LaterAgent(SlowAgent):
    """A bot process's shape: a notice is answered with its next reply (hears_later), so a
    match played directly must not wait for it; one that does is told here."""

    hears_later = True

    def __init__(self, clock: FakeClock, delay: float, name: str = "later") -> None:
        super().__init__(clock, delay, name)
        self.waited_on_notices = 0

    def receive(self, timeout: float) -> Any:
        assert self.prompt is not None
        if not self.prompt.expects_answer:
            self.waited_on_notices += 1
        return super().receive(timeout)


def test_a_notice_to_an_agent_that_hears_later_is_counted_not_waited_for():
    clock = FakeClock()
    later, slow = LaterAgent(clock, 0.01), SlowAgent(clock, 0.01)
    outcome = run([later, slow], clock=clock)
    assert later.waited_on_notices == 0
    # each seat's calls count its notices alike (RPS Poker: 15 calls and 15 notices a seat)
    assert [s.calls for s in outcome.stats] == [30, 30]
    # its time is its calls' (a notice's is counted in the next call's); the other seat's
    # notices are waited for, each 0.01 s here
    assert outcome.stats[0].think_s == pytest.approx(15 * 0.01)
    assert outcome.stats[1].think_s == pytest.approx(30 * 0.01)


class SandboxedStart(SlowAgent):
    """A seat whose begin starts its process: 3 s of it the sandbox's own set-up (its
    ``platform_s``, as ProcessAgent says it), 0.5 s the bot's start."""

    platform_s = 0.0

    def begin(self, info, timeout: float) -> None:
        self.clock.now += 3.5
        self.platform_s = 3.0


def test_the_machines_time_setting_up_a_sandbox_is_not_the_seats_start():
    """A seat's start is charged (its own_s: the worker time its bot is charged) without
    what the machine took to set up its sandbox: on a loaded machine that can be seconds."""
    clock = FakeClock()
    agents = [SandboxedStart(clock, 0.0, "a"), minimal_agent("b")]
    outcome = MatchRunner(clock).run(RpsPokerState.new(1), agents, seed=1)
    assert outcome.stats[0].startup_s == pytest.approx(0.5)
    assert outcome.stats[0].own_s == pytest.approx(0.5)
