"""The tournament pages: the list, a tournament's progress and results, the progress JSON the
page polls, and the read-only websocket that carries the worker's progress messages."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots import competition
from bots.models import Match, MatchJob, MatchSeat, Tournament, TournamentResult
from cardsite.asgi import application
from cardsite.written import figure, score_pair
from games.consumers import READ_ONLY
from games.views import cross_table, cross_table_html, standings_html
from tests.site import test_leaderboard_pages as data
from tests.site.test_leaderboard_pages import builtin, enter, users

rps_tournament = data.rps_tournament
last_card_tournament = data.last_card_tournament
goofspiel_tournament = data.goofspiel_tournament
uth_tournament = data.uth_tournament

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


@pytest.fixture
def pending(db) -> Tournament:
    """Two RPS Poker bots and a queued round robin nobody has played yet."""
    (dora,) = users("dora")
    enter(dora, "rps-poker", "first", builtin("rps-poker", "simple"))
    enter(dora, "rps-poker", "second", builtin("rps-poker", "minimal"))
    versions = [bot.active_version() for bot in dora.bots.all()]
    return competition.start_round_robin(
        "rps-poker", 2, seed=9, name="Winter open", versions=versions
    )


def test_it_lists_tournaments_newest_first_with_their_progress(client, rps_tournament, pending):
    page = client.get("/tournaments/").content.decode()
    assert page.index("Winter open") < page.index("Autumn cup")
    assert f'href="/tournaments/{rps_tournament.pk}/">Autumn cup</a>' in page
    assert "6 / 6 matches played<" in page and "0 / 4 matches played<" in page
    # a match not played (its bot withdrawn) is not counted as played
    job = pending.jobs.order_by("id").first()
    MatchJob.objects.filter(pk=job.pk).update(status=MatchJob.FAILED, error="withdrawn")
    caches["default"].clear()  # (the counts are kept a few seconds)
    page = client.get("/tournaments/").content.decode()
    assert "0 / 4 matches played, 1 not played<" in page
    only_uth = client.get("/tournaments/?game=uth").content.decode()
    assert "Autumn cup" not in only_uth and "No tournaments yet." in only_uth


def test_it_shows_a_running_tournaments_progress_and_polls_without_a_shared_layer(
    client, pending, settings
):
    settings.REDIS_URL = ""
    MatchJob.objects.filter(pk=pending.jobs.order_by("pk").first().pk).update(
        status=MatchJob.RUNNING
    )
    page = client.get(f"/tournaments/{pending.pk}/").content.decode()
    assert "<h1>Winter open</h1>" in page
    assert "round robin" in page and ">Rounds</dt><dd>2<" in page
    assert ">Seed<" not in page  # until the tournament is over: it deals the seatings to come
    assert '<span class="count" data-count="queued">3</span>' in page
    assert '<span class="count" data-count="running">1</span>' in page
    assert '<progress id="progress-bar" max="100" value="0.0"' in page
    assert f'data-progress-url="/tournaments/{pending.pk}/progress.json"' in page
    assert "data-socket-path" not in page and "Updates every few seconds." in page
    assert "/static/js/tournament.js" in page
    assert "No matches played yet." in page
    assert "Cross table" not in page


def test_it_offers_the_websocket_when_a_shared_layer_is_configured(client, pending, settings):
    settings.REDIS_URL = "redis://shared-layer"
    page = client.get(f"/tournaments/{pending.pk}/").content.decode()
    assert f'data-socket-path="/ws/tournaments/{pending.pk}/"' in page
    assert "Updates live as matches finish." in page


def test_it_shows_the_cross_table_of_a_finished_tournament(client, rps_tournament):
    page = client.get(f"/tournaments/{rps_tournament.pk}/").content.decode()
    assert "Cross table" in page and "tournament.js" not in page
    strong_vs_simple = [0.0, 0.0]
    for match in Match.objects.filter(tournament=rps_tournament):
        scores = {s.bot.name: s.score for s in match.participants.select_related("bot")}
        if set(scores) == {"strong", "simple"}:
            strong_vs_simple[0] += scores["strong"]
            strong_vs_simple[1] += scores["simple"]
    cell = f"{strong_vs_simple[0]:g} \u2013 {strong_vs_simple[1]:g}"
    assert f'title="bob/strong against alice/simple, 2 matches">{cell}</td>' in page
    # the game's own word for what a score counts, not "points" for every game
    assert '<th scope="col">total games won</th>' in page and "total points" not in page
    assert "Each cell: the row bot's games won, then the column bot's" in page
    # recent results name the bots, their scores and a fault's kind, and link the match
    latest = Match.objects.filter(tournament=rps_tournament).order_by("-played", "-pk").first()
    assert f'<a href="/matches/{latest.pk}/">Match {latest.pk}</a>' in page
    assert '<span class="badge lost">exception</span>' in page


def _results(tournament, rows) -> dict[str, int]:
    """The tournament's kept results replaced by ``rows`` of (bot, opponent, matches, points
    for, against), its bots by name (opponent 0: all of them); its bots' ids by name."""
    kept = TournamentResult.objects.filter(tournament=tournament)
    ids = {row.bot.name: row.bot_id for row in kept.filter(opponent=0).select_related("bot")}
    kept.delete()
    for bot, opponent, matches, points, against in rows:
        TournamentResult.objects.create(
            tournament=tournament, bot_id=ids[bot], opponent=ids[opponent] if opponent else 0,
            matches=matches, points_for=points, points_against=against,
        )  # fmt: skip
    return ids


