"""Long lists go page by page from where the last page stopped (``cardsite.keyset``): the
leaderboard by rank, the tournaments newest first, a tournament's results newest first, and
the API's tournament list. Following the links gives every row once, in order, ties
included; a page asks as many queries at a long list as at a short one; and a forged
position is a clear 400, never a 500."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, LeaderboardRow, Match, MatchSeat, Tournament
from cardsite import keyset
from games.api import PAGE_SIZE
from games.views import LEADERBOARD_PAGE, RECENT_RESULTS, TOURNAMENTS_PER_PAGE

FORGED = ["abc", "-1", "1_2_3", "", "1.5", "9" * 19, "1_x", "%00", "\u00b2", "\u0663"]


def owners() -> list:
    return [get_user_model().objects.get_or_create(username=n)[0] for n in ("alice", "bob")]


def ranked(count: int, start: int = 0, *, tie_every: int = 0) -> None:
    """``count`` more ranked RPS Poker bots; with ``tie_every``, that many share each rank
    (ranks as forged data could hold them: the order must still be whole and stable)."""
    people = owners()
    for n in range(start, start + count):
        bot = Bot.objects.create(owner=people[n % 2], game="rps-poker", name=f"b{n:04d}")
        rank = 1 + (n // tie_every if tie_every else n)
        LeaderboardRow.objects.create(bot=bot, game="rps-poker", rank=rank, mu=25, sigma=2,
                                      conservative=19 - n / 1000, matches=n)  # fmt: skip


def names_on(html: str) -> list[str]:
    """The bots of a leaderboard page's ranking table, in order."""
    table = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r'<a href="/bots/\d+/">(b\d{4})</a>', table)


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'<a href="(\?[^"]*)" rel="{rel}">', html)
    return found[1].replace("&amp;", "&").split("#")[0] if found else None


def walk(client, path: str, read) -> list:
    """Every item of a list, following its "next" links from the first page."""
    seen, address = [], path
    for _ in range(100):
        html = client.get(address).content.decode()
        seen += read(html)
        query = link(html, "next")
        if query is None:
            return seen
        address = path.split("?")[0] + query
    raise AssertionError("the pages never ended")


@pytest.mark.django_db
@pytest.mark.parametrize("tie_every", [0, 3])
def test_the_leaderboards_pages_give_every_bot_once_in_rank_order(client, tie_every):
    ranked(2 * LEADERBOARD_PAGE + 7, tie_every=tie_every)
    expected = list(
        LeaderboardRow.objects.filter(game="rps-poker")
        .order_by("rank", "pk")
        .values_list("bot__name", flat=True)
    )
    first = client.get("/games/rps-poker/leaderboard/").content.decode()
    assert names_on(first) == expected[:LEADERBOARD_PAGE]
    assert link(first, "prev") is None and link(first, "first") is None
    seen = walk(client, "/games/rps-poker/leaderboard/", names_on)
    assert seen == expected  # no bot twice, none missing, ties in a stable order
    # back from the second page: the first again, whole
    second = client.get("/games/rps-poker/leaderboard/" + link(first, "next")).content.decode()
    assert names_on(second) == expected[LEADERBOARD_PAGE : 2 * LEADERBOARD_PAGE]
    back = client.get("/games/rps-poker/leaderboard/" + link(second, "prev")).content.decode()
    assert names_on(back) == expected[:LEADERBOARD_PAGE]


@pytest.mark.django_db
def test_a_leaderboard_page_asks_as_many_queries_at_a_thousand_bots_as_at_sixty(client):
    counts = []
    for start, size in ((0, 60), (60, 1000)):
        ranked(size - start, start=start)
        first = client.get("/games/rps-poker/leaderboard/").content.decode()
        deep = "/games/rps-poker/leaderboard/" + link(first, "next")
        pages = ["/games/rps-poker/leaderboard/", deep, "/", "/leaderboards/"]
        with CaptureQueriesContext(connection) as seen:
            for page in pages:
                assert client.get(page).status_code == 200
        counts.append(len(seen))
    assert counts[0] == counts[1]


