"""Moderation in the Django admin."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from bots.models import BotVersion, MatchJob
from tests.competition.conftest import builtin_code

MODELS = [
    "bot", "botversion", "tournament", "matchjob", "match", "rating", "ratinghistory",
    "leaderboardrow",
]  # fmt: skip


@pytest.fixture
def moderator(db, client):
    user = User.objects.create_superuser("mod", "mod@example.org", "pw-not-used")
    client.force_login(user)
    return user


def test_it_lists_every_competition_model(moderator, client, alice, active_bot):
    version = active_bot(alice, "simple", builtin_code("simple"))
    for model in MODELS:
        response = client.get(reverse(f"admin:bots_{model}_changelist"))
        assert response.status_code == 200, model
    # the lists show the rows: the bot and its version, each a link to its own page
    for model, row in (("bot", version.bot), ("botversion", version)):
        page = client.get(reverse(f"admin:bots_{model}_changelist")).content.decode()
        assert f'href="{reverse(f"admin:bots_{model}_change", args=[row.pk])}"' in page, model
        assert "simple" in page and "alice" in page, model


def test_it_lets_a_moderator_reject_a_version(moderator, client, alice, active_bot):
    version = active_bot(alice, "simple", builtin_code("simple"))
    response = client.post(
        reverse("admin:bots_botversion_changelist"),
        {"action": "reject", "_selected_action": [version.pk]},
    )
    assert response.status_code == 302
    version.refresh_from_db()
    assert version.status == BotVersion.REJECTED
    assert "moderator mod" in version.reason


def test_it_lets_a_moderator_requeue_failed_jobs(moderator, client, alice, bob, active_bot):
    from bots import competition

    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=1)
    job = tournament.jobs.first()
    MatchJob.objects.filter(pk=job.pk).update(
        status=MatchJob.FAILED, attempts=3, errors=3, error="x"
    )
    client.post(
        reverse("admin:bots_matchjob_changelist"),
        {"action": "requeue", "_selected_action": [job.pk]},
    )
    job.refresh_from_db()
    assert (job.status, job.attempts, job.errors) == (MatchJob.QUEUED, 0, 0)


def test_it_leaves_failed_a_job_whose_seed_its_finished_tournament_shows(
    moderator, client, alice, bob, active_bot
):
    """An RPS Poker tournament shows its seeds once it is over, promising they never deal
    again: its failed jobs are not queued again (a new tournament deals fresh ones)."""
    from bots import competition
    from bots.models import Tournament

    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1)
    first, second = tournament.jobs.order_by("pk")
    MatchJob.objects.filter(pk=first.pk).update(status=MatchJob.FAILED, error="x")
    MatchJob.objects.filter(pk=second.pk).update(status=MatchJob.DONE)
    Tournament.objects.filter(pk=tournament.pk).update(state=Tournament.DONE)
    tournament.refresh_from_db()
    assert tournament.seeds_shown()
    response = client.post(
        reverse("admin:bots_matchjob_changelist"),
        {"action": "requeue", "_selected_action": [first.pk]},
        follow=True,
    )
    first.refresh_from_db()
    assert first.status == MatchJob.FAILED
    assert "1 job(s) left failed: their tournament is over" in response.content.decode()


def test_it_keeps_outsiders_out(db, client, alice):
    client.force_login(alice)
    response = client.get(reverse("admin:bots_botversion_changelist"))
    assert response.status_code == 302