def test_a_placement_ranks_its_bots_per_match_and_says_so(client, rps_tournament):
    """A placement ranked by total points: its new bot, which plays every opponent while each
    opponent plays it alone, came first with 40 games won in 8 matches (5 a match) over
    bob/strong's 24 in 4 (6 a match), who had beaten it."""
    Tournament.objects.filter(pk=rps_tournament.pk).update(format=Tournament.PLACEMENT)
    new, strong, faulty = "simple", "strong", "faulty"  # (the placement's new bot: simple)
    bots = _results(rps_tournament, [
        (new, 0, 8, 40, 0), (strong, 0, 4, 24, 0), (faulty, 0, 4, 16, 0),
        (new, strong, 4, 16, 24), (strong, new, 4, 24, 16),
        (new, faulty, 4, 24, 16), (faulty, new, 4, 16, 24),
    ])  # fmt: skip
    rps_tournament.refresh_from_db()
    cross = cross_table(rps_tournament)
    assert [(b["label"], b["place"]) for b in cross["bots"]] == [
        ("bob/strong", 1), ("alice/simple", 2), ("carol/faulty", 3),
    ]  # fmt: skip
    assert cross["ranked_by"] == "mean"
    page = " ".join(
        client.get(f"/tournaments/{rps_tournament.pk}/?bot={bots[strong]}").content.decode().split()
    )
    assert "Bots in order of their games won per match (in a placement the new bot" in page
    assert '<th scope="col">games won per match</th>' in page
    assert '<td class="num">24</td><td class="num">6.00</td></tr>' in page
    assert "Place 1 of 3 by games won per match." in page
    api = client.get(f"/api/tournaments/{rps_tournament.pk}/").json()["results"]
    assert api["ranked_by"] == "mean" and api["bots"][0]["label"] == "bob/strong"
    # a round robin whose bots played as many matches each: by their totals, as its page says
    Tournament.objects.filter(pk=rps_tournament.pk).update(format=Tournament.ROUND_ROBIN)
    TournamentResult.objects.filter(tournament=rps_tournament, opponent=0).update(matches=8)
    page = client.get(f"/tournaments/{rps_tournament.pk}/").content.decode()
    assert "Bots in order of their total games won, the best first." in page
    assert "per match</th>" not in page


