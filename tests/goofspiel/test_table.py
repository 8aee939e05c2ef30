"""Goofspiel at a live table: hands are public once bids are shown, but a view never depends
on what its audience may not know yet: the order of the prizes still face down, and a bid
that is in while the other player has not bid (the bidder alone sees it)."""

from __future__ import annotations

import json
import random

import pytest

from games.goofspiel.rules import GoofspielState
from games.goofspiel.table import GoofspielTable

RULES = GoofspielTable()


def views(state: GoofspielState) -> dict[int | None, str]:
    """Everything each audience is sent: the view, the table frame and the actions."""
    return {
        audience: json.dumps([
            RULES.view(state, audience),
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
    for audience, text in views(state).items():
        view, frame, actions = json.loads(text)
        assert frame["hand"] == [] and actions == []
        assert view["over"] and view["prize"] is None and view["to_act"] == []
        assert view["scores"] == state.scores, audience


def test_a_seat_sees_its_hand_its_own_sealed_bid_and_that_the_other_has_bid():
    state = GoofspielState.new(4, config={"num_cards": 5, "deals": 2})
    state.prizes = [2, 5, 1, 4, 3]
    state.apply(1, 4)
    mine = RULES.view(state, 1)
    assert mine["you"] == {"seat": 1, "hand": [1, 2, 3, 4, 5], "bid": 4}
    theirs = RULES.view(state, 0)
    assert theirs["you"] == {"seat": 0, "hand": [1, 2, 3, 4, 5], "legal": [1, 2, 3, 4, 5]}
    spectator = RULES.view(state, None)
    assert "you" not in spectator
    for view in (mine, theirs, spectator):
        assert view["prize"] == 2 and view["prizes_left"] == [1, 3, 4, 5]
        assert view["bid_in"] == [1] and view["to_act"] == [0]
        assert 4 not in [c for t in view["turns"] for c in t]
    state.apply(0, 3)
    shown = RULES.view(state, None)
    # both bids are shown once both were down; the hands follow
    assert shown["turns"] == [[2, 3, 4]] and shown["points"] == [0, 2]
    assert shown["hands"] == [[1, 2, 4, 5], [1, 2, 3, 5]] and shown["bid_in"] == []
    assert shown["prize"] == 5 and shown["deal"] == 1 and shown["deals"] == 2


def test_the_previous_deal_stays_in_view_after_it_ends():
    state = GoofspielState.new(4, config={"num_cards": 2, "deals": 2})
    state.prizes = [1, 2]
    state.apply(0, 2)
    state.apply(1, 1)  # the 1 to seat 0; the last turn, 1 against 2: the 2 to seat 1
    view = RULES.view(state, 0)
    assert view["deal"] == 2 and view["turns"] == []
    assert view["last_deal"] == {
        "turns": [[1, 2, 1], [2, 1, 2]],
        "points": [1, 2],
        "returns": [-1, 1],
        "forfeit": None,
    }


def test_an_away_person_bids_the_prizes_own_card_or_else_the_lowest():
    state = GoofspielState.new(4, config={"num_cards": 4, "deals": 1})
    state.prizes = [3, 1, 2, 4]
    assert RULES.default_action(state, 0) == 3
    state.apply(0, 1)
    state.apply(1, 3)
    # the prize is now 1, which seat 0 has bid already: its lowest card is 2
    assert RULES.default_action(state, 0) == 2 and RULES.default_action(state, 1) == 1
    assert "lowest" in RULES.default_action_text
