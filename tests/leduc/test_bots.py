"""Leduc hold'em's built-in bots: the cfr bot's embedded table is the solved strategy (checked by
exact exploitability), it beats random clearly, and every built-in plays through the child
process protocol, as uploaded bots do."""

from __future__ import annotations

import time

import pytest

from bots.launch import plain_launch
from bots.process import BotProcess, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.leduc.bots import cfr
from games.leduc.tree import Leduc
from games.registry import get_game
from games.solver import build, exploitability
from games.solver.export import strategy_array

GAME = get_game("leduc")


def test_the_cfr_table_covers_every_infoset_and_is_nearly_unexploitable():
    tree = build(Leduc())
    assert set(cfr.STRATEGY) == set(tree.infoset_keys)
    for row in cfr.STRATEGY.values():
        assert sum(row.values()) == pytest.approx(1, abs=1e-3)
    assert exploitability(tree, strategy_array(tree, cfr.STRATEGY)) < 1e-3


def match(names: list[str], seed: int, hands: int) -> dict:
    agents = [InProcessAgent(GAME.builtin_class(n), GAME.bot_call, n) for n in names]
    state = GAME.state_class.new(seed, config={"hands": hands})
    return MatchRunner(time.monotonic, GAME.time_control).run(state, agents, seed=seed).result


def test_cfr_beats_random_clearly_from_both_seats():
    won = 0.0
    for seed in range(10):
        seat = seed % 2
        names = ["random", "random"]
        names[seat] = "cfr"
        result = match(names, seed, 200)
        assert not result["faults"]
        won += result["scores"][seat]
    # measured: about +0.9 chips a hand; 2000 hands
    assert won / 2000 > 0.4


@pytest.mark.parametrize("name", ["random", "simple", "cfr"])
def test_each_built_in_plays_as_a_child_process(tmp_path, name):
    process = BotProcess(
        plain_launch(GAME.builtin_path(name)), label=name, stderr_log=tmp_path / "err.log"
    )
    try:
        process.start(10.0)
        agents = [
            ProcessAgent(process, GAME.bot_call),
            InProcessAgent(GAME.builtin_class("random"), GAME.bot_call, "random"),
        ]
        outcome = MatchRunner(time.monotonic, GAME.time_control).run(
            GAME.state_class.new(4, config={"hands": 10}), agents, seed=4
        )
    finally:
        process.close()
    assert not outcome.faults
    assert outcome.result["hands"] == 10 and outcome.stats[0].calls >= 10


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
