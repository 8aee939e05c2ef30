"""The CFR solver on Kuhn poker and Leduc hold'em: values, exploitability, the interface."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from games.kuhn.tree import Kuhn
from games.leduc.tree import Leduc
from games.solver import Chance, Decision, Game, Solver, Terminal, TreeError, build
from games.solver.cfr import (
    best_response_value,
    checkpoints,
    expected_value,
    exploitability,
    infoset_reach,
)
from games.solver.export import strategy_array, strategy_table


@pytest.fixture(scope="module")
def kuhn_tree():
    return build(Kuhn())


@pytest.fixture(scope="module")
def leduc_tree():
    return build(Leduc())


@pytest.fixture(scope="module")
def leduc_cfr_plus(leduc_tree):
    solver = Solver(leduc_tree, "cfr+")
    solver.train(1000)
    return solver


def test_it_builds_kuhn_with_its_twelve_information_sets(kuhn_tree):
    sizes = kuhn_tree.sizes()
    assert sizes["infosets"] == 12
    # 6 deals, each with 5 betting sequences ending the game
    assert sizes["terminals"] == 30
    assert set(kuhn_tree.infoset_keys) == {c + h for c in "JQK" for h in ("", "p", "b", "pb")}
    assert all(actions == ("p", "b") for actions in kuhn_tree.infoset_actions)


def test_it_solves_kuhn_to_the_value_minus_one_eighteenth(kuhn_tree):
    solver = Solver(kuhn_tree, "cfr+")
    solver.train(1000)
    assert abs(solver.value() - (-1 / 18)) < 1e-3
    assert solver.exploitability() < 1e-3
    # the known equilibrium family: player 1 always calls with the king, folds the jack
    table = strategy_table(kuhn_tree, solver.average_strategy())
    assert table["Kb"]["b"] > 0.999
    assert table["Jb"]["p"] > 0.999
    # player 0 bets the king three times as often as the jack (alpha and 3 alpha)
    assert table["K"]["b"] == pytest.approx(3 * table["J"]["b"], abs=0.02)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr"])
def test_it_converges_with_every_algorithm(kuhn_tree, algorithm):
    solver = Solver(kuhn_tree, algorithm)
    solver.train(1200)
    assert solver.exploitability() < 1e-3
    assert abs(solver.value() + 1 / 18) < 2e-3
    # exploitability was recorded along the way and fell
    its = [i for i, _ in solver.convergence]
    assert its[:4] == [1, 2, 5, 10] and its[-1] == 1200
    assert solver.convergence[-1][1] < solver.convergence[0][1] / 100


def test_cfr_plus_gets_there_faster_than_vanilla_cfr(leduc_tree):
    plus, vanilla = Solver(leduc_tree, "cfr+"), Solver(leduc_tree, "cfr")
    plus.train(300, record=False)
    vanilla.train(300, record=False)
    assert plus.exploitability() < vanilla.exploitability() / 3


def test_the_uniform_strategy_on_kuhn_is_exploitable_by_eleven_twenty_fourths(kuhn_tree):
    # By hand. Player 0 best-responding to a uniform player 1 bets J (-1/2: called half the
    # time for -2, else +1), bets Q (+1/2) and bets K (+3/2): 1/2 on average.
    # Player 1 against a uniform player 0: with J, folds to a bet (-1) and bets after a check
    # (-1/2): -3/4; with Q, calls a bet (0) and bets after a check (+1/2): +1/4; with K, calls
    # (+2) and bets after a check (+3/2): +7/4; on average 5/12.
    uniform = kuhn_tree.uniform()
    assert best_response_value(kuhn_tree, uniform, 0) == pytest.approx(0.5, abs=1e-12)
    assert best_response_value(kuhn_tree, uniform, 1) == pytest.approx(5 / 12, abs=1e-12)
    expected = float((Fraction(1, 2) + Fraction(5, 12)) / 2)
    assert exploitability(kuhn_tree, uniform) == pytest.approx(expected, abs=1e-12)
    # and uniform play is worth 1/8 to player 0 (checked with OpenSpiel in test_openspiel)
    assert expected_value(kuhn_tree, uniform) == pytest.approx(0.125, abs=1e-12)


def test_it_solves_leduc_below_one_thousandth_exploitability(leduc_cfr_plus):
    assert leduc_cfr_plus.exploitability() < 1e-3
    assert abs(leduc_cfr_plus.value() - (-0.0856)) < 1e-3


def test_leduc_information_sets_use_the_documented_keys(leduc_tree):
    keys = set(leduc_tree.infoset_keys)
    # player 0 first to act; player 1 facing a raise; round two after raise-call
    assert {"Q", "Kr", "Jrc/Qc", "Kcrc/Jrr"} <= keys
    actions = dict(zip(leduc_tree.infoset_keys, leduc_tree.infoset_actions, strict=True))
    assert actions["Q"] == ("c", "r")
    assert actions["Kr"] == ("f", "c", "r")
    assert actions["Kcrc/Jrr"] == ("f", "c")  # two raises: no third
    # a round has 6 histories where someone acts ("", c, r, cr, rr, crr) and 5 that lead on
    # (cc, rc, crc, rrc, crrc): 3 private ranks x 6, plus 9 (private, public) pairs x 5 x 6
    assert len(keys) == 3 * 6 + 9 * 5 * 6


def test_a_strategy_table_round_trips_through_the_arrays(leduc_cfr_plus, leduc_tree):
    sigma = leduc_cfr_plus.average_strategy()
    table = strategy_table(leduc_tree, sigma)
    assert all(abs(sum(row.values()) - 1) < 1e-9 for row in table.values())
    assert np.allclose(strategy_array(leduc_tree, table), sigma)


def test_infoset_reach_is_zero_where_the_opponent_never_goes(kuhn_tree):
    # player 0 always bets: player 1 never sees a check
    sigma = kuhn_tree.uniform()
    for i, key in enumerate(kuhn_tree.infoset_keys):
        if len(key) == 1:
            sigma[i] = [0.0, 1.0]
    reach = dict(zip(kuhn_tree.infoset_keys, infoset_reach(kuhn_tree, sigma), strict=True))
    assert reach["Qp"] == 0.0
    assert reach["Qb"] == pytest.approx(1 / 3)
    assert reach["K"] == pytest.approx(1 / 3)


def test_checkpoints_are_log_spaced_and_end_at_the_last_iteration():
    assert checkpoints(7) == [1, 2, 5, 7]
    assert checkpoints(1000) == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]


class Matching(Game):
    """Matching pennies where player 1 cannot see player 0's coin: value 0, uniform NE."""

    name = "pennies"

    def initial_state(self):
        return ""

    def node(self, state):
        if len(state) == 2:
            return Terminal(1.0 if state[0] == state[1] else -1.0)
        return Decision(len(state), f"p{len(state)}", [(a, state + a) for a in "HT"])


