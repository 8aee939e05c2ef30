"""The Leduc hold'em engine: the betting rules, payoffs equal to the solver's tree for every
deal and betting sequence, and replays."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.game import IllegalAction
from games.leduc.rules import LeducState
from games.leduc.tree import Leduc


def dealt(cards: list[str], hands: int = 2) -> LeducState:
    """A match whose first hand deals ``cards``: position 0's, position 1's, the board."""
    state = LeducState.new(0, config={"hands": hands})
    rest = [c for c in state.full_deck() if c not in cards]
    state.deck = list(cards) + rest
    return state


def play(state: LeducState, actions: str) -> None:
    for action in actions.replace("/", ""):
        (seat,) = state.pending()
        state.apply(seat, action)


def suited(ranks: tuple[str, ...]) -> list[str]:
    """Rank letters as distinct cards of the six-card deck (a pair takes both suits)."""
    used: list[str] = []
    for r in ranks:
        used.append(f"{r}s" if f"{r}s" not in used else f"{r}h")
    return used


def terminals():
    game = Leduc()
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        node = game.node(state)
        if hasattr(node, "payoff"):
            yield state, node.payoff
        elif hasattr(node, "outcomes"):
            stack += [s for _, _, s in node.outcomes]
        else:
            stack += [s for _, s in node.actions]


def test_it_pays_exactly_what_the_solvers_tree_pays_for_every_deal_and_betting():
    count = 0
    for (dealt_ranks, rounds), payoff in terminals():
        ranks = dealt_ranks if len(dealt_ranks) == 3 else (*dealt_ranks, "K")
        if len(dealt_ranks) == 2 and dealt_ranks.count("K") == 2:
            ranks = (*dealt_ranks, "J")  # a board that cannot matter: the hand ended folded
        state = dealt(suited(ranks))
        play(state, "/".join(rounds))
        assert state.hand == 1, (ranks, rounds)
        assert state.chips == [payoff, -payoff], (ranks, rounds)
        count += 1
    assert count > 1000


def test_it_raises_by_2_then_4_and_allows_two_raises_a_round():
    state = dealt(["Ks", "Qs", "Jh"])
    assert state.legal() == ["c", "r"]
    play(state, "rr")
    assert state.pot() == [3, 5] and state.legal() == ["f", "c"]  # no third raise
    with pytest.raises(IllegalAction):
        state.verify(1, "r")
    play(state, "c")
    assert state.board() == "Jh" and state.pot() == [5, 5]
    play(state, "r")
    assert state.pot() == [9, 5]


def test_a_refusal_names_the_buttons_a_person_sees_with_the_codes_a_bot_sends():
    state = dealt(["Ks", "Qs", "Jh"])
    with pytest.raises(IllegalAction) as refused:
        state.verify(0, "allin")
    assert str(refused.value) == "expected one of: check (c), raise 2 (r); got 'allin'"
    play(state, "rr")
    with pytest.raises(IllegalAction) as refused:
        state.verify(0, "r")  # a third raise
    assert str(refused.value) == "expected one of: fold (f), call 2 (c); got 'r'"
    play(state, "c")  # the second round raises by 4
    with pytest.raises(IllegalAction) as refused:
        state.verify(0, "f")
    assert str(refused.value) == "expected one of: check (c), raise 4 (r); got 'f'"


def test_it_shows_the_board_only_once_turned_and_gives_the_solvers_key():
    state = dealt(["Js", "Qs", "Qh"])
    obs = state.prompt(0).data
    assert obs["board"] is None and obs["infoset"] == "J" and obs["card"] == "Js"
    play(state, "rc")
    obs = state.prompt(0).data
    assert obs["board"] == "Qh" and obs["round"] == 2 and obs["infoset"] == "Jrc/Q"
    play(state, "c")
    assert state.prompt(1).data["infoset"] == "Qrc/Qc"


def test_a_pair_with_the_board_wins_and_equal_ranks_split():
    state = dealt(["Js", "Ks", "Jh"], hands=4)
    play(state, "cc/cc")
    assert state.chips == [1.0, -1.0]  # position 0 paired the jack
    state.deck = ["Qs", "Qh", "Ks", "Js", "Jh", "Kh"]
    play(state, "cc/cc")
    assert state.chips == [1.0, -1.0]  # a split: nobody wins


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_random_play_is_zero_sum_and_replays_from_its_log(seed, choices):
    rng = random.Random(choices)
    state = LeducState.new(seed, config={"hands": 6})
    while not state.is_over():
        (seat,) = state.pending()
        legal = state.prompt(seat).data["legal"]
        assert legal in (["c", "r"], ["f", "c", "r"], ["f", "c"])
        state.apply(seat, rng.choice(legal))
    result = state.result()
    assert sum(result["scores"]) == 0 and result["hands"] == 6
    assert LeducState.replay(state.log, 2, state.config).result() == result
