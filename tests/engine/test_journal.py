"""A match resumed from its seed and the steps its journal kept (games/engine/journal.py)
ends as it would have without the interruption: the same calls, the same answers, the same
time banks and faults; an agent that fails differently while catching up is at fault there;
a journal that does not fit the game stops the match instead of playing another."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from games.engine.agents import Agent, AgentFault, InProcessAgent, ScriptedAgent
from games.engine.game import Prompt
from games.engine.journal import Journal, JournalMismatch
from games.engine.runner import MatchOutcome, MatchRunner, TimeControl
from games.rps_poker import botapi
from games.rps_poker.rules import RpsPokerState
from tests.engine.test_runner import FakeClock, Raising, SlowAgent, minimal_agent

SEED = 11


class Kept(Journal):
    """A journal that keeps its steps in a dict (a table's goes to the database)."""

    def __init__(self, steps: dict[int, dict[str, Any]] | None = None) -> None:
        super().__init__(sorted((steps or {}).items()))
        self.kept: dict[int, dict[str, Any]] = dict(steps or {})
        self.cut_at: list[int] = []
        self.replays: list[tuple[int, dict[str, Any] | None]] = []
        self.went_live = 0

    def record(self, index: int, step: dict[str, Any]) -> None:
        self.kept[index] = step

    def forget_from(self, index: int) -> None:
        self.cut_at.append(index)
        self.kept = {i: s for i, s in self.kept.items() if i < index}

    def replayed(self, seat: int, step: dict[str, Any] | None) -> None:
        self.replays.append((seat, step))

    def caught_up(self) -> None:
        self.went_live += 1


Agents = Callable[[FakeClock], list[Agent]]


def play(make: Agents, journal: Journal | None, tc: TimeControl) -> MatchOutcome:
    clock = FakeClock()
    runner = MatchRunner(clock, tc)
    return asyncio.run(
        runner.run_async(RpsPokerState.new(SEED), make(clock), seed=SEED, journal=journal)
    )


def same_match(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """The same match, calls and time banks: the thinking time of notices heard within the
    per-call time is not kept (it decides nothing), so the seats' total may be less."""

    def counted(record: dict[str, Any]) -> dict[str, Any]:
        stats = [{"calls": s["calls"], "bank_left": s["bank_left"]} for s in record["stats"]]
        return record | {"stats": stats}

    return counted(one) == counted(other)


def first(steps: dict[int, dict[str, Any]], count: int) -> dict[int, dict[str, Any]]:
    """The steps a process had written when it died: the first ``count``."""
    return dict(sorted(steps.items())[:count])


TC = TimeControl(move=1.0, bank=10.0)
MATCHES: dict[str, Agents] = {
    "built-ins": lambda clock: [minimal_agent("a"), minimal_agent("b")],
    # every call takes 1.5 s: the bank pays 0.5 s a call until it is gone, then a timeout
    "time banks": lambda clock: [SlowAgent(clock, 1.5), SlowAgent(clock, 0.2, "quick")],
    "an exception": lambda clock: [
        InProcessAgent(Raising("main_play", 3), botapi.bot_call, "r"),
        minimal_agent("b"),
    ],
    "an illegal answer": lambda clock: [
        ScriptedAgent([0] * 4 + [9], "bad"),
        ScriptedAgent([1] * 15, "b"),
    ],
}


@pytest.mark.parametrize("make", MATCHES.values(), ids=MATCHES.keys())
def test_a_match_resumed_from_any_point_ends_as_it_would_have(make: Agents):
    journal = Kept()
    whole = play(make, journal, TC)
    assert journal.kept and whole.record["events"]
    assert play(make, None, TC).record == whole.record  # keeping steps changes nothing
    for count in range(len(journal.kept) + 1):
        again = Kept(first(journal.kept, count))
        resumed = play(make, again, TC)
        assert same_match(resumed.record, whole.record), f"resumed after {count} steps"
        assert again.kept == journal.kept  # the steps after the cut are kept anew
        assert again.went_live == 1 and not again.cut_at


def test_kept_answers_count_not_what_a_bot_answers_while_catching_up():
    journal = Kept()
    whole = play(lambda clock: [ScriptedAgent([0] * 15), ScriptedAgent([1] * 15)], journal, TC)
    # the same bots would now answer otherwise: the kept answers are played up to the cut
    again = Kept(first(journal.kept, 6))
    resumed = play(lambda clock: [ScriptedAgent([1] * 15), ScriptedAgent([0] * 15)], again, TC)
    kept_actions = [e for e in whole.record["events"] if e["type"] == "action"][:6]
    now_actions = [e for e in resumed.record["events"] if e["type"] == "action"]
    assert now_actions[:6] == kept_actions
    assert now_actions[6:] != [e for e in whole.record["events"] if e["type"] == "action"][6:]


def test_a_bot_that_fails_while_catching_up_is_at_fault_there():
    journal = Kept()
    play(lambda clock: [minimal_agent("a"), minimal_agent("b")], journal, TC)
    # this time seat 0 raises at its second main_play, which the kept steps have answered
    again = Kept(journal.kept)
    resumed = play(
        lambda clock: [
            InProcessAgent(Raising("main_play", 1), botapi.bot_call, "r"),
            minimal_agent("b"),
        ],
        again,
        TC,
    )
    assert resumed.faults[0].kind == "exception" and "main_play" in resumed.faults[0].reason
    assert len(again.cut_at) == 1
    cut = again.cut_at[0]
    assert again.kept[cut]["f"][0] == "exception"
    assert all(step["s"] == 1 for index, step in again.kept.items() if index > cut)
    assert again.went_live == 1


def test_a_journal_that_does_not_fit_the_match_stops_it():
    journal = Kept()
    play(lambda clock: [minimal_agent("a"), minimal_agent("b")], journal, TC)
    index = sorted(journal.kept)[3]
    forged = dict(journal.kept) | {index: journal.kept[index] | {"n": 999}}
    with pytest.raises(JournalMismatch, match=f"call {index} of the match"):
        play(lambda clock: [minimal_agent("a"), minimal_agent("b")], Kept(forged), TC)


class Person(ScriptedAgent):
    """A seat that is not called while a match catches up (a person at a live table)."""

    catch_up = False

    def __init__(self, answers: list[Any], name: str = "person") -> None:
        super().__init__(answers, name)
        self.calls: list[str] = []

    def begin(self, info: Any, timeout: float) -> None:
        self.calls.append("begin")

    def send(self, prompt: Prompt) -> None:
        self.calls.append("send")
        super().send(prompt)

    def receive(self, timeout: float) -> Any:
        self.calls.append("receive")
        return super().receive(timeout)


def test_a_person_is_only_begun_and_asked_again_what_was_not_kept():
    journal = Kept()
    whole = play(lambda clock: [ScriptedAgent([0] * 15), Person([1] * 15)], journal, TC)
    # the draft asks both seats at once: cut after seat 0's answer, before the person's
    # second one
    questions = [i for i, s in sorted(journal.kept.items()) if s["m"] == "receive"]
    cut = [i for i in questions if journal.kept[i]["s"] == 1][1] - 1
    assert journal.kept[cut]["s"] == 0
    kept = {i: s for i, s in journal.kept.items() if i <= cut}
    people: list[Person] = []

    def agents(clock: FakeClock) -> list[Agent]:
        people.append(Person([1] * 15))
        return [ScriptedAgent([0] * 15), people[0]]

    resumed = play(agents, Kept(kept), TC)
    assert resumed.record["events"] == whole.record["events"]
    # begun, then asked the open question again when the match went live, and on from there
    assert people[0].calls[:3] == ["begin", "send", "receive"]
    assert people[0].seen[0].kind == "draft_pick"
    # the one answer kept was not asked again; the one that was not, was
    assert len(people[0].answers) == 1


class LateStart(ScriptedAgent):
    """Starts the way a bot process does: ``begin`` only asks, ``started`` waits (and fails
    with ``fault`` if given). Records the order of the calls it gets in ``calls``."""

    def __init__(self, calls: list[str], name: str, fault: AgentFault | None = None) -> None:
        super().__init__([0] * 15, name)
        self.calls, self.fault = calls, fault

    def begin(self, info, timeout: float) -> None:
        self.calls.append(f"begin {self.name}")

    def started(self, timeout: float) -> None:
        self.calls.append(f"started {self.name}")
        if self.fault is not None:
            raise self.fault


def test_every_seat_is_begun_before_any_start_is_waited_for():
    calls: list[str] = []
    outcome = play(lambda clock: [LateStart(calls, "a"), LateStart(calls, "b")], None, TC)
    assert not outcome.faults
    assert calls == ["begin a", "begin b", "started a", "started b"]


def test_a_start_that_fails_is_kept_as_its_begin_and_resumes_the_same():
    fault = AgentFault("startup", "the bot's constructor raised ValueError: no")
    journal = Kept()

    def make(clock: FakeClock) -> list[Agent]:
        return [LateStart([], "a"), LateStart([], "b", fault)]

    whole = play(make, journal, TC)
    assert whole.faults[1].kind == "startup"
    (index, step), *_ = sorted(journal.kept.items())
    assert index == 1  # seat 1's begin, the second call
    assert step["s"] == 1 and step["m"] == "begin" and step["f"][0] == "startup"
    resumed = play(make, Kept(journal.kept), TC)
    assert same_match(resumed.record, whole.record)
    # and one that fails to start only when the match is resumed is at fault there
    healthy = Kept()
    play(lambda clock: [LateStart([], "a"), LateStart([], "b")], healthy, TC)
    again = Kept(healthy.kept)
    resumed = play(make, again, TC)
    assert resumed.faults[1].kind == "startup"
    assert again.cut_at == [1] and again.kept[1]["f"][0] == "startup"
