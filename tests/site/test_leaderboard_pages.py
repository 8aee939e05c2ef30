"""The public leaderboards: the home page's current leaders and each game's full board."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from bots.models import Bot, LeaderboardRow


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
    assert "win rate" in page
    assert "25.00" in page  # counter's rating, mu - 3 sigma
    assert page.index("counter") < page.index("fourth")


@pytest.mark.django_db
def test_it_says_when_a_game_has_no_rated_bots(client):
    page = client.get("/games/last-card/leaderboard/").content.decode()
    assert "No bots have been rated in Last Card yet." in page
    assert "No bots rated yet." in client.get("/").content.decode()


@pytest.mark.django_db
def test_it_answers_404_for_an_unknown_game(client):
    assert client.get("/games/chess/leaderboard/").status_code == 404


@pytest.mark.django_db
def test_it_shows_the_games_own_score_for_leaders_of_an_unrated_game(client):
    owner = get_user_model().objects.create_user("carol", password="x" * 12)
    bot = Bot.objects.create(owner=owner, game="uth", name="steady", language="python")
    LeaderboardRow.objects.create(
        bot=bot, game="uth", rank=1, mu=25, sigma=8.3, conservative=0.0, score={"score": -1.37}
    )
    page = client.get("/").content.decode()
    assert 'title="mean net chips per round">-1.37<' in page
