"""Kuhn poker's built-in bots: the cfr bot's embedded table is the solved strategy (checked by
exact exploitability), it beats random clearly, and every built-in plays through the child
process protocol, as uploaded bots do."""

from __future__ import annotations

import time

import pytest

from bots.launch import plain_launch
from bots.process import BotProcess, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.kuhn.bots import cfr
from games.kuhn.tree import Kuhn
from games.registry import get_game
from games.solver import build, exploitability
from games.solver.export import strategy_array

GAME = get_game("kuhn")


def test_the_cfr_table_covers_every_infoset_and_is_nearly_unexploitable():
    tree = build(Kuhn())
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
    # measured: about +0.13 chips a hand; 2000 hands
    assert won / 2000 > 0.07


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


def exact_value_against(simple_bot, tree, cfr_table, observe, player_of) -> float:
    """``cfr``'s exact expected chips a hand against a deterministic bot, averaged over the
    two positions, evaluated on the solver's tree."""
    from games.solver import expected_value

    total = 0.0
    for cfr_player in (0, 1):
        table = {}
        for key, actions in zip(tree.infoset_keys, tree.infoset_actions, strict=True):
            if player_of(key) == cfr_player:
                table[key] = cfr_table[key]
            else:
                answer = simple_bot.act(observe(key))
                table[key] = {a: float(a == answer) for a in actions}
        value = expected_value(tree, strategy_array(tree, table))
        total += value if cfr_player == 0 else -value
    return total / 2


def test_cfr_breaks_even_exactly_against_simple():
    from games.kuhn.bots import simple

    value = exact_value_against(
        simple.Bot(),
        build(Kuhn()),
        cfr.STRATEGY,
        lambda key: {"card": key[0], "history": key[1:], "legal": ["p", "b"]},
        lambda key: (len(key) - 1) % 2,
    )
    assert value == pytest.approx(0, abs=2e-4)  # the documented figure: 0.0000
