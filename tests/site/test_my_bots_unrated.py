"""My bots counts a bot's matches as its page does: those rated, and those played but waiting
to be rated (ratings are applied in the order matches were queued), never "0 matches" for a
bot that has played; and its note on retiring says which queued matches are still played."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction

from bots.competition.uploads import activate
from bots.ladder.ratings import SEATING_LOST
from bots.models import Bot, BotVersion, Match, MatchJob, MatchSeat, Tournament
from bots.pages.views import unrated_seats

GAME = "rps-poker"


def active_bot(user: User, name: str) -> Bot:
    """A bot with an active version made directly (no validation): it has a leaderboard row,
    with no rated match yet."""
    bot = Bot.objects.create(owner=user, game=GAME, name=name, language="python")
    code = "class Bot:\n    pass\n"
    version = BotVersion.objects.create(
        bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
    )
    with transaction.atomic():
        activate(version)
    return bot


def played(bot: Bot, seed: int, *, rated: bool, unrated: str = "") -> None:
    """A tournament match of ``bot``'s, stored and rated or not yet (or passed by for good,
    saying why: ``unrated``)."""
    tournament = Tournament.objects.create(game=GAME)
    job = MatchJob.objects.create(
        tournament=tournament, game=GAME, seats=[bot.active_version().pk, 0], seed=seed,
        status=MatchJob.DONE,
    )  # fmt: skip
    match = Match.objects.create(
        game=GAME, seed=seed, job=job, tournament=tournament, rated=rated, unrated=unrated,
        record={"seats": [], "events": []},
    )  # fmt: skip
    MatchSeat.objects.create(match=match, seat=0, bot=bot, name=bot.name, score=1.0)


def card(html: str, bot: Bot) -> str:
    found = re.search(rf'<article class="bot-card" id="bot-{bot.pk}".*?</article>', html, re.S)
    assert found, html
    return " ".join(found.group(0).split())


def test_a_bot_with_matches_waiting_to_be_rated_is_not_said_to_have_none(owner, alice):
    bot = active_bot(alice, "waiting")
    played(bot, 1, rated=False)
    shown = card(owner.get("/my/bots/").content.decode(), bot)
    assert "0 matches" not in shown
    assert (
        '0 rated matches <span class="muted">(1 more played, waiting to be rated)</span>' in shown
    )
    # as its page says it
    page = " ".join(owner.get(f"/bots/{bot.pk}/").content.decode().split())
    assert '0 <span class="muted">(1 more played, waiting to be rated:' in page


def test_a_bot_whose_matches_are_all_rated_says_how_many(owner, alice):
    bot = active_bot(alice, "rated")
    played(bot, 2, rated=True)
    bot.leaderboard_row.matches = 1
    bot.leaderboard_row.save()
    shown = card(owner.get("/my/bots/").content.decode(), bot)
    assert "<span>1 match</span>" in shown and "waiting to be rated" not in shown


def test_the_note_on_retiring_says_the_other_seating_of_a_deal_played_is_still_played(owner, alice):
    active_bot(alice, "noted")
    html = " ".join(owner.get("/my/bots/").content.decode().split())
    assert (
        "its queued ones are withdrawn (but the other seating of a deal it has already played "
        "or is playing, which is still played so that the deal counts both ways) and the bot "
        "leaves the leaderboard." in html
    )


def waiting_counts(owner, bot: Bot) -> tuple[str, str]:
    mine = card(owner.get("/my/bots/").content.decode(), bot)
    page = " ".join(owner.get(f"/bots/{bot.pk}/").content.decode().split())
    return mine, page


def test_matches_the_ratings_passed_by_for_good_do_not_wait(owner, alice):
    """A match whose deal lost its other seating is never rated (``Match.unrated`` says why):
    neither page counts it as waiting, both count the ones that do."""
    bot = active_bot(alice, "passed")
    played(bot, 1, rated=False)
    played(bot, 2, rated=False, unrated=SEATING_LOST)
    played(bot, 3, rated=True)
    mine, page = waiting_counts(owner, bot)
    assert "(1 more played, waiting to be rated)" in mine
    assert "(1 more played, waiting to be rated:" in page


@pytest.mark.postgresql
def test_the_waiting_counts_read_the_index_of_matches_waiting(owner, alice):
    """At a million matches the two counts read every match (a sequential scan, 100-460 ms).
    They are made from the matches waiting for their rating, which an index of their own
    holds (``match_unrated``): PostgreSQL serves both counts from it, whatever the number of
    matches played."""
    assert connection.vendor == "postgresql"
    bot = active_bot(alice, "indexed")
    for seed in range(40):
        played(bot, seed, rated=seed >= 2)
    mine, page = waiting_counts(owner, bot)
    assert "(2 more played, waiting to be rated)" in mine
    assert "(2 more played, waiting to be rated:" in page
    counts = {
        "bot page": unrated_seats().filter(bot=bot).order_by().values("pk"),
        "my bots": unrated_seats().filter(bot__owner=alice).order_by().values("bot"),
    }
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE bots_match")
        cursor.execute("SET LOCAL enable_seqscan = off")  # a tiny table: read it whole else
        for name, query in counts.items():
            sql, params = query.query.sql_with_params()
            cursor.execute(f"EXPLAIN {sql}", params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "match_unrated" in plan, (name, plan)
            assert "Seq Scan on bots_match " not in plan, (name, plan)
