"""The public tree (games/solver/public.py) is the history tree's game, solved the same way.

Every figure here is checked against the history tree (games/solver/tree.py) and its solver
and best response (games/solver/cfr.py), which walk every deal of the down cards one history
at a time: the sizes and keys, every iterate of CFR, CFR+ and discounted CFR, the value, the
expected points, the best response to any strategy, and the exploitability of a solution
mapped from one tree's keys to the other's."""

from __future__ import annotations

import numpy as np
import pytest

from games.blackjack_pp.tree import BlackjackPP
from games.solver.cfr import Solver, best_response_value, expected_stats, exploitability
from games.solver.export import strategy_array, strategy_table
from games.solver.game import Chance, Decision, Game, Terminal
from games.solver.public import (
    PublicChance,
    PublicDecision,
    PublicGame,
    PublicSolver,
    PublicSplit,
    PublicTerminal,
    build_public,
    solver_for,
)
from games.solver.public import best_response_value as public_best_response
from games.solver.public import exploitability as public_exploitability
from games.solver.tree import TreeError, build

#: (up cards, max hits): different up cards make different trees (busts, soft hands)
SETTINGS = [
    ((6, 6, 2), 1),
    ((10, 10, 10), 1),
    ((1, 5, 10), 1),
    ((2, 10, 6), 1),
    ((6, 6, 2), 2),
    ((10, 1, 10), 2),
]


@pytest.fixture(scope="module", params=SETTINGS, ids=lambda s: f"{s[0]}-{s[1]}hits")
def trees(request):
    up, hits = request.param
    game = BlackjackPP(up, hits)
    return game, build(game), build_public(game.public_game(), game.name, game.stat_names)


def random_table(tree, seed: int) -> dict[str, dict[str, float]]:
    """A strategy far from any equilibrium, by the history tree's keys."""
    rng = np.random.default_rng(seed)
    sigma = rng.random((tree.n_infosets, tree.max_actions)) * tree.legal
    return strategy_table(tree, sigma / sigma.sum(axis=1, keepdims=True))


def test_the_public_tree_holds_the_history_trees_histories_and_information_sets(trees):
    _game, full, public = trees
    sizes = public.sizes()
    assert sizes.pop("stored_nodes") * 20 < full.n_nodes
    expected = full.sizes()
    expected.pop("stored_nodes")
    assert sizes == expected
    assert sorted(public.infoset_keys) == sorted(full.infoset_keys)
    actions = dict(zip(full.infoset_keys, full.infoset_actions, strict=True))
    pairs = zip(public.infoset_keys, public.infoset_actions, strict=True)
    assert all(actions[k] == a for k, a in pairs)


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr", "cfr"])
def test_every_iterate_is_the_history_trees(trees, algorithm):
    _game, full, public = trees
    ours, reference = PublicSolver(public, algorithm), Solver(full, algorithm)
    for _ in range(3):
        ours.train(7, record=False)
        reference.train(7, record=False)
        got = strategy_table(public, ours.average_strategy())
        want = strategy_table(full, reference.average_strategy())
        assert got.keys() == want.keys()
        worst = max(abs(got[k][a] - want[k][a]) for k in want for a in want[k])
        assert worst < 1e-9
    assert ours.value() == pytest.approx(reference.value(), abs=1e-12)
    assert ours.exploitability() == pytest.approx(reference.exploitability(), abs=1e-12)


def test_the_best_response_is_the_history_trees_against_any_strategy(trees):
    _game, full, public = trees
    for seed in (1, 2):
        table = random_table(full, seed)
        mapped = public.strategy_from_table(table)
        sigma = strategy_array(full, table)
        for player in (0, 1):
            assert public_best_response(public, mapped, player) == pytest.approx(
                best_response_value(full, sigma, player), abs=1e-12
            )
        assert public_exploitability(public, mapped) == pytest.approx(
            exploitability(full, sigma), abs=1e-12
        )
        assert exploitability(full, sigma) > 0.1  # far from an equilibrium: a real test


