"""One clock for the times that one machine writes and another compares: the database's.

The site runs as web processes and workers on any number of machines (docs/deploy.md), and
their clocks need not agree. A live table's host heartbeat, a job's lease and heartbeat, a
validation's lease, a playground run's or a solve's: each is written by one process and read
by others, which take the work over once it looks stale. Told by each machine's own clock, a
machine whose clock runs 20 s ahead would find every other machine's fresh heartbeats stale
and take over their tables and jobs. So these times are told by :func:`shared_now`: this
process's clock plus its offset to the database server's clock, measured with one
``SELECT clock_timestamp()`` now and then (:data:`MEASURE_EVERY_S`), never once a call.

The offset is this process's own (its machine's clock against the database's), so it is kept
in memory. On SQLite the database is a file on this machine: the offset is zero, with no
query. A measurement that fails (the database is away) keeps the last offset and is logged
once; it never raises into a heartbeat (a jump of this process's clock meanwhile is taken
off the offset, as the monotonic clock tells it). On the floor of the models
(docs/architecture.md, "The rooms of bots/"), so that every room above and the web can use
it.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

log = logging.getLogger("bots.clock")

#: seconds a measured offset is used before it is measured again (a clock kept by nothing
#: drifts by well under a second in that time)
MEASURE_EVERY_S = 60.0
#: seconds this process's clock may jump (set by hand, or stepped by NTP) before the offset
#: is measured again at once: a jump is seen against the monotonic clock, with no query
JUMP_S = 1.0
#: an offset that moved by more than this since it was last logged is logged again
LOGGED_CHANGE_S = 1.0


@dataclass
class _Measured:
    """The last measurement of this process's offset to the database's clock."""

    #: the database's clock less this process's
    offset: timedelta = timedelta(0)
    #: ``time.monotonic()`` when it was measured (or last tried); None: never
    at: float | None = None
    #: this process's clock less the monotonic clock then (seconds; None: never measured):
    #: a jump of this process's clock since shows as a change of this
    base: float | None = None
    #: the offset last logged, seconds (None: none logged yet)
    logged: float | None = None
    #: the last try failed (logged once, until one succeeds)
    failing: bool = False


_measured = _Measured()
_measuring = threading.Lock()


def shared_now() -> datetime:
    """The database's time now, as this process best knows it: the time to write and compare
    leases, heartbeats and takeovers with. A query at most every :data:`MEASURE_EVERY_S`
    (on the calling thread's connection), none on SQLite."""
    local, tick = timezone.now(), time.monotonic()
    last = _measured
    jumped = last.base is not None and abs(local.timestamp() - tick - last.base) > JUMP_S
    if (last.at is None or tick - last.at >= MEASURE_EVERY_S or jumped) and _measuring.acquire(
        blocking=False
    ):  # (another thread measuring now: the last offset serves meanwhile)
        try:
            _remeasure(tick)
        finally:
            _measuring.release()
        local = timezone.now()
    return local + _measured.offset


def _remeasure(tick: float) -> None:
    last = _measured
    last.at = tick  # a failed try too: the next is due in MEASURE_EVERY_S, not at once
    try:
        offset = measure()
    except Exception as exc:  # noqa: BLE001 - a heartbeat must go on with the last offset
        if not last.failing:
            log.warning(
                "event=clock.unmeasured offset_s=%.3f error=%r (the last offset is kept)",
                last.offset.total_seconds(),
                " ".join(f"{type(exc).__name__}: {exc}".split())[:300],
            )
        last.failing = True
        if last.base is not None:  # a jump of this clock meanwhile is not the database's
            base = timezone.now().timestamp() - time.monotonic()
            last.offset -= timedelta(seconds=base - last.base)
            last.base = base
        return
    last.offset, last.failing = offset, False
    last.base = timezone.now().timestamp() - time.monotonic()
    seconds = offset.total_seconds()
    if last.logged is None or abs(seconds - last.logged) > LOGGED_CHANGE_S:
        log.info("event=clock.offset offset_s=%.3f (the database's clock less this one's)", seconds)
        last.logged = seconds


def measure() -> timedelta:
    """The database server's clock less this process's: the server's time read with one
    ``SELECT clock_timestamp()`` (the time of the read, even inside a transaction) less the
    middle of this process's times before and after the read. Zero when it is within half
    the round trip (as near as the read can tell: the clocks agree, as on one machine) and on
    SQLite (the database is on this machine). Not through Django's cursor: it is no query of
    the action that asked for the time, so that action's queries count the same with it or
    without it."""
    if connection.vendor != "postgresql":
        return timedelta(0)
    connection.ensure_connection()
    with connection.connection.cursor() as cursor:
        before = timezone.now()
        cursor.execute("SELECT clock_timestamp()")
        (server,) = cursor.fetchone()
        after = timezone.now()
    half = (after - before) / 2
    offset = server - (before + half)
    return timedelta(0) if abs(offset) <= half else offset
