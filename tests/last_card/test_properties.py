"""Property tests: whatever the deal and the moves, legal or not, the rules keep their
invariants, and a game replays from its record alone."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.game import IllegalAction
from games.last_card.movecheck import PASS, hand_value, legal_moves
from games.last_card.rules import FULL_DECK, LastCardState, last_card_points

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def cards_in_play(state: LastCardState) -> Counter[str]:
    return Counter(card for pile in state.locations().values() for card in pile)


def random_move(state: LastCardState, rng: random.Random) -> dict:
    """Mostly legal moves, often not: random cards, suits and calls."""
    view = state.view(state.current)
    roll = rng.random()
    call = rng.random() < 0.3
    if roll < 0.75:
        moves = legal_moves(view, last_card=call)
        return rng.choice(moves) if moves else dict(PASS, last_card=call)
    if roll < 0.8:
        return dict(PASS, last_card=call)
    pool = view["hand"] + rng.sample(FULL_DECK, 2)
    cards = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
    return {"cards": cards, "suit": rng.choice([None, "s", "h", "x"]), "last_card": call}


def play(seed: int, seats: int, moves_seed: int) -> LastCardState:
    state = LastCardState.new(seed, num_seats=seats)
    assert isinstance(state, LastCardState)
    rng = random.Random(moves_seed)
    while not state.is_over():
        seat = state.current
        action = random_move(state, rng)
        try:
            state.verify(seat, action)
        except IllegalAction as exc:
            assert state.reject(seat, action, str(exc)) is None
        else:
            state.apply(seat, action)
        assert cards_in_play(state) == Counter(FULL_DECK)
        assert state.turns <= 1000
    return state


@settings(max_examples=15, deadline=None)
@given(seed=seeds, seats=st.integers(2, 4), moves_seed=seeds)
def test_it_keeps_every_card_ends_within_the_cap_and_scores_by_the_formula(seed, seats, moves_seed):
    state = play(seed, seats, moves_seed)
    result = state.result()
    assert state.turns <= 1000
    assert (result["winner"] is None) == (state.turns == 1000 and state.winner is None)
    for seat in range(seats):
        stats = result["stats"][seat]
        expected = hand_value(state.hands[seat]) + last_card_points(state.calls[seat])
        assert result["scores"][seat] == stats["points_taken"] == expected
        assert stats["hand_value_pts"] == sum(
            5 if c[0] == "A" else 2 if c[0] in "25" else 1 for c in state.hands[seat]
        )
    if result["winner"] is not None:
        assert state.hands[result["winner"]] == []
        assert sum(s["games_won"] for s in result["stats"]) == 1
    moves = sum(s["pass_moves"] + s["illegal_moves"] for s in result["stats"]) + sum(
        1 for e in state.history if e["e"] == "play"
    )
    assert moves == state.turns


@settings(max_examples=10, deadline=None)
@given(seed=seeds, seats=st.integers(2, 4), moves_seed=seeds)
def test_it_replays_a_game_from_its_record_alone(seed, seats, moves_seed):
    state = play(seed, seats, moves_seed)
    events = json.loads(json.dumps(state.log))
    again = LastCardState.replay(events, seats, state.config)
    assert isinstance(again, LastCardState)
    assert again.log == state.log
    assert again.result() == state.result()
    assert again.history == state.history
