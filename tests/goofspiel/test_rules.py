"""The Goofspiel engine: what a seat is asked, bids refused with their reasons, the higher bid
taking the prize and ties discarding it, the automatic last turn, scores under both scorings,
faults, and replays from the log."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.chance import ReplayMismatch
from games.engine.game import Fault, IllegalAction
from games.goofspiel.rules import GoofspielState


def dealt(prizes: list[int], deals: int = 1, returns_type: str = "win_loss") -> GoofspielState:
    """A match whose first deal turns up ``prizes`` in this order."""
    config = {"num_cards": len(prizes), "deals": deals, "returns_type": returns_type}
    state = GoofspielState.new(0, config=config)
    state.prizes = list(prizes)
    return state


def bid(state: GoofspielState, first: int, second: int) -> None:
    assert state.pending() == [0, 1]
    state.apply(0, first)
    state.apply(1, second)


def play_randomly(state: GoofspielState, rng: random.Random) -> None:
    while not state.is_over():
        for seat in state.pending():
            state.apply(seat, rng.choice(state.prompt(seat).data["legal"]))


def test_the_defaults_are_thirteen_cards_three_deals_won_or_lost():
    state = GoofspielState.new(1)
    assert state.config == {"num_cards": 13, "deals": 3, "returns_type": "win_loss"}
    assert sorted(state.prizes) == list(range(1, 14))
    assert state.hands == [list(range(1, 14))] * 2


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"num_cards": 1}, "num_cards must be a whole number from 2 to 13"),
        ({"num_cards": 14}, "num_cards must be"),
        ({"num_cards": "5"}, "num_cards must be"),
        ({"num_cards": True}, "num_cards must be"),
        ({"deals": 0}, "deals must be a whole number from 1"),
        ({"returns_type": "total_points"}, "returns_type must be one of win_loss"),
    ],
)
def test_it_refuses_a_config_it_does_not_know(config, message):
    with pytest.raises(ValueError, match=message):
        GoofspielState.new(1, config=config)


def test_both_seats_bid_at_once_on_the_prize_face_up_and_see_only_the_set_of_prizes_left():
    state = dealt([3, 1, 4, 2])
    assert state.pending() == [0, 1]
    obs = state.prompt(1).data
    assert obs["prize"] == 3
    assert obs["prizes_left"] == [1, 2, 4]  # the set, ascending: never the order
    assert obs["hand"] == obs["legal"] == obs["opponent_hand"] == [1, 2, 3, 4]
    assert obs["history"] == [] and obs["points"] == [0, 0] and obs["last_deal"] is None
    assert (obs["deal"], obs["deals"], obs["seat"], obs["num_cards"]) == (1, 1, 1, 4)
    state.apply(1, 2)
    assert state.pending() == [0]  # seat 1's bid is in; seat 0 still to bid
    state.apply(0, 4)
    obs = state.prompt(1).data
    # from seat 1's side: [prize, its own bid, the other's bid], points [its, the other's]
    assert obs["history"] == [[3, 2, 4]] and obs["points"] == [0, 3]
    assert obs["hand"] == [1, 3, 4] and obs["opponent_hand"] == [1, 2, 3]
    assert state.prompt(0).data["history"] == [[3, 4, 2]]


def test_the_higher_bid_takes_the_prize_and_equal_bids_discard_it():
    state = dealt([5, 2, 4, 1, 3])
    bid(state, 1, 3)  # seat 1 takes the 5
    assert state.points == [0, 5]
    bid(state, 2, 2)  # a tie: the 2 is discarded
    assert state.points == [0, 5]
    assert state.hands == [[3, 4, 5], [1, 4, 5]]
    bid(state, 5, 4)  # seat 0 takes the 4
    assert state.points == [4, 5]
    assert state.history == [[5, 1, 3], [2, 2, 2], [4, 5, 4]]


def test_the_last_turn_plays_itself_and_the_deal_is_scored():
    state = dealt([3, 1, 2])
    bid(state, 3, 1)  # seat 0 takes the 3
    bid(state, 1, 3)  # seat 1 takes the 1; the 2 goes to seat 0's 2 against seat 1's 2: a tie
    assert state.is_over() and state.pending() == []
    (done,) = state.deals_played
    assert done["turns"] == [[3, 3, 1], [1, 1, 3], [2, 2, 2]]
    assert done["points"] == [3, 1] and done["returns"] == [1, -1]
    assert state.result()["scores"] == [1, -1] and state.result()["winner"] == 0


def test_illegal_bids_are_refused_with_their_reason():
    state = dealt([2, 3, 1, 4])
    reasons = {
        "a bid is one of your cards (1, 2, 3, 4), got '3'": "3",
        "a bid is one of your cards (1, 2, 3, 4), got True": True,
        "a bid is one of your cards (1, 2, 3, 4), got 3.0": 3.0,
        "a bid is one of your cards (1, 2, 3, 4), got None": None,
        "card 0 is not in your hand (not a card of this game); you hold 1, 2, 3, 4": 0,
        "card 5 is not in your hand (not a card of this game); you hold 1, 2, 3, 4": 5,
    }
    for reason, answer in reasons.items():
        with pytest.raises(IllegalAction) as refused:
            state.apply(0, answer)
        assert str(refused.value) == reason
    state.apply(0, 4)
    with pytest.raises(IllegalAction, match="seat 0 is not to act now"):
        state.apply(0, 3)
    with pytest.raises(IllegalAction, match="seat 0 has already bid on this prize"):
        state.verify(0, 3)
    state.apply(1, 1)
    with pytest.raises(IllegalAction) as refused:
        state.apply(0, 4)
    reason = "card 4 is not in your hand (already bid this deal); you hold 1, 2, 3"
    assert str(refused.value) == reason
    assert state.log[-1] == {"type": "action", "seat": 1, "action": 1}  # nothing refused logged


def test_nothing_is_accepted_once_the_match_is_over():
    state = dealt([1, 2])
    bid(state, 1, 2)
    assert state.is_over()
    with pytest.raises(IllegalAction, match="the match is over"):
        state.verify(0, 2)
    with pytest.raises(IllegalAction, match="the match is over"):
        state.prompt(0)


@pytest.mark.parametrize(
    ("returns_type", "expected"), [("win_loss", [1, -1]), ("point_difference", [1, -1])]
)
def test_a_match_adds_the_returns_of_its_deals(returns_type, expected):
    state = dealt([3, 2, 1], deals=3, returns_type=returns_type)
    bid(state, 3, 1)
    bid(state, 2, 3)  # the 2 to seat 1, and the last turn (1 against 2) the 1 too
    first = state.deals_played[0]
    assert first["turns"] == [[3, 3, 1], [2, 2, 3], [1, 1, 2]]
    assert first["points"] == [3, 3] and first["returns"] == [0, 0]
    assert state.deal == 1 and state.history == [] and state.hands == [[1, 2, 3]] * 2
    state.prizes = [3, 2, 1]
    bid(state, 3, 2)  # the 3 to seat 0
    bid(state, 1, 3)  # the 2 to seat 1, and the last turn (2 against 1) the 1 to seat 0
    second = state.deals_played[1]
    assert second["points"] == [4, 2] and second["returns"] == expected
    obs = state.prompt(1).data
    assert obs["deal"] == 3 and obs["score"] == expected[1]
    assert obs["last_deal"] == {
        "turns": [[3, 2, 3], [2, 3, 1], [1, 1, 2]],
        "points": [2, 4],
        "returns": expected[::-1],
        "forfeit": None,
    }


@pytest.mark.parametrize("returns_type", ["win_loss", "point_difference"])
def test_scores_are_zero_sum_and_follow_the_scoring(returns_type):
    config = {"num_cards": 6, "deals": 8, "returns_type": returns_type}
    state = GoofspielState.new(5, config=config)
    play_randomly(state, random.Random(5))
    result = state.result()
    assert result["deals"] == 8 and result["forfeited_deals"] == 0
    assert sum(result["scores"]) == 0
    diffs = [d["points"][0] - d["points"][1] for d in result["deal_log"]]
    if returns_type == "win_loss":
        assert result["scores"][0] == sum((d > 0) - (d < 0) for d in diffs)
    else:
        assert result["scores"][0] == sum(diffs) / 2  # half of each difference
    assert result["points"] == [sum(d["points"][s] for d in result["deal_log"]) for s in (0, 1)]
    won = result["deals_won"]
    assert won[0] == sum(d > 0 for d in diffs) and won[1] == sum(d < 0 for d in diffs)
    assert result["deals_tied"] == 8 - sum(won)
    for done in result["deal_log"]:
        # every prize is either won or tied away: the points never exceed 1 + ... + 6
        tied = sum(p for p, a, b in done["turns"] if a == b)
        assert sum(done["points"]) + tied == 21


def test_a_fault_gives_the_other_seat_every_prize_left_and_every_deal_not_played():
    state = dealt([4, 3, 2, 1], deals=3, returns_type="point_difference")
    bid(state, 4, 1)  # seat 0 takes the 4
    state.apply(0, 3)
    state.forfeit({1: Fault("timeout", "no answer within 1 s")})
    assert state.is_over() and state.pending() == []
    result = state.result()
    (done,) = result["deal_log"]
    assert done["points"] == [4 + 3 + 2 + 1, 0] and done["forfeit"] == 1
    assert result["forfeited_deals"] == 2
    assert result["scores"] == [15, -15]  # half of 10 + 2 * 10 points each way
    assert result["points"] == [30, 0] and result["deals_won"] == [3, 0]
    assert result["faults"] == {"1": {"kind": "timeout", "reason": "no answer within 1 s"}}


def test_a_fault_under_win_loss_loses_each_deal_left():
    state = dealt([1, 2, 3], deals=4)
    state.forfeit({0: Fault("exception", "act raised KeyError")})
    assert state.result()["scores"] == [-4, 4]


def test_when_both_seats_fault_together_nobody_is_credited_with_the_rest():
    state = dealt([2, 1, 3], deals=2)
    bid(state, 3, 1)
    state.forfeit({0: Fault("crash", "x"), 1: Fault("crash", "y")})
    result = state.result()
    assert state.is_over() and result["scores"] == [0, 0]
    assert result["deal_log"] == [] and result["forfeited_deals"] == 0


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    cards=st.integers(2, 13),
    deals=st.integers(1, 4),
    returns_type=st.sampled_from(["win_loss", "point_difference"]),
)
def test_a_match_replays_from_its_log_alone(seed, cards, deals, returns_type):
    config = {"num_cards": cards, "deals": deals, "returns_type": returns_type}
    state = GoofspielState.new(seed, config=config)
    play_randomly(state, random.Random(seed))
    again = GoofspielState.replay(state.log, 2, state.config)
    assert again.result() == state.result() and again.log == state.log
    chances = [e for e in state.log if e["type"] == "chance"]
    assert len(chances) == deals
    actions = [e for e in state.log if e["type"] == "action"]
    assert len(actions) == 2 * deals * (cards - 1)  # the last turn of a deal is not asked


def test_a_replay_refuses_a_log_that_does_not_reproduce_itself():
    state = GoofspielState.new(9, config={"num_cards": 5, "deals": 2})
    play_randomly(state, random.Random(9))
    events = [dict(e) for e in state.log]
    first = next(i for i, e in enumerate(events) if e["type"] == "action")
    second_bid = events[first + 2]  # seat 0's bid of the second turn: replayed already bid
    events[first + 2] = second_bid | {"action": events[first]["action"]}
    with pytest.raises(ReplayMismatch, match="recorded action is illegal"):
        GoofspielState.replay(events, 2, state.config)
    short = [e for e in state.log if e["type"] != "chance" or e["label"] == "prizes-1"]
    with pytest.raises(ReplayMismatch, match="no chance outcome for 'prizes-2'"):
        GoofspielState.replay(short, 2, state.config)