def test_a_round_robin_whose_bots_played_unlike_numbers_ranks_them_per_match(
    client, rps_tournament
):
    """A bot that left a round robin part-way had its matches withdrawn, so some opponents
    got its forfeits and others never met it: ranked by total, alice/simple came first with
    169 games won in 26 matches over bob/strong's 167 in 24."""
    _results(rps_tournament, [
        ("simple", 0, 26, 169, 0), ("strong", 0, 24, 167, 0), ("faulty", 0, 2, 0, 0),
        ("simple", "strong", 24, 149, 167), ("strong", "simple", 24, 167, 149),
        ("simple", "faulty", 2, 20, 0), ("faulty", "simple", 2, 0, 20),
    ])  # fmt: skip
    cross = cross_table(rps_tournament)
    assert [(b["label"], b["place"]) for b in cross["bots"]] == [
        ("bob/strong", 1), ("alice/simple", 2), ("carol/faulty", 3),
    ]  # fmt: skip
    assert cross["ranked_by"] == "mean" and cross["matches_range"] == [2, 26]
    page = " ".join(client.get(f"/tournaments/{rps_tournament.pk}/").content.decode().split())
    assert (
        "Bots in order of their games won per match (the bots played different numbers of "
        "matches, from 2 to 26, as some were never played, withdrawn when a bot left part-way "
        "or failed: totals over different numbers of matches do not compare), the best first."
    ) in page
    # each total beside the matches it is over, and the mean the rows are in order of
    assert '<th scope="col">matches</th><th scope="col">total games won</th>' in page
    assert '<td class="num">24</td><td class="num">167</td><td class="num">6.96</td></tr>' in page
    api = client.get(f"/api/tournaments/{rps_tournament.pk}/").json()["results"]
    assert api["ranked_by"] == "mean" and api["matches_range"] == [2, 26]
    assert [(b["label"], b["place"]) for b in api["bots"]][:2] == [
        ("bob/strong", 1), ("alice/simple", 2),
    ]  # fmt: skip


def test_a_pair_of_scores_reads_as_two_numbers_with_a_minus_sign_not_a_hyphen():
    assert score_pair(4, -4) == "4 \u2013 \u22124"
    assert score_pair(-84.0, 84.0) == "\u221284 \u2013 84"
    assert score_pair(-0.001, 1.5) == "0 \u2013 1.50"  # never a negative zero
    bots = [{"id": n, "label": f"ann/bot{n}", "points": p} for n, p in ((1, 84.0), (2, -84.0))]
    grid = [
        {"bot": bots[0], "cells": [None, {"for": 84.0, "against": -84.0, "matches": 2,
                                          "outcome": "won", "opponent": "ann/bot2"}]},
        {"bot": bots[1], "cells": [{"for": -84.0, "against": 84.0, "matches": 2,
                                    "outcome": "lost", "opponent": "ann/bot1"}, None]},
    ]  # fmt: skip
    rows = cross_table_html({"kind": "pairs", "grid": grid})
    assert ">84 \u2013 \u221284</td>" in rows and ">\u221284 \u2013 84</td>" in rows
    assert "&ndash;-" not in rows and "\u2013 -" not in rows


def test_a_total_beside_the_pairs_has_the_same_minus_sign():
    """/tournaments/21/ read "\u221222 \u2013 22" in its cells and "-174" (a hyphen) in the
    total column beside them."""
    bots = [
        {"id": n, "label": f"ann/bot{n}", "points": p, "place": n, "matches": 2, "mean": p / 2,
         "faults": 0}
        for n, p in ((1, 174.0), (2, -174.0))
    ]  # fmt: skip
    grid = [{"bot": bot, "cells": [None, None]} for bot in bots]
    rows = cross_table_html({"kind": "pairs", "grid": grid})
    assert '<td class="num">\u2212174</td>' in rows and '<td class="num">174</td>' in rows
    standings = standings_html({"bots": bots})
    assert '<td class="num">\u2212174</td><td class="num">\u221287.00</td>' in standings
    totals = cross_table_html({"kind": "totals", "bots": bots})
    assert '<td class="num">\u2212174</td><td class="num">\u221287.00</td>' in totals
    for html in (rows, standings, totals):
        assert not re.search(r">-[0-9]", html)


