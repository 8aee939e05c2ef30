"""The Kuhn poker engine: legal actions, payoffs equal to the solver's tree for every deal
and betting sequence, seats taking turns to act first, faults, and replays."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.game import Fault, IllegalAction
from games.kuhn.rules import KuhnState
from games.kuhn.tree import ENDS, Kuhn


def dealt(cards: str, hands: int = 2) -> KuhnState:
    """A match whose first hand deals ``cards`` (position 0's, position 1's, the third)."""
    state = KuhnState.new(0, config={"hands": hands})
    state.deck = [f"{c}s" for c in cards]
    return state


def play(state: KuhnState, actions: str) -> None:
    for action in actions:
        (seat,) = state.pending()
        state.apply(seat, action)


def terminals():
    """Every (cards, history, payoff) at the end of the solver's Kuhn tree."""
    game = Kuhn()
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        node = game.node(state)
        if hasattr(node, "payoff"):
            yield state[0], state[1], node.payoff
        elif hasattr(node, "outcomes"):
            stack += [s for _, _, s in node.outcomes]
        else:
            stack += [s for _, s in node.actions]


def test_it_pays_exactly_what_the_solvers_tree_pays_for_every_deal_and_betting():
    seen = set()
    for cards, history, payoff in terminals():
        third = next(c for c in "JQK" if c not in cards)
        state = dealt(cards + third)
        play(state, history)
        assert state.hand == 1 and state.chips == [payoff, -payoff], (cards, history)
        seen.add((cards, history))
    assert len(seen) == 6 * len(ENDS) == 30


def test_it_offers_check_and_bet_and_refuses_anything_else():
    state = dealt("KQJ")
    (seat,) = state.pending()
    assert seat == 0 and state.prompt(0).data["legal"] == ["p", "b"]
    for wrong in ("c", "B", 1, None, "pb"):
        with pytest.raises(IllegalAction):
            state.verify(0, wrong)
    with pytest.raises(IllegalAction):
        state.apply(1, "p")  # not seat 1's turn


def test_a_refusal_names_the_buttons_a_person_sees_with_the_codes_a_bot_sends():
    from games.kuhn.table import KuhnTable

    state = dealt("KQJ")
    with pytest.raises(IllegalAction) as refused:
        state.verify(0, "allin")
    assert str(refused.value) == "expected one of: check (p), bet 1 (b); got 'allin'"
    buttons = [label.lower() for label, _ in KuhnTable().faces(state).values()]
    assert buttons == ["check", "bet 1"]
    play(state, "b")
    with pytest.raises(IllegalAction) as refused:
        state.verify(1, "c")
    assert str(refused.value) == "expected one of: fold (p), call 1 (b); got 'c'"


def test_it_shows_a_seat_its_own_card_and_the_solvers_infoset_key():
    state = dealt("QKJ")
    play(state, "p")
    obs = state.prompt(1).data
    assert obs["card"] == "K" and obs["history"] == "p" and obs["infoset"] == "Kp"
    assert obs["position"] == 1 and obs["seat"] == 1
    assert "Q" not in {str(v) for v in obs.values()}


def test_it_lets_the_seats_take_turns_to_act_first_and_keeps_score_across_hands():
    state = dealt("KJQ", hands=4)
    play(state, "bb")  # seat 0 first with the king: wins 2
    assert state.chips == [2.0, -2.0]
    assert state.pending() == [1]  # hand 2: seat 1 acts first
    state.deck = ["Ks", "Js", "Qs"]  # seat 1 (position 0) holds the king
    play(state, "bp")  # seat 1 bets, seat 0 folds: seat 1 wins 1
    assert state.chips == [1.0, -1.0]
    last = state.prompt(0).data["last_hand"]
    assert last == {
        "position": 1, "history": "bp", "won": -1.0, "showdown": False, "opponent_card": None,
    }  # fmt: skip


def test_it_ends_after_the_configured_hands_with_zero_sum_scores():
    state = KuhnState.new(3, config={"hands": 6})
    while not state.is_over():
        play(state, "p")
    result = state.result()
    assert result["hands"] == 6 and len(result["hand_log"]) == 6
    assert sum(result["scores"]) == 0
    with pytest.raises(ValueError):
        KuhnState.new(3, config={"hands": 5})


def test_a_fault_loses_the_hand_and_the_ante_of_every_hand_left():
    state = dealt("KQJ", hands=10)
    play(state, "b")  # seat 0 has 2 in the pot
    state.forfeit({1: Fault("timeout", "slow")})
    # seat 1 loses its ante in this hand (1) and 9 hands unplayed
    assert state.is_over() and state.result()["scores"] == [10.0, -10.0]
    assert state.result()["forfeited_hands"] == 10


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_random_play_is_zero_sum_and_replays_from_its_log(seed, choices):
    rng = random.Random(choices)
    state = KuhnState.new(seed, config={"hands": 8})
    while not state.is_over():
        (seat,) = state.pending()
        state.apply(seat, rng.choice(state.prompt(seat).data["legal"]))
    result = state.result()
    assert sum(result["scores"]) == 0
    for hand in result["hand_log"]:
        assert sorted(hand["cards"]) != [hand["cards"][0]] * 2  # two different cards
    again = KuhnState.replay(state.log, 2, state.config)
    assert again.result() == result


def test_every_deal_comes_up_over_many_hands():
    state = KuhnState.new(11, config={"hands": 200})
    deals = set()
    while not state.is_over():
        deals.add(tuple(state.cards()))
        play(state, "p")
    assert deals == set(itertools.permutations(["Js", "Qs", "Ks"], 2))
