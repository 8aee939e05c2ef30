"""Two workers that go idle at the same moment start one ladder round of a game, not two (an
audit's two workers made tournaments 25 and 26, 7 ms apart). On PostgreSQL, with a second
connection: SQLite has a single writer (each transaction begins IMMEDIATE), so there two
looks cannot overlap."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from bots import competition
from bots.ladder.ratings import lock_ledger
from bots.models import MatchJob, RatingLedger, Tournament
from tests.competition.conftest import builtin_code, second_waiting_for_the_lock

GAME = "rps-poker"


@pytest.mark.postgresql
def test_two_workers_looking_at_once_start_one_ladder_round(
    transactional_db, alice, bob, active_bot
):
    assert connection.vendor == "postgresql"  # (the first half, on SQLite, leaves it out)
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    MatchJob.objects.update(status=MatchJob.DONE)  # their placements: the game is idle
    RatingLedger.objects.get_or_create(game=GAME)
    other: dict[str, object] = {}

    def second_worker() -> None:
        try:
            other["round"] = competition.maybe_ladder_round(GAME, 3600)
        except Exception as exc:  # noqa: BLE001 - the test says what it was
            other["error"] = exc
        finally:
            connection.close()

    # The first worker looks, and while it holds the game (between its look and its commit)
    # the second one looks too.
    with transaction.atomic():
        lock_ledger(GAME)
        thread = second_waiting_for_the_lock(second_worker, other)
        first = competition.maybe_ladder_round(GAME, 3600)
    thread.join(timeout=30)
    assert not thread.is_alive() and "error" not in other, other
    assert first is not None
    assert other["round"] is None  # it looked after the first round was committed
    assert list(Tournament.objects.filter(format=Tournament.LADDER)) == [first]
