"""The admin's lists of the tables that grow with every match (matches, jobs, rating
history): as many queries at a hundred rows as at two, newest first by id, no count of
every row for a filtered list, no match record read, and the game filter from the site's
games rather than a DISTINCT over every row."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bots.models import Bot, Match, MatchJob, RatingHistory, Tournament
from games.registry import game_slugs

LISTS = ["match", "matchjob", "ratinghistory"]


@pytest.fixture
def moderator(db, client):
    user = User.objects.create_superuser("mod", "mod@example.org", "pw-not-used")
    client.force_login(user)
    return user


def played(count: int, game: str = "kuhn") -> list[Match]:
    """``count`` matches of a tournament, each with its job and a bot's rating change."""
    owner = User.objects.create_user(f"owner{Bot.objects.count()}")
    bot = Bot.objects.create(owner=owner, game=game, name="b", language="python")
    tournament = Tournament.objects.create(game=game)
    made = []
    for n in range(count):
        job = MatchJob.objects.create(
            tournament=tournament, game=game, seats=[1, 2], seed=n, status=MatchJob.DONE
        )
        match = Match.objects.create(
            game=game, seed=n, job=job, tournament=tournament, rated=True,
            record={"seats": [], "events": [], "padding": "x" * 1000},
        )  # fmt: skip
        RatingHistory.objects.create(
            bot=bot, match=match, number=n + 1, mu=25, sigma=8, mu_before=25, sigma_before=8
        )
        made.append(match)
    return made


def listed(client, model: str, query: str = "") -> tuple[str, list[str]]:
    with CaptureQueriesContext(connection) as read:
        response = client.get(reverse(f"admin:bots_{model}_changelist") + query)
    assert response.status_code == 200, model
    return response.content.decode(), [q["sql"] for q in read.captured_queries]


def test_the_long_lists_read_as_many_times_at_many_rows_as_at_two(moderator, client):
    played(2)
    few = {model: len(listed(client, model)[1]) for model in LISTS}
    played(30)
    many = {model: len(listed(client, model)[1]) for model in LISTS}
    assert many == few


def test_the_match_list_is_newest_first_and_leaves_the_records_unread(moderator, client):
    first, *_, last = played(3)
    page, queries = listed(client, "match")
    change = reverse("admin:bots_match_change", args=[last.pk])
    assert page.index(change) < page.index(reverse("admin:bots_match_change", args=[first.pk]))
    rows = [q for q in queries if q.startswith('SELECT "bots_match"."id"')]
    assert rows and not [q for q in rows if '"bots_match"."record"' in q]


def test_the_game_filter_lists_the_sites_games_and_counts_no_whole_table(moderator, client):
    played(2, "kuhn")
    played(1, "leduc")
    for model in ("match", "matchjob"):
        page, queries = listed(client, model, "?game=leduc")
        assert not [q for q in queries if "DISTINCT" in q], model
        # a filtered list does not count every row as well ("Show all" instead)
        assert len([q for q in queries if "COUNT(" in q]) == 1, (model, queries)
        for slug in game_slugs():
            assert f"?game={slug}" in page, (model, slug)
    page, _ = listed(client, "match", "?game=leduc")
    assert "1 match" in page
