"""Blackjack++'s built-in bots: the cfr bot's own (standard library) CFR+ reaches a strategy
the project's solver finds nearly unexploitable, it answers within the move deadline, beats
random, and every built-in plays through the child process protocol."""

from __future__ import annotations

import time

import pytest

from games.blackjack_pp.bots import cfr
from games.blackjack_pp.tree import BlackjackPP
from games.registry import get_game
from games.solver import build, exploitability
from games.solver.export import strategy_array
from tests.chip_games import play_as_child

GAME = get_game("blackjack-pp")
VALUE = {"A": 1, "T": 10}


def as_table(solver: cfr.Solver, tree) -> dict:
    table = {}
    for key in tree.infoset_keys:
        player, down, history = int(key[0]), key[1], key[3:]
        hit = solver.strategy(
            player, history.split(",") if history else [], VALUE.get(down) or int(down)
        )
        assert hit is not None, key
        table[key] = {"h": hit, "s": 1 - hit}
    return table


@pytest.mark.parametrize("up", [(6, 6, 2), (1, 10, 7)])
def test_its_solution_is_nearly_unexploitable_by_the_projects_solver(up):
    # the iterations the bot runs when its time budget allows them all (how long they take
    # is the machine's business: a busy one runs fewer within the budget)
    solver = cfr.Solver(up, 1)
    while solver.iterations < cfr.ITERATIONS:
        solver.iterate()
    tree = build(BlackjackPP(up, 1))
    assert exploitability(tree, strategy_array(tree, as_table(solver, tree))) < 2e-3


def test_it_plays_a_simple_rule_where_the_game_is_too_big_to_solve_in_time():
    bot = cfr.Bot()
    obs = {"up": ["6s", "6h", "2d"], "max_hits": 2, "history": "", "position": 0,
           "down": "Ts", "total": 16}  # fmt: skip
    started = time.monotonic()
    assert bot.act(obs) == "stand" and bot.act(obs | {"total": 12}) == "hit"
    assert time.monotonic() - started < 0.1


@pytest.mark.parametrize("up", [(6, 6, 2), (10, 4, 9)])
def test_cfr_beats_random_and_simple_in_expectation(up):
    """Exact expectations on the solver's tree, averaged over the two positions."""
    from games.solver import expected_value

    tree = build(BlackjackPP(up, 1))
    mine = as_table(cfr.solved(up, 1), tree)

    def simple_hit(key: str) -> float:
        # simple hits below 15: its total from the up card, the down card and its hits
        player, down, history = int(key[0]), key[1], key[3:]
        cards = [up[player], VALUE.get(down) or int(down)]
        for token in history.split(",") if history else []:
            if token[0] == str(player) and token[1] == "h":
                cards.append(VALUE.get(token[2]) or int(token[2]))
        total = sum(cards) + (10 if 1 in cards and sum(cards) + 10 <= 21 else 0)
        return 1.0 if total < 15 else 0.0

    for other in (lambda key: 0.5, simple_hit):
        total = 0.0
        for cfr_player in (0, 1):
            table = {
                key: mine[key]
                if int(key[0]) == cfr_player
                else {"h": other(key), "s": 1 - other(key)}
                for key in tree.infoset_keys
            }
            value = expected_value(tree, strategy_array(tree, table))
            total += value if cfr_player == 0 else -value
        assert total / 2 > 0.01


@pytest.mark.parametrize("name", ["random", "simple", "cfr"])
def test_each_built_in_plays_as_a_child_process(tmp_path, name):
    outcome = play_as_child(tmp_path, "blackjack-pp", name, against="simple", hands=4)
    assert outcome.stats[0].slowest_s < GAME.time_control.move
