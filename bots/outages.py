"""What Redis's clients raise when its server cannot be reached, for the parts of the site
that go on without it for a while: Django's caches (the sign-up and log-in counters,
cardsite.accounts; the tournaments' job counts, bots.competition.counts) and the channel
layer (the live tables' hub, games.live.hub); what Django raises while the database is away,
and the pauses between tries until it is back, for the parts that keep what they could not
store and store it then (the worker, bots.worker; a live table's end, games.live.host). On
the floor of the models (docs/architecture.md, "The rooms of bots/"), so that every room
above and the web can import it."""

from __future__ import annotations

import time

from django.db import InterfaceError, OperationalError

#: what a database that is away raises through Django (a lost or refused connection, a
#: server shutting down, a pool with no connection to give, SQLite locked past its timeout
#: or with no room left on its disk)
DATABASE_AWAY = (OperationalError, InterfaceError)


class Backoff:
    """Pauses between tries while the database is away: 0.5 s, doubling up to ``longest``."""

    def __init__(self, longest: float) -> None:
        self.longest = longest
        self.failures = 0
        self.since = 0.0

    def next_pause(self) -> float:
        if not self.failures:
            self.since = time.monotonic()
        self.failures += 1
        return min(self.longest, 0.5 * 2 ** min(self.failures - 1, 16))

    def reset(self) -> float | None:
        """Seconds the outage lasted, or None if there was none."""
        if not self.failures:
            return None
        self.failures = 0
        return time.monotonic() - self.since


def _redis_unreachable() -> tuple[type[BaseException], ...]:
    """channels_redis and Django's Redis cache let redis-py's ConnectionError (refused,
    reset, closed by the server) and TimeoutError through, and a socket's own OSError
    (ConnectionRefusedError, ...) and TimeoutError."""
    errors: tuple[type[BaseException], ...] = (OSError, TimeoutError)
    try:
        from redis import exceptions
    except ImportError:  # (no Redis library: the site's caches and layer are in memory)
        return errors
    return (*errors, exceptions.ConnectionError, exceptions.TimeoutError)


#: see :func:`_redis_unreachable`
REDIS_UNREACHABLE = _redis_unreachable()
