"""A fresh site enters the built-in bots of every game, once."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from bots.models import Bot, BotVersion, LeaderboardRow, MatchJob
from games.registry import game_slugs, get_game


def seed() -> str:
    out = io.StringIO()
    call_command("seed_builtins", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_it_enters_every_built_in_bot_for_validation():
    said = seed()
    expected = {(slug, name) for slug in game_slugs() for name in get_game(slug).builtin_names}
    assert {(b.game, b.name) for b in Bot.objects.all()} == expected
    assert set(BotVersion.objects.values_list("status", flat=True)) == {BotVersion.VALIDATING}
    assert f"built-in bots: {len(expected)} new version(s)" in said
    house = get_user_model().objects.get(username="house")
    assert not house.has_usable_password()
    strong = BotVersion.objects.get(bot__game="rps-poker", bot__name="strong")
    assert strong.code == get_game("rps-poker").builtin_path("strong").read_text()


@pytest.mark.django_db
def test_it_adds_nothing_the_second_time():
    seed()
    count = BotVersion.objects.count()
    assert "built-in bots: 0 new version(s)" in seed()
    assert BotVersion.objects.count() == count


@pytest.mark.django_db
def test_it_adds_a_version_when_a_built_in_changed():
    seed()
    version = BotVersion.objects.get(bot__game="rps-poker", bot__name="simple")
    version.code += "\n# an older copy\n"
    version.checksum = BotVersion.checksum_of(version.code)
    version.save()
    assert "rps-poker: simple v2 queued for validation" in seed()


@pytest.mark.django_db(transaction=True)
def test_it_gets_every_built_in_validated_placed_and_ranked_by_a_worker(settings):
    # one validation match and one deal a pairing: every bot still meets every other
    settings.BOT_VALIDATION_MATCHES = 1
    settings.PLACEMENT_DEALS = 1
    seed()
    out = io.StringIO()
    call_command("worker", "--batch", "--ladder-interval", "0", "--display", "log", stdout=out)
    assert set(BotVersion.objects.values_list("status", flat=True)) == {BotVersion.ACTIVE}
    jobs = MatchJob.objects.all()
    assert jobs.exists()
    assert set(jobs.values_list("status", flat=True)) == {MatchJob.DONE}
    # UTH bots play alone against the dealer: their placement seats one bot per match.
    assert all(len(job.seats) == 1 for job in jobs.filter(game="uth"))
    ranked = {(row.game, row.bot.name) for row in LeaderboardRow.objects.select_related("bot")}
    # every game's every built-in is on its leaderboard, and nothing else is
    every = {(slug, name) for slug in game_slugs() for name in get_game(slug).builtin_names}
    assert ranked == every
