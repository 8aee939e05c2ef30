"""Last Card's rules, one behaviour per test, on tables set up by hand."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from games.engine.game import Fault, IllegalAction
from games.last_card.botapi import STATE_KEYS
from games.last_card.rules import FULL_DECK, LastCardState, last_card_points
from tests.last_card.conftest import move, table


def refused(state: LastCardState, seat: int, action) -> str:
    with pytest.raises(IllegalAction) as info:
        state.verify(seat, action)
    return str(info.value)


# ---- dealing --------------------------------------------------------------------------
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_it_deals_seven_cards_each_and_turns_up_the_next_card(seats):
    state = LastCardState.new(11, num_seats=seats)
    assert [len(h) for h in state.hands] == [7] * seats
    assert len(state.played) == 1
    assert len(state.deck) == 52 - 7 * seats - 1
    assert Counter(state.deck + state.played + [c for h in state.hands for c in h]) == Counter(
        FULL_DECK
    )
    assert state.pending() == [0]
    assert state.punishment == 0


def test_it_refuses_one_or_five_seats():
    for seats in (1, 5):
        with pytest.raises(ValueError, match="2-4 seats"):
            LastCardState.new(1, num_seats=seats)


def test_it_gives_a_starting_ace_its_own_suit_and_a_starting_two_no_effect():
    starts = {}
    for seed in range(300):
        state = LastCardState.new(seed, num_seats=4)
        starts.setdefault(state.played[0][0], state)
    ace, two = starts["A"], starts["2"]
    assert ace.active_suit == ace.played[0][1]
    assert two.punishment == 0 and two.active_suit is None


def test_it_shows_a_bot_exactly_the_contracts_keys():
    state = table([["7h", "8c"], ["Kd"], ["Qs"]], "7s", played=["4c"])
    view = state.prompt(0).data
    assert tuple(view) == STATE_KEYS
    assert view["hand"] == ["7h", "8c"]
    assert view["last_played"] == "7s"
    assert view["hand_sizes"] == [2, 1, 1]
    assert view["played_cards"] == ["4c", "7s"]
    assert view["deck_size"] == 6 and view["seat"] == 0 and view["direction"] == 1


# ---- matching ---------------------------------------------------------------------------
def test_it_accepts_a_card_of_the_same_suit_or_value():
    state = table([["7h", "9s", "Kc"], ["2d"]], "7s")
    assert state.can(0, move("7h"))
    assert state.can(0, move("9s"))
    reason = refused(state, 0, move("Kc"))
    assert "the king of clubs matches neither the suit nor the value of the 7 of spades" in reason


def test_it_makes_players_follow_the_suit_chosen_with_an_ace():
    state = table([["As", "8s", "8h", "Ah"], ["2d"]], "Ad", active_suit="h")
    assert state.can(0, move("8h"))
    # what is wrong, and what may be played instead (an ace goes on anything; a pass draws)
    assert refused(state, 0, move("8s")).endswith(
        "the ace on top asks for hearts and the 8 of spades is not a heart: "
        "play a heart or an ace, or pass and draw a card"
    )
    assert state.can(0, move("As", suit="c"))


def test_it_lets_an_ace_go_on_anything_and_needs_a_suit_named():
    state = table([["Ac", "4d"], ["2d"]], "7s")
    assert "name a suit" in refused(state, 0, move("Ac"))
    state.apply(0, move("Ac", suit="d"))
    assert state.active_suit == "d"
    assert state.played[-1] == "Ac"
    assert state.current == 1


def test_it_plays_several_cards_of_one_value_and_only_the_first_must_match():
    state = table([["8s", "8h", "8d", "3c"], ["2d"]], "Ks")
    assert "same value" in refused(state, 0, move("8s", "3c"))
    assert "matches neither the suit nor the value" in refused(state, 0, move("8h", "8s"))
    state.apply(0, move("8s", "8h", "8d"))
    assert state.hands[0] == ["3c"]
    assert state.played[-3:] == ["8s", "8h", "8d"]
    assert state.counts[0]["cards_played"] == 3


def test_it_refuses_cards_not_in_hand_duplicates_bad_suits_and_malformed_moves():
    state = table([["8s", "8h"], ["2d"]], "Ks")
    assert "'9s' is not a card in your hand" in refused(state, 0, move("9s"))
    assert "twice" in refused(state, 0, move("8s", "8s"))
    assert "suit must be one of" in refused(state, 0, move("8s", suit="x"))
    assert "a move is a dict" in refused(state, 0, ["8s"])
    assert "unknown key 'lastcard'" in refused(state, 0, {"cards": ["8s"], "lastcard": True})
    assert "'last_card' must be true or false" in refused(state, 0, {"cards": [], "last_card": 1})
    assert "not seat 1's" in refused(state, 1, move())


def test_it_lets_a_player_pass_and_draw_one_card():
    state = table([["Kc"], ["2d"]], "7s", deck=["9h", "3d"])
    state.apply(0, move())
    assert state.hands[0] == ["Kc", "9h"]
    assert state.deck == ["3d"]
    assert state.counts[0]["pass_moves"] == 1
    assert state.current == 1


def test_it_passes_play_clockwise():
    state = table([["7s"], ["7h", "3c"], ["7d", "3c"]], "7c", called=[False] * 3)
    state.apply(0, move())
    assert state.current == 1
    state.apply(1, move("7h"))
    assert state.current == 2


# ---- punishments ------------------------------------------------------------------------
def test_it_punishes_the_next_player_two_cards_per_two_and_five_per_five():
    state = table([["2s", "2h", "Kc"], ["Qd"]], "4s")
    state.apply(0, move("2s", "2h"))
    assert state.punishment == 4
    other = table([["5s", "Kc"], ["Qd"]], "4s")
    other.apply(0, move("5s"))
    assert other.punishment == 5


def test_it_passes_a_grown_punishment_on_when_answered_with_the_same_value():
    state = table([["2s", "Kc"], ["2h", "2c", "Qd"], ["4d"]], "2d", punishment=2, current=1)
    state.apply(1, move("2h", "2c"))
    assert state.punishment == 6
    assert state.current == 2


def test_it_makes_a_passing_player_draw_the_whole_punishment():
    deck = ["3c", "4c", "6c", "7c", "8c", "9c", "Tc"]
    state = table([["Kc"], ["Qd"]], "5d", punishment=5, deck=deck)
    state.apply(0, move())
    assert state.hands[0] == ["Kc", "3c", "4c", "6c", "7c", "8c"]
    assert state.deck == ["9c", "Tc"]
    assert state.punishment == 0
    assert state.counts[0]["times_punished"] == 1
    assert state.counts[0]["punishment_taken"] == 5
    # The punishment is over: the next player follows the 5 as usual.
    assert state.can(1, move("Qd"))


def test_it_refuses_the_same_suit_an_ace_or_the_other_punisher_on_a_punishment():
    state = table([["9d", "Ad", "5h", "2c"], ["Qd"]], "2d", punishment=2)
    assert "can't just play the same suit on a 2" in refused(state, 0, move("9d"))
    assert "an ace cannot cancel a punishment" in refused(state, 0, move("Ad", suit="h"))
    assert "only a 2 may be played" in refused(state, 0, move("5h"))
    assert state.can(0, move("2c"))


# ---- tens and jacks ---------------------------------------------------------------------
def test_it_skips_one_player_per_ten():
    hands = [["Ts", "Th", "Kc"], ["Qd"], ["Qc"], ["Qh"]]
    state = table(hands, "4s")
    state.apply(0, move("Ts"))
    assert state.current == 2
    state = table(hands, "4s")
    state.apply(0, move("Ts", "Th"))
    assert state.current == 3
    assert [e["seat"] for e in state.history if e["e"] == "skip"] == [1, 2]


def test_it_reverses_play_once_per_jack():
    hands = [["Qd"], ["Js", "Jh", "Kc"], ["Qc"], ["Qh"]]
    state = table(hands, "4s", current=1)
    state.apply(1, move("Js"))
    assert state.direction == -1 and state.current == 0
    state = table(hands, "4s", current=1)
    state.apply(1, move("Js", "Jh"))
    assert state.direction == 1 and state.current == 2


def test_it_skips_against_the_direction_of_play():
    state = table([["Qd"], ["Ts", "Kc"], ["Qc"], ["Qh"]], "4s", current=1, direction=-1)
    state.apply(1, move("Ts"))
    assert state.current == 3


# ---- last card and winning --------------------------------------------------------------
def test_it_lets_a_player_win_who_called_last_card_on_its_previous_turn():
    state = table([["7s", "7h"], ["Qd", "Kd"]], "7c")
    state.apply(0, move("7s", last_card=True))
    state.apply(1, move())
    state.apply(0, move("7h"))
    assert state.is_over() and state.winner == 0
    result = state.result()
    assert result["stats"][0]["games_won"] == 1
    assert result["scores"][0] == 0
    assert result["scores"][1] == 3  # three ordinary cards in hand


def test_it_makes_a_player_who_did_not_call_draw_two_and_play_on():
    state = table([["7s", "7h"], ["Qd", "Kd"]], "7c", deck=["3c", "4c", "6c"])
    state.apply(0, move("7s", "7h"))
    assert not state.is_over()
    assert state.hands[0] == ["3c", "4c"]
    assert state.current == 1
    assert any(e["e"] == "no_call" for e in state.history)


def test_it_forgets_a_call_that_was_not_made_on_the_previous_turn():
    state = table([["7s", "7h", "7c"], ["Qd", "Kd"]], "7d", deck=["3c", "4c", "6c", "8c"])
    state.apply(0, move("7s", last_card=True))
    state.apply(1, move())
    state.apply(0, move("7h"))  # this turn did not call
    state.apply(1, move())
    state.apply(0, move("7c"))
    assert not state.is_over()
    assert len(state.hands[0]) == 2


def test_it_refuses_to_let_a_player_end_on_an_ace():
    state = table([["As"], ["Qd"]], "7c", called=[True, False])
    assert refused(state, 0, move("As", suit="h")) == "you cannot end on an ace"
    two_aces = table([["As", "Ah"], ["Qd"]], "7c", called=[True, False])
    assert "cannot end on an ace" in refused(two_aces, 0, move("Ah", "As", suit="h"))
    assert two_aces.can(0, move("As", suit="h"))


@pytest.mark.parametrize(("calls", "points"), [(0, 0), (10, 0), (11, 1.1), (30, 3.0)])
def test_it_charges_calls_over_ten_per_game(calls, points):
    assert last_card_points(calls) == pytest.approx(points)


def test_it_adds_last_card_points_to_points_taken():
    deck = [c for c in FULL_DECK if c not in ("Kc", "9s", "Qd", "7c")]
    state = table([["Kc", "9s"], ["Qd"]], "7c", deck=deck)
    for _ in range(12):
        state.apply(0, move(last_card=True))
        state.apply(1, move())
    state.over = True
    stats = state.result()["stats"][0]
    assert stats["last_card_calls"] == 12
    assert stats["last_card_pts"] == pytest.approx(1.2)
    assert stats["points_taken"] == pytest.approx(stats["hand_value_pts"] + 1.2)


def test_it_scores_aces_five_twos_and_fives_two_and_others_one():
    state = table([["As", "2h", "5c", "Kd", "3s"], ["Qd"]], "7c")
    state.over = True
    assert state.result()["scores"][0] == 5 + 2 + 2 + 1 + 1


# ---- the deck and the turn cap ----------------------------------------------------------
def test_it_shuffles_the_played_cards_back_into_an_empty_deck():
    state = table([["Kc"], ["Qd"]], "7c", deck=[], played=["3h", "4h", "5h"])
    state.apply(0, move())
    assert state.played == ["7c"]
    assert len(state.hands[0]) == 2 and len(state.deck) == 2
    assert sorted([state.hands[0][1], *state.deck]) == ["3h", "4h", "5h"]
    assert state.log[-2]["type"] == "action"
    assert state.log[-1]["type"] == "chance" and state.log[-1]["label"] == "reshuffle"
    assert sorted(state.log[-1]["outcome"]) == ["3h", "4h", "5h"]


def test_it_draws_what_there_is_when_even_the_reshuffle_is_short():
    state = table([["Kc"], ["Qd"]], "2c", deck=["3h"], played=["4h"], punishment=6)
    state.apply(0, move())
    assert sorted(state.hands[0]) == ["3h", "4h", "Kc"]
    assert state.counts[0]["punishment_taken"] == 2
    assert state.deck == [] and state.played == ["2c"]


def test_it_ends_a_game_without_a_winner_after_the_turn_cap():
    state = LastCardState.new(5, num_seats=4)
    while not state.is_over():
        state.apply(state.current, move())
    assert state.turns == 1000
    assert state.winner is None
    assert state.result()["winner"] is None


# ---- illegal moves and faults -----------------------------------------------------------
def test_it_treats_an_illegal_move_as_a_pass_and_logs_why():
    state = table([["Kc"], ["Qd"]], "7s", deck=["9h"])
    assert state.reject(0, move("Kc"), "either suit or value did not match") is None
    assert state.hands[0] == ["Kc", "9h"]
    assert state.counts[0]["illegal_moves"] == 1
    assert state.counts[0]["pass_moves"] == 0
    assert state.current == 1
    assert state.log[-1] == {
        "type": "rejected",
        "seat": 0,
        "action": move("Kc"),
        "reason": "either suit or value did not match",
    }


def test_it_makes_an_illegal_answer_to_a_punishment_draw_the_punishment():
    state = table([["9d"], ["Qd"]], "2d", punishment=4, deck=["3c", "4c", "6c", "7c", "8c"])
    state.reject(0, move("9d"), "can't just play the same suit")
    assert len(state.hands[0]) == 5
    assert state.counts[0]["times_punished"] == 1
    assert state.punishment == 0


def test_it_records_an_answer_that_is_not_json_as_its_repr():
    state = LastCardState.new(3, num_seats=2)
    state.reject(0, {1, 2}, "a move is a dict")
    assert state.log[-1]["action"] == "{1, 2}"


def test_it_passes_for_a_seat_that_faulted():
    state = table([["Kc"], ["Qd"], ["Qh"]], "7s", deck=["9h", "9c", "9d"])
    state.forfeit({1: Fault("timeout", "too slow")})
    state.apply(0, move())
    assert state.current == 2  # seat 1 passed automatically
    assert state.hands[1] == ["Qd", "9c"]
    assert any(e["e"] == "pass" and e.get("auto") for e in state.history)


def test_it_ends_a_game_when_every_seat_faulted():
    state = LastCardState.new(3, num_seats=2)
    state.forfeit({0: Fault("crash", "gone"), 1: Fault("crash", "gone")})
    assert state.is_over() and state.winner is None


@pytest.mark.parametrize("take", ["apply", "accept"])  # accept: the runner's, verified
def test_it_keeps_its_own_copy_of_a_move_in_the_log(take):
    state = table([["7h", "8h"], ["Qd"]], "7s")
    action = move("7h")
    getattr(state, take)(0, action)
    action["cards"].append("8h")
    assert state.log[-1]["action"]["cards"] == ["7h"]


def test_the_table_counts_the_deck_and_hands_in_words():
    from games.last_card.table import LastCardTable

    state = table([["2c"], ["3d", "4d"]], "5c", deck=["9s"])
    frame = LastCardTable().frame(state, 0, ["ann", "bob"])
    notes = json.dumps(frame)
    assert '"1 card"' in notes and '"1 cards"' not in notes  # the deck
    assert "1 card in your hand" in notes and '"2 cards"' in notes  # bob's hand