def test_it_solves_any_game_of_the_interface_not_just_cards():
    solver = Solver(build(Matching()), "cfr+")
    solver.train(300, record=False)
    assert abs(solver.value()) < 1e-2
    assert solver.exploitability() < 1e-2


class Broken(Game):
    name = "broken"

    def initial_state(self):
        return 0

    def node(self, state):
        if state == 0:
            return Chance([("a", 0.5, 1), ("b", 0.4, 2)])
        return Terminal(0.0)


class Mismatched(Game):
    name = "mismatched"

    def initial_state(self):
        return ""

    def node(self, state):
        if state == "":
            return Chance([("x", 0.5, "x"), ("y", 0.5, "y")])
        if len(state) == 1:
            # the same infoset with two actions after x and three after y
            n = 2 if state == "x" else 3
            return Decision(0, "same", [(str(i), state + str(i)) for i in range(n)])
        return Terminal(1.0)


class Staggered(Game):
    """One infoset met at depth 1 after x and at depth 2 after y-z."""

    name = "staggered"

    def initial_state(self):
        return ""

    def node(self, state):
        if state == "":
            return Chance([("x", 0.5, "x"), ("y", 0.5, "y")])
        if state == "y":
            return Chance([("z", 1.0, "yz")])
        if state in ("x", "yz"):
            return Decision(0, "same", [("a", state + "a"), ("b", state + "b")])
        return Terminal(1.0)


class Unstated(Matching):
    """Declares an extra figure but its terminals do not give it."""

    stat_names = ("coins",)


def test_it_rejects_a_game_that_breaks_the_interface():
    with pytest.raises(TreeError, match="a terminal must give 1 stats"):
        build(Unstated())
    with pytest.raises(TreeError, match="add up to 0.9"):
        build(Broken())
    with pytest.raises(TreeError, match="'same' is not consistent"):
        build(Mismatched())
    # the best response needs every history of an infoset at one depth
    with pytest.raises(TreeError, match="'same' is not consistent"):
        build(Staggered())


def test_dealing_leduc_with_suits_is_the_same_game_in_a_bigger_tree(leduc_tree):
    suited = build(Leduc(suited=True))
    # OpenSpiel's Leduc: 9,457 histories and 936 information states
    assert suited.sizes()["histories"] == 9457 and suited.n_infosets == 936
    assert "K2cr" in suited.infoset_keys
    a, b = Solver(leduc_tree, "cfr+"), Solver(suited, "cfr+")
    a.train(50, record=False)
    b.train(50, record=False)
    assert a.exploitability() == pytest.approx(b.exploitability(), abs=1e-9)
    assert a.value() == pytest.approx(b.value(), abs=1e-9)
