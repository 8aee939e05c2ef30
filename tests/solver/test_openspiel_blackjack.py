"""Our Blackjack++ solver checked against an oracle it did not write: OpenSpiel.

``tests/solver/openspiel_blackjack.py`` writes Blackjack++ again from the spec, as an
OpenSpiel Python game, with none of games/blackjack_pp/tree.py's logic (only its key format,
to carry a strategy over). Then:

- the rules: our tree and the oracle's are walked side by side (every node for one hit;
  random deals for two and three hits): same chance probabilities, same player to act with
  the same key, same payoff and points at every end;
- the chance model: the oracle's dealer really draws, card by card, as OpenSpiel chance
  nodes, and OpenSpiel's expected game score over those draws is our terminal's payoff;
- the solution: our solved strategy, copied into an OpenSpiel policy, is worth the same to
  each player and each player's best response wins the same by OpenSpiel's best response as
  by ours; and OpenSpiel's own CFR+ reaches the game value our solver reports.

OpenSpiel's Python game interface is slow (a state costs tens of microseconds): the solves
run on one hit, where the tree has 14,511 histories (38,208 when the oracle deals 13 ranks);
with two hits it has half a million to a million, a minute or two and about a gigabyte per
check: run as a module (:func:`main`), this file checks one such setting by hand.
"""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction

import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import expected_game_score

from games.registry import get_game
from games.solver import Chance, Decision, Solver, Terminal, build
from games.solver.cfr import best_response_value
from games.solver.export import strategy_table
from tests.solver import openspiel_blackjack as oracle

#: up cards of player 0, player 1 and the dealer: the default, all tens, soft hands, a low
#: dealer card against a high player card
UP_CARDS = ("6,6,2", "T,T,T", "A,7,A", "2,9,5")
ACTIONS = {oracle.STAND: "s", oracle.HIT: "h"}
#: how far OpenSpiel's figures may be from ours: float rounding only (sums of some 10,000
#: terms of size 1 or less), far below the exploitabilities compared (1e-6 and up)
TOLERANCE = 1e-12
#: OpenSpiel's CFR+ runs this many iterations (about 2 s on the 14,511-history tree)
CFR_ITERATIONS = 300


def our_game(up: str, max_hits: int):
    """The solver's Blackjack++ as ``manage.py solve`` makes it (the game's solver spec)."""
    return get_game("blackjack-pp").solver.make(up=up, max_hits=max_hits)


def oracle_game(up: str, max_hits: int, deck: str = "values", dealer: str = "expected"):
    return pyspiel.load_game(
        oracle.GAME_NAME, {"up": up, "max_hits": max_hits, "deck": deck, "dealer": dealer}
    )


def our_solution(up: str, max_hits: int, iterations: int):
    tree = build(our_game(up, max_hits))
    solver = Solver(tree, "cfr+")
    solver.train(iterations, record=False)
    return tree, solver


def as_policy(table: dict[str, dict[str, float]], names: dict[str, str]) -> pyspiel.TabularPolicy:
    """Our strategy (by our keys) as an OpenSpiel policy of the oracle's EFG game: every
    oracle information state gets the probabilities of the key it maps to."""
    keys = {oracle.solver_key(info) for info in names}
    assert keys == set(table), "the oracle's information sets are not our keys"
    return pyspiel.TabularPolicy(
        {
            efg: [(action, table[oracle.solver_key(info)][a]) for action, a in ACTIONS.items()]
            for info, efg in names.items()
        }
    )


def openspiel_figures(game, policy) -> tuple[float, float, float]:
    """Player 0's value of ``policy`` and each player's best response value against it, all
    by OpenSpiel's C++."""
    root = game.new_initial_state()
    value = pyspiel.expected_returns(root, policy, -1, True)[0]
    best = [pyspiel.TabularBestResponse(game, p, policy).value_from_state(root) for p in (0, 1)]
    return value, best[0], best[1]


# --- the oracle itself, by hand ---------------------------------------------------------------
def test_the_oracle_counts_aces_and_hands_out_places_as_the_spec_says():
    assert oracle.hand_total([1, 6]) == 17  # soft 17
    assert oracle.hand_total([1, 1, 9]) == 21
    assert oracle.hand_total([1, 6, 9]) == 16
    assert oracle.hand_total([10, 6, 9]) == 25
    assert oracle.placings((20, 19, 18)) == (2, 1, 0)
    assert oracle.placings((20, 20, 18)) == (Fraction(3, 2), Fraction(3, 2), 0)
    assert oracle.placings((19, 19, 19)) == (1, 1, 1)
    assert oracle.placings((12, 22, 17)) == (1, 0, 2)  # any standing hand above a bust one
    assert oracle.placings((22, 25, 17)) == (0, 1, 2)  # bust hands ranked by total
    assert oracle.placings((23, 23, 23)) == (1, 1, 1)


