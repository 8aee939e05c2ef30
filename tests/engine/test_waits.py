"""How long a person is told to wait, and when a limit of so many an hour frees."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from games.engine.table import hour_wait, minutes


def test_a_wait_is_told_in_whole_minutes_rounded_up_never_under_one():
    assert [minutes(s) for s in (-3.0, 0.0, 0.4, 60.0, 60.001, 119.0, 3600.0)] == [
        "1 minute", "1 minute", "1 minute", "1 minute", "2 minutes", "2 minutes", "60 minutes",
    ]  # fmt: skip


def test_an_hourly_limit_frees_an_hour_after_the_oldest_of_the_last_it_allows():
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    times = [now - timedelta(minutes=m) for m in (50, 30, 10)]  # oldest first
    assert hour_wait(times, 4, now) is None  # 3 of 4: not reached
    assert hour_wait(times, 3, now) == 10 * 60  # the one 50 minutes ago counts for 10 more
    assert hour_wait(times, 2, now) == 30 * 60  # past the limit: the last 2 count
    assert hour_wait(times, 1, now) == 50 * 60
