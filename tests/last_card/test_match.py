"""Whole matches through the runner: records replay, illegal answers are passes, and a bot
that fails is out of the game while the others play on."""

from __future__ import annotations

import itertools
import json

from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.last_card.rules import LastCardState
from games.registry import get_game

GAME = get_game("last-card")


class Raiser:
    name = "raiser"

    def play(self, state):
        if len(state["played_cards"]) > 3:
            raise RuntimeError("lost track")
        return {"cards": [], "suit": None, "last_card": False}


class Gibberish:
    name = "gibberish"

    def play(self, state):
        return "the seven of hearts, please"


def run(bots, seed):
    agents = [
        InProcessAgent(
            bot if isinstance(bot, type) else GAME.builtin_class(bot), GAME.bot_call, str(i)
        )
        for i, bot in enumerate(bots)
    ]
    clock = itertools.count()
    runner = MatchRunner(lambda: next(clock) * 1e-6, GAME.time_control)
    return runner.run(LastCardState.new(seed, num_seats=len(bots)), agents, seed=seed)


def replayed(outcome):
    record = json.loads(json.dumps(outcome.record))
    return LastCardState.replay(record["events"], len(record["seats"]), record["config"])


def test_it_plays_built_in_bots_to_a_replayable_end_at_every_table_size():
    for seats in (2, 3, 4):
        for seed in range(5):
            outcome = run(["heuristic", *["naive"] * (seats - 1)], seed)
            assert outcome.state.is_over()
            assert all(s["illegal_moves"] == 0 for s in outcome.result["stats"])
            assert replayed(outcome).result() == outcome.result


def test_it_counts_a_malformed_answer_as_an_illegal_move_not_a_fault():
    outcome = run([Gibberish, "naive", "naive", "naive"], 3)
    stats = outcome.result["stats"][0]
    assert not outcome.faults
    assert stats["illegal_moves"] > 0 and stats["cards_played"] == 0
    rejected = [e for e in outcome.record["events"] if e["type"] == "rejected"]
    assert rejected[0]["action"] == "the seven of hearts, please"
    assert rejected[0]["reason"].startswith("a move is a dict")
    assert replayed(outcome).result() == outcome.result


def test_it_lets_the_others_play_on_when_a_bot_fails():
    outcome = run([Raiser, "naive", "heuristic", "naive"], 7)
    assert set(outcome.faults) == {0}
    assert outcome.faults[0].kind == "exception"
    result = outcome.result
    assert result["winner"] in (1, 2, 3)
    assert result["stats"][0]["pass_moves"] > 0 and result["stats"][0]["cards_played"] == 0
    assert replayed(outcome).result() == result
