"""The profile of a person and the leaderboards of people and of both: the numbers shown are
the stored ones, the order agrees with them, pages follow each other, bounded queries."""

from __future__ import annotations

import html
import itertools
import json
import math
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.ladder.people import rerank
from bots.ladder.ratings import conservative
from bots.models import LeaderboardRow
from bots.pages.views import axis_ticks
from games import people_views
from games.live import tables
from games.models import PersonProfile, PersonRating
from tests.people.helpers import (
    GAME,
    house_builtin,
    make_user,
    play_table,
    ranked_bot,
    rated_match,
)

pytestmark = pytest.mark.django_db


def page(response) -> str:
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def profile_queries(client: Client, username: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        text = page(client.get(f"/people/{username}/"))
    return len(queries), text


def cell(text: str, role: str) -> str:
    found = re.search(rf'data-role="{role}">(?:<a [^>]*>)?([^<]*)<', text)
    assert found is not None, role
    return found.group(1)


def test_the_profile_shows_the_stored_numbers_and_costs_the_same_with_5_or_50_matches():
    strong = house_builtin("strong", 27.0, 3.0)
    counts = []
    for name, matches in (("ann", 5), ("bob", 50)):
        user = make_user(name)
        for n in range(matches):
            rated_match(user, strong, score=n % 3, their=1)  # won, lost, drew in turn
        rating = PersonRating.objects.get(user=user)
        count, text = profile_queries(Client(), name)
        counts.append(count)
        assert cell(text, "rating") == f"{rating.conservative:.2f}"
        assert cell(text, "mu-sigma") == f"{rating.mu:.2f} ± {rating.sigma:.2f}"
        assert cell(text, "matches") == str(matches)
        assert (cell(text, "wins"), cell(text, "draws"), cell(text, "losses")) == tuple(
            str(v) for v in (rating.wins, rating.draws, rating.losses)
        )
        assert rating.wins + rating.draws + rating.losses == matches
        assert cell(text, "rank") == str(rating.rank)
        assert '<path class="conservative"' in text
        assert f'<title id="chart-title">Rating history of {name} in RPS Poker</title>' in text
        listed = re.findall(r'<a href="/matches/(\d+)/">', text)
        assert len(listed) == min(matches, people_views.PROFILE_MATCHES)
        # the number after the opponent is theirs, in the game's own words
        assert '<th scope="col">Against (their games won)</th>' in text
    assert counts[0] == counts[1]


def test_the_profile_pages_its_matches_and_refuses_forged_positions():
    strong = house_builtin("strong", 27.0, 3.0)
    ann = make_user("ann")
    matches = [rated_match(ann, strong, score=n % 2, their=0).pk for n in range(25)]
    client = Client()
    first = page(client.get("/people/ann/"))
    shown = [int(n) for n in re.findall(r'<a href="/matches/(\d+)/">', first)]
    assert shown == matches[::-1][:20]
    older = re.search(r'href="\?after=([0-9_]+)&amp;game=rps-poker#recent-title" rel="next"', first)
    assert older is not None
    second = page(client.get(f"/people/ann/?after={older.group(1)}&game={GAME}"))
    assert [int(n) for n in re.findall(r'<a href="/matches/(\d+)/">', second)] == matches[4::-1]
    forged = client.get("/people/ann/?after=²_1")
    assert forged.status_code == 400 and b"not a position" in forged.content
    assert client.get("/people/ann/?game=nope").status_code == 400
    assert client.get("/people/nobody-here/").status_code == 404


def people_and_bots(people: int, bots: int) -> None:
    """People and bots of GAME with different ratings, ranked."""
    owner = make_user("owner")
    for n in range(bots):
        ranked_bot(owner, f"bot{n}", mu=20 + (n * 7) % 13, sigma=2 + n % 3, rank=0)
    rows = sorted(LeaderboardRow.objects.all(), key=lambda r: (-r.conservative, r.pk))
    for rank, row in enumerate(rows, start=1):
        row.rank = rank
        row.save(update_fields=["rank"])
    for n in range(people):
        user = make_user(f"p{n:02}")
        mu, sigma = 18 + (n * 5) % 17, 1.5 + (n % 4)
        PersonRating.objects.create(
            user=user, game=GAME, mu=mu, sigma=sigma, conservative=conservative(mu, sigma),
            matches=n % 5,
        )  # fmt: skip
    rerank(GAME)


def ranking(text: str) -> list[tuple[int, str, float]]:
    """The rows shown: place, who (their link) and the rating beside them."""
    rows = re.findall(
        r'<tr data-kind="\w+"><td class="num">(\d+)</td><th scope="row"><a href="([^"]+)">'
        r'.*?data-rating="([^"]+)"',
        text,
    )
    return [(int(place), html.unescape(who), float(rating)) for place, who, rating in rows]


def walk(client: Client, show: str) -> list[tuple[int, str, float]]:
    text = page(client.get(f"/games/{GAME}/leaderboard/?show={show}"))
    pages = [ranking(text)]
    while (
        found := re.search(r'href="\?after=([0-9_]+)&amp;show=\w+" rel="next"', text)
    ) is not None:
        text = page(client.get(f"/games/{GAME}/leaderboard/?after={found.group(1)}&show={show}"))
        pages.append(ranking(text))
        back = re.search(r'href="\?before=([0-9_]+)&amp;show=\w+" rel="prev"', text)
        assert back is not None
        previous = page(
            client.get(f"/games/{GAME}/leaderboard/?before={back.group(1)}&show={show}")
        )
        assert ranking(previous) == pages[-2]  # the page before is the one we came from
    return [row for p in pages for row in p]


@pytest.mark.parametrize("show", ["people", "both"])
def test_the_ranking_agrees_with_the_ratings_shown_and_page_two_follows_page_one(show, monkeypatch):
    monkeypatch.setattr(people_views, "BOARD_PAGE", 7)
    people_and_bots(people=17, bots=9)
    rows = walk(Client(), show)
    expected = 17 if show == "people" else 26
    assert [place for place, _, _ in rows] == list(range(1, expected + 1))
    ratings = [rating for _, _, rating in rows]
    assert ratings == sorted(ratings, reverse=True)
    assert len({who for _, who, _ in rows}) == expected
    stored = {f"/people/{r.user.username}/": r.conservative for r in PersonRating.objects.all()}
    for _, who, rating in rows:
        if who.startswith("/people/"):
            assert stored[who] == rating
    if show == "both":
        assert any(who.startswith("/bots/") for _, who, _ in rows)


def test_the_api_shows_people_and_both_in_the_same_order():
    people_and_bots(people=6, bots=4)
    client = Client()
    people = client.get(f"/api/games/{GAME}/leaderboard/?show=people").json()
    assert [r["place"] for r in people["results"]] == list(range(1, 7))
    assert [r["kind"] for r in people["results"]] == ["person"] * 6
    both = client.get(f"/api/games/{GAME}/leaderboard/?show=both").json()
    ratings = [r["rating"] for r in both["results"]]
    assert len(ratings) == 10 and ratings == sorted(ratings, reverse=True)
    bots = client.get(f"/api/games/{GAME}/leaderboard/").json()
    assert all("bot" in r for r in bots["results"])


def test_a_forged_show_is_a_clear_400():
    client = Client()
    bad = client.get(f"/games/{GAME}/leaderboard/?show=robots")
    assert bad.status_code == 400 and b"Show must be one of bots, people, both" in bad.content
    api = client.get(f"/api/games/{GAME}/leaderboard/?show=robots")
    assert api.status_code == 400 and "show must be one of" in json.loads(api.content)["error"]
    alone = client.get("/games/uth/leaderboard/?show=people")
    assert alone.status_code == 400 and b"people are not rated" in alone.content
    cursor = client.get(f"/games/{GAME}/leaderboard/?show=both&after=1")
    assert cursor.status_code == 400 and b"not a position" in cursor.content
    assert client.get(f"/games/{GAME}/leaderboard/").status_code == 200
    assert "People" in page(client.get(f"/games/{GAME}/leaderboard/"))


def test_signed_in_people_are_linked_to_their_profile_where_their_seat_is_shown():
    ann = make_user("ann")
    table = tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"])
    link = play_table(table)
    client = Client()
    assert 'href="/people/ann/"' in page(client.get(link["url"]))
    assert 'href="/people/ann/"' in page(client.get(table.get_absolute_url()))
    playing = tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"])
    assert tables.claim_start(playing, "host-channel")
    lobby = page(client.get(f"/games/{GAME}/tables/"))
    assert 'href="/people/ann/">ann</a> vs house/strong' in lobby
    guest, _ = tables.guest_table(GAME, ["me", "builtin:strong"])
    assert "/people/" not in page(client.get(play_table(guest)["url"]))


def test_a_hidden_profile_is_its_owners_alone_and_the_ranking_stays_whole():
    people_and_bots(people=4, bots=0)
    hider = make_user("hider")
    rated_match(hider, house_builtin("strong", 27.0, 3.0), score=1, their=0)
    rank = PersonRating.objects.get(user=hider).rank
    name = hider.username
    owner = Client()
    owner.force_login(hider)
    # public: the owner is offered to hide it; others see it and find the name on the board
    text = page(owner.get(f"/people/{name}/"))
    assert "<strong>Everyone.</strong>" in text and ">Hide my profile</button>" in text
    assert f'<a href="/people/{name}/">' in page(
        Client().get(f"/games/{GAME}/leaderboard/?show=people")
    )

    # only its owner may hide it, with a POST that names 1 or 0
    other = Client()
    other.force_login(PersonRating.objects.exclude(user=hider).first().user)
    assert other.post(f"/people/{name}/visibility/", {"hidden": "1"}).status_code == 403
    assert Client().post(f"/people/{name}/visibility/", {"hidden": "1"}).status_code == 403
    assert owner.post(f"/people/{name}/visibility/", {"hidden": "yes"}).status_code == 400
    assert owner.get(f"/people/{name}/visibility/").status_code == 405
    assert not profile_is_hidden(hider)
    done = owner.post(f"/people/{name}/visibility/", {"hidden": "1"})
    assert done.status_code == 302 and done["Location"] == f"/people/{name}/"
    assert profile_is_hidden(hider)

    # hidden: others get a 404 that says so, without the numbers; its owner sees it all
    hidden = Client().get(f"/people/{name}/")
    assert hidden.status_code == 404
    text = hidden.content.decode()
    assert f"{name} keeps their profile private" in text and 'data-role="rating"' not in text
    mine = page(owner.get(f"/people/{name}/"))
    assert "<strong>Only you.</strong>" in mine and 'data-role="rating"' in mine
    # the board: the same places and ratings, the name gone at rank 2
    board = page(Client().get(f"/games/{GAME}/leaderboard/?show=people"))
    assert f"/people/{name}/" not in board and name not in board
    rows = re.findall(
        r'<tr data-kind="person"><td class="num">(\d+)</td><th scope="row"'
        r'( class="muted">a private player</th>|><a href="[^"]+">)',
        board,
    )
    assert [int(place) for place, _ in rows] == [1, 2, 3, 4, 5]
    assert [int(place) for place, who in rows if "private" in who] == [rank]
    api = Client().get(f"/api/games/{GAME}/leaderboard/?show=people").json()["results"]
    second = api[rank - 1]
    assert second["name"] == "a private player" and second["page"] is None and second["private"]
    assert second["rating"] == round(PersonRating.objects.get(user=hider).conservative, 4)
    public = api[0 if rank != 1 else 1]
    assert not public["private"] and public["page"] == f"/people/{public['name']}/"

    # shown again
    owner.post(f"/people/{name}/visibility/", {"hidden": "0"})
    assert Client().get(f"/people/{name}/").status_code == 200


def test_a_hidden_profile_gives_no_last_played_time_that_a_match_page_would_name():
    people_and_bots(people=2, bots=0)
    PersonRating.objects.update(last_played=timezone.now())
    hider = make_user("hider")
    match = rated_match(hider, house_builtin("strong", 27.0, 3.0), score=1, their=0)
    rank = PersonRating.objects.get(user=hider).rank
    PersonProfile.objects.create(user=hider, hidden=True)
    # the public match names the player and says when it was played
    assert Client().get(f"/api/matches/{match.pk}/").json()["participants"][0]["player"] == "hider"
    for show in ("people", "both"):
        api = Client().get(f"/api/games/{GAME}/leaderboard/?show={show}").json()["results"]
        people = [r for r in api if r["kind"] == "person"]
        assert [r["last_played"] is None for r in people] == [r["private"] for r in people]
        assert any(r["private"] for r in people) and not all(r["private"] for r in people)
    board = page(Client().get(f"/games/{GAME}/leaderboard/?show=people"))
    rows = re.findall(r'<tr data-kind="person">(.*?)</tr>', board)
    assert "a private player" in rows[rank - 1] and rows[rank - 1].endswith("<td>-</td>")
    assert not any(row.endswith("<td>-</td>") for n, row in enumerate(rows) if n != rank - 1)
    # its owner is told that the match pages still show the name
    owner = Client()
    owner.force_login(hider)
    mine = page(owner.get("/people/hider/"))
    assert "Your name still shows at the tables you sit at and on the" in mine
    # and that those pages let anyone tell which private row is theirs
    assert "can still tell which private row is yours" in " ".join(mine.split())


def profile_is_hidden(user) -> bool:
    user.refresh_from_db()
    return PersonProfile.objects.filter(user=user, hidden=True).exists()


def test_the_profile_says_what_its_chart_shows_and_switches_games_with_a_labelled_control():
    strong = house_builtin("strong", 27.0, 3.0)
    ann = make_user("ann")
    for n in range(5):
        rated_match(ann, strong, score=n % 3, their=1)
    goof = house_builtin("matching", 25.0, 8.0)
    goof.game = "goofspiel"
    goof.save()
    rated_match(ann, goof, score=1, their=0, game="goofspiel")
    text = page(Client().get("/people/ann/"))
    # the game it shows, named in the heading and in words over the chart
    assert '<h2 id="history-title">Rating history in RPS Poker</h2>' in text
    assert "How ann's rating in <strong>RPS Poker</strong> moved over their 5 rated matches" in text
    # one labelled switch, a link a game, the one shown marked as current
    switch = re.search(r'<nav class="game-switch" aria-labelledby="game-switch-label">.*?</nav>',
                       text, re.S)  # fmt: skip
    assert switch is not None
    assert '<span class="game-switch-label" id="game-switch-label">Game shown</span>' in text
    links = re.findall(r'<a href="([^"]*)"( aria-current="page")?>([^<]*)<', switch.group(0))
    assert links == [
        ("?game=rps-poker#history", ' aria-current="page"', "RPS Poker "),
        ("?game=goofspiel#history", "", "Goofspiel "),
    ]
    assert '<section id="history" aria-labelledby="history-title">' in text
    # the ratings list no longer doubles as an unlabelled switch
    ratings = text[text.index('id="ratings"') : text.index("</table>")]
    assert "?game=" not in ratings
    other = page(Client().get("/people/ann/?game=goofspiel"))
    assert '<h2 id="history-title">Rating history in Goofspiel</h2>' in other
    assert "over their 1 rated match, one step a match" in other
    assert '<a href="?game=goofspiel#history" aria-current="page">' in other


def test_a_profile_of_one_game_needs_no_switch_and_a_game_not_played_offers_it():
    strong = house_builtin("strong", 27.0, 3.0)
    ann = make_user("ann")
    rated_match(ann, strong, score=1, their=0)
    assert 'class="game-switch"' not in page(Client().get("/people/ann/"))
    text = page(Client().get("/people/ann/?game=kuhn"))
    assert "ann has no rated Kuhn poker matches." in text
    assert '<a href="?game=rps-poker#history">' in text


def y_ticks(text: str) -> list[float]:
    grid = text[text.index('<g class="grid"') : text.index("</g>", text.index('<g class="grid"'))]
    labels = re.findall(r'text-anchor="end" dominant-baseline="middle">([^<]*)</text>', grid)
    return [float(v.replace("\u2212", "-")) for v in labels]  # (the pages' minus sign)


def test_the_rating_charts_value_axis_has_four_to_six_round_values_covering_the_lines():
    # a history whose lines span about 1.5 to 22: the axis once read "10" and "20" only
    strong = house_builtin("strong", 27.0, 3.0)
    ann = make_user("ann")
    for n in range(12):
        rated_match(ann, strong, score=1 if n % 4 else 0, their=0 if n % 4 else 1)
    rows = list(PersonRating.objects.get(user=ann).history.order_by("number"))
    lows = [rows[0].mu_before - 3 * rows[0].sigma_before] + [r.mu - 3 * r.sigma for r in rows]
    highs = [rows[0].mu_before + rows[0].sigma_before] + [r.mu + r.sigma for r in rows]
    ticks = y_ticks(page(Client().get("/people/ann/")))
    assert 4 <= len(ticks) <= 6
    assert ticks[0] <= min(lows) and ticks[-1] >= max(highs)
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1
    (step,) = steps
    assert step / 10 ** math.floor(math.log10(step)) in (1, 2, 2.5, 4, 5)
    assert all(round(t / step, 9) == round(t / step) for t in ticks)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    st.floats(min_value=-200, max_value=200),
    st.floats(min_value=0.01, max_value=500),
)
def test_axis_ticks_are_four_to_six_round_values_covering_any_range(low, span):
    ticks = axis_ticks(low, low + span)
    assert 4 <= len(ticks) <= 6
    # (within a billionth of a step: rounding)
    assert ticks[0] <= low + 1e-6 * span and ticks[-1] >= low + span - 1e-6 * span
    # the shortest such axis: no more than about twice the range
    assert ticks[-1] - ticks[0] <= 2.01 * span


