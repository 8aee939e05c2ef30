"""What a bot's owner reads on the retire page, the bot page and a tournament's page (an
audit of what an owner can learn and use, reportE): retiring keeps the twin of a deal it
played (E1), the retire page is styled like My bots (E2), and "Matches 0" no longer hides the
matches played but waiting to be rated (E3)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from bots import competition
from bots.models import Match, MatchJob
from bots.running.playing import Entry, play
from games.registry import get_game
from tests.site.test_bot_pages import builtin_code, make_active

RPS = get_game("rps-poker")


def in_process(job: MatchJob) -> object:
    versions = competition.seat_versions(job)
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
    return play(RPS, entries, seed=job.seed)


def test_the_retire_page_is_styled_and_says_a_played_deal_still_counts_both_ways(owner, alice):
    version = make_active(alice, "simple", builtin_code("simple"))
    html = owner.get(f"/my/bots/{version.bot_id}/retire/").content.decode()
    # the stylesheet My bots loads: buttons look like buttons (E2)
    assert '<link rel="stylesheet" href="/static/css/bots.css">' in html
    assert '<button type="submit" class="primary">Retire simple</button>' in html
    assert 'class="button" href="/my/bots/#bot-' in html
    words = " ".join(html.split())
    assert (
        "its matches still waiting in the queue are withdrawn, except the other seating of a "
        "deal it has already played: that one is still played, so the deal counts both ways "
        "(a match being played finishes and counts)."
    ) in words


def test_a_tournaments_failed_match_is_not_rated(db):
    house = User.objects.create_user("house-test")
    make_active(house, "simple", builtin_code("simple"))
    make_active(house, "minimal", builtin_code("minimal"))
    MatchJob.objects.all().delete()
    tournament = competition.start_round_robin("rps-poker", 1, seed=5)
    MatchJob.objects.filter(pk=tournament.jobs.first().pk).update(
        status=MatchJob.FAILED,
        error="withdrawn: the bot was retired by its owner",
        finished=timezone.now(),
    )
    html = " ".join(Client().get(f"/tournaments/{tournament.pk}/").content.decode().split())
    assert (
        "A failed match was not played (the site could not play it, or its bot was "
        "withdrawn): no bot is charged for it and it is not rated."
    ) in html


def test_the_bot_page_counts_matches_played_and_waiting_to_be_rated(owner, alice):
    mine = make_active(alice, "simple", builtin_code("simple"))
    make_active(User.objects.create_user("bob"), "minimal", builtin_code("minimal"))
    MatchJob.objects.all().delete()
    competition.start_round_robin("rps-poker", 1, seed=6)
    # (one worker holds both seatings of the deal, as no other may meanwhile)
    first, second = competition.claim("w1", 60), competition.claim("w1", 60)
    assert first is not None and second is not None
    # the second job finishes first: its rating waits for the first job, still playing
    assert competition.store_result(second, in_process(second.job)) is not None
    assert not Match.objects.get().rated
    html = " ".join(owner.get(f"/bots/{mine.bot_id}/").content.decode().split())
    assert (
        '<dt>Rated matches</dt><dd>0 <span class="muted">(1 more played, waiting to be rated: '
        "ratings are applied in the order matches were queued)</span></dd>"
    ) in html
    assert "No rated matches yet: 1 played, waiting to be rated." in html
    # once rated, the count is the rated matches' alone
    assert competition.store_result(first, in_process(first.job)) is not None
    html = " ".join(owner.get(f"/bots/{mine.bot_id}/").content.decode().split())
    assert "<dt>Rated matches</dt><dd>2</dd>" in html
    assert "waiting to be rated" not in html