def test_the_oracles_dealer_stands_on_17_and_over_with_the_right_chances():
    ace = oracle.dealer_outcomes("A")
    assert sum(ace.values()) == 1
    assert min(ace) == 17 and max(ace) == 26
    # an ace up makes 21 at once with a ten-valued down card: 4 ranks of 13
    assert ace[21] > Fraction(4, 13)
    # a ten up stands at once on 7, 8, 9 (and on an ace, 21) down: 17 at least 1/13
    assert oracle.dealer_outcomes("T")[17] > Fraction(1, 13)


# --- the rules: our tree and the oracle's, side by side ---------------------------------------
def step_together(ours, node, state, choose) -> int:
    """Walk our game and the oracle (values deck) from ``node``/``state``, comparing every
    node; ``choose(n)`` picks which of ``n`` branches to follow (all of them: returns a
    range). Returns the number of terminals compared."""
    if isinstance(node, Terminal):
        assert state.is_terminal()
        pts = state.points()
        assert node.payoff == pytest.approx(float(pts[0] - pts[1]), abs=1e-12)
        assert node.stats == pytest.approx([float(x) for x in pts], abs=1e-12)
        return 1
    if isinstance(node, Chance):
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert [(label, p) for label, p, _ in node.outcomes] == [
            (state.action_to_string(pyspiel.PlayerId.CHANCE, a), pytest.approx(p, abs=1e-15))
            for a, p in outcomes
        ]
        branches = [(child, outcomes[i][0]) for i, (_, _, child) in enumerate(node.outcomes)]
    else:
        assert isinstance(node, Decision)
        assert state.current_player() == node.player
        assert oracle.solver_key(state.information_state_string()) == node.infoset
        assert [a for a, _ in node.actions] == ["h", "s"]
        branches = [(node.actions[0][1], oracle.HIT), (node.actions[1][1], oracle.STAND)]
    count = 0
    for i in choose(len(branches)):
        child, action = branches[i]
        count += step_together(ours, ours.node(child), state.child(action), choose)
    return count


@pytest.mark.parametrize("up", UP_CARDS)
def test_every_end_of_our_one_hit_tree_is_the_oracles(up):
    ours = our_game(up, 1)
    game = oracle_game(up, 1)
    ends = step_together(ours, ours.node(ours.initial_state()), game.new_initial_state(), range)
    assert ends == 100 * 11 * 11  # 100 deals, each player stands or hits one of 10 values


#: up cards for random deals: every dealer up card (the last) once with 2 hits, once with 3
TWO_HITS = (
    "6,T,A",
    "5,A,2",
    "3,9,3",
    "8,4,4",
    "A,7,5",
    "T,2,6",
    "2,3,7",
    "5,4,8",
    "6,7,9",
    "8,9,T",
)
THREE_HITS = (
    "A,5,A",
    "T,3,2",
    "6,6,3",
    "6,2,4",
    "9,8,5",
    "4,4,6",
    "7,A,7",
    "3,8,8",
    "T,2,9",
    "9,5,T",
)
RANDOM_DEALS = [(up, 2) for up in TWO_HITS] + [(up, 3) for up in THREE_HITS]


@pytest.mark.parametrize(("up", "max_hits"), RANDOM_DEALS)
def test_random_deals_with_more_hits_play_out_as_the_oracles(up, max_hits):
    rng = random.Random(f"{up}/{max_hits}")
    ours = our_game(up, max_hits)
    game = oracle_game(up, max_hits)
    for _ in range(200):
        step_together(
            ours,
            ours.node(ours.initial_state()),
            game.new_initial_state(),
            lambda n: [rng.randrange(n)],
        )


# --- the chance model: the dealer drawn card by card ------------------------------------------
#: (up cards, [player 0's down card, player 1's down card, actions and hit cards]); the dealer
#: then draws from a 13-rank deck as OpenSpiel chance nodes
DEALER_CASES = [
    ("T,T,T", ["9", "K", "stand", "stand"]),  # 19 against 20
    ("T,T,T", ["6", "Q", "hit", "J", "stand"]),  # player 0 busts
    ("T,5,T", ["4", "8", "hit", "9", "hit", "K"]),  # both bust on 23: a tie
    ("A,6,A", ["6", "A", "stand", "hit", "9"]),  # soft 17 against soft 17 + 9: hard 16
    ("8,A,T", ["3", "K", "hit", "K", "stand"]),  # 21 against 21
    ("6,6,2", ["T", "5", "stand", "hit", "4"]),  # 16 against 15
]


