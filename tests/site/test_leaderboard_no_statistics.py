"""A leaderboard whose bots are ranked but have no rated match counted yet (just seeded, or
just uploaded): its statistics section says so, rather than showing a table of headings alone."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from bots.models import Bot, LeaderboardRow


@pytest.mark.django_db
def test_statistics_of_bots_with_no_rated_match_yet_say_there_are_none(client):
    owner = get_user_model().objects.create_user("erin", password="x" * 12)
    for rank, name in enumerate(["fresh-one", "fresh-two"], 1):
        bot = Bot.objects.create(owner=owner, game="rps-poker", name=name, language="python")
        LeaderboardRow.objects.create(
            bot=bot, game="rps-poker", rank=rank, mu=25, sigma=25 / 3, conservative=0.0
        )
    page = client.get("/games/rps-poker/leaderboard/").content.decode()
    assert "fresh-one" in page  # ranked
    stats = page[
        page.index('id="stats-title"') : page.index("</section>", page.index('id="stats-title"'))
    ]
    assert "No statistics yet" in stats
    assert "<table" not in stats


@pytest.mark.django_db
def test_statistics_of_bots_with_rated_matches_are_a_table(client):
    owner = get_user_model().objects.create_user("fred", password="x" * 12)
    bot = Bot.objects.create(owner=owner, game="rps-poker", name="veteran", language="python")
    LeaderboardRow.objects.create(
        bot=bot, game="rps-poker", rank=1, mu=30, sigma=2.0, conservative=24.0, matches=10,
        score={"name": "veteran", "source": "", "score": 55, "games": 100, "wins": 5,
               "draws": 1, "losses": 4, "faults": 0, "matches": 10, "fault_kinds": {},
               "mean_call_ms": 0.1, "win_rate": 0.55, "win_rate_ci95": [0.45, 0.65]},
    )  # fmt: skip
    page = client.get("/games/rps-poker/leaderboard/").content.decode()
    stats = page[
        page.index('id="stats-title"') : page.index("</section>", page.index('id="stats-title"'))
    ]
    assert "No statistics yet" not in stats
    assert "<table" in stats and "veteran" in stats