def test_a_public_solution_mapped_onto_the_history_tree_is_as_exploitable_there(trees):
    """The solution by the history tree's keys (what --json, --bot and the explorer read),
    put back onto the history tree, has the exploitability and the value the public tree
    measured: nothing is lost in the mapping."""
    _game, full, public = trees
    solver = PublicSolver(public, "dcfr")
    solver.train(60, record=False)
    table = strategy_table(public, solver.average_strategy())
    assert set(table) == set(full.infoset_keys)
    sigma = strategy_array(full, table)
    assert exploitability(full, sigma) == pytest.approx(solver.exploitability(), abs=1e-12)
    assert exploitability(full, sigma) < 2e-3
    stats = expected_stats(full, sigma)
    assert solver.expected_stats() == pytest.approx(stats, abs=1e-12)
    assert stats["player 0 points"] - stats["player 1 points"] == pytest.approx(solver.value())
    # and back: the table read by the public tree is the same strategy
    again = public.flatten(public.strategy_from_table(table))
    assert np.allclose(again, solver.average_strategy(), atol=1e-15)


def test_the_solver_takes_the_public_tree_where_the_game_has_one():
    game = BlackjackPP((6, 6, 2), 1)
    assert isinstance(solver_for(game), PublicSolver)
    assert isinstance(solver_for(game, history_tree=True), Solver)


# ---- a second game in both forms, and a game that breaks the rules --------------------------


class HighCard(Game):
    """Each player draws a card 0-2 (with replacement, 1/4, 1/4, 1/2); player 0 bets or
    checks; after a bet player 1 calls or folds, after a check the cards are shown. Chance
    then shows a coin both see (heads doubles the pot). A second game in both forms."""

    name = "high-card"

    def initial_state(self):
        return ()

    def node(self, state):
        prior = (0.25, 0.25, 0.5)
        if len(state) < 2:
            return Chance([(str(c), prior[c], (*state, c)) for c in range(3)])
        (a, b), rest = state[:2], state[2:]
        if not rest:
            return Decision(0, f"0{a}:", [("b", (*state, "b")), ("c", (*state, "c"))])
        if rest == ("b",):
            return Decision(1, f"1{b}:b", [("f", (*state, "f")), ("k", (*state, "k"))])
        if rest[-1] == "f":
            return Terminal(1.0)
        if len(rest) == 1 or rest[-1] == "k":
            return Chance([("H", 0.5, (*state, "H")), ("T", 0.5, (*state, "T"))])
        pot = (2.0 if rest[0] == "b" else 1.0) * (2.0 if rest[-1] == "H" else 1.0)
        return Terminal(pot * float(np.sign(a - b)))


class PublicHighCard(PublicGame):
    prior = ((0.25, 0.25, 0.5), (0.25, 0.25, 0.5))

    def public_root(self):
        return ()

    def public_node(self, state):
        if not state:
            return PublicDecision(0, [("b", "b", ("b",)), ("c", "c", ("c",))])
        if state == ("b",):
            return PublicDecision(1, [("f", "f", ("b", "f")), ("k", "k", ("b", "k"))])
        if state[-1] == "f":
            return PublicTerminal("fold")
        if state[-1] in "ck":
            return PublicChance([("H", 0.5, (*state, "H")), ("T", 0.5, (*state, "T"))])
        return PublicTerminal((state[0], state[-1]))

    def infoset_key(self, player, type_, history):
        return f"{player}{type_}:{history}"

    def outcome(self, outcome):
        if outcome == "fold":
            return np.ones((3, 3)), None
        bet, coin = outcome
        pot = (2.0 if bet == "b" else 1.0) * (2.0 if coin == "H" else 1.0)
        return pot * np.sign(np.subtract.outer(np.arange(3), np.arange(3))), None


def test_a_second_game_solves_the_same_on_both_trees():
    full = build(HighCard())
    public = build_public(PublicHighCard(), "high-card")
    assert sorted(public.infoset_keys) == sorted(full.infoset_keys)
    assert public.sizes()["histories"] == full.sizes()["histories"]
    ours, reference = PublicSolver(public, "cfr+"), Solver(full, "cfr+")
    ours.train(50, record=False)
    reference.train(50, record=False)
    got = strategy_table(public, ours.average_strategy())
    want = strategy_table(full, reference.average_strategy())
    assert max(abs(got[k][a] - want[k][a]) for k in want for a in want[k]) < 1e-12
    assert ours.value() == pytest.approx(reference.value(), abs=1e-12)