def play(state, moves: list[str]) -> None:
    for move in moves:
        if state.is_chance_node():
            state.apply_action(oracle.RANKS.index(move))
        else:
            state.apply_action(oracle.HIT if move == "hit" else oracle.STAND)


def our_terminal(up: str, moves: list[str]) -> Terminal:
    """Our game's end after ``moves`` (cards as ranks, decisions as words)."""
    ours = our_game(up, 1)
    node = ours.node(ours.initial_state())
    for move in moves:
        if isinstance(node, Chance):
            label = oracle.value_name(move)
            node = ours.node(next(child for name, _, child in node.outcomes if name == label))
        else:
            node = ours.node(dict(node.actions)["h" if move == "hit" else "s"])
    assert isinstance(node, Terminal)
    return node


@pytest.mark.parametrize(("up", "moves"), DEALER_CASES)
def test_the_dealer_drawing_as_openspiel_chance_pays_our_terminal_payoff(up, moves):
    game = oracle_game(up, 1, deck="ranks", dealer="drawn")
    state = game.new_initial_state()
    play(state, moves)
    assert state.is_chance_node() and len(state.dealer) == 1  # the dealer is next, and only
    uniform = os_policy.UniformRandomPolicy(game)  # no decision is left to make
    expected = expected_game_score.policy_value(state, [uniform, uniform])
    ours = our_terminal(up, moves)
    assert expected[0] == pytest.approx(ours.payoff, abs=1e-12)
    assert expected[1] == pytest.approx(-ours.payoff, abs=1e-12)


def test_the_dealer_cases_are_what_they_say():
    # ties pay nothing either way, whatever the dealer draws; the other cases favour the
    # player whose hand ranks higher
    payoffs = [our_terminal(up, moves).payoff for up, moves in DEALER_CASES]
    assert payoffs[2] == payoffs[4] == 0.0
    assert payoffs[0] < 0 and payoffs[1] < 0
    assert payoffs[3] > 0 and payoffs[5] == pytest.approx(1.0)  # 16 always ranks above 15


# --- the solution -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def solutions():
    """Our CFR+ solution of each up-card set with one hit (1,000 iterations)."""
    return {up: our_solution(up, 1, 1000) for up in UP_CARDS}


@pytest.fixture(scope="module")
def efg_games():
    """``efg_games(up, deck)``: the oracle with one hit as an EFG game, built once."""
    built: dict[tuple[str, str], tuple[pyspiel.Game, dict[str, str]]] = {}

    def get(up: str, deck: str = "values"):
        if (up, deck) not in built:
            built[up, deck] = oracle.efg_game(oracle_game(up, 1, deck=deck))
        return built[up, deck]

    return get


def test_openspiel_measures_our_strategy_on_its_python_game_as_we_do(solutions):
    # the oracle as OpenSpiel's Python game, walked by OpenSpiel's Python algorithms
    tree, solver = solutions["6,6,2"]
    table = strategy_table(tree, solver.average_strategy())
    game = oracle_game("6,6,2", 1)
    policy = os_policy.TabularPolicy(game)
    for info, row in policy.state_lookup.items():
        probs = table[oracle.solver_key(info)]
        policy.action_probability_array[row] = [probs[ACTIONS[a]] for a in (0, 1)]
    assert len(policy.state_lookup) == len(table) == 120
    root = game.new_initial_state()
    value = expected_game_score.policy_value(root, [policy, policy])
    assert value[0] == pytest.approx(solver.value(), abs=TOLERANCE)
    sigma = solver.average_strategy()
    for player in (0, 1):
        best = os_best_response.BestResponsePolicy(game, player, policy).value(root)
        assert best == pytest.approx(best_response_value(tree, sigma, player), abs=TOLERANCE)


@pytest.mark.parametrize(("up", "deck"), [(up, "values") for up in UP_CARDS] + [("A,7,A", "ranks")])
def test_openspiel_measures_our_solved_strategy_as_we_do(solutions, efg_games, up, deck):
    tree, solver = solutions[up]
    sigma = solver.average_strategy()
    game, names = efg_games(up, deck)
    policy = as_policy(strategy_table(tree, sigma), names)
    value, best0, best1 = openspiel_figures(game, policy)
    assert value == pytest.approx(solver.value(), abs=TOLERANCE)
    assert best0 == pytest.approx(best_response_value(tree, sigma, 0), abs=TOLERANCE)
    assert best1 == pytest.approx(best_response_value(tree, sigma, 1), abs=TOLERANCE)
    theirs = pyspiel.exploitability(game, policy)
    assert theirs == pytest.approx(solver.exploitability(), abs=TOLERANCE)
    assert theirs > 1e-7  # a real, nonzero figure is compared
    # and the uniform strategy, far from an equilibrium
    uniform = strategy_table(tree, tree.uniform())
    assert pyspiel.exploitability(game, as_policy(uniform, names)) == pytest.approx(
        (
            best_response_value(tree, tree.uniform(), 0)
            + best_response_value(tree, tree.uniform(), 1)
        )
        / 2,
        abs=TOLERANCE,
    )


