"""How many live tables' websockets one client address has open, across every web process.

Each socket counts against its address (the keyed hash live tables keep of it,
``tables.address_key``; an IPv6 address is its /64, as ``cardsite.accounts.client_ip`` counts
every client) from its connect to its disconnect; past ``LIVE_SOCKETS_PER_ADDRESS``
(50) a connect is refused: the socket is accepted only to be told why (a ``refused`` message)
and closed with :data:`TOO_MANY_SOCKETS`. The site's other sockets (a tournament's progress,
the ping check: games/consumers.py) are counted here too, apart (:func:`pages_key`).

Where the count lives: with ``REDIS_URL`` (several web processes, on several machines), in
Redis, a sorted set per address of the sockets' ids, each scored with the moment it expires;
every process refreshes its own sockets' scores every :data:`REFRESH_S` seconds while they
live, so the sockets of a process that dies stop counting :data:`EXPIRES_S` seconds later.
Counting and adding are one Lua script, with Redis's own clock, so two processes cannot both
take the last place. Without ``REDIS_URL`` the site is one process, which counts in its own
memory, with the same expiry.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import Any

from django.conf import settings

from cardsite.accounts import client_ip
from games.live.tables import address_key

log = logging.getLogger("games.live")

#: the close code of a socket refused because its address has too many open
TOO_MANY_SOCKETS = 4430
#: a counted socket that is not refreshed for this long (its process died) stops counting
EXPIRES_S = 90
#: how often each process refreshes its sockets' places
REFRESH_S = 30
#: the Redis keys: one sorted set per address hash
KEY_PREFIX = "card-arena:live-sockets:"

#: KEYS[1] the address's set; ARGV: socket id, the most sockets, seconds until it expires
ADMIT = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], t + tonumber(ARGV[3]), ARGV[1])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[3])))
return 1
"""
#: KEYS[1] the address's set; ARGV[1] seconds until they expire, ARGV[2..] the socket ids
REFRESH = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', t + tonumber(ARGV[1]), ARGV[i])
end
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])))
return 1
"""


def refused_text(limit: int, pages: str = "pages of live tables") -> str:
    return (
        f"too many open connections from your network: {limit} {pages} are open "
        "from it at once, the most the site allows; close some of them (other tabs or windows "
        "of this site), and this page connects by itself"
    )


#: the other sockets of the site (a tournament's progress, the ping check) are counted apart
#: from the tables', under this prefix of their address, with the same limit: a page that
#: follows a tournament never takes the place of a table's
PAGES = "pages:"
#: what a page refused among them is told (see :func:`refused_text`)
OTHER_PAGES = "pages following tournaments (or checking the connection)"


def pages_key(address: str) -> str:
    """What the site's other sockets from ``address`` are counted under ("" not counted)."""
    return PAGES + address if address else ""


def socket_address(scope: dict[str, Any]) -> str:
    """The keyed hash of the address a socket came from (as ``cardsite.accounts.client_ip``
    reads a request: the connection's own, or the trusted proxies' X-Forwarded-For; an IPv6
    address counted as its /64, an IPv4-mapped one as its IPv4 address), or "" when the
    server does not say (a test's socket)."""
    client = scope.get("client") or ("", 0)
    forwarded = [
        value.decode("latin-1")
        for name, value in scope.get("headers", ())
        if name.lower() == b"x-forwarded-for"
    ]
    meta = {"REMOTE_ADDR": str(client[0] or "")}
    if forwarded:
        meta["HTTP_X_FORWARDED_FOR"] = ",".join(forwarded)
    return address_key(client_ip(_Request(meta)))  # type: ignore[arg-type]


class _Request:
    """What ``client_ip`` reads of a request."""

    def __init__(self, meta: dict[str, str]) -> None:
        self.META = meta


def limit() -> int:
    return int(getattr(settings, "LIVE_SOCKETS_PER_ADDRESS", 50))


#: the sockets a player's own seat at a table still to be played may have past its
#: address's limit (its pages in two tabs): such a socket is never refused for the other
#: pages of its network, or the table would play the person's moves for them, in a match
#: that may be rated; counted by seat, so that seats cannot flood either (a person's tables
#: are capped: games.live.tables)
SEAT_SOCKETS = 2


def seat_key(table_id: int, seat: int) -> str:
    """What a seat's sockets are counted under, past their address's limit."""
    return f"seat:{table_id}:{seat}"


