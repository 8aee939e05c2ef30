"""The runner with a sequential game: one seat at a time, news to the others, replay.

The game here is a toy made for the test: three cards are dealt face up from a shuffled
standard deck; seats take turns taking one; the higher total of card values wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from games.engine.agents import ScriptedAgent
from games.engine.cards import Card, standard_deck
from games.engine.chance import Chance
from games.engine.game import Fault, GameState, IllegalAction, Prompt
from games.engine.runner import MatchRunner
from tests.engine.test_runner import FakeClock


@dataclass
class TakeTurns(GameState):
    game: ClassVar[str] = "take-turns"
    max_seats: ClassVar[int] = 3

    table: list[str] = field(default_factory=list, init=False)
    taken: list[list[str]] = field(default_factory=list, init=False)
    turn: int = field(default=0, init=False)

    def start(self, chance: Chance) -> None:
        deck = chance.shuffle("deck", [str(c) for c in standard_deck()])
        self.table = deck[: 2 * self.num_seats]
        self.taken = [[] for _ in range(self.num_seats)]

    def pending(self) -> list[int]:
        return [] if self.is_over() else [self.turn % self.num_seats]

    def prompt(self, seat: int) -> Prompt:
        return Prompt("take", {"table": list(self.table)})

    def verify(self, seat: int, action: Any) -> None:
        if action not in self.table:
            raise IllegalAction(f"{action!r} is not on the table")

    def _apply(self, seat: int, action: Any) -> None:
        self.table.remove(action)
        self.taken[seat].append(action)
        for other in range(self.num_seats):
            if other != seat:
                self.notify(other, "took", {"seat": seat, "card": action})
        self.turn += 1

    def reject(self, seat: int, action: Any, reason: str) -> Fault | None:
        # House rule of the toy: an illegal answer takes the first card on the table.
        self.log.append({"type": "rejected", "seat": seat, "action": action, "reason": reason})
        self._apply(seat, self.table[0])
        return None

    def _forfeit(self, faults: dict[int, Fault]) -> None:
        self.table = []

    def is_over(self) -> bool:
        return not self.table

    def result(self) -> dict[str, Any]:
        return {"scores": [sum(Card.parse(c).value for c in cards) for cards in self.taken]}


def test_it_asks_one_seat_at_a_time_and_tells_the_others():
    state = TakeTurns.new(seed=1, num_seats=3)
    table = list(state.table)
    agents = [ScriptedAgent([table[i], table[i + 3]], f"s{i}") for i in range(3)]
    outcome = MatchRunner(FakeClock()).run(state, agents, seed=1)
    assert outcome.state.taken == [[table[0], table[3]], [table[1], table[4]], [table[2], table[5]]]
    # Each seat was told of the others' moves, in order, before its next turn.
    kinds = [p.kind for p in agents[2].seen]
    assert kinds[:3] == ["took", "took", "take"]
    assert agents[2].seen[0].data == {"seat": 0, "card": table[0]}


def test_it_lets_the_rules_decide_what_an_illegal_answer_means():
    state = TakeTurns.new(seed=2, num_seats=2)
    first = state.table[0]
    agents = [ScriptedAgent(["Zz", "Zz"]), ScriptedAgent(["Zz", "Zz"])]
    outcome = MatchRunner(FakeClock()).run(state, agents, seed=2)
    assert outcome.faults == {}
    assert outcome.state.taken[0][0] == first
    rejected = [e for e in outcome.record["events"] if e["type"] == "rejected"]
    assert len(rejected) == 4
    assert rejected[0]["reason"] == "'Zz' is not on the table"
    replayed = TakeTurns.replay(outcome.record["events"], 2, {})
    assert replayed.taken == outcome.state.taken


def test_it_checks_the_number_of_seats():
    with pytest.raises(ValueError, match="take-turns is played by 2-3 seats, not 4"):
        TakeTurns.new(seed=1, num_seats=4)


def test_it_parses_and_prints_standard_cards():
    assert str(Card.parse("td")) == "Td"
    assert Card.parse("As").value == 14
    assert len(set(standard_deck())) == 52
    for bad in ["1s", "Ax", "A", "10h", 5]:
        with pytest.raises(ValueError):
            Card.parse(bad)
