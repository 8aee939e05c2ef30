"""Rules that say ``independent_moves`` (GameState): the runner accepts every legal answer of
a simultaneous turn without checking each again, so the claim must hold for those rules, and
the matches must come out as they would with each answer checked."""

from __future__ import annotations

import copy
import random

import pytest

from games.engine.agents import InProcessAgent
from games.engine.game import GameState
from games.engine.runner import MatchRunner
from games.registry import games

#: every answer tried at a turn: RPS Poker's indices and Goofspiel's cards, and some others
CANDIDATES = range(-1, 16)

INDEPENDENT = [spec for spec in games() if spec.state_class.independent_moves]


def legal(state: GameState, seat: int) -> set[int]:
    return {action for action in CANDIDATES if state.can(seat, action)}


def test_the_games_that_say_so_are_the_simultaneous_ones() -> None:
    assert {spec.slug for spec in INDEPENDENT} == {"rps-poker", "goofspiel"}


@pytest.mark.parametrize("spec", INDEPENDENT, ids=lambda spec: spec.slug)
def test_one_seats_action_changes_nothing_another_seat_of_the_turn_may_do(spec) -> None:
    turns = 0
    for seed in range(4):
        rng = random.Random(seed)
        state = spec.state_class.new(seed, num_seats=2, config={})
        while not state.is_over():
            seats = state.pending()
            options = {seat: sorted(legal(state, seat)) for seat in seats}
            assert all(options.values()), f"a pending seat with no legal action: {options}"
            if len(seats) > 1:
                turns += 1
                for first in seats:
                    for action in options[first]:
                        after = copy.deepcopy(state)
                        after.accept(first, action)
                        for other in seats:
                            if other != first:
                                assert other in after.pending()
                                assert legal(after, other) == set(options[other])
            for seat in seats:
                state.apply(seat, rng.choice(options[seat]))
    assert turns >= 40


class Wrong:
    """A bot whose answers are sometimes out of range, sometimes of the wrong type."""

    def __init__(self, inner, rng: random.Random) -> None:
        self.inner, self.rng = inner, rng

    def __getattr__(self, name: str):
        method = getattr(self.inner, name)

        def call(*args):
            answer = method(*args)
            roll = self.rng.random()
            return answer if roll < 0.9 else (99 if roll < 0.95 else "x")

        return call


@pytest.mark.parametrize("spec", INDEPENDENT, ids=lambda spec: spec.slug)
def test_a_match_comes_out_as_it_does_with_every_answer_checked(spec, monkeypatch) -> None:
    def play(seed: int) -> dict:
        rng = random.Random(seed)
        factory = spec.builtin_class(spec.strongest)
        agents = [
            InProcessAgent(lambda: Wrong(factory(), rng), spec.bot_call, f"bot {seat}")
            for seat in range(2)
        ]
        state = spec.state_class.new(seed, num_seats=2, config={})
        return MatchRunner(lambda: 0.0).run(state, agents, seed=seed).record

    records = [play(seed) for seed in range(40)]
    monkeypatch.setattr(spec.state_class, "independent_moves", False)
    assert [play(seed) for seed in range(40)] == records
    assert any(record["result"]["faults"] for record in records)
