"""Property tests: whatever the seed and the choices, the rules keep their invariants."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.game import Fault
from games.rps_poker.cards import FULL_DECK
from games.rps_poker.rules import RpsPokerState

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def all_cards(state: RpsPokerState) -> Counter[str]:
    return Counter(card for pile in state.locations().values() for card in pile)


def play(seed: int, choose, fault_at: int | None = None) -> RpsPokerState:
    """Play a match, picking each index with ``choose(size)``; optionally a fault at a step."""
    state = RpsPokerState.new(seed)
    step = 0
    while not state.is_over():
        if fault_at is not None and step == fault_at:
            state.forfeit({step % 2: Fault("invalid", "test")})
            break
        for seat in state.pending():
            size = len(state.prompt(seat).data.get("cards") or state.prompt(seat).data["hand"])
            state.apply(seat, choose(size))
            assert all_cards(state) == Counter(FULL_DECK)
        state.take_notices()
        step += 1
    return state


@settings(max_examples=200, deadline=None)
@given(seed=seeds, data=st.data())
def test_it_accounts_for_every_card_and_splits_ten_points(seed, data):
    state = play(seed, lambda size: data.draw(st.integers(0, size - 1)))
    assert sum(state.scores) == 10
    assert len(state.games) == 10
    assert all_cards(state) == Counter(FULL_DECK)
    assert sorted(state.locations()["played"]) == sorted(
        c for g in state.games for c in g["played"]
    )


@settings(max_examples=100, deadline=None)
@given(seed=seeds, fault_at=st.integers(0, 14), data=st.data())
def test_it_always_hands_out_ten_points_when_one_seat_faults(seed, fault_at, data):
    state = play(seed, lambda size: data.draw(st.integers(0, size - 1)), fault_at=fault_at)
    assert state.is_over()
    assert sum(state.scores) == 10
    loser = fault_at % 2
    assert state.scores[1 - loser] >= state.result()["forfeited_games"]


@settings(max_examples=100, deadline=None)
@given(seed=seeds, picks=st.lists(st.integers(0, 2), min_size=30, max_size=30))
def test_it_gives_the_same_record_for_the_same_seed_and_moves(seed, picks):
    def choose_from(moves):
        moves = iter(moves)
        return lambda size: next(moves) % size

    first = play(seed, choose_from(picks))
    second = play(seed, choose_from(picks))
    assert first.log == second.log
    assert first.result() == second.result()


@settings(max_examples=100, deadline=None)
@given(seed=seeds, fault_at=st.one_of(st.none(), st.integers(0, 14)), data=st.data())
def test_it_replays_every_record_to_the_same_match(seed, fault_at, data):
    original = play(seed, lambda size: data.draw(st.integers(0, size - 1)), fault_at=fault_at)
    replayed = RpsPokerState.replay(original.log, 2, original.config)
    assert replayed.log == original.log
    assert replayed.result() == original.result()
    assert replayed.hands == original.hands