class Broken(PublicHighCard):
    def __init__(self, fault: str) -> None:
        self.fault = fault

    def outcome(self, outcome):
        if outcome == "small":
            return np.ones((2, 2)), None
        return super().outcome(outcome)

    def public_node(self, state):
        if self.fault == "split" and not state:
            return PublicSplit([(0b011, 0b111, ("x",)), (0b110, 0b111, ("y",))])
        if self.fault == "chance" and state == ("c",):
            return PublicChance([("H", 0.5, ("c", "H")), ("T", 0.4, ("c", "T"))])
        if self.fault == "actions" and state == ("b",):
            return PublicDecision(1, [])
        if self.fault == "cycle" and state == ("c",):
            return PublicDecision(0, [("b", "b", ("b",)), ("c", "c", ("c",))])
        if self.fault == "matrix" and state == ("b", "f"):
            return PublicTerminal("small")
        if self.fault == "twice" and not state:
            # checking writes no token, and player 0 decides again: the root's key twice
            return PublicDecision(0, [("b", "b", ("b",)), ("c", "", ("again",))])
        if self.fault == "twice" and state == ("again",):
            return super().public_node(())
        return super().public_node(state)


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("split", "do not cover its deals once"),
        ("chance", "chance probabilities add up to 0.9"),
        ("actions", "has no actions"),
        ("cycle", "a public state is its own descendant"),
        ("matrix", r"outcome 'small' gives a \(2, 2\) payoff matrix, not \(3, 3\)"),
    ],
)
def test_a_game_that_breaks_the_rules_gets_a_clear_error(fault, message):
    with pytest.raises(TreeError, match=message):
        build_public(Broken(fault), "broken")


def test_two_decisions_with_one_key_are_refused_when_the_keys_are_made():
    tree = build_public(Broken("twice"), "broken")
    with pytest.raises(TreeError, match="player 0 decides at two public nodes of one history"):
        _ = tree.infoset_keys


@pytest.mark.parametrize(
    ("up", "histories", "infosets", "key"),
    [
        ((10, 10, 10), 6_403_311, 128_600, "02:0h5,1s,0h2"),
        ((6, 6, 2), 32_572_911, 474_590, "05:0h5,1s,0h2"),
    ],
)
def test_three_hits_hold_the_history_trees_figures(up, histories, infosets, key):
    """The history tree's sizes at 3 hits (docs/solver.md's table, measured on that tree),
    held in a few hundred thousand public nodes."""
    game = BlackjackPP(up, 3)
    tree = build_public(game.public_game(), game.name, game.stat_names)
    sizes = tree.sizes()
    assert sizes["histories"] == histories and sizes["infosets"] == infosets
    assert sizes["stored_nodes"] * 40 < histories
    keys = tree.infoset_keys
    assert len(set(keys)) == infosets and key in keys and "1A:0s,1h9" in keys


class SameCardsMerged(BlackjackPP):
    """Blackjack++ with the information sets that hold the same cards in another order merged
    (a smaller game, which the public tree does not do: docs/solver.md says why)."""

    def __init__(self, up, max_hits) -> None:
        super().__init__(up, max_hits)
        self.merged: dict[str, str] = {}

    def node(self, state):
        spec = super().node(state)
        if type(spec) is Decision:
            head, history = spec.infoset.split(":")
            tokens = sorted(history.split(",")) if history else []
            key = f"{head}:{','.join(tokens)}|{state[4]}"  # and whose turn it was
            self.merged[spec.infoset] = key
            spec = Decision(spec.player, key, spec.actions)
        return spec


def test_merging_the_same_cards_in_another_order_loses_something():
    """The order of the hit cards tells about the down cards (through the hits chosen along
    the way): the merged game solved well is not a good strategy of the real game."""
    merged_game = SameCardsMerged((6, 6, 2), 2)
    merged = build(merged_game)
    full = build(BlackjackPP((6, 6, 2), 2))
    assert merged.n_infosets < full.n_infosets
    solver = Solver(merged, "cfr+")
    solver.train(300, record=False)
    table = strategy_table(merged, solver.average_strategy())
    mapped = strategy_array(full, {k: table[v] for k, v in merged_game.merged.items()})
    assert solver.exploitability() < 3e-5
    assert exploitability(full, mapped) > 10 * solver.exploitability() + 1e-4
