"""A tournament's standings and cross table come from totals kept as its matches are stored
(``TournamentResult``, ``bots.ladder.aggregates``), not from every seat: the kept rows equal a
count from the seats (two-seat, four-seat and one-seat games, played by the worker), a
large tournament's page shows the grid of its best bots, every bot in the standings and
each bot's row against all the others on request, in as many queries at 25 bots as at 40,
and a forged ``?bot=`` is a clear 400."""

from __future__ import annotations

import html
import re
from itertools import combinations

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.ladder import aggregates
from bots.models import Bot, Match, MatchSeat, Tournament
from games.views import CROSS_TOP
from tests.site import test_leaderboard_pages as data

rps_tournament = data.rps_tournament
last_card_tournament = data.last_card_tournament
uth_tournament = data.uth_tournament


@pytest.mark.parametrize("made", ["rps_tournament", "last_card_tournament", "uth_tournament"])
def test_the_kept_totals_equal_a_count_from_the_seats(request, made):
    tournament = request.getfixturevalue(made)
    kept = aggregates.kept_tournament(tournament.pk)
    assert kept and kept == aggregates.recount_tournament(tournament.pk)


def round_robin(bots: int, start: int = 0, tournament: Tournament | None = None) -> Tournament:
    """A finished round robin: bots ``start`` to ``bots - 1`` added, each pair meeting once,
    stored through the models and the totals' function as the worker stores them."""
    owner = User.objects.get_or_create(username="erin")[0]
    if tournament is None:
        tournament = Tournament.objects.create(game="rps-poker", name="big", state="done")
    entrants = list(Bot.objects.filter(name__startswith="r").order_by("pk"))
    entrants += [
        Bot.objects.create(owner=owner, game="rps-poker", name=f"r{k:03d}")
        for k in range(start, bots)
    ]
    for a, b in combinations(range(bots), 2):
        if b < start:
            continue  # met already
        match = Match.objects.create(tournament=tournament, game="rps-poker", seed=a, record={})
        scores = ((a * 7 + b) % 11, (b * 5 + a) % 11)
        seats = MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=n, bot=entrants[k], score=scores[n],
                      fault_kind="crash" if (a + b) % 13 == 0 and n == 1 else "")
            for n, k in enumerate((a, b))
        )  # fmt: skip
        aggregates.record(match, seats)
    return tournament


def from_seats(tournament: Tournament) -> dict[tuple[int, int], list[float]]:
    """(bot, opponent) -> [points for, points against, matches], counted from the seats."""
    out: dict[tuple[int, int], list[float]] = {}
    for match in Match.objects.filter(tournament=tournament).prefetch_related("participants"):
        seats = list(match.participants.all())
        for mine in seats:
            for theirs in seats:
                if mine.bot_id != theirs.bot_id:
                    cell = out.setdefault((mine.bot_id, theirs.bot_id), [0.0, 0.0, 0])
                    cell[0] += mine.score
                    cell[1] += theirs.score
                    cell[2] += 1
    return out


def test_a_large_tournament_shows_its_best_in_the_grid_and_every_bot_in_the_standings(client, db):
    tournament = round_robin(CROSS_TOP + 7)
    assert aggregates.kept_tournament(tournament.pk) == aggregates.recount_tournament(tournament.pk)
    body = client.get(f"/api/tournaments/{tournament.pk}/").json()["results"]
    standings = body["bots"]
    assert len(standings) == CROSS_TOP + 7 and body["more"] is True
    points = [b["points"] for b in standings]
    assert points == sorted(points, reverse=True)
    assert [b["place"] for b in standings] == list(range(1, CROSS_TOP + 8))
    pairs = from_seats(tournament)
    assert len(body["grid"]) == CROSS_TOP
    for row, line in zip(standings, body["grid"], strict=False):
        assert line["bot"]["id"] == row["id"] and len(line["cells"]) == CROSS_TOP
        for col, cell in zip(standings, line["cells"], strict=False):
            if col["id"] == row["id"]:
                assert cell is None
                continue
            mine, theirs, n = pairs[row["id"], col["id"]]
            assert (cell["for"], cell["against"], cell["matches"]) == (mine, theirs, n)
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert html.count('<td><a href="?bot=') == CROSS_TOP + 7  # the standings
    head = html.split('<table class="board cross">', 1)[1].split("</thead>", 1)[0]
    assert head.count('<th scope="col"><a href="/bots/') == CROSS_TOP


def test_each_bots_row_against_every_opponent_is_its_own_view(client, db):
    tournament = round_robin(CROSS_TOP + 5)
    last = client.get(f"/api/tournaments/{tournament.pk}/").json()["results"]["bots"][-1]
    pairs = from_seats(tournament)
    mine = client.get(f"/api/tournaments/{tournament.pk}/", {"bot": last["id"]}).json()
    found = mine["bot_results"]
    assert found["bot"]["id"] == last["id"] and len(found["cells"]) == CROSS_TOP + 4
    for cell in found["cells"]:
        expected = pairs[last["id"], cell["opponent_id"]]
        assert [cell["for"], cell["against"], cell["matches"]] == expected
    html = client.get(f"/tournaments/{tournament.pk}/", {"bot": last["id"]}).content.decode()
    section = html.split('id="bot-results"', 1)[1].split("</table>", 1)[0]
    assert len(re.findall(r'<th scope="row"><a href="/bots/\d+/">', section)) == CROSS_TOP + 4


@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "\u00b2", "9" * 30])
def test_a_forged_bot_is_a_clear_400_and_a_stranger_a_404(client, db, value):
    tournament = round_robin(3)
    for path in (f"/tournaments/{tournament.pk}/", f"/api/tournaments/{tournament.pk}/"):
        response = client.get(path, {"bot": value})
        assert response.status_code == 400, path
        # the page's own 400 (HTML, its words escaped) or the API's JSON
        assert "is not a bot's id" in html.unescape(response.content.decode())
        stranger = client.get(path, {"bot": "999999"})
        assert stranger.status_code == 404, path


def test_a_tournament_page_asks_as_many_queries_at_40_bots_as_at_25(client, db):
    tournament, counts = None, []
    for start, bots in ((0, 25), (25, 40)):
        tournament = round_robin(bots, start, tournament)
        last = Bot.objects.order_by("-pk").first()
        caches["default"].clear()  # the jobs counted afresh each time (kept a few seconds)
        with CaptureQueriesContext(connection) as seen:
            for query in ({}, {"bot": last.pk}):
                assert client.get(f"/tournaments/{tournament.pk}/", query).status_code == 200
                assert client.get(f"/api/tournaments/{tournament.pk}/", query).status_code == 200
        counts.append(len(seen))
    assert counts[0] == counts[1]
