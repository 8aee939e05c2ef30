"""The read-only JSON API: its index, shapes, pagination, JSON errors, conditional answers,
and that no bot's code, stderr or validation log ever appears in it."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, LeaderboardRow, Match, MatchSeat
from games.api import PAGE_SIZE
from games.registry import game_slugs
from tests.site import test_leaderboard_pages as data
from tests.site.test_leaderboard_pages import (
    CODE_MARKER,
    STDERR_MARKER,
    VALIDATION_MARKER,
    builtin,
    enter,
    users,
)

rps_tournament = data.rps_tournament
uth_tournament = data.uth_tournament


@pytest.mark.django_db
def test_it_lists_its_endpoints_at_the_index(client):
    response = client.get("/api/")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    paths = [e["path"] for e in response.json()["endpoints"]]
    for path in ("/api/games/", "/api/games/<slug>/leaderboard/", "/api/bots/<id>/",
                 "/api/matches/<id>/", "/api/tournaments/<id>/"):  # fmt: skip
        assert path in paths


@pytest.mark.django_db
def test_it_describes_the_games(client):
    body = client.get("/api/games/").json()
    assert body["count"] == len(game_slugs()) and body["page"] == 1 and body["next"] is None
    assert [g["slug"] for g in body["results"]] == game_slugs()
    rps = next(g for g in body["results"] if g["slug"] == "rps-poker")
    assert rps["title"] == "RPS Poker"
    assert rps["methods"] == ["draft_pick", "draft_receive", "main_play", "main_postprocess"]
    assert rps["time_control"] == {"move": 1.0, "bank": 10.0, "startup": 10.0}
    assert rps["builtin_bots"] == ["minimal", "simple", "strong"]
    assert rps["rules"] == "/games/rps-poker/" and rps["seats"] == {"min": 2, "max": 2}
    assert rps["leaderboard"] == "/api/games/rps-poker/leaderboard/"


def test_it_serves_a_leaderboard_from_real_matches(client, rps_tournament):
    body = client.get("/api/games/rps-poker/leaderboard/").json()
    assert body["game"] == "rps-poker" and body["next"] is None and "count" not in body
    ranks = [r["rank"] for r in body["results"]]
    assert ranks == [1, 2, 3]
    first = body["results"][0]
    row = LeaderboardRow.objects.get(rank=1, game="rps-poker")
    assert first["bot"] == {
        "id": row.bot.pk, "name": row.bot.name, "owner": row.bot.owner.username,
        "label": row.bot.label, "url": f"/api/bots/{row.bot.pk}/", "page": f"/bots/{row.bot.pk}/",
    }  # fmt: skip
    assert first["rating"] == round(row.conservative, 4) and first["matches"] == 4
    assert set(first["score"]) >= {"score", "win_rate", "win_rate_ci95", "wins", "faults"}
    # its results against each opponent: at the bot's address, a page at a time
    assert "head_to_head" not in first and "head_to_head" not in first["score"]
    assert first["opponents"] == f"/api/bots/{row.bot.pk}/"
    opponents = client.get(first["opponents"]).json()["opponents"]["results"]
    assert len(opponents) == 2 and sum(o["matches"] for o in opponents) == 4


@pytest.mark.parametrize("tie_every", [1, 4])
def test_it_pages_a_leaderboard_by_rank_from_where_the_last_page_stopped(client, db, tie_every):
    """Every bot once, in rank order, ties (forged: several rows of one rank) in a stable
    order; back from the second page is the first; no count and no page numbers."""
    owner = users("erin")[0]
    for n in range(2 * PAGE_SIZE + 3):
        bot = Bot.objects.create(owner=owner, game="uth", name=f"b{n:03d}", language="python")
        LeaderboardRow.objects.create(bot=bot, game="uth", rank=n // tie_every + 1, mu=25,
                                      sigma=8, conservative=1, score={"score": -n})  # fmt: skip
    expected = list(
        LeaderboardRow.objects.filter(game="uth").order_by("rank", "pk").values_list("bot_id")
    )
    expected = [pk for (pk,) in expected]
    first = client.get("/api/games/uth/leaderboard/").json()
    assert "count" not in first and "pages" not in first and first["previous"] is None
    assert first["next"].startswith("http://testserver/api/games/uth/leaderboard/?after=")
    elsewhere = client.get("/api/games/uth/leaderboard/", HTTP_HOST="127.0.0.1:8766").json()
    assert elsewhere["next"].startswith("http://127.0.0.1:8766/api/games/uth/leaderboard/?")
    seen, body = [], first
    while True:
        seen += [r["bot"]["id"] for r in body["results"]]
        if body["next"] is None:
            break
        body = client.get(body["next"]).json()
    assert seen == expected  # none repeated, none missing
    second = client.get(first["next"]).json()
    assert [r["bot"]["id"] for r in second["results"]] == expected[PAGE_SIZE : 2 * PAGE_SIZE]
    assert client.get(second["previous"]).json()["results"] == first["results"]


def test_a_leaderboard_page_asks_as_many_queries_at_a_thousand_bots_as_at_sixty(client, db):
    owner = users("erin")[0]
    counts = []
    for start, end in ((0, 60), (60, 1000)):
        bots = Bot.objects.bulk_create(
            Bot(owner=owner, game="uth", name=f"b{n:04d}", language="python")
            for n in range(start, end)
        )
        LeaderboardRow.objects.bulk_create(
            LeaderboardRow(bot=bot, game="uth", rank=n + 1, mu=25, sigma=8, conservative=1)
            for n, bot in zip(range(start, end), bots, strict=True)
        )
        first = client.get("/api/games/uth/leaderboard/").json()
        with CaptureQueriesContext(connection) as seen:
            assert client.get(first["next"]).status_code == 200
        counts.append(len(seen))
    assert counts[0] == counts[1]


@pytest.mark.parametrize("value", ["abc", "-1_2", "1", "1_2_3", "\u00b2_1", "9" * 19 + "_1"])
@pytest.mark.parametrize("side", ["after", "before"])
def test_a_forged_leaderboard_position_is_a_clear_400(client, db, side, value):
    response = client.get("/api/games/uth/leaderboard/", {side: value})
    assert response.status_code == 400
    assert "is not a position in this list" in response.json()["error"]


def test_it_describes_a_bot_with_its_versions_rating_and_matches(client, rps_tournament):
    faulty = Bot.objects.get(name="faulty")
    body = client.get(f"/api/bots/{faulty.pk}/").json()
    assert body["label"] == "carol/faulty" and body["game"] == "rps-poker"
    assert body["language"] == "python" and body["active_version"] == 1
    assert body["versions"][0]["number"] == 1 and body["versions"][0]["status"] == "active"
    assert body["leaderboard"]["rank"] == 3 and body["leaderboard"]["faults"] >= 1
    assert len(body["recent_matches"]) == 4
    assert {m["fault"] for m in body["recent_matches"]} == {"exception"}


def test_it_describes_a_match_with_its_faults_and_record(client, rps_tournament):
    seat = MatchSeat.objects.filter(bot__name="faulty").exclude(fault_kind="").first()
    match = seat.match
    response = client.get(f"/api/matches/{match.pk}/")
    body = response.json()
    assert body["id"] == match.pk and body["game"] == "rps-poker"
    assert body["tournament"] == {
        "id": rps_tournament.pk, "url": f"/api/tournaments/{rps_tournament.pk}/",
    }  # fmt: skip
    faulted = next(p for p in body["participants"] if p["bot"]["name"] == "faulty")
    assert faulted["fault"]["kind"] == "exception"
    assert "no second game for me" in faulted["fault"]["reason"]
    assert [p["score"] for p in body["participants"]] == body["record"]["result"]["scores"]
    assert body["record"]["events"] and body["record"]["seed"] == match.seed
    assert response["Last-Modified"]


def test_it_describes_a_tournament_with_its_cross_table(client, rps_tournament):
    body = client.get(f"/api/tournaments/{rps_tournament.pk}/").json()
    assert body["name"] == "Autumn cup" and body["state"] == "done"
    assert body["progress"]["jobs"]["done"] == 6 and body["progress"]["finished"] is True
    assert body["settings"]["seed"] == 11
    assert len(body["recent"]) == 6
    results = body["results"]
    assert results["kind"] == "pairs" and len(results["grid"]) == 3
    cells = [c for row in results["grid"] for c in row["cells"] if c]
    assert len(cells) == 6 and all(c["matches"] == 2 for c in cells)
    assert sum(c["for"] for c in cells) == 6 * 10  # every match hands out ten points
    listed = client.get("/api/tournaments/?game=rps-poker").json()
    assert [t["id"] for t in listed["results"]] == [rps_tournament.pk]


def test_it_gives_a_one_seat_games_tournament_its_totals(client, uth_tournament):
    results = client.get(f"/api/tournaments/{uth_tournament.pk}/").json()["results"]
    assert results["kind"] == "totals"
    assert {b["label"] for b in results["bots"]} == {"alice/basic", "bob/checker"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/api/games/chess/leaderboard/", "no game 'chess'"),
        ("/api/bots/9999/", "no bot 9999"),
        ("/api/matches/9999/", "no match 9999"),
        ("/api/tournaments/9999/", "no tournament 9999"),
        ("/api/tournaments/?game=chess", "no game 'chess'"),
        ("/api/nothing/here/", "no such endpoint: /api/nothing/here/"),
    ],
)
def test_it_answers_404s_in_json(client, path, message):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert message in response.json()["error"]


@pytest.mark.django_db
def test_it_is_read_only(client):
    for method in (client.post, client.put, client.delete):
        response = method("/api/games/")
        assert response.status_code == 405
        assert response["Allow"] == "GET, HEAD"
        assert "read-only" in response.json()["error"]


@pytest.mark.django_db
def test_it_is_read_only_in_json_for_a_browser_too():
    # A real client is held to CSRF checks, which used to answer first with an HTML page.
    browser = Client(enforce_csrf_checks=True)
    for method in (browser.post, browser.put, browser.delete):
        response = method("/api/bots/1/")
        assert response.status_code == 405
        assert response["Content-Type"] == "application/json"
        assert response["Allow"] == "GET, HEAD"


@pytest.mark.django_db
def test_it_answers_not_modified_to_a_matching_etag(client):
    first = client.get("/api/games/")
    etag = first["ETag"]
    assert etag
    again = client.get("/api/games/", headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    owner = users("finn")[0]
    enter(owner, "rps-poker", "newcomer", builtin("rps-poker", "simple"))
    changed = client.get("/api/games/", headers={"if-none-match": etag})
    assert changed.status_code == 200 and changed["ETag"] != etag


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "\u00b2"])
def test_a_bots_matches_before_a_position_that_is_not_one_is_a_clear_400(client, value):
    owner = users("gail")[0]
    bot = enter(owner, "rps-poker", "gailbot", builtin("rps-poker", "simple")).bot
    response = client.get(f"/api/bots/{bot.pk}/", {"before": value})
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    assert "before must be a match id (a whole number)" in response.json()["error"]
    assert client.get(f"/api/bots/{bot.pk}/", {"before": "5"}).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/games/", "/api/games/rps-poker/leaderboard/"])
def test_a_head_request_carries_the_gets_etag_and_is_not_modified_alike(client, path):
    got = client.get(path)
    head = client.head(path)
    assert head.status_code == 200 and head.content == b""
    assert head["ETag"] == got["ETag"]
    again = client.head(path, headers={"if-none-match": got["ETag"]})
    assert again.status_code == 304 and again["ETag"] == got["ETag"]


def test_a_head_request_of_a_match_carries_its_last_modified(client, rps_tournament):
    path = f"/api/matches/{Match.objects.first().pk}/"
    got = client.get(path)
    head = client.head(path)
    assert head["ETag"] == got["ETag"] and head["Last-Modified"] == got["Last-Modified"]
    since = client.head(path, headers={"if-modified-since": got["Last-Modified"]})
    assert since.status_code == 304


def test_no_code_stderr_or_validation_log_leaves_through_the_api(client, rps_tournament):
    seats = MatchSeat.objects.filter(bot__name="faulty").exclude(fault_kind="")
    assert any(STDERR_MARKER in s.stderr for s in seats)  # the marker is really stored
    paths = ["/api/", "/api/games/", "/api/games/rps-poker/leaderboard/", "/api/tournaments/",
             f"/api/tournaments/{rps_tournament.pk}/"]  # fmt: skip
    paths += [f"/api/bots/{bot.pk}/" for bot in Bot.objects.all()]
    paths += [f"/api/matches/{m.pk}/" for m in Match.objects.all()]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        text = response.content.decode()
        for marker in (CODE_MARKER, STDERR_MARKER, VALIDATION_MARKER):
            assert marker not in text, (path, marker)
        assert '"stderr"' not in text and '"code"' not in text and "validation_log" not in text
        json.loads(text)


def _stored_goofspiel_match(state: str, rated: bool = True) -> Match:
    """A Goofspiel match (a game whose seeds are shown once its tournament is over) of a
    tournament in ``state``, played an hour ago."""
    from datetime import timedelta

    from django.utils import timezone

    from bots.models import Tournament
    from bots.running.playing import Entry, play
    from games.registry import get_game

    entries = [Entry("m", builtin="matching"), Entry("r", builtin="random")]
    played = play(get_game("goofspiel"), entries, seed=5, config={"num_cards": 4, "deals": 1})
    record = json.loads(json.dumps(played.outcome.record))
    tournament = Tournament.objects.create(game="goofspiel", state=state)
    match = Match.objects.create(
        game="goofspiel", seed=5, record=record, tournament=tournament, rated=rated
    )
    Match.objects.filter(pk=match.pk).update(played=timezone.now() - timedelta(hours=1))
    match.refresh_from_db()
    return match


@pytest.mark.django_db
def test_a_match_whose_seed_is_shown_later_is_modified_when_its_tournament_finishes(client):
    from django.utils import timezone
    from django.utils.http import http_date

    from bots.models import Tournament

    match = _stored_goofspiel_match(Tournament.RUNNING)
    path = f"/api/matches/{match.pk}/"
    hidden = client.get(path)
    assert hidden.json()["seed"] is None
    # the answer will change when the seed is shown: no date to be asked against
    assert not hidden.has_header("Last-Modified")
    since = http_date(timezone.now().timestamp())  # what a client kept from that answer
    assert client.get(path, headers={"if-modified-since": since}).status_code == 200
    finished = timezone.now()
    Tournament.objects.filter(pk=match.tournament_id).update(
        state=Tournament.DONE, finished=finished
    )
    shown = client.get(path, headers={"if-modified-since": http_date(match.played.timestamp())})
    assert shown.status_code == 200 and shown.json()["seed"] == 5
    assert shown["Last-Modified"] == http_date(finished.timestamp())
    again = client.get(path, headers={"if-modified-since": shown["Last-Modified"]})
    assert again.status_code == 304


@pytest.mark.django_db
def test_a_match_not_rated_yet_has_no_last_modified(client):
    from bots.models import Tournament

    match = _stored_goofspiel_match(Tournament.RUNNING, rated=False)
    Tournament.objects.filter(pk=match.tournament_id).update(state=Tournament.DONE)
    answer = client.get(f"/api/matches/{match.pk}/")
    assert answer.json()["rated"] is False and not answer.has_header("Last-Modified")


@pytest.mark.django_db
def test_a_match_id_too_large_for_any_match_is_said_to_be_one(client):
    owner = users("hana")[0]
    bot = enter(owner, "rps-poker", "hanabot", builtin("rps-poker", "simple")).bot
    big = "9" * 23
    response = client.get(f"/api/bots/{bot.pk}/", {"before": big})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error.startswith("before must be a match id") and "whole number" not in error
    assert big in error


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["abc", "0", "-1", "1.5", "\u00b2"])
def test_a_page_of_games_that_is_not_a_page_number_is_a_clear_400(client, value):
    response = client.get("/api/games/", {"page": value})
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    assert response.json()["error"] == f"page must be a whole number from 1, not {value!r}"


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["2", "9" * 30])
def test_a_page_of_games_past_the_last_is_a_404(client, value):
    response = client.get("/api/games/", {"page": value})
    assert response.status_code == 404
    assert response.json()["error"].startswith(f"no page {value} (pages: 1 to 1)")