def test_bots_and_people_say_each_ones_rank_among_its_kind_in_words():
    people_and_bots(people=3, bots=12)
    text = page(Client().get(f"/games/{GAME}/leaderboard/?show=both"))
    assert '<th scope="col">rank among bots / people</th>' in text
    kinds = re.findall(r'<tr data-kind="(\w+)">.*?</th><td>([^<]*)</td>', text)
    assert len(kinds) == 15
    assert not [shown for _, shown in kinds if "#" in shown]
    for kind in ("bot", "person"):
        shown = [s for k, s in kinds if k == kind]
        group = "bots" if kind == "bot" else "people"
        assert shown[:3] == [f"1st of the {group}", f"2nd of the {group}", f"3rd of the {group}"]
    assert [s for k, s in kinds if k == "bot"][10:] == ["11th of the bots", "12th of the bots"]


@pytest.mark.parametrize("show", ["people", "both"])
def test_a_negative_rating_has_the_minus_sign_as_on_the_bots_leaderboard(show):
    ranked_bot(make_user("owner"), "low", mu=14.0, sigma=7.0, rank=1)  # 14 - 21 = -7.00
    PersonRating.objects.create(
        user=make_user("ann"), game=GAME, mu=16.0, sigma=7.5, conservative=conservative(16, 7.5),
        matches=2,
    )  # fmt: skip
    rerank(GAME)
    text = page(Client().get(f"/games/{GAME}/leaderboard/?show={show}"))
    assert ">\u22126.50</td>" in text and ">-6.50<" not in text
    if show == "both":
        assert ">\u22127.00</td>" in text


def test_people_are_said_to_be_rated_against_the_built_in_bots_only():
    """A table with an uploaded bot is friendly: a person is never rated against one."""
    ann = make_user("ann")
    rated_match(ann, house_builtin("strong", 27.0, 3.0), score=1, their=0)
    profile = " ".join(page(Client().get("/people/ann/")).split())
    assert (
        "Ratings come from rated tables only (against the site's built-in bots and against "
        "other people, on the bots' scale: a table with an uploaded bot is always friendly)"
    ) in profile
    board = " ".join(page(Client().get(f"/games/{GAME}/leaderboard/?show=people")).split())
    assert (
        "against the site's built-in bots and against other people (a table with an uploaded "
        "bot is always friendly)."
    ) in board
    assert "(against bots" not in profile and "): against bots" not in board
