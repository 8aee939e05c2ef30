"""Dumping between two accounts: two people may play each other at most
``PEOPLE_RATED_PER_PAIR`` (5) rated tables of a game in 24 hours; past it their tables are
friendly, and they are told why before the match starts (when the second sits down) or at its
end at the latest. An audit's two accounts had no limit at all."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.ladder import people
from bots.ladder.people import TableSeatResult, rate_table
from bots.models import Match, MatchSeat
from games.live import tables
from games.models import PersonRating, PersonRatingHistory, Table
from tests.people.helpers import GAME, make_user, play_table

pytestmark = pytest.mark.django_db


def rated_pair_match(*users, game: str = GAME) -> Match:
    """A rated table match of ``users`` against each other, rated directly (no play)."""
    match = Match.objects.create(game=game, seed=1, record={}, worker="table", rated=True)
    MatchSeat.objects.bulk_create(
        [MatchSeat(match=match, seat=n, user=u, name=u.username, score=n) for n, u in
         enumerate(users)]
    )  # fmt: skip
    rate_table(game, match.pk, [TableSeatResult(u.pk, None, "", n) for n, u in enumerate(users)])
    return match


def pair_table(ann, bob) -> Table:
    table = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(bob))
    return table


def test_five_rated_tables_a_day_between_two_people_then_friendly(settings):
    assert people.rated_per_pair() == 5 and people.pair_window_hours() == 24
    ann, bob = make_user("ann"), make_user("bob")
    for _ in range(4):
        rated_pair_match(ann, bob)
    fifth = pair_table(ann, bob)
    assert Table.objects.get(pk=fifth.pk).rated
    assert play_table(fifth, seed=2)["rated"] is True
    # the sixth: friendly from the moment bob sits down, and bob is told so
    sixth = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    seat = tables.take_seat(sixth, 1, tables.Person(bob))
    assert seat.pair_note == (
        "You have played 5 rated tables with ann in RPS Poker in the last 24 hours: this one "
        "is friendly."
    )
    sixth.refresh_from_db()
    assert not sixth.rated
    assert sixth.error == (
        "ann and bob have played 5 rated tables together in RPS Poker in the last 24 hours: "
        "this one is friendly."
    )
    told = play_table(sixth, seed=3)
    assert told["rated"] is False
    assert PersonRating.objects.get(user=ann).matches == 5
    # its end says why (the table's page shows the same after the summary)
    sixth.refresh_from_db()
    assert tables.end_of(sixth, 0)[-1]["summary"].endswith(sixth.error)
    # another person is not held by ann and bob's cap
    cat = make_user("cat")
    with_cat = pair_table(ann, cat)
    assert play_table(with_cat, seed=4)["rated"] is True


def test_the_cap_is_checked_again_as_the_match_is_stored():
    """Two tables of one pair, both seated while they had played 4: the first to end is the
    fifth rated one, the second is friendly, and its end says why."""
    ann, bob = make_user("ann"), make_user("bob")
    for _ in range(4):
        rated_pair_match(ann, bob)
    one, two = pair_table(ann, bob), pair_table(ann, bob)
    assert Table.objects.get(pk=one.pk).rated and Table.objects.get(pk=two.pk).rated
    assert play_table(one, seed=2)["rated"] is True
    told = play_table(two, seed=3)
    assert told["rated"] is False
    assert told["note"] == (
        "ann and bob have played 5 rated tables together in RPS Poker in the last 24 hours: "
        "this one is friendly."
    )
    assert not Match.objects.get(pk=told["match"]).rated
    assert PersonRating.objects.get(user=bob).matches == 5


def test_only_the_last_24_hours_count_and_any_pair_of_a_table_decides():
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    for _ in range(5):
        rated_pair_match(ann, bob)
    assert people.pair_over_cap(GAME, [cat.pk, bob.pk, ann.pk]) == (ann.pk, bob.pk, 5)
    assert people.pair_over_cap(GAME, [ann.pk, cat.pk]) is None
    # three of the five rated a day ago: two left in the window
    old = PersonRatingHistory.objects.filter(rating__user=ann).order_by("number")[:3]
    ago = timezone.now() - timedelta(hours=24, minutes=1)
    PersonRatingHistory.objects.filter(pk__in=[h.pk for h in old]).update(created=ago)
    assert people.pair_over_cap(GAME, [ann.pk, bob.pk]) is None
    # a table of three (Last Card seats four) is friendly when any two of them are over it
    for _ in range(5):
        rated_pair_match(bob, cat, game="last-card")
    assert people.pair_over_cap("last-card", [ann.pk, bob.pk, cat.pk]) == (bob.pk, cat.pk, 5)


@pytest.mark.sqlite
def test_the_count_walks_the_index_of_a_person_s_recent_history():
    """The count of a pair: the first person's history rows of the window, through
    ``history_rating_recent``, each looked up in the other's by (rating, match)."""
    ann, bob = make_user("ann"), make_user("bob")
    rated_pair_match(ann, bob)
    with CaptureQueriesContext(connection) as queries:
        assert people.pair_over_cap(GAME, [ann.pk, bob.pk]) is None
    counted = queries.captured_queries[-1]["sql"]
    assert "COUNT" in counted.upper()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {counted}")
        plan = " | ".join(str(row[-1]) for row in cursor.fetchall())
    assert "USING INDEX history_rating_recent" in plan, plan
    assert "SCAN" not in plan.replace("SCAN CONSTANT", ""), plan