@pytest.mark.django_db
@pytest.mark.parametrize("value", FORGED)
@pytest.mark.parametrize(
    "path",
    ["/games/rps-poker/leaderboard/", "/tournaments/", "/api/tournaments/", "/tournaments/{t}/"],
)
@pytest.mark.parametrize("side", ["after", "before"])
def test_a_forged_position_is_a_clear_400(client, path, side, value):
    ranked(3)
    tournament = Tournament.objects.create(game="rps-poker", name="cup")
    response = client.get(path.format(t=tournament.pk), {side: value})
    if value == "":  # no position at all: the first page
        assert response.status_code == 200
        return
    assert response.status_code == 400
    text = response.content.decode()
    assert "is not a position in this list" in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/games/rps-poker/leaderboard/", "/tournaments/", "/api/tournaments/"]
)
def test_a_position_past_the_end_is_an_empty_page_not_an_error(client, path):
    ranked(3)
    oldest = Tournament.objects.create(game="rps-poker", name="cup")
    # past the last row: below the lowest rank, or older than the oldest tournament
    cursor = "999999_999999" if "leaderboard" in path else str(oldest.pk)
    assert (
        client.get(path, {"before": "1" if "leaderboard" not in path else "0_0"}).status_code == 200
    )
    response = client.get(path, {"after": cursor})
    assert response.status_code == 200
    if path.startswith("/api/"):
        assert response.json()["results"] == []
        assert response.json()["next"] is None
        return
    text = response.content.decode()
    assert "<tbody>" not in text  # no table, so no rows
    if "leaderboard" in path:
        assert "No bots ranked this far down." in text
    else:
        assert tournaments_on(text) == []
        assert "No tournaments this far back." in text


def tournaments_on(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<th scope="row"><a href="/tournaments/(\d+)/">', html)]


@pytest.mark.django_db
def test_the_tournament_list_pages_newest_first_with_its_filter_kept(client):
    made = [Tournament.objects.create(game="rps-poker" if n % 3 else "uth", name=f"t{n}").pk
            for n in range(2 * TOURNAMENTS_PER_PAGE + 4)]  # fmt: skip
    assert walk(client, "/tournaments/", tournaments_on) == made[::-1]
    rps = [pk for n, pk in enumerate(made) if n % 3]
    first = client.get("/tournaments/?game=rps-poker").content.decode()
    assert "game=rps-poker" in link(first, "next")
    assert walk(client, "/tournaments/?game=rps-poker", tournaments_on) == rps[::-1]
    counts = []
    for extra in (0, 300):
        Tournament.objects.bulk_create(Tournament(game="uth", name="x") for _ in range(extra))
        caches["default"].clear()  # their jobs counted afresh each time (kept a few seconds)
        with CaptureQueriesContext(connection) as seen:
            html = client.get("/tournaments/").content.decode()
            client.get("/tournaments/" + link(html, "next"))
        counts.append(len(seen))
    assert counts[0] == counts[1]


@pytest.mark.django_db
def test_the_api_pages_tournaments_with_next_and_previous_links(client):
    made = [Tournament.objects.create(game="rps-poker", name=f"t{n}").pk
            for n in range(PAGE_SIZE + 5)]  # fmt: skip
    first = client.get("/api/tournaments/").json()
    assert [t["id"] for t in first["results"]] == made[::-1][:PAGE_SIZE]
    assert first["previous"] is None and "count" not in first
    second = client.get(first["next"]).json()
    assert [t["id"] for t in second["results"]] == made[::-1][PAGE_SIZE:]
    assert second["next"] is None
    again = client.get(second["previous"]).json()
    assert again["results"] == first["results"]
    bad = client.get("/api/tournaments/?after=abc")
    assert bad.status_code == 400 and "is not a position" in bad.json()["error"]


def results_on(html: str) -> list[int]:
    section = html.split('id="recent-results"', 1)[1].split("</ol>", 1)[0]
    return [int(pk) for pk in re.findall(r'<a href="/matches/(\d+)/">', section)]


@pytest.mark.django_db
def test_a_tournaments_results_page_back_to_its_first_match(client):
    people = owners()
    bots = [Bot.objects.create(owner=people[k], game="rps-poker", name=f"r{k}") for k in (0, 1)]
    tournament = Tournament.objects.create(game="rps-poker", name="cup", state=Tournament.DONE)
    ids = []
    for n in range(2 * RECENT_RESULTS + 3):
        match = Match.objects.create(tournament=tournament, game="rps-poker", seed=n, record={})
        MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=k, bot=bots[k], score=(n + k) % 3) for k in (0, 1)
        )
        ids.append(match.pk)
    path = f"/tournaments/{tournament.pk}/"
    first = client.get(path).content.decode()
    assert results_on(first) == ids[::-1][:RECENT_RESULTS]
    assert walk(client, path, results_on) == ids[::-1]
    second = client.get(path + link(first, "next")).content.decode()
    assert "Cross table" in second  # the rest of the page is the same
    back = client.get(path + link(second, "prev")).content.decode()
    assert results_on(back) == results_on(first)


def test_a_cursor_names_a_row_by_every_field_of_the_order():
    assert keyset.parse("12_345", 2) == (12, 345)
    for text in FORGED:
        with pytest.raises(keyset.BadCursor):
            keyset.parse(text, 2)


