"""The ``replays`` cache (shared by the web processes: settings' CACHES), for what takes a
while to build and never changes once built: a match's replay (games.matchpages), a solve's
values of a review (games.reviews), a finished table's end (games.live.tables).

The cache never decides what is shown: a miss, or a cache that cannot be reached (a Redis
outage), costs the time to build it again, never the page. Each failure is logged as
``event=<what>_cache.unreachable``."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.cache import caches

log = logging.getLogger("games.replaycache")


def kept(keys: list[str], what: str) -> dict[str, Any]:
    """What the cache holds of ``keys``; nothing when it cannot be reached."""
    try:
        return caches["replays"].get_many(keys)
    except Exception:  # any failure of the cache backend is a miss
        log.warning("event=%s_cache.unreachable op=get", what, exc_info=True)
        return {}


def keep(items: dict[str, Any], what: str) -> None:
    """Store ``items`` for as long as the settings say (REPLAY_CACHE_S); a cache that cannot
    be reached keeps nothing (the next request builds them again)."""
    try:
        caches["replays"].set_many(items, settings.REPLAY_CACHE_S)
    except Exception:  # any failure of the cache backend: nothing kept
        log.warning("event=%s_cache.unreachable op=set", what, exc_info=True)
