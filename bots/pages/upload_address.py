"""The uploads of one client address, whatever its accounts: at most
``BOT_UPLOADS_PER_ADDRESS_PER_HOUR`` new versions in any hour (0: no limit).

Each account has its own hourly allowance (``BOT_UPLOADS_PER_HOUR``), but one address may
make ``SIGNUP_LIMIT`` accounts an hour, and every upload is compiled and validated on a
worker: without a limit on the address, one machine's accounts could keep the workers
checking their uploads. Counted as sign-ups are (``cardsite.accounts.Throttle``: Django's
cache, shared by every web process through Redis, in a window that slides), by the address
:func:`cardsite.accounts.client_ip` finds (``TRUSTED_PROXIES``; an IPv6 address as its /64).
While the cache cannot be reached, uploads go on uncounted (the accounts' own limits, kept
in the database, still hold).
"""

from __future__ import annotations

import contextlib
import logging
from datetime import timedelta

from django.conf import settings

from cardsite.accounts import CACHE_ERRORS, Throttle
from games.engine.table import minutes, plural

log = logging.getLogger("bots.pages")


def per_hour() -> int:
    """New versions the accounts of one address may upload in any hour (0: no limit)."""
    return int(getattr(settings, "BOT_UPLOADS_PER_ADDRESS_PER_HOUR", 20))


def throttle() -> Throttle:
    return Throttle("upload-address", per_hour(), timedelta(hours=1))


def take(address: str) -> tuple[str, str]:
    """Count one upload from ``address`` if it fits in the hour: (its counter, for
    :func:`give_back`, and ""); else ("", why it is refused, for the form). Nothing is
    counted for no address or no limit, nor while the cache cannot be reached."""
    most = per_hour()
    if not address or most <= 0:
        return "", ""
    try:
        counter, wait = throttle().take(address)
    except CACHE_ERRORS as exc:
        log.warning("event=upload.address_not_counted error=%s", type(exc).__name__)
        return "", ""
    if wait is None:
        return counter, ""
    return "", (
        f"People at your address have uploaded {plural(most, 'version')} in the last hour, "
        f"the most allowed from one address ({most} an hour, whatever the account); you can "
        f"upload again in {minutes(wait)}."
    )


def give_back(counter: str) -> None:
    """Uncount an upload :func:`take` counted that was not stored after all (refused)."""
    if not counter:
        return
    with contextlib.suppress(*CACHE_ERRORS):
        throttle().give_back(counter)