@pytest.mark.django_db
def test_a_page_of_one_games_tournaments_reads_the_index_of_them_by_game():
    """/tournaments/?game= and the API's list ask for one game's tournaments newest first:
    the index by game (bots.0009) serves it, where the primary key alone walks every other
    game's tournaments too, or the game's are all read and sorted. (PostgreSQL reads a table
    this small whole and sorts it unless told not to: the question here is whether the
    index fits the query, filter and order.)"""
    Tournament.objects.bulk_create(
        Tournament(game="uth" if n % 50 == 0 else "rps-poker", name=f"t{n}") for n in range(600)
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE bots_tournament")
            for method in ("seqscan", "bitmapscan", "sort"):
                cursor.execute(f"SET LOCAL enable_{method} = off")
    page = TOURNAMENTS_PER_PAGE + 1
    sorts = ("Sort", "TEMP B-TREE")  # PostgreSQL's and SQLite's words for a sort
    plan = Tournament.objects.filter(game="uth").order_by("-pk")[:page].explain()
    assert "tournament_game_newest" in plan and not any(s in plan for s in sorts), plan
    # a game most tournaments are of: the newest ones, by either index, with no sort
    plan = Tournament.objects.filter(game="rps-poker").order_by("-pk")[:page].explain()
    assert not any(s in plan for s in sorts), plan
    rare = Tournament.objects.filter(game="uth").order_by("-pk")
    assert [t.name for t in rare] == [f"t{n}" for n in range(550, -1, -50)]


@pytest.mark.django_db
def test_a_big_tournaments_latest_results_come_from_its_index_without_their_records(client):
    """At 500,000 matches, a ladder round holding a third of them, stored before other
    rounds' and tables' matches, took 0.5-2.3 s to find its 11 latest: asked as
    ``tournament_id = t ORDER BY id DESC``, PostgreSQL walked every match backwards by the
    primary key, past all the newer ones, and the API's read each match's whole record too.
    The page (each of its pages), progress.json (and the websocket, which sends the same)
    and the API ask in the order of ``match_tournament_latest`` (the tournament, then newest
    first) for ids and times only."""
    big = Tournament.objects.create(game="rps-poker", name="round", state=Tournament.RUNNING)
    other = Tournament.objects.create(game="kuhn", name="later round")
    made = Match.objects.bulk_create(
        Match(tournament=big, game="rps-poker", seed=n, record={}) for n in range(300)
    )
    Match.objects.bulk_create(
        Match(tournament=other if n % 3 else None, game="kuhn", seed=n, record={})
        for n in range(300)
    )
    newest = sorted(m.pk for m in made)[::-1]
    path = f"/tournaments/{big.pk}/"
    with CaptureQueriesContext(connection) as ctx:
        first = client.get(path).content.decode()
        later = client.get(path + link(first, "next")).content.decode()
        client.get(path + link(later, "prev"))
        progress = client.get(path + "progress.json").json()
        api = client.get(f"/api/tournaments/{big.pk}/").json()
    assert results_on(first) == newest[:RECENT_RESULTS]
    assert results_on(later) == newest[RECENT_RESULTS : 2 * RECENT_RESULTS]
    assert [r["match"] for r in progress["recent"]] == newest[:RECENT_RESULTS]
    assert [r["id"] for r in api["recent"]] == newest[:RECENT_RESULTS]
    reads = [
        q["sql"]
        for q in ctx.captured_queries
        if re.match(r'SELECT .* FROM "bots_match" ', q["sql"])
    ]
    # the page, its next page and back (two: back at the start, the first page is read
    # whole), progress.json, the API
    assert len(reads) == 6, reads
    for sql in reads:
        assert re.search(
            r'ORDER BY "bots_match"."tournament_id" (ASC|DESC), "bots_match"."id"', sql
        )
        one = (
            f'"bots_match"."tournament_id" >= {big.pk} AND "bots_match"."tournament_id" <= {big.pk}'
        )
        assert one in sql, sql  # a range: an equality drops the tournament from the order
        assert '"bots_match"."record"' not in sql, sql
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE bots_match")
            cursor.execute("SET LOCAL enable_sort = off")  # (a table this small: else sorted)
            cursor.execute("SET LOCAL enable_seqscan = off")
        explain = "EXPLAIN" if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN"
        for sql in reads:
            cursor.execute(f"{explain} {sql}")
            plan = "\n".join(str(row) for row in cursor.fetchall())
            assert "match_tournament_latest" in plan, plan
            assert "Sort" not in plan and "TEMP B-TREE" not in plan, plan