def test_every_page_writes_a_negative_figure_with_the_minus_sign(client, goofspiel_tournament):
    """The tournament's cross table, standings and recent results, the leaderboard, a bot's
    page and a match's page: a negative score or rating is never written with a hyphen."""
    loser = MatchSeat.objects.filter(match__tournament=goofspiel_tournament, score__lt=0).first()
    assert loser is not None
    pages = {
        url: client.get(url).content.decode()
        for url in (
            f"/tournaments/{goofspiel_tournament.pk}/",
            "/games/goofspiel/leaderboard/",
            f"/bots/{loser.bot_id}/",
            f"/matches/{loser.match_id}/",
        )
    }
    for url, page in pages.items():
        main = page[
            page.index("<main") : page.index('id="replay-frames"')
            if "replay-frames" in page
            else None
        ]
        assert "\u2212" in main, url
        # a hyphen before a figure, after a tag, a space or a bracket: a negative number
        assert not re.findall(r"[>\s(]-[0-9]", main), (
            url,
            re.findall(r".{40}[>\s(]-[0-9].{10}", main),
        )


def test_it_sums_each_pair_at_a_last_card_table(client, last_card_tournament):
    page = client.get(f"/tournaments/{last_card_tournament.pk}/").content.decode()
    assert "fewer is better" in page
    assert '<th scope="col">total points taken</th>' in page
    # four bots at one table in four seatings: every pair met in all four games
    assert page.count(", 4 matches") == 4 * 3


def test_it_shows_each_bots_totals_in_a_one_seat_game(client, uth_tournament):
    page = client.get(f"/tournaments/{uth_tournament.pk}/").content.decode()
    assert '<h2 id="cross-title">Totals</h2>' in page
    for seat in MatchSeat.objects.filter(match__tournament=uth_tournament):
        assert f">{figure(seat.score)}</td>" in page  # (a negative with the minus sign)


def test_it_answers_the_progress_json(client, rps_tournament):
    data = client.get(f"/tournaments/{rps_tournament.pk}/progress.json").json()
    assert data["tournament"] == rps_tournament.pk
    assert data["jobs"] == {"queued": 0, "running": 0, "done": 6, "failed": 0}
    assert data["total"] == 6 and data["percent"] == 100.0 and data["finished"] is True
    assert len(data["recent"]) == 6
    assert {len(r["seats"]) for r in data["recent"]} == {2}
    missing = client.get("/tournaments/999999/progress.json")
    assert missing.status_code == 404 and "error" in missing.json()
    assert client.get("/tournaments/999999/").status_code == 404


# ---- the websocket --------------------------------------------------------------------------
@pytest.fixture
def shared_layer(settings):
    settings.CHANNEL_LAYERS = IN_MEMORY
    settings.REDIS_URL = "redis://shared-layer"  # any shared layer; in-memory here