@pytest.mark.parametrize("up", UP_CARDS)
def test_openspiels_cfr_plus_reaches_our_game_value(solutions, efg_games, up):
    _, solver = solutions[up]
    ours = solver.value()
    our_gap = 2 * solver.exploitability()  # the game value is within this of ours
    game, names = efg_games(up)
    cfr = pyspiel.CFRPlusSolver(game)
    for _ in range(CFR_ITERATIONS):
        cfr.evaluate_and_update_policy()
    average = cfr.tabular_average_policy()
    theirs = pyspiel.expected_returns(game.new_initial_state(), average, -1, True)[0]
    their_gap = 2 * pyspiel.exploitability(game, average)
    assert their_gap < 1e-4  # OpenSpiel's solve converged
    assert abs(theirs - ours) <= our_gap + their_gap + 1e-12
    # and it is our algorithm: after as many iterations, ours holds the same average strategy
    tree, same = our_solution(up, 1, CFR_ITERATIONS)
    table = as_policy(strategy_table(tree, same.average_strategy()), names).policy_table()
    theirs_table = average.policy_table()
    assert table.keys() == theirs_table.keys()
    gaps = [
        abs(p - q)
        for efg, row in table.items()
        for (_, p), (_, q) in zip(row, theirs_table[efg], strict=True)
    ]
    assert max(gaps) < 1e-9
    assert same.value() == pytest.approx(theirs, abs=1e-12)


# --- bigger settings, by hand -----------------------------------------------------------------
def compare(up: str, max_hits: int, iterations: int) -> list[tuple[str, float, float]]:
    """Our figures and OpenSpiel's for one setting: (figure, ours, OpenSpiel's)."""
    tree, solver = our_solution(up, max_hits, iterations)
    sigma = solver.average_strategy()
    game, names = oracle.efg_game(oracle_game(up, max_hits))
    policy = as_policy(strategy_table(tree, sigma), names)
    value, best0, best1 = openspiel_figures(game, policy)
    cfr = pyspiel.CFRPlusSolver(game)
    for _ in range(iterations):
        cfr.evaluate_and_update_policy()
    average = cfr.tabular_average_policy()
    theirs = average.policy_table()
    gap = max(
        abs(p - q)
        for efg, row in policy.policy_table().items()
        for (_, p), (_, q) in zip(row, theirs[efg], strict=True)
    )
    return [
        ("value of our strategy", solver.value(), value),
        ("player 0's best response", best_response_value(tree, sigma, 0), best0),
        ("player 1's best response", best_response_value(tree, sigma, 1), best1),
        ("exploitability", solver.exploitability(), pyspiel.exploitability(game, policy)),
        (
            f"value of OpenSpiel's CFR+ after {iterations}",
            solver.value(),
            pyspiel.expected_returns(game.new_initial_state(), average, -1, True)[0],
        ),
        ("largest gap between the two CFR+ strategies", 0.0, gap),
    ]


def main(argv: list[str] | None = None) -> int:
    """Checks one setting too big for the test run (2 hits: a minute or two, about 1 GB):

    .venv/bin/python -m tests.solver.test_openspiel_blackjack --up T,T,T --max-hits 2
    """
    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--up", default="T,T,T", help="up cards, e.g. 6,6,2 (default T,T,T)")
    parser.add_argument("--max-hits", type=int, default=2, help="1, 2 or 3 (default 2)")
    parser.add_argument("--iterations", type=int, default=100, help="CFR+ iterations (100)")
    args = parser.parse_args(argv)
    rows = compare(args.up, args.max_hits, args.iterations)
    print(f"{'figure':<46} {'ours':>22} {'OpenSpiel':>22}")
    for name, ours, theirs in rows:
        print(f"{name:<46} {ours:>22.15g} {theirs:>22.15g}")
    worst = max(abs(ours - theirs) for _, ours, theirs in rows)
    print(f"largest difference {worst:.3g}: {'agree' if worst < 1e-9 else 'DISAGREE'}")
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
