"""The public leaderboards: the home page's current leaders and each game's full board."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots import competition
from bots.ladder.ratings import on_new_version
from bots.models import Bot, BotVersion, LeaderboardRow, OpponentResult, Tournament
from bots.worker import Options, Worker
from cardsite.written import minus_signs
from games.registry import game_slugs, get_game
from tests.conftest import starter_source


@pytest.fixture
def rows(db):
    alice = get_user_model().objects.create_user("alice", password="x" * 12)
    bob = get_user_model().objects.create_user("bob", password="x" * 12)
    made = []
    for rank, (owner, name, mu) in enumerate(
        [(alice, "counter", 31.0), (bob, "greedy", 27.5), (alice, "dumper", 22.0),
         (bob, "fourth", 18.0)], 1
    ):  # fmt: skip
        bot = Bot.objects.create(owner=owner, game="rps-poker", name=name, language="python")
        made.append(LeaderboardRow.objects.create(
            bot=bot, game="rps-poker", rank=rank, mu=mu, sigma=2.0, conservative=mu - 6,
            matches=10 * rank, last_played=timezone.now(),
            score={"name": name, "source": "", "score": 60 - rank, "games": 100, "wins": 5,
                   "draws": 1, "losses": 4, "faults": 0, "matches": 10, "fault_kinds": {},
                   "mean_call_ms": 0.1, "win_rate": 0.5, "win_rate_ci95": [0.4, 0.6],
                   "head_to_head": {}},
        ))  # fmt: skip
    return made


def test_it_shows_the_top_three_of_each_game_on_the_home_page(client, rows):
    page = client.get("/").content.decode()
    assert "Current leaders" in page
    for name in ("counter", "greedy", "dumper"):
        assert name in page
    assert "fourth" not in page
    assert page.index("counter") < page.index("greedy") < page.index("dumper")
    assert "/games/rps-poker/leaderboard/" in page


def test_it_shows_every_row_of_a_game_with_its_own_columns(client, rows):
    response = client.get("/games/rps-poker/leaderboard/")
    assert response.status_code == 200
    page = response.content.decode()
    for name in ("counter", "greedy", "dumper", "fourth"):
        assert name in page
    assert "score (games won)" in page  # RPS Poker's own column
    assert "games won % (95% CI)" in page  # a share of games, not of matches
    assert "25.00" in page  # counter's rating, mu - 3 sigma
    assert page.index("counter") < page.index("fourth")


def test_an_owners_name_wraps_as_a_bots_does(client, rows):
    """A long username (a browser test's 43 characters) widened the ranking past a desktop
    window: the owner's cell holds a name that wraps past its width, as the bot's does."""
    page = client.get("/games/rps-poker/leaderboard/").content.decode()
    assert '<td data-sort="alice"><span class="name">alice</span></td>' in page


@pytest.mark.parametrize("game", ["rps-poker", "uth"])
def test_the_sort_hint_says_it_sorts_the_rows_of_the_page_shown(client, rows, game):
    # sortable.js sorts the rows in the page; the board comes 50 rows a page
    page = " ".join(client.get(f"/games/{game}/leaderboard/").content.decode().split())
    assert "Select a column heading to sort the rows of this page." in page
    assert "sort by it" not in page


@pytest.mark.django_db
def test_it_says_when_a_game_has_no_rated_bots(client):
    page = client.get("/games/last-card/leaderboard/").content.decode()
    assert "No bots have been rated in Last Card yet." in page
    assert "No bots rated yet." in client.get("/").content.decode()


@pytest.mark.django_db
def test_a_bot_that_has_played_no_match_is_not_a_leader(client):
    # a bot is ranked at the starting rating (0.00) as soon as its version is active, here
    # above one that has played and lost: only the one that played leads
    owner = get_user_model().objects.create_user("dave", password="x" * 12)
    for rank, (name, conservative, matches) in enumerate(
        [("kuhn-newcomer", 0.0, 0), ("kuhn-veteran", -1.5, 6)], 1
    ):
        bot = Bot.objects.create(owner=owner, game="kuhn", name=name, language="python")
        LeaderboardRow.objects.create(
            bot=bot, game="kuhn", rank=rank, mu=25, sigma=25 / 3, conservative=conservative,
            matches=matches,
        )  # fmt: skip
    for page in ("/", "/leaderboards/"):
        html = client.get(page).content.decode()
        assert "kuhn-veteran" in html and "kuhn-newcomer" not in html
    # a game whose only bots have not played yet has no leaders, as a game with no bots
    LeaderboardRow.objects.filter(bot__name="kuhn-veteran").update(matches=0)
    html = client.get("/").content.decode()
    assert "kuhn-veteran" not in html
    assert html.count("No bots rated yet.") == len(game_slugs())


@pytest.mark.django_db
def test_it_answers_404_for_an_unknown_game(client):
    assert client.get("/games/chess/leaderboard/").status_code == 404


@pytest.mark.django_db
def test_it_shows_the_leaders_of_a_one_seat_game_by_their_chips_not_a_rating(client):
    # UTH bots play alone against the dealer: ranked by net chips per round
    owner = get_user_model().objects.create_user("carol", password="x" * 12)
    bot = Bot.objects.create(owner=owner, game="uth", name="steady", language="python")
    LeaderboardRow.objects.create(
        bot=bot, game="uth", rank=1, mu=27, sigma=2.5, conservative=19.5, matches=20,
        score={"score": -1.37, "mean_net_per_round": -1.37, "mean_net_ci95": [-2.5, -0.24]},
    )  # fmt: skip
    page = client.get("/").content.decode()
    # (negatives with the minus sign, as every page writes them)
    assert 'title="net chips/round (95% CI)">\u22121.37 (\u22122.50 to \u22120.24)<' in page
    assert "19.5" not in page
    # a row stored with the score alone still shows it
    LeaderboardRow.objects.filter(bot=bot).update(score={"score": -1.37})
    assert 'title="net chips/round">\u22121.37<' in client.get("/").content.decode()


# ---- real data: bots entered directly as active versions, real matches played by the worker
#: markers that must never leave the server through a public page or the API
CODE_MARKER = "CODE-ONLY-MARKER-3f9a"
STDERR_MARKER = "STDERR-ONLY-MARKER-7c21"
VALIDATION_MARKER = "VALIDATION-ONLY-MARKER-51be"

#: an RPS Poker bot that prints to stderr and then raises in its second game
FAULTY_RPS = f"""
import sys

# {CODE_MARKER}
class Bot:
    name = "faulty"

    def __init__(self):
        self.games = 0

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        self.games += 1
        if self.games == 2:
            print("{STDERR_MARKER}", file=sys.stderr, flush=True)
            raise ValueError("no second game for me")
        return 0

    def main_postprocess(self, card):
        pass
"""


def builtin(game: str, name: str) -> str:
    return get_game(game).builtin_path(name).read_text()


def enter(owner, game: str, name: str, code: str, language: str = "python") -> BotVersion:
    """An active version of a new bot (as if it had passed validation), with its rating and
    leaderboard row; no placement matches."""
    bot = Bot.objects.create(owner=owner, game=game, name=name, language=language)
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        code=code,
        checksum=BotVersion.checksum_of(code),
        status=BotVersion.ACTIVE,
        validation_log=VALIDATION_MARKER,
    )
    on_new_version(version)
    return version


def play_everything() -> int:
    """Let a worker play every queued job (in the sandbox, as on the site)."""
    return Worker(Options(validate=False), name="test-worker").run(batch=True)


def users(*names: str) -> list:
    model = get_user_model()
    return [
        model.objects.filter(username=n).first() or model.objects.create_user(n, password="x" * 12)
        for n in names
    ]


@pytest.fixture
def rps_tournament(db) -> Tournament:
    """RPS Poker: simple, strong and a bot that faults, one round robin round, played."""
    alice, bob, carol = users("alice", "bob", "carol")
    enter(alice, "rps-poker", "simple", builtin("rps-poker", "simple"))
    enter(bob, "rps-poker", "strong", builtin("rps-poker", "strong"))
    enter(carol, "rps-poker", "faulty", FAULTY_RPS)
    tournament = competition.start_round_robin("rps-poker", 1, seed=11, name="Autumn cup")
    assert play_everything() == 6
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def last_card_tournament(db) -> Tournament:
    alice, bob = users("alice", "bob")
    enter(alice, "last-card", "naive", builtin("last-card", "naive"))
    enter(alice, "last-card", "heuristic", builtin("last-card", "heuristic"))
    enter(bob, "last-card", "naive-too", builtin("last-card", "naive"))
    enter(bob, "last-card", "starter", starter_source("last_card.py").read_text())
    tournament = competition.start_round_robin("last-card", 1, seed=5)
    assert play_everything() == 4  # one table, every rotation of its seats
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def uth_tournament(db) -> Tournament:
    alice, bob = users("alice", "bob")
    enter(alice, "uth", "basic", builtin("uth", "basic"))
    enter(bob, "uth", "checker", builtin("uth", "always-check"))
    tournament = competition.start_round_robin("uth", 1, seed=3)
    assert play_everything() >= 2
    tournament.refresh_from_db()
    return tournament


def test_it_ranks_bots_from_real_matches_with_sortable_numeric_columns(client, rps_tournament):
    page = client.get("/games/rps-poker/leaderboard/").content.decode()
    rows = {r.bot.name: r for r in LeaderboardRow.objects.filter(game="rps-poker")}
    assert rows["strong"].matches == 4 and rows["faulty"].faults >= 1
    # every header is a button inside a <th>, the first one says how the table is sorted
    # 11 leaderboard columns (head-to-head has its own section) and 6 statistics columns
    assert page.count('<th scope="col"') == page.count('<button type="button" class="sort">') == 17
    assert 'aria-sort="ascending"><button type="button" class="sort">rank' in page
    assert 'data-type="text"><button type="button" class="sort">bot' in page
    # numeric cells carry raw numbers: the rating unrounded, the win rate as a fraction
    strong = rows["strong"]
    assert f'data-sort="{strong.conservative!r}"' in page
    assert f'data-sort="{strong.score["win_rate"]!r}"' in page
    assert f'<a href="/bots/{strong.bot.pk}/">strong</a>' in page
    assert '<script src="/static/js/sortable.js" defer>' in page


def test_it_shows_the_statistics_and_a_readable_head_to_head(client, rps_tournament):
    page = client.get("/games/rps-poker/leaderboard/").content.decode()
    stats = page[page.index('id="stats-title"') : page.index('id="h2h-title"')]
    heads = re.findall(r'class="sort">([^<]+)<', stats)
    assert heads[:6] == ["bot", "games decided", "games won", "games won %", "95% interval",
                         "matches W-D-L"]  # fmt: skip
    # a faulty bot's unplayed games count, as the rules give them to its opponent: the
    # column and its note say so rather than calling them played
    faulty = LeaderboardRow.objects.get(bot__name="faulty")
    assert faulty.score["games"] == 10 * faulty.matches and "games played" not in page
    note = " ".join(stats.split())
    assert "after a fault, those left unplayed, which the rules give to the opponent" in note
    assert "Games won % is the games won of those decided." in note
    assert "which counts every game as independent; the games of a match are not" in note
    strong = LeaderboardRow.objects.get(bot__name="strong")
    assert f">{strong.score['score']:,}<" in stats
    h2h = page[page.index('id="h2h-title"') :]
    simple = Bot.objects.get(name="simple")
    against = OpponentResult.objects.get(bot=strong.bot, key=f"bot:{simple.pk}")
    mine, theirs = against.points_for, against.points_against
    assert f'against <a href="/bots/{simple.pk}/">alice/simple</a>' in h2h
    assert f"<strong>{mine:g}</strong> to {theirs:g}" in h2h


def test_it_shows_last_cards_kit_statistics_below_its_leaderboard(client, last_card_tournament):
    page = client.get("/games/last-card/leaderboard/").content.decode()
    stats = page[page.index('id="stats-title"') :]
    for header in ("pass moves", "cards played", "illegal moves", "times punished",
                   "punishment taken", "games won", "hand value pts", "last card pts",
                   "points taken"):  # fmt: skip
        assert f">{header}<" in stats
    heuristic = LeaderboardRow.objects.get(bot__name="heuristic")
    assert heuristic.score["games"] == 4
    assert f'data-sort="{heuristic.score["points_taken"]!r}"' in stats
    assert "fewer points taken is better" in page
    # ranked by rating, and the page says so rather than implying an order by points
    assert "the rows are in order of rating, not of points taken a game" in page


def test_it_shows_uth_mean_net_chips_with_their_interval(client, uth_tournament):
    page = client.get("/games/uth/leaderboard/").content.decode()
    stats = page[page.index('id="stats-title"') :]
    basic = LeaderboardRow.objects.get(bot__name="basic").score
    low, high = basic["mean_net_ci95"]
    assert "mean net chips/round" in stats
    assert minus_signs(f"{low:+.2f} to {high:+.2f}") in stats  # (the pages' minus sign)
    assert 'id="h2h-title"' not in page  # one seat per match: nobody to meet


def test_it_escapes_bot_names(client, db):
    (owner,) = users("mallory")
    enter(owner, "rps-poker", "<script>x</script>", builtin("rps-poker", "simple"))
    page = client.get("/games/rps-poker/leaderboard/").content.decode()
    assert "<script>x</script>" not in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page


def test_it_escapes_hostile_names_in_every_table_it_writes_itself(client, db):
    """The ranking, statistics, head-to-head, cross table and results by opponent are written
    as HTML in Python: a bot and an owner named to break out of an attribute or a tag, which
    played each other, show up escaped in each of them."""
    hostile = '"><img src=x onerror=alert(1)>'
    (mallory, eve) = users("mallory", "eve<b>")
    first = enter(mallory, "rps-poker", hostile, builtin("rps-poker", "simple"))
    enter(eve, "rps-poker", "<script>x</script>", builtin("rps-poker", "strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=3)
    assert play_everything() == 2
    pages = {
        "leaderboard": "/games/rps-poker/leaderboard/",
        "tournament": f"/tournaments/{tournament.pk}/",
        "bot": f"/bots/{first.bot_id}/",
    }
    for name, url in pages.items():
        page = client.get(url).content.decode()
        for raw in (hostile, "<script>x</script>", "<img", "<b>"):
            assert raw not in page, (name, raw)
        assert "&lt;script&gt;x&lt;/script&gt;" in page, name
    board = client.get(pages["leaderboard"]).content.decode()
    assert 'id="h2h-title"' in board  # the head-to-head was written, names escaped


def test_last_cards_numbers_say_they_are_a_share_of_games_or_per_game(client, last_card_tournament):
    page = client.get("/games/last-card/leaderboard/").content.decode()
    ranking = page[: page.index('id="stats-title"')]
    heads = re.findall(r'class="sort">([^<]+)<', ranking)
    # the kit's other statistics are in the table under it, by their own names
    assert heads[-4:] == ["points taken per game (95% CI)", "games won", "faults", "last played"]
    heuristic = LeaderboardRow.objects.get(bot__name="heuristic")
    won = f"{heuristic.score['games_won']:.0%}"
    assert f'data-sort="{heuristic.score["games_won"]!r}" class="num">{won}</td>' in ranking
    stats = page[page.index('id="stats-title"') : page.index('id="h2h-title"')]
    assert f">{won}</td>" in stats and "Games won as a share of the games played" in stats
    # the bot's page: its numbers, each saying what it is
    own = client.get(f"/bots/{heuristic.bot.pk}/").content.decode()
    own = own[own.index('id="own-title"') : own.index("</section>", own.index('id="own-title"'))]
    titles = re.findall(r"<dt>([^<]+)</dt>", own)
    assert titles[:3] == ["points taken per game (95% CI)", "games won", "passes per game"]
    assert "illegal moves per game" in titles and "times punished per game" in titles
    assert f"<dt>games won</dt><dd>{won}</dd>" in own
    assert not [t for t in titles if t in ("won", "illegal", "punished")]


@pytest.fixture
def goofspiel_tournament(db) -> Tournament:
    alice, bob = users("alice", "bob")
    enter(alice, "goofspiel", "matching", builtin("goofspiel", "matching"))
    enter(bob, "goofspiel", "random", builtin("goofspiel", "random"))
    tournament = competition.start_round_robin("goofspiel", 1, seed=3)
    assert play_everything() >= 1
    return tournament


def test_goofspiels_head_to_head_says_it_counts_the_deal_score(client, goofspiel_tournament):
    """Goofspiel's match score is a deal score (+1, 0 or -1 a deal), not prize points: its
    head to head and each bot's results against each opponent say so; RPS Poker's count
    games won."""
    board = client.get("/games/goofspiel/leaderboard/").content.decode()
    assert "Each bot's deal score against the 3 opponents it has met most" in board
    assert "Points" not in board
    bot = Bot.objects.get(name="matching")
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "Deal score: this bot \u2013 the opponent" in page and "Points for" not in page


def test_rps_pokers_head_to_head_counts_games_won(client, rps_tournament):
    board = client.get("/games/rps-poker/leaderboard/").content.decode()
    assert "Each bot's games won against the 3 opponents it has met most" in board
    page = client.get(f"/bots/{Bot.objects.get(name='strong').pk}/").content.decode()
    assert "Games won: this bot \u2013 the opponent" in page


def met(row: LeaderboardRow, opponents: list[Bot]) -> None:
    """``row``'s bot met each of ``opponents``, the first most (results by opponent)."""
    for n, other in enumerate(opponents):
        OpponentResult.objects.create(
            bot=row.bot, key=f"bot:{other.pk}", opponent=other, matches=100 - n, wins=60 - n,
            losses=40, points_for=600 - n, points_against=400,
        )  # fmt: skip


def test_the_head_to_head_shows_the_opponents_met_most_and_links_to_them_all(client, rows):
    """A row's whole head-to-head (124 opponents at 125 bots: 776 KB of page a leaderboard)
    is on each bot's page, a page at a time: the leaderboard shows the three opponents each
    bot met most, and a link to the rest. Its queries are as many at 3 opponents as at 40."""
    owner = rows[0].bot.owner
    crowd = [
        Bot.objects.create(owner=owner, game="rps-poker", name=f"o{n:02d}", language="python")
        for n in range(40)
    ]
    url = "/games/rps-poker/leaderboard/"
    for row in rows:
        met(row, crowd[:3])
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for row in rows:
        OpponentResult.objects.filter(bot=row.bot).delete()
        met(row, crowd)
    with CaptureQueriesContext(connection) as many:
        page = client.get(url).content.decode()
    assert len(many.captured_queries) == len(few.captured_queries)
    h2h = page[page.index('id="h2h-title"') :]
    counter = rows[0].bot
    card = h2h[h2h.index(f'<h3><a href="/bots/{counter.pk}/">') :]
    card = card[: card.index("</div>")]
    assert card.count("<li>against ") == 3
    assert card.index("alice/o00") < card.index("alice/o01") < card.index("alice/o02")
    assert (
        f'against <a href="/bots/{crowd[0].pk}/">alice/o00</a>: <strong>600</strong> to 400' in card
    )
    assert "in 100 matches" in card and "o03" not in card
    assert f'<a href="/bots/{counter.pk}/#opponents-title">Every opponent it met</a>' in card
    assert "Its page lists every opponent it met." in " ".join(page.split())


def test_a_row_stored_with_its_whole_head_to_head_is_still_shown(client, rows):
    """Rows rated before the head-to-head left them keep it (in ``score`` and ``standing``)
    until their bot is rated again: the board shows them all the same, and the API sends
    none of it."""
    whole = {"bob/greedy": [37, 23]}
    for row in rows:
        row.score = row.score | {"head_to_head": {"bob/greedy": {"won": 37, "lost": 23}}}
        row.standing = {"name": row.bot.name, "source": "upload", "head_to_head": whole}
        row.save()
    page = client.get("/games/rps-poker/leaderboard/").content.decode()
    assert "counter" in page and "fourth" in page
    body = client.get("/api/games/rps-poker/leaderboard/").json()
    for found in body["results"]:
        assert "head_to_head" not in found and "head_to_head" not in found["score"]
        assert found["opponents"] == f"/api/bots/{found['bot']['id']}/"
    bot = client.get(f"/api/bots/{rows[0].bot.pk}/").json()
    assert "head_to_head" not in bot["leaderboard"]["score"]


def test_a_rated_row_stores_no_head_to_head_in_its_score(rps_tournament):
    """The ratings store each row's ``score`` from the game's ``bot_json``: the numbers its
    columns show, not a result per opponent (the arena's --json adds those itself)."""
    for row in LeaderboardRow.objects.filter(game="rps-poker"):
        assert row.score["matches"] == 4 and "head_to_head" not in row.score