@pytest.fixture
def committed(transactional_db) -> Tournament:
    """A queued tournament, committed (the consumer reads it from another thread), made
    here on the main thread: the test itself opens no connection in asgiref's threads."""
    alice, bob = users("alice", "bob")
    enter(alice, "rps-poker", "simple", builtin("rps-poker", "simple"))
    enter(bob, "rps-poker", "strong", builtin("rps-poker", "strong"))
    return competition.start_round_robin("rps-poker", 2, seed=9)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_it_sends_the_progress_on_connect_then_the_workers_messages(shared_layer, committed):
    tournament = committed
    communicator = WebsocketCommunicator(
        application, f"/ws/tournaments/{tournament.pk}/", headers=ORIGIN
    )
    connected, _ = await communicator.connect()
    assert connected
    first = await communicator.receive_json_from(timeout=5)
    assert first["type"] == "progress" and first["tournament"] == tournament.pk
    assert first["jobs"] == {"queued": 4, "running": 0, "done": 0, "failed": 0}
    await get_channel_layer().group_send(
        tournament.group,
        {"type": "tournament.progress", "tournament": tournament.pk, "match": 17,
         "scores": [6, 4], "finished": False,
         "jobs": {"queued": 2, "running": 1, "done": 1, "failed": 0}},
    )  # fmt: skip
    message = await communicator.receive_json_from(timeout=5)
    assert message == {
        "type": "progress",
        "tournament": tournament.pk,
        "match": 17,
        "scores": [6, 4],
        "finished": False,
        "jobs": {"queued": 2, "running": 1, "done": 1, "failed": 0},
        "total": 4,
        "percent": 25.0,
    }
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_match_the_worker_stores_reaches_the_socket(shared_layer, committed):
    """The real path: the worker stores a result and pushes it to the tournament's group."""
    tournament = committed

    async def listen_while(step) -> dict:
        communicator = WebsocketCommunicator(
            application, f"/ws/tournaments/{tournament.pk}/", headers=ORIGIN
        )
        assert (await communicator.connect())[0]
        await communicator.receive_json_from(timeout=5)  # the progress on connect
        await database_sync_to_async(step)()
        message = await communicator.receive_json_from(timeout=10)
        await communicator.disconnect()
        return message

    def play_one() -> None:
        from bots.worker import Options, Worker

        assert Worker(Options(validate=False), name="w1").step()

    message = async_to_sync(listen_while)(play_one)
    assert message["type"] == "progress" and message["tournament"] == tournament.pk
    assert message["jobs"]["done"] == 1 and message["finished"] is False
    assert len(message["scores"]) == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_it_refuses_a_socket_for_a_tournament_that_does_not_exist(
    shared_layer, consumer_threads_cleaned
):
    communicator = WebsocketCommunicator(application, "/ws/tournaments/424242/", headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_it_refuses_what_a_client_sends(shared_layer, committed, consumer_threads_cleaned):
    tournament = committed
    communicator = WebsocketCommunicator(
        application, f"/ws/tournaments/{tournament.pk}/", headers=ORIGIN
    )
    assert (await communicator.connect())[0]
    await communicator.receive_json_from(timeout=5)
    await communicator.send_json_to({"type": "tournament.progress", "jobs": {"done": 99}})
    reply = await communicator.receive_json_from(timeout=5)
    assert reply == {"type": "error", "error": "this socket is read-only"}
    # it only listens: one that sends is let go (the page then polls)
    closed = await communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": READ_ONLY}
    await communicator.wait()


# ---- counting the jobs ----------------------------------------------------------------------
def job_counts(queries: list[dict]) -> list[str]:
    """The statements that count a tournament's jobs by status."""
    return [q["sql"] for q in queries if "bots_matchjob" in q["sql"] and "COUNT(" in q["sql"]]


def test_pages_polling_a_tournament_count_its_jobs_once_in_a_while(client, pending):
    """A worker tells every open page of a tournament each match it stores, and each page then
    reads the progress: at 250,000 jobs a count of them all took 40-100 ms a read. The count
    is kept a few seconds in the cache the web processes share: one count serves every page,
    the progress JSON and the list of tournaments meanwhile."""
    url = f"/tournaments/{pending.pk}/progress.json"
    with CaptureQueriesContext(connection) as first:
        assert client.get(url).json()["jobs"] == {"queued": 4, "running": 0, "done": 0, "failed": 0}
    assert len(job_counts(first.captured_queries)) == 1
    with CaptureQueriesContext(connection) as then:
        for _ in range(5):
            assert client.get(url).json()["jobs"]["queued"] == 4
            assert client.get(f"/tournaments/{pending.pk}/").status_code == 200
            assert "0 / 4 matches" in client.get("/tournaments/").content.decode()
    assert job_counts(then.captured_queries) == []
    # a tournament that finished is counted afresh: never the counts of its last seconds
    MatchJob.objects.filter(tournament=pending).update(status=MatchJob.DONE)
    Tournament.objects.filter(pk=pending.pk).update(state=Tournament.DONE)
    data = client.get(url).json()
    assert data["finished"] and data["jobs"] == {"queued": 0, "running": 0, "done": 4, "failed": 0}


def test_the_progress_is_counted_while_the_shared_cache_is_away(client, pending, monkeypatch):
    """Redis gone for a while: each read counts the jobs itself, the page still answers."""
    cache = caches["default"]

    def unreachable(*args, **kwargs):
        raise ConnectionRefusedError("no Redis")

    monkeypatch.setattr(cache, "get_many", unreachable)
    monkeypatch.setattr(cache, "set_many", unreachable)
    url = f"/tournaments/{pending.pk}/progress.json"
    for _ in range(2):
        with CaptureQueriesContext(connection) as read:
            assert client.get(url).json()["jobs"]["queued"] == 4
        assert len(job_counts(read.captured_queries)) == 1
