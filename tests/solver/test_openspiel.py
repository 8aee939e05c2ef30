"""Our exploitability agrees with OpenSpiel's on our solved Kuhn and Leduc strategies.

OpenSpiel (a test dependency: ``open_spiel`` in the ``test`` extras, which scripts/setup
installs; without it these tests fail, they are not skipped) deals Leduc from a six-card
deck and names information states its own way; each of its states is mapped to our key (the
player's card, the actions of the first round, ``/``, the public card, the second round's
actions), and our probability is copied into an OpenSpiel tabular policy. OpenSpiel's best
response then measures it. Blackjack++ has its own oracle: test_openspiel_blackjack.py.
"""

from __future__ import annotations

import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

from games.kuhn.tree import Kuhn
from games.leduc.tree import Leduc
from games.solver import Solver, build
from games.solver.export import strategy_table

KUHN_ACTIONS = {0: "p", 1: "b"}
LEDUC_ACTIONS = {0: "f", 1: "c", 2: "r"}
RANKS = "JQK"


def kuhn_key(state) -> str:
    # OpenSpiel's Kuhn information state is the card number (0 J, 1 Q, 2 K) then p/b moves
    text = state.information_state_string()
    return RANKS[int(text[0])] + text[1:]


def to_openspiel(game, table, key_of, action_names):
    """A tabular OpenSpiel policy playing ``table`` (our keys), walking every state."""
    policy = os_policy.TabularPolicy(game)
    seen: set[str] = set()

    def walk(state, path):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                walk(state.child(action), path)
            return
        info = state.information_state_string()
        ours = table[key_of(state)]
        row = policy.policy_for_key(info)
        if info not in seen:
            seen.add(info)
            row[:] = 0.0
            for action in state.legal_actions():
                row[action] = ours[action_names[action]]
        for action in state.legal_actions():
            walk(state.child(action), path)

    walk(game.new_initial_state(), ())
    return policy, seen


def leduc_key(state) -> str:
    """Our key for the player to act in an OpenSpiel Leduc state, from its move history."""
    history = state.history()
    player = state.current_player()
    private = RANKS[history[player] // 2]  # cards 0-5: rank = card // 2 (two suits)
    rounds = [""]
    public = ""
    probe = state.get_game().new_initial_state()
    for action in history:
        if probe.is_chance_node():
            if probe.move_number() >= 2:  # the third card dealt is the public one
                public = RANKS[action // 2]
                rounds.append("")
        else:
            rounds[-1] += LEDUC_ACTIONS[action]
        probe.apply_action(action)
    key = private + rounds[0]
    if public:
        key += "/" + public + rounds[1]
    return key


def test_openspiel_measures_our_kuhn_strategy_as_we_do():
    tree = build(Kuhn())
    solver = Solver(tree, "cfr+")
    solver.train(100, record=False)
    table = strategy_table(tree, solver.average_strategy())
    game = pyspiel.load_game("kuhn_poker")
    policy, seen = to_openspiel(game, table, kuhn_key, KUHN_ACTIONS)
    assert len(seen) == 12
    theirs = os_exploitability.exploitability(game, policy)
    assert theirs == pytest.approx(solver.exploitability(), abs=1e-6)
    assert theirs > 1e-5  # a real, nonzero figure is being compared
    # and the uniform strategy, whose exploitability is 11/24 by hand (see test_solver)
    uniform = strategy_table(tree, tree.uniform())
    policy, _ = to_openspiel(game, uniform, kuhn_key, KUHN_ACTIONS)
    assert os_exploitability.exploitability(game, policy) == pytest.approx(11 / 24, abs=1e-9)


def test_openspiel_measures_our_leduc_strategy_as_we_do():
    tree = build(Leduc())
    solver = Solver(tree, "cfr+")
    solver.train(300, record=False)
    table = strategy_table(tree, solver.average_strategy())
    game = pyspiel.load_game("leduc_poker")
    policy, seen = to_openspiel(game, table, leduc_key, LEDUC_ACTIONS)
    assert len(seen) == 936  # OpenSpiel's information states (suits make them 936, ours 288)
    theirs = os_exploitability.exploitability(game, policy)
    ours = solver.exploitability()
    assert theirs == pytest.approx(ours, abs=1e-6)
    assert ours > 1e-4
    # and so does what the strategy is worth to each player
    values = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])
    assert values[0] == pytest.approx(solver.value(), abs=1e-9)
    assert values[1] == pytest.approx(-solver.value(), abs=1e-9)
