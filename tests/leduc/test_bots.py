"""Leduc hold'em's built-in bots: the cfr bot's embedded table is the solved strategy (checked by
exact exploitability), it beats random clearly, and every built-in plays through the child
process protocol, as uploaded bots do."""

from __future__ import annotations

import pytest

from games.leduc.bots import cfr
from games.leduc.tree import Leduc
from games.registry import get_game
from games.solver import build
from tests.chip_games import assert_nearly_unexploitable, mean_won_from_both_seats, play_as_child

GAME = get_game("leduc")


def test_the_cfr_table_covers_every_infoset_and_is_nearly_unexploitable():
    assert_nearly_unexploitable(Leduc(), cfr.STRATEGY)


def test_cfr_beats_random_clearly_from_both_seats():
    # measured: about +0.9 chips a hand; 2000 hands
    assert mean_won_from_both_seats("leduc", "cfr", "random", matches=10, hands=200) > 0.4


@pytest.mark.parametrize("name", ["random", "simple", "cfr"])
def test_each_built_in_plays_as_a_child_process(tmp_path, name):
    play_as_child(tmp_path, "leduc", name, against="random", hands=10)


def test_cfr_beats_simple_in_expectation():
    from games.leduc.bots import simple
    from games.leduc.tree import legal_actions
    from tests.kuhn.test_bots import exact_value_against

    def observe(key: str) -> dict:
        first, _, second = key.partition("/")
        history = second[1:] if second else first[1:]
        board = second[0] + "h" if second else None
        return {"card": key[0] + "s", "board": board, "legal": list(legal_actions(history))}

    def player_of(key: str) -> int:
        first, _, second = key.partition("/")
        return len(second[1:] if second else first[1:]) % 2

    value = exact_value_against(simple.Bot(), build(Leduc()), cfr.STRATEGY, observe, player_of)
    assert value == pytest.approx(0.082, abs=0.002)  # the documented figure


def test_a_replay_says_a_split_pot_is_0_for_both_never_minus_0():
    import time

    from games.engine.agents import InProcessAgent
    from games.engine.runner import MatchRunner

    lines = []
    for seed in range(30):  # pairs split the pot now and then (two cards of each rank)
        agents = [InProcessAgent(GAME.builtin_class("simple"), GAME.bot_call, n) for n in "ab"]
        state = GAME.state_class.new(seed, config={"hands": 20})
        runner = MatchRunner(time.monotonic, GAME.time_control)
        record = runner.run(state, agents, seed=seed).record
        frames = GAME.replay(record, ["ann", "bob"])
        lines += [line for frame in frames for line in frame["lines"] if " is over: " in line]
    split = [line for line in lines if "ann 0, bob 0 " in line]
    assert split, "no split pot in 600 hands"  # (was "ann +0, bob -0")
    assert not [line for line in lines if "-0 " in line or "+0 " in line]
