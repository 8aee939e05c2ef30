"""Goofspiel against OpenSpiel's implementation: the same prize order and the same bids give
the same prize points after every turn and the same returns at the end of every deal, for
every deck size from 4 to 13 and both ways of scoring.

Both engines draw the prize order by chance: ours shuffles the prize deck through the
match's Chance at the start of a deal, OpenSpiel (``points_order="random"``) draws the next
prize at a chance node before each turn. The test deals with ours and hands each of our
prizes to OpenSpiel as its chance outcome (action = card - 1, as are bids), after checking
that OpenSpiel offers exactly the prizes not yet turned up, each with the same probability.
Bids are random cards of each hand, often forced equal so that ties are exercised.

The returns are the same in both, ``win_loss`` and ``point_difference`` (a player's points
minus the mean of both players' points: half the difference)."""

from __future__ import annotations

import random
import re

import pyspiel
import pytest

from games.goofspiel.rules import GoofspielState

SIZES = range(4, 14)
RETURNS = ("win_loss", "point_difference")
MATCHES = 6
DEALS = 3


def openspiel_points(state) -> list[int]:
    """OpenSpiel's prize points so far, from its state's text (``Points: 5 3``)."""
    found = re.search(r"^Points: (\d+) (\d+)", str(state), re.MULTILINE)
    assert found, str(state)
    return [int(found.group(1)), int(found.group(2))]


def openspiel_prizes(state) -> list[int]:
    found = re.search(r"^Point card sequence: ([\d ]*)$", str(state), re.MULTILINE)
    assert found, str(state)
    return [int(c) for c in found.group(1).split()]


def random_bids(ours: GoofspielState, rng: random.Random) -> tuple[int, int]:
    first = rng.choice(ours.hands[0])
    if first in ours.hands[1] and rng.random() < 0.3:
        return first, first  # a tie: the prize is discarded
    return first, rng.choice(ours.hands[1])


def play_deal(ours: GoofspielState, game, rng: random.Random) -> tuple[int, list[int]]:
    """Play our current deal in both engines; the turns compared and OpenSpiel's returns."""
    deal = ours.deal
    theirs = game.new_initial_state()
    turns = 0
    while not ours.over and ours.deal == deal:
        assert theirs.is_chance_node()
        outcomes = theirs.chance_outcomes()
        offered = sorted(action + 1 for action, _ in outcomes)
        assert offered == sorted([ours.prize, *ours.prizes_left()])
        assert all(p == pytest.approx(1 / len(outcomes)) for _, p in outcomes)
        theirs.apply_action(ours.prize - 1)

        assert theirs.is_simultaneous_node()
        for seat in (0, 1):
            assert [a + 1 for a in theirs.legal_actions(seat)] == ours.hands[seat]
        bids = random_bids(ours, rng)
        ours.apply(0, bids[0])
        ours.apply(1, bids[1])
        theirs.apply_actions([bids[0] - 1, bids[1] - 1])
        turns += 1

        finished = ours.deal != deal or ours.over
        expected = ours.deals_played[-1]["points"] if finished else ours.points
        assert openspiel_points(theirs) == expected, (ours.history, str(theirs))
    assert theirs.is_terminal()
    done = ours.deals_played[-1]
    assert openspiel_prizes(theirs) == done["prizes"]
    assert [t[0] for t in done["turns"]] == done["prizes"]
    returns = theirs.returns()
    if ours.returns_type == "win_loss":
        assert all(r in (-1.0, 0.0, 1.0) for r in returns)
        return turns, [int(r) for r in returns]
    # OpenSpiel: a player's points minus the mean of both players' points
    mean = sum(done["points"]) / 2
    assert returns == [done["points"][0] - mean, done["points"][1] - mean]
    return turns, returns


@pytest.mark.parametrize("returns_type", RETURNS)
@pytest.mark.parametrize("num_cards", SIZES)
def test_same_prizes_and_bids_give_the_same_points_and_returns(num_cards, returns_type):
    game = pyspiel.load_game(
        "goofspiel",
        {"num_cards": num_cards, "points_order": "random", "returns_type": returns_type},
    )
    compared = 0
    for seed in range(MATCHES):
        config = {"num_cards": num_cards, "deals": DEALS, "returns_type": returns_type}
        ours = GoofspielState.new(1000 * num_cards + seed, config=config)
        rng = random.Random(seed)
        totals = [0, 0]
        for _ in range(DEALS):
            turns, returns = play_deal(ours, game, rng)
            # every turn but the last (automatic in both) was asked of the players
            assert turns == num_cards - 1
            assert ours.deals_played[-1]["returns"] == returns
            totals = [t + r for t, r in zip(totals, returns, strict=True)]
            compared += 1
        assert ours.over and ours.scores == totals
        assert ours.result()["scores"] == totals
    assert compared == MATCHES * DEALS


def test_the_prize_order_is_drawn_by_chance_in_both_engines():
    """Ours records one shuffle of the prize deck per deal, and different seeds give different
    orders; OpenSpiel's first node is a chance node over every prize."""
    config = {"num_cards": 13, "deals": 2}
    orders = set()
    for seed in range(5):
        state = GoofspielState.new(seed, config=config)
        chance = [e for e in state.log if e["type"] == "chance"]
        assert [e["label"] for e in chance] == ["prizes-1"]
        assert [int(c) for c in chance[0]["outcome"]] == state.prizes
        orders.add(tuple(state.prizes))
    assert len(orders) == 5
    game = pyspiel.load_game("goofspiel", {"num_cards": 13, "points_order": "random"})
    assert game.get_parameters()["points_order"] == "random"
    first = game.new_initial_state()
    assert first.is_chance_node() and len(first.chance_outcomes()) == 13
