"""A run's page says exactly which opponents its matches play: in a two-seat game every chosen
opponent is met once the run has as many matches as opponents, and each deal is played with
the seats both ways by the end of each round."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from bots import playground
from games.registry import get_game
from tests.playground.conftest import GAME, queue, worker

THREE = ["builtin:minimal", "builtin:simple", "builtin:strong"]
#: how pages name them
NAMES = ["house/minimal", "house/simple", "house/strong"]


@pytest.mark.parametrize(
    ("opponents", "matches", "counts"),
    [(3, 4, [2, 1, 1]), (3, 2, [1, 1, 0]), (3, 6, [2, 2, 2]), (2, 5, [3, 2]), (1, 3, [3]),
     (4, 9, [3, 2, 2, 2])],
)  # fmt: skip
def test_every_opponent_is_met_once_there_are_as_many_matches(opponents, matches, counts):
    assert playground.meetings(get_game(GAME), opponents, matches) == counts


def test_each_round_plays_every_deal_with_the_seats_both_ways():
    for k in range(1, 6):
        slots = [playground.two_seat_slot(n, k) for n in range(4 * k)]
        for rounds in range(2):
            played = slots[rounds * 2 * k : (rounds + 1) * 2 * k]
            deals = {deal for deal, _, _ in played}
            assert len(deals) == k  # a deal of its own per opponent
            for deal in deals:
                both = [(seat, opp) for d, seat, opp in played if d == deal]
                assert sorted(seat for seat, _ in both) == [0, 1]
                assert len({opp for _, opp in both}) == 1  # against the same opponent


@pytest.mark.parametrize(
    ("game", "names", "matches", "says"),
    [
        (GAME, NAMES, 2, "2 matches: 1 against house/minimal, 1 against house/simple; "
                         "house/strong gets none with 2 matches"),
        (GAME, NAMES, 1, "1 match: 1 against house/minimal; house/simple and "
                         "house/strong get none with 1 match"),
        ("last-card", ["house/naive", "house/heuristic"], 4,
         "4 matches, each with all of house/naive, house/heuristic at the table"),
        ("uth", [], 3, "3 sessions against the dealer, each dealt from its own seed"),
        ("uth", [], 1, "1 session against the dealer"),
    ],
)  # fmt: skip
def test_the_schedule_in_words(game, names, matches, says):
    assert playground.schedule_text(get_game(game), names, matches) == says


def test_the_run_page_lists_the_matches_its_worker_plays(alice):
    run = queue(alice, opponents=THREE, matches=4, seed=3)
    url = reverse("playground_run", args=[run.key])
    says = "4 matches: 2 against house/minimal, 1 against house/simple, 1 against house/strong"
    assert says in Client().get(url).content.decode()
    assert "house/minimal, house/simple, house/strong" not in Client().get(url).content.decode()
    assert worker().step() is True
    played = list(run.played_matches.order_by("number"))
    assert [m.seats[1 - m.seat]["name"] for m in played] == [*NAMES, "house/minimal"]
    assert [m.seat for m in played] == [0, 0, 0, 1]
    assert played[0].seed == played[3].seed and len({m.seed for m in played}) == 3
