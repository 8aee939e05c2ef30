"""Lines of live tables' logs in plain words: one card is not "cards", nothing to draw is a
pass, and a drawn deal says so."""

from __future__ import annotations

import json
import re

import pytest

from games.engine.game import Fault
from games.engine.table import signed
from games.goofspiel.rules import GoofspielState
from games.goofspiel.table import GoofspielTable
from games.last_card.table import _move_text
from games.registry import get_game
from tests.live.test_fault_logs import forfeited

#: a hyphen written as a number's sign (games.engine.written.minus_signs finds the same)
HYPHEN_SIGN = re.compile(r"(?<![\w.)-])-(?=[0-9.])")


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


def forfeited_at(slug: str, hand: int, seat: int) -> dict:
    """The result of a sitting of ``slug`` (10 hands) whose ``seat`` raised an error in
    hand ``hand``, every hand before it played with the first legal action."""
    state = get_game(slug).state_class.new(5, config={"hands": 10})
    while len(state.hands_played) < hand - 1:
        [acting] = state.pending()
        state.apply(acting, state.legal()[0])
    state.forfeit({seat: Fault("exception", "RuntimeError: quit")})
    return state.result()


def test_a_forfeited_chip_sitting_says_in_which_hand_and_how_many_hands_went_with_it():
    """An audit's end line said "After 0 hands: carol +10, carol/quitter -10 chips.
    carol/quitter raised an error." of a bot that quit in the first hand."""
    names = ["carol", "carol/quitter"]
    result = forfeited_at("kuhn", 1, 1)
    ending = get_game("kuhn").table().ending(result, names, 0)
    scores = result["scores"]
    assert scores[0] > 0 and scores[0] == -scores[1]
    assert ending == (
        "carol/quitter raised an error in hand 1 and forfeited it and the 9 hands left "
        f"(carol {signed(scores[0])}, carol/quitter {signed(scores[1])} chips)."
    )
    # a person's own fault, in the last hand: nothing left after it
    result = forfeited_at("leduc", 10, 0)
    assert (
        get_game("leduc")
        .table()
        .ending(result, names, 0)
        .startswith("You raised an error in hand 10 and forfeited it (")
    )
    # Blackjack++ counts deals and points
    result = forfeited_at("blackjack-pp", 2, 1)
    assert (
        get_game("blackjack-pp")
        .table()
        .ending(result, names, None)
        .startswith(
            "carol/quitter raised an error in deal 2 and forfeited it and the 8 deals left ("
        )
    )


def test_a_chip_sitting_played_to_its_end_counts_its_hands_plainly():
    table = get_game("kuhn").table()
    result = {"scores": [1, -1], "winner": 0, "hands": 1, "forfeited_hands": 0, "faults": {}}
    assert table.ending(result, ["ann", "bob"], None) == "After 1 hand: ann +1, bob \u22121 chips."


@pytest.mark.parametrize(
    ("slug", "config"),
    [
        ("goofspiel", {"num_cards": 5, "deals": 3}),
        ("kuhn", {"hands": 10}),
        ("leduc", {"hands": 10}),
        ("blackjack-pp", {"hands": 10, "max_hits": 1}),
        ("uth", {"max_rounds": 10}),
    ],
)
def test_a_tables_figures_write_a_negative_with_the_minus_sign(slug, config):
    """Every other page writes "\u22121"; the tables' seats, lines, logs and end line wrote
    "deal score -1", "bob -1 chips", "You win, 3 to -3"."""
    rules = get_game(slug).table()
    state = forfeited(slug, config, 6, 1 if slug != "uth" else 0)
    names = ["ann", "bob"][: state.num_seats]
    for viewer in (None, 0):
        # (the words: "scores" are numbers, for the script)
        frame = rules.frame(state, viewer, names)
        shown = json.dumps(frame | {"scores": None}, ensure_ascii=False)
        result = rules.result(state, viewer)
        ending = rules.ending(result, names, viewer)
        scores = [rules.score_text(score) for score in result["scores"]]
        for text in (shown, ending, *scores):
            assert not HYPHEN_SIGN.search(text), text
        assert "\u2212" in shown and "\u2212" in ending and any("\u2212" in s for s in scores)
