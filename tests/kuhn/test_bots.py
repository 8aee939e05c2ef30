"""Kuhn poker's built-in bots: the cfr bot's embedded table is the solved strategy (checked by
exact exploitability), it beats random clearly, and every built-in plays through the child
process protocol, as uploaded bots do."""

from __future__ import annotations

import pytest

from games.kuhn.bots import cfr
from games.kuhn.tree import Kuhn
from games.registry import get_game
from games.solver import build
from games.solver.export import strategy_array
from tests.chip_games import assert_nearly_unexploitable, mean_won_from_both_seats, play_as_child

GAME = get_game("kuhn")


def test_the_cfr_table_covers_every_infoset_and_is_nearly_unexploitable():
    assert_nearly_unexploitable(Kuhn(), cfr.STRATEGY)


def test_cfr_beats_random_clearly_from_both_seats():
    # measured: about +0.13 chips a hand; 2000 hands
    assert mean_won_from_both_seats("kuhn", "cfr", "random", matches=10, hands=200) > 0.07


@pytest.mark.parametrize("name", ["random", "simple", "cfr"])
def test_each_built_in_plays_as_a_child_process(tmp_path, name):
    play_as_child(tmp_path, "kuhn", name, against="random", hands=10)


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
