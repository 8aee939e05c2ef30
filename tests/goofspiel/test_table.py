"""Goofspiel at a live table: hands are public once bids are shown, but what a table shows
never depends on what its audience may not know yet: the order of the prizes still face down,
and a bid that is in while the other player has not bid (the bidder alone sees it)."""

from __future__ import annotations

import json
import random

import pytest

from games.engine.table import signed
from games.goofspiel.rules import GoofspielState
from games.goofspiel.table import GoofspielTable

RULES = GoofspielTable()


def views(state: GoofspielState) -> dict[int | None, str]:
    """Everything each audience is sent: the table frame and the actions."""
    return {
        audience: json.dumps([
            RULES.frame(state, audience, ["ann", "bob"]),
            [] if audience is None or state.over else RULES.actions(state, audience),
        ])
        for audience in (None, 0, 1)
    }  # fmt: skip


def check_hidden(state: GoofspielState, rng: random.Random) -> None:
    before = views(state)
    # the prizes still face down, in another order: nobody's view may change
    saved = list(state.prizes)
    future = state.prizes[state.turn + 1 :]
    if len(future) > 1:
        state.prizes[state.turn + 1 :] = future[1:] + future[:1]
        assert views(state) == before, state.prizes
        state.prizes = saved
    # a sealed bid changed to another card of its hand: only the bidder's view may change
    for seat, card in list(state.bids.items()):
        others = [c for c in state.hands[seat] if c != card]
        if not others:
            continue
        state.bids[seat] = rng.choice(others)
        after = views(state)
        state.bids[seat] = card
        assert after[None] == before[None] and after[1 - seat] == before[1 - seat]
        assert after[seat] != before[seat]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_view_shows_a_sealed_bid_or_the_order_of_the_prizes_to_come(seed):
    state = GoofspielState.new(seed, config={"num_cards": 7, "deals": 3})
    rng = random.Random(seed)
    checked = 0
    while not state.is_over():
        for seat in list(state.pending()):
            check_hidden(state, rng)
            default = RULES.default_action(state, seat)
            assert state.can(seat, default)
            state.apply(seat, rng.choice(state.hands[seat]))
            checked += 1
    assert checked == 2 * 3 * 6
    for text in views(state).values():
        end, actions = json.loads(text)
        assert end["hand"] == [] and actions == [] and end["shared"] == []
        assert end["label"] == "The match is over"
        assert not any(seat["turn"] for seat in end["seats"])
        assert [seat["score"] for seat in end["seats"]] == [
            signed(s).removeprefix("+") for s in state.scores
        ]


def frame(state: GoofspielState, audience: int | None) -> dict:
    return RULES.frame(state, audience, ["ann", "bob"])


def zones(shown: dict) -> dict[str, list[str]]:
    return {z["label"]: z["cards"] for z in shown["hand"]}


def test_a_seat_sees_its_hand_its_own_sealed_bid_and_that_the_other_has_bid():
    state = GoofspielState.new(4, config={"num_cards": 5, "deals": 2})
    state.prizes = [2, 5, 1, 4, 3]
    state.apply(1, 4)
    mine, theirs, spectator = frame(state, 1), frame(state, 0), frame(state, None)
    assert zones(mine) == {"Your bid": ["4"], "Your hand": ["1", "2", "3", "4", "5"]}
    assert RULES.actions(state, 1) == []
    assert zones(theirs) == {}  # the hand to bid from comes as the actions
    assert [a["card"] for a in RULES.actions(state, 0)] == ["1", "2", "3", "4", "5"]
    assert spectator["hand"] == []
    for shown in (mine, theirs, spectator):
        assert shown["shared"][0] == {"label": "Prize", "cards": ["2"], "down": 0, "fan": "row"}
        assert shown["shared"][1]["down"] == 4
        assert [s["badges"] for s in shown["seats"]] == [[], ["bid in"]]
        assert [s["turn"] for s in shown["seats"]] == [True, False]
        assert shown["log"] == []  # a sealed bid is in no line
    state.apply(0, 3)
    shown = frame(state, None)
    # both bids are shown once both were down; the hands follow
    assert [e["text"] for e in shown["log"]] == ["Prize 2: ann bids 3, bob bids 4; bob takes it."]
    assert [s["notes"] for s in shown["seats"]] == [
        ["0 prize points this deal"],
        ["2 prize points this deal"],
    ]
    hands = [s["zones"][0]["cards"] for s in shown["seats"]]
    assert hands == [["1", "2", "4", "5"], ["1", "2", "3", "5"]]
    assert [s["badges"] for s in shown["seats"]] == [[], []]
    assert shown["shared"][0]["cards"] == ["5"] and shown["label"] == "Deal 1, prize 5"


def test_the_previous_deal_stays_in_view_after_it_ends():
    state = GoofspielState.new(4, config={"num_cards": 2, "deals": 2})
    state.prizes = [1, 2]
    state.apply(0, 2)
    state.apply(1, 1)  # the 1 to seat 0; the last turn, 1 against 2: the 2 to seat 1
    shown = frame(state, 0)
    assert shown["label"].startswith("Deal 2,")
    assert [e["text"] for e in shown["log"]] == [
        "Prize 1: ann (you) bids 2, bob bids 1; ann (you) takes it.",
        "Prize 2: ann (you) bids 1, bob bids 2; bob takes it.",
        "Deal 1 ends 1 to 2 in prize points: deal score \u22121 and +1.",
    ]


def test_an_away_person_bids_the_prizes_own_card_or_else_the_lowest():
    state = GoofspielState.new(4, config={"num_cards": 4, "deals": 1})
    state.prizes = [3, 1, 2, 4]
    assert RULES.default_action(state, 0) == 3
    state.apply(0, 1)
    state.apply(1, 3)
    # the prize is now 1, which seat 0 has bid already: its lowest card is 2
    assert RULES.default_action(state, 0) == 2 and RULES.default_action(state, 1) == 1
    assert "lowest" in RULES.default_action_text


def test_the_tables_description_says_what_a_deal_scores_in_words():
    assert RULES.describe(RULES.config({})) == [
        "13 cards",
        "3 deals",
        "a deal scores +1 for a win, \u22121 for a loss and 0 for a tie",
    ]
    other = RULES.describe(RULES.config({"returns_type": "point_difference", "deals": 1}))
    assert other[-1] == "a deal scores half the difference of the prize points"
    assert not any("returns" in words or "_" in words for words in other)
