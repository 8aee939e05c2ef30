"""What Redis's clients raise when its server cannot be reached, for the parts of the site
that go on without it for a while: Django's caches (the sign-up and log-in counters,
cardsite.accounts; the tournaments' job counts, bots.competition.counts) and the channel
layer (the live tables' hub, games.live.hub). On the floor of the models (docs/architecture.md,
"The rooms of bots/"), so that every room above and the web can import it."""

from __future__ import annotations


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
