"""Lines of live tables' logs in plain words: one card is not "cards", nothing to draw is a
pass, and a drawn deal says so."""

from __future__ import annotations

from games.goofspiel.rules import GoofspielState
from games.goofspiel.table import GoofspielTable
from games.last_card.table import _move_text


def test_last_card_says_one_card_and_a_draw_of_nothing_plainly():
    names = ["ann", "bob"]
    assert _move_text({"e": "reshuffle", "cards": 1}, names) == (
        "The 1 played card is shuffled back into the deck."
    )
    assert _move_text({"e": "reshuffle", "cards": 3}, names) == (
        "The 3 played cards are shuffled back into the deck."
    )
    assert _move_text({"e": "draw", "seat": 1, "drawn": 0}, names) == (
        "bob passes (nothing left to draw)."
    )
    assert _move_text({"e": "draw", "seat": 0, "drawn": 1}, names) == "ann draws 1 card."


def test_a_drawn_goofspiel_deal_says_neither_gains():
    state = GoofspielState.new(3, config={"num_cards": 5, "deals": 2})
    while state.deals_played == []:
        card = state.hands[0][0]  # the same card each: every prize is discarded
        state.apply(0, card)
        state.apply(1, card)
    log = GoofspielTable().frame(state, None, ["ann", "bob"])["log"]
    end = [entry["text"] for entry in log if entry["key"] == "d0end"]
    assert end == ["Deal 1 ends 0 to 0 in prize points: a draw, neither gains."]


def test_one_goofspiel_deal_is_singular_in_the_form_and_the_settings():
    deals = next(o for o in GoofspielTable().options if o.name == "deals")
    assert dict(deals.choices)[1] == "1 deal"
    assert dict(deals.choices)[3] == "3 deals"
    described = GoofspielTable().describe({"num_cards": 5, "deals": 1})
    assert "1 deal" in described and "1 deals" not in described
