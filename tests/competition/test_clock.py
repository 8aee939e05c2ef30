"""The clock leases, heartbeats and takeovers are told by (``bots.clock``): this process's
clock plus its offset to the database's, measured now and then, never once a call. What it
spares the site (a machine whose clock runs ahead taking over live tables and jobs): the
tests in tests/live/test_resume.py and tests/competition/test_leases.py."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from bots import clock


@pytest.fixture
def measured(monkeypatch):
    """A fresh measurement, of offsets the test sets (``offsets``: popped one a measurement,
    an exception raised), and the time the test moves (``tick``: the monotonic clock, and
    this process's clock with it, but for a ``jump`` of the latter)."""
    state = {"tick": 1000.0, "jump": 0.0, "offsets": [], "measures": 0}
    start = timezone.now()

    def measure() -> timedelta:
        state["measures"] += 1
        offset = state["offsets"].pop(0)
        if isinstance(offset, Exception):
            raise offset
        return timedelta(seconds=offset)

    monkeypatch.setattr(clock, "_measured", clock._Measured())
    monkeypatch.setattr(clock, "measure", measure)
    monkeypatch.setattr(clock.time, "monotonic", lambda: state["tick"])
    monkeypatch.setattr(
        timezone,
        "now",
        lambda: start + timedelta(seconds=state["tick"] - 1000.0 + state["jump"]),
    )
    return state


def off_by(seconds: float) -> float:
    """How far :func:`clock.shared_now` is from this clock moved by ``seconds``."""
    return abs((clock.shared_now() - timezone.now()).total_seconds() - seconds)


def test_the_offset_is_measured_once_a_while_not_once_a_call(measured):
    measured["offsets"] = [-30.0, -29.0]
    assert off_by(-30) < 0.01
    for _ in range(100):
        assert off_by(-30) < 0.01
    measured["tick"] += clock.MEASURE_EVERY_S - 1
    assert off_by(-30) < 0.01 and measured["measures"] == 1
    measured["tick"] += 1
    assert off_by(-29) < 0.01 and measured["measures"] == 2


def test_a_failed_measurement_keeps_the_last_offset_and_is_logged_once(measured, caplog):
    measured["offsets"] = [-30.0, OSError("the database is away"), OSError("still away"), -28.0]
    assert off_by(-30) < 0.01
    with caplog.at_level(logging.WARNING, logger="bots.clock"):
        for _ in range(2):
            measured["tick"] += clock.MEASURE_EVERY_S
            assert off_by(-30) < 0.01  # never raised into a heartbeat
    assert measured["measures"] == 3  # (one try a period, not one a call)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and "event=clock.unmeasured offset_s=-30.000" in warned[0]
    assert "the database is away" in warned[0]
    measured["tick"] += clock.MEASURE_EVERY_S
    assert off_by(-28) < 0.01


def test_a_jump_of_this_clock_is_measured_again_at_once(measured):
    measured["offsets"] = [0.0, -30.0]
    assert off_by(0) < 0.01
    measured["jump"] = 30.0  # (set by hand, or stepped by NTP)
    assert off_by(-30) < 0.01 and measured["measures"] == 2


def test_a_jump_of_this_clock_while_the_database_is_away_is_taken_off(measured):
    measured["offsets"] = [-10.0, OSError("the database is away")]
    assert off_by(-10) < 0.01
    measured["jump"] = 30.0
    assert off_by(-40) < 0.01 and measured["measures"] == 2


@pytest.mark.sqlite
def test_on_sqlite_the_offset_is_zero_without_a_query(db, django_assert_num_queries):
    assert connection.vendor == "sqlite"  # (the second half, on PostgreSQL, leaves it out)
    with django_assert_num_queries(0):
        assert clock.measure() == timedelta(0)


@pytest.mark.postgresql
def test_the_offset_to_postgresqls_clock_is_measured(db, clock_ahead):
    """Against the database server's own clock (the same machine's here, so the offset is
    this process's clock moved on, to within the round trip)."""
    assert connection.vendor == "postgresql"  # (the first half, on SQLite, leaves it out)
    assert abs(clock.measure().total_seconds()) < 1
    clock_ahead(30)
    assert abs(clock.measure().total_seconds() + 30) < 1
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        (database_now,) = cursor.fetchone()
    assert abs((clock.shared_now() - database_now).total_seconds()) < 1