class SocketCount:
    """The sockets of this process, counted by address where every process sees them."""

    def __init__(self) -> None:
        #: this process's counted sockets: id -> address hash
        self.mine: dict[str, str] = {}
        #: id -> its consumer, while it lives: one that went without its disconnect (a crash)
        #: is no longer refreshed, so it stops counting
        self.alive: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
        #: without Redis: address hash -> {socket id: when it stops counting (monotonic)}
        self.memory: dict[str, dict[str, float]] = {}
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._refresher: asyncio.Task[None] | None = None
        #: admissions under way (the client is not let go of meanwhile)
        self._admitting = 0

    # ---- the backends ---------------------------------------------------------------------
    def _redis(self) -> Any:
        """A client of the site's Redis for the running event loop (a client belongs to the
        loop it was made in), or None without ``REDIS_URL``."""
        url = getattr(settings, "REDIS_URL", "")
        if not url:
            return None
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            import redis.asyncio

            self._client = redis.asyncio.Redis.from_url(url)
            self._client_loop = loop
        return self._client

    async def _admit(self, address: str, socket: str, most: int) -> bool:
        client = self._redis()
        if client is None:
            now = time.monotonic()
            held = self.memory.setdefault(address, {})
            for other, until in list(held.items()):
                if until <= now:
                    del held[other]
            if socket not in held and len(held) >= most:
                return False
            held[socket] = now + EXPIRES_S
            return True
        admitted = await client.eval(ADMIT, 1, KEY_PREFIX + address, socket, most, EXPIRES_S)
        return bool(admitted)

    async def _forget(self, address: str, socket: str) -> None:
        client = self._redis()
        if client is None:
            held = self.memory.get(address, {})
            held.pop(socket, None)
            if not held:
                self.memory.pop(address, None)
            return
        await client.zrem(KEY_PREFIX + address, socket)

    async def _refresh(self) -> None:
        for gone in [socket for socket in self.mine if socket not in self.alive]:
            del self.mine[gone]
        by_address: dict[str, list[str]] = {}
        for socket, address in self.mine.items():
            by_address.setdefault(address, []).append(socket)
        client = self._redis()
        if client is None:
            until = time.monotonic() + EXPIRES_S
            for address, sockets in by_address.items():
                held = self.memory.setdefault(address, {})
                for socket in sockets:
                    held[socket] = until
            return
        async with client.pipeline(transaction=False) as pipe:
            for address, sockets in by_address.items():
                pipe.eval(REFRESH, 1, KEY_PREFIX + address, EXPIRES_S, *sockets)
            await pipe.execute()

    # ---- what a consumer calls ------------------------------------------------------------
    async def admit(self, address: str, socket: str, owner: Any, most: int | None = None) -> bool:
        """Count ``socket`` (of the consumer ``owner``) against ``address`` (or a
        :func:`seat_key`, with its own ``most``) if it has a place left; False if it has not (a
        Redis that cannot be reached admits it: the site goes on without the limit rather
        than refusing everyone)."""
        most = limit() if most is None else most
        if not address or most <= 0:  # (0: no limit, as for a load test from one machine)
            return True
        self._admitting += 1
        try:
            admitted = await self._admit(address, socket, most)
        except Exception:
            log.warning("event=live_sockets.unreachable op=admit", exc_info=True)
            return True
        finally:
            self._admitting -= 1
        if admitted:
            self.mine[socket] = address
            self.alive[socket] = owner
            self._keep_refreshing()
        return admitted

    async def release(self, socket: str) -> None:
        address = self.mine.pop(socket, None)
        self.alive.pop(socket, None)
        if address is None:
            return
        if not self.mine and self._refresher is not None:
            self._refresher.cancel()
            self._refresher = None
        try:
            await self._forget(address, socket)
        except Exception:  # it expires by itself
            log.warning("event=live_sockets.unreachable op=release", exc_info=True)
        if not self.mine and not self._admitting:
            await self._let_go()

    async def _let_go(self) -> None:
        """A process with no socket counted keeps no connection to Redis (its next socket
        makes one): a client belongs to the event loop it was made in, and one left by a loop
        that ended (a test's) would be collected with its connections open."""
        client, self._client = self._client, None
        if client is not None:
            try:
                await client.aclose()
            except Exception:  # (closing what is gone)
                log.debug("event=live_sockets.close_failed", exc_info=True)

    def count(self, address: str) -> int:
        """(Without Redis) the sockets counted against ``address`` now."""
        now = time.monotonic()
        return sum(1 for until in self.memory.get(address, {}).values() if until > now)

    def _keep_refreshing(self) -> None:
        loop = asyncio.get_running_loop()
        task = self._refresher
        if task is not None and not task.done() and task.get_loop() is loop:
            return
        self._refresher = loop.create_task(self._refreshing())

    async def _refreshing(self) -> None:
        while self.mine:
            await asyncio.sleep(REFRESH_S)
            try:
                await self._refresh()
            except Exception:
                log.warning("event=live_sockets.unreachable op=refresh", exc_info=True)


#: this process's count
counter = SocketCount()
