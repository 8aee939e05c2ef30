"""Chance is seeded, recorded, and replayed without any RNG."""

from __future__ import annotations

import copy
import random

import pytest

from games.engine.chance import ReplayChance, ReplayMismatch, SeededChance, same_shuffle
from games.engine.runner import MatchRunner
from games.rps_poker.rules import RpsPokerState
from tests.engine.test_runner import FakeClock, minimal_agent


def play(seed: int):
    return MatchRunner(FakeClock()).run(
        RpsPokerState.new(seed), [minimal_agent("a"), minimal_agent("b")], seed=seed
    )


def test_it_records_each_shuffle():
    log: list[dict] = []
    chance = SeededChance(random.Random(3), log.append)
    order = chance.shuffle("deck", ["a", "b", "c", "d"])
    assert sorted(order) == ["a", "b", "c", "d"]
    assert log == [{"type": "chance", "label": "deck", "outcome": order}]


def test_it_replays_recorded_outcomes_and_checks_them():
    log: list[dict] = []
    replay = ReplayChance([{"type": "chance", "label": "deck", "outcome": ["b", "a"]}], log.append)
    assert replay.shuffle("deck", ["a", "b"]) == ["b", "a"]
    with pytest.raises(ReplayMismatch, match="no chance outcome"):
        replay.shuffle("deck", ["a", "b"])
    wrong_label = ReplayChance([{"type": "chance", "label": "x", "outcome": ["a"]}], log.append)
    with pytest.raises(ReplayMismatch, match="expected chance 'deck'"):
        wrong_label.shuffle("deck", ["a"])
    not_a_shuffle = ReplayChance(
        [{"type": "chance", "label": "deck", "outcome": ["a", "a"]}], log.append
    )
    with pytest.raises(ReplayMismatch, match="not a shuffle"):
        not_a_shuffle.shuffle("deck", ["a", "b"])


def test_it_never_touches_the_global_rng():
    random.seed(1234)
    before = random.getstate()
    play(5)
    assert random.getstate() == before


def test_it_gives_the_same_record_for_the_same_seed_and_another_for_another():
    assert play(11).record["events"] == play(11).record["events"]
    assert play(11).record["events"] != play(12).record["events"]


def test_it_replays_a_record_to_the_same_state():
    outcome = play(21)
    record = outcome.record
    state = RpsPokerState.replay(record["events"], 2, record["config"])
    assert state.result() == outcome.result
    assert state.log == record["events"]


def test_it_refuses_a_record_with_an_illegal_action():
    record = play(21).record
    events = copy.deepcopy(record["events"])
    next(e for e in events if e["type"] == "action")["action"] = 5
    with pytest.raises(ReplayMismatch, match="recorded action is illegal"):
        RpsPokerState.replay(events, 2, record["config"])


def test_it_refuses_a_record_whose_deal_was_edited():
    record = play(21).record
    events = copy.deepcopy(record["events"])
    deck = events[0]["outcome"]
    deck[0] = deck[1]
    with pytest.raises(ReplayMismatch, match="not a shuffle"):
        RpsPokerState.replay(events, 2, record["config"])


def test_it_refuses_a_record_with_moves_after_the_end():
    record = play(21).record
    events = [*copy.deepcopy(record["events"]), {"type": "action", "seat": 0, "action": 0}]
    with pytest.raises(ReplayMismatch):
        RpsPokerState.replay(events, 2, record["config"])


def test_it_follows_the_recorded_actions_not_a_bot():
    record = play(21).record
    events = copy.deepcopy(record["events"])
    # Seat 0 plays its second card instead of its first in the last game: still legal.
    last = [e for e in events if e["type"] == "action" and e["seat"] == 0][-3]
    last["action"] = 1
    state = RpsPokerState.replay(events, 2, record["config"])
    assert state.games[-3]["played"][0] != play(21).state.games[-3]["played"][0]


def test_a_seeded_shuffle_deals_what_the_standard_library_s_shuffle_deals():
    # every seed must keep dealing what it dealt: the same order, and the generator left in
    # the same state for the next draw
    for seed in range(200):
        for size in (*range(0, 40), 52, 104):
            ours, theirs = list(range(size)), list(range(size))
            mine, reference = random.Random(seed), random.Random(seed)
            same_shuffle(mine, ours)
            reference.shuffle(theirs)
            assert ours == theirs, (seed, size)
            assert mine.getstate() == reference.getstate(), (seed, size)
