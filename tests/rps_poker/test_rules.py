"""RPS Poker rules: who wins a game, the draft, the main phase, disqualification."""

from __future__ import annotations

import pytest

from games.engine.game import Fault, IllegalAction
from games.rps_poker.cards import FULL_DECK, beats
from games.rps_poker.rules import RpsPokerState


@pytest.mark.parametrize(
    ("card", "other", "base", "why"),
    [
        ("R2", "S9", "P2", "a pair beats a higher non-pair"),
        ("P0", "R9", "S0", "a pair of zeros beats a nine"),
        ("S7", "R3", "P7", "a pair of sevens beats a three"),
        ("R8", "P3", "S1", "neither pair: the higher number wins"),
        ("P9", "S8", "R0", "neither pair: nine beats eight whatever the symbols"),
        ("R5", "S5", "P1", "same number: rock beats scissors"),
        ("S5", "P5", "R1", "same number: scissors beat paper"),
        ("P5", "R5", "S1", "same number: paper beats rock"),
        ("R4", "S4", "P4", "both pairs, same number: rock beats scissors"),
        ("S4", "P4", "R4", "both pairs, same number: scissors beat paper"),
        ("P4", "R4", "S4", "both pairs, same number: paper beats rock"),
    ],
)
def test_it_decides_each_winner_rule(card, other, base, why):
    assert beats(card, other, base), why
    assert not beats(other, card, base), why


def test_it_finds_exactly_one_winner_for_every_pair_of_cards_and_base():
    for base in FULL_DECK:
        for card in FULL_DECK:
            for other in FULL_DECK:
                if len({base, card, other}) == 3:
                    assert beats(card, other, base) != beats(other, card, base)


def test_it_refuses_to_compare_a_card_with_itself():
    with pytest.raises(ValueError):
        beats("R1", "R1", "S2")


def draft(state: RpsPokerState, picks: list[tuple[int, int]]) -> None:
    for a, b in picks:
        state.apply(0, a)
        state.apply(1, b)


def test_it_deals_the_draft_from_the_top_of_the_shuffled_deck():
    state = RpsPokerState.new(seed=3)
    deck = state.log[0]["outcome"]
    assert state.log[0]["label"] == "full-deck"
    assert sorted(deck) == sorted(FULL_DECK)
    for step in range(5):
        assert state.prompt(0).data["cards"] == deck[4 * step : 4 * step + 2]
        assert state.prompt(1).data["cards"] == deck[4 * step + 2 : 4 * step + 4]
        state.apply(0, 1)
        state.apply(1, 0)
    # Seat 0 kept every second card it was offered; seat 1 received the first ones.
    picked0 = [deck[4 * s + 1] for s in range(5)]
    picked1 = [deck[4 * s + 2] for s in range(5)]
    assert sorted(state.decks[0] + state.hands[0]) == sorted(
        picked0 + [deck[4 * s + 3] for s in range(5)]
    )
    assert sorted(state.decks[1] + state.hands[1]) == sorted(
        picked1 + [deck[4 * s] for s in range(5)]
    )
    assert sorted([*state.remaining, state.base]) == sorted(deck[20:])


def test_it_tells_each_player_the_card_it_received():
    state = RpsPokerState.new(seed=4)
    offers = [state.prompt(0).data["cards"], state.prompt(1).data["cards"]]
    state.apply(0, 0)
    state.apply(1, 1)
    notices = state.take_notices()
    assert (1, "draft_receive", {"card": offers[0][1]}) in [(s, p.kind, p.data) for s, p in notices]
    assert (0, "draft_receive", {"card": offers[1][0]}) in [(s, p.kind, p.data) for s, p in notices]
    assert all(not p.expects_answer for _, p in notices)


def test_it_waits_for_both_players_before_resolving_a_simultaneous_move():
    state = RpsPokerState.new(seed=5)
    state.apply(1, 0)
    assert state.pending() == [0]
    assert state.take_notices() == []
    with pytest.raises(IllegalAction, match="not to act now"):
        state.apply(1, 0)
    state.apply(0, 0)
    assert state.pending() == [0, 1]
    assert len(state.take_notices()) == 2


def test_it_plays_the_main_phase_with_ordered_hands():
    state = RpsPokerState.new(seed=6)
    draft(state, [(0, 0)] * 5)
    assert [e["label"] for e in state.log if e["type"] == "chance"] == [
        "full-deck",
        "remaining",
        "deck-0",
        "deck-1",
    ]
    deck0 = next(e["outcome"] for e in state.log if e.get("label") == "deck-0")
    assert state.hands[0] == deck0[:3]
    base = state.base
    hand0, hand1 = list(state.hands[0]), list(state.hands[1])
    state.take_notices()
    state.apply(0, 1)
    state.apply(1, 2)
    game = state.games[0]
    assert game["base"] == base
    assert game["played"] == [hand0[1], hand1[2]]
    # The played card is removed from its position; the drawn card is appended.
    assert state.hands[0] == [hand0[0], hand0[2], deck0[3]]
    notices = {(s, p.kind): p.data for s, p in state.take_notices()}
    assert notices[(0, "main_postprocess")] == {"card": hand1[2]}
    assert notices[(1, "main_postprocess")] == {"card": hand0[1]}
    winner = 0 if beats(hand0[1], hand1[2], base) else 1
    assert state.scores[winner] == 1


def test_it_ends_after_ten_games_with_ten_points():
    state = RpsPokerState.new(seed=8)
    draft(state, [(0, 1)] * 5)
    hand_sizes = []
    while not state.is_over():
        hand_sizes.append(len(state.hands[0]))
        state.apply(0, 0)
        state.apply(1, len(state.hands[1]) - 1)
    assert hand_sizes == [3] * 8 + [2, 1]
    assert sum(state.scores) == 10
    assert len(state.games) == 10
    assert state.result()["winner"] == (
        0 if state.scores[0] > 5 else 1 if state.scores[1] > 5 else None
    )


def test_it_credits_the_opponent_with_every_unplayed_game_on_a_fault():
    state = RpsPokerState.new(seed=9)
    draft(state, [(0, 0)] * 5)
    for _ in range(4):
        state.apply(0, 0)
        state.apply(1, 0)
    before = list(state.scores)
    state.forfeit({1: Fault("timeout", "too slow")})
    assert state.is_over()
    assert state.scores == [before[0] + 6, before[1]]
    assert state.result()["forfeited_games"] == 6
    assert state.result()["faults"] == {"1": {"kind": "timeout", "reason": "too slow"}}
    assert state.log[-1] == {
        "type": "fault",
        "faults": {"1": {"kind": "timeout", "reason": "too slow"}},
    }


def test_it_keeps_the_points_when_a_fault_comes_after_the_last_game():
    state = RpsPokerState.new(seed=10)
    draft(state, [(0, 0)] * 5)
    while not state.is_over():
        state.apply(0, 0)
        state.apply(1, 0)
    scores = list(state.scores)
    state.forfeit({0: Fault("exception", "main_postprocess raised")})
    assert state.scores == scores
    assert state.faults[0].kind == "exception"


@pytest.mark.parametrize("answer", [-1, 2, 1.0, "0", None, [0], True])
def test_it_refuses_bad_draft_indices(answer):
    state = RpsPokerState.new(seed=11)
    with pytest.raises(IllegalAction):
        state.verify(0, answer)
    assert not state.can(0, answer)
