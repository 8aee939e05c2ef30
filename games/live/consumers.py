"""``ws/tables/<token>/``: one socket of a person or a spectator at a live table.

The socket's seat is the one its person holds, from the table and the logged-in user (or
the guest token in the session), never from what a message claims. While the table waits
for players a seat can be left and taken again (from another page), so until the match has
started every catch-up reads it again; a socket whose person no longer holds its seat (or
holds another) hears nothing more of it and is closed with :data:`SEAT_CHANGED`, and its page
reloads. A socket hears its seat's group (or the spectators'), so it receives only what that
seat may see. A message is an *intention* (``{"type": "act", "turn": N, "action": ...}``);
the table's host checks it against the rules, and anything refused (malformed, forged, out of
turn, illegal, too many messages) gets an error on this socket alone and changes nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import ChannelFull
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games.engine import untrusted
from games.live import sockets, tables
from games.live.hub import ABANDONED, MOVED, hub, lobby_group, public_group, seat_group
from games.models import Table, TableSeat

log = logging.getLogger("games.live")

#: the longest message a table accepts (an action is a few dozen bytes)
MAX_MESSAGE = 2048
#: a socket may send this many messages in a burst, refilled at RATE per second (a quick
#: player at a fast game sends a few a second; a flood is hundreds)
BURST, RATE = 40, 10.0
#: a socket that keeps flooding after being told is closed
STRIKES = 3
#: the close code of a socket whose person no longer holds the seat it was opened for (they
#: left it, or took another, from another page): the page reloads to show where they sit now
SEAT_CHANGED = 4409


class Throttled:
    """A socket's messages kept to a rate (:data:`BURST`, :data:`RATE`): one past it is
    answered "too many messages: slow down", and a socket that goes on (:data:`STRIKES`) is
    closed (4429). The table's sockets and the ping check's share it."""

    tokens = float(BURST)
    refilled = 0.0
    strikes = 0

    def start_rate(self) -> None:
        self.tokens = float(BURST)
        self.refilled = time.monotonic()
        self.strikes = 0

    async def flooded(self) -> bool:
        """Whether this message is over the rate (and so answered, or the socket closed)."""
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.refilled) * RATE)
        self.refilled = now
        if self.tokens >= 1:
            self.tokens -= 1
            return False
        self.strikes += 1
        if self.strikes > STRIKES:
            await self.close(code=4429)  # type: ignore[attr-defined]
        else:
            slow = {"type": "error", "error": "too many messages: slow down"}
            await self.send_json(slow)  # type: ignore[attr-defined]
        return True


class TableConsumer(Throttled, AsyncJsonWebsocketConsumer):
    #: whether ``seat`` is final: read from the table once its match started (its seats no
    #: longer change); until then each catch-up (and a first move) reads it again
    seat_fixed = False
    #: closed for a seat its person no longer holds (:data:`SEAT_CHANGED`): it does no more
    closing = False

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its ``aclose_old_connections`` before every message: that
        is a hop through the one thread that runs database calls, so under load each action
        waited behind other tables' queries. Every database call here goes through
        ``database_sync_to_async``, which closes stale connections itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        # a place among its address's sockets first (no database trip before it)
        address = sockets.socket_address(self.scope)
        self.counted = await sockets.counter.admit(address, self.channel_name, self)
        token = self.scope["url_route"]["kwargs"]["token"]
        found = None
        if not self.counted:
            # past its address's limit only a player's own seat at a table still to be
            # played gets in, counted by its seat (see sockets.SEAT_SOCKETS)
            found = await database_sync_to_async(_load)(
                self.scope.get("user"), self.scope.get("session"), token=token
            )
            seat = found[1] if found is not None else None
            if seat is not None and found[0].table.state in (Table.OPEN, Table.PLAYING):
                key = sockets.seat_key(found[0].table.pk, seat)
                most = sockets.SEAT_SOCKETS
                self.counted = await sockets.counter.admit(key, self.channel_name, self, most)
        if not self.counted:
            # accepted only to say why: a refused handshake tells the page nothing
            await self.accept()
            error = sockets.refused_text(sockets.limit())
            await self.send_json({"type": "refused", "error": error})
            await self.close(code=sockets.TOO_MANY_SOCKETS, reason=error[:120])
            return
        if found is None:
            found = await database_sync_to_async(_load)(
                self.scope.get("user"), self.scope.get("session"), token=token
            )
        if found is None:
            await self.close(code=4404)
            return
        sight, self.seat = found
        self.seat_fixed = sight.table.state != Table.OPEN
        # the table's id, not its row: a socket lives as long as its match, and keeps nothing
        # it does not need (every object alive is traced by the collector's full passes)
        self.table_id: int = sight.table.pk
        self.group = (
            public_group(self.table_id)
            if self.seat is None
            else seat_group(self.table_id, self.seat)
        )
        self.audience = "public" if self.seat is None else f"seat:{self.seat}"
        self.start_rate()
        #: the channel of the process that hosts the running match
        self.host_channel: str | None = None
        #: how this socket hears the match: "local" (its process hosts the table: the hub
        #: serves it directly) or "remote" (through the channel layer's group), once playing
        self.following: str | None = None
        # lobby news (a seat taken) goes to everyone at the table
        await self.channel_layer.group_add(lobby_group(self.table_id), self.channel_name)
        await self.accept()
        await self.send_json({"type": "hello", "seat": self.seat, "table": sight.table.token})
        await self._catch_up(sight)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "counted", False):
            await sockets.counter.release(self.channel_name)
        if not hasattr(self, "group"):
            return
        await self.channel_layer.group_discard(lobby_group(self.table_id), self.channel_name)
        await self._unfollow()

    async def _catch_up(self, sight: Sight | None = None) -> None:
        """Bring this socket up to date: the lobby, or the running match, or its end. Until
        the match has started, the seat its person holds is read again with the table (they
        may have left it from another page): a socket whose seat it no longer is is closed."""
        if self.closing:
            return
        if sight is None and self.seat_fixed:
            sight = await database_sync_to_async(_look)(self.seat, pk=self.table_id)
            assert sight is not None  # tables are never deleted
        elif sight is None:
            found = await database_sync_to_async(_load)(
                self.scope.get("user"), self.scope.get("session"), pk=self.table_id
            )
            assert found is not None  # tables are never deleted
            sight, seat = found
            if not await self._still_seated(sight.table, seat):
                return
        table = sight.table
        if sight.lobby is not None:
            await self.send_json(sight.lobby)
            if self.seat is not None and sight.full:
                # Listen before starting: the host speaks as soon as it runs.
                hub.attach(table.pk, self.audience, self)
                if await hub.start(table):
                    # started from the very seats this socket's seat was read from (a table
                    # whose seats changed since is not started: tables.claim_and_plan)
                    self.seat_fixed = True
                    self.following = "local"
                    self.host_channel = hub.channel
                    return
                hub.detach(table.pk, self.audience, self)
                table = await database_sync_to_async(Table.objects.get)(pk=table.pk)
                if table.state == Table.ABANDONED:  # it waited too long to start
                    lobby = lobby_group(table.pk)
                    await self.channel_layer.group_send(lobby, {"type": "table.moved"})
                    return
                if table.state == Table.OPEN:
                    return  # its seats changed since they were read: the news of it comes next
                await self._follow(table)
        elif sight.end is not None:
            for message in sight.end:  # the table as it ended, then the end
                await self.send_json(message)
        elif sight.stale and sight.too_old:
            await database_sync_to_async(tables.abandon)(table, ABANDONED)
            await self.send_json({"type": "over", "error": ABANDONED, "rated": False})
        elif (sight.stale or hub.unreachable(table)) and await hub.resume(table):
            # its host died: the match goes on here, from its seed and its kept steps
            await self._follow(table)
        else:
            if sight.stale or hub.unreachable(table):  # another process resumed it first
                table = await database_sync_to_async(Table.objects.get)(pk=table.pk)
            await self._follow(table)

    async def _follow(self, table: Table) -> None:
        """Hear a running match (from now on) and get the whole picture of it now. A socket
        may hear a message twice around this moment: a turn is answered once, by number.
        ``table`` is its row as read: a socket that followed a host the table has left (a
        ``sync`` from a page whose moves were refused) follows where the row says it is now.
        A table hosted here whose row names another host is read again (this process may
        have claimed it since): if another took it over meanwhile, this process lets go.
        A seat read while the table waited for players is read again first: the match is
        followed only for the seat its person holds at it."""
        if not self.seat_fixed and await self._seat_now() is None:
            return
        if hub.hosts_here(table.pk) and table.host_channel != hub.channel:
            table = await database_sync_to_async(_row)(table.pk)
            if table.host_channel != hub.channel:
                await self._unfollow()  # (first: of the sockets here, the others are told)
                hub.moved_away(table)
        here = hub.hosts_here(table.pk) and table.host_channel == hub.channel
        served = here and hub.serves(table.pk, self.audience, self)
        moved = here or self.host_channel != (table.host_channel or None)
        if (self.following == "local" and not served) or (self.following == "remote" and moved):
            await self._unfollow()
        self.host_channel = table.host_channel or None
        if self.following is None:
            if here:
                hub.attach(table.pk, self.audience, self)
                self.following = "local"
            else:
                # this process's hub sweeps too: the host followed may be dead (then its table
                # is resumed by a sweep, here or elsewhere, and this socket told to follow it)
                await hub.ensure_listening()
                await self.channel_layer.group_add(self.group, self.channel_name)
                self.following = "remote"
                await self._watch(+1)
        if self.following == "local":
            await hub.snapshot_to(table.pk, self.seat, self)
        elif self.host_channel:
            await self.channel_layer.send(
                self.host_channel,
                {
                    "type": "table.snapshot",
                    "table": table.pk,
                    "seat": self.seat,
                    "reply_to": self.channel_name,
                },
            )

    async def _seat_now(self) -> Table | None:
        """The table, with this socket's seat read again from it (once the match has
        started, for good); None, and the socket closed, if its person no longer holds it."""
        found = await database_sync_to_async(_seated)(
            self.scope.get("user"), self.scope.get("session"), pk=self.table_id
        )
        assert found is not None  # tables are never deleted
        table, seat = found
        return table if await self._still_seated(table, seat) else None

    async def _still_seated(self, table: Table, seat: int | None) -> bool:
        """Whether this socket's person still holds its seat (``seat``, just read with
        ``table``); if not, the socket is closed (:meth:`_seat_changed`). The seat is final
        once the match has started."""
        if seat != self.seat:
            await self._seat_changed(seat)
            return False
        self.seat_fixed = table.state != Table.OPEN
        return True

    async def _seat_changed(self, seat: int | None) -> None:
        """This socket's person no longer holds its seat (they left it, or took another, from
        another page): it hears nothing more of the table, acts for no one, and is closed
        (:data:`SEAT_CHANGED`) so that its page reloads and shows where they sit now."""
        log.info("event=table.seat_changed table=%s seat=%s now=%s", self.table_id, self.seat,
                 seat)  # fmt: skip
        self.closing = True
        await self._unfollow()
        await self.channel_layer.group_discard(lobby_group(self.table_id), self.channel_name)
        await self.close(code=SEAT_CHANGED, reason="your seat at this table changed")

    async def _unfollow(self) -> None:
        """Stop hearing the match from its host (which is gone, or the match moved)."""
        if self.following == "local":
            hub.detach(self.table_id, self.audience, self)
        elif self.following == "remote":
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self._watch(-1)
        self.following = self.host_channel = None

    async def _watch(self, delta: int) -> None:
        """Tell the hosting process that a socket here follows (or left) this audience."""
        if self.host_channel:
            message = {"type": "table.watch", "table": self.table_id,
                       "audience": self.audience, "delta": delta}  # fmt: skip
            try:
                await self.channel_layer.send(self.host_channel, message)
            except ChannelFull:
                log.warning("event=table.watch_lost table=%s", self.table_id)

    # ---- from the browser ---------------------------------------------------------------
    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if self.closing:
            return
        if await self.flooded():
            return
        try:
            # bounded: a frame of a thousand "[" would make json.loads raise RecursionError
            content = untrusted.message(text_data, MAX_MESSAGE)
        except ValueError as exc:
            await self._error(str(exc))
            return
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            await self._error('a message is an object with a "type"')
            return
        kind = content["type"]
        if kind == "ping":
            await self.send_json({"type": "pong"})
        elif kind == "sync":
            await self._catch_up()
        elif kind == "act":
            await self._act(content)
        else:
            await self._error(f"unknown message type {kind[:40]!r} (known: act, sync, ping)")

    async def _act(self, content: dict[str, Any]) -> None:
        received_at = time.time()  # a move in time is in time, however busy the way on
        if self.seat is None:
            await self._error("spectators cannot act")
            return
        extra = set(content) - {"type", "turn", "action"}
        if extra:
            await self._error(f"unknown field {sorted(extra)[0][:40]!r} in an action")
            return
        if "action" not in content or "turn" not in content:
            await self._error('an action needs "turn" and "action"')
            return
        if self.host_channel is None or not self.seat_fixed:
            # learnt once; actions then cost no database query. A seat read while the table
            # waited is read again: a person who left it (from another page) acts for no one
            table = await self._seat_now()
            if table is None:
                return
            if table.state != Table.PLAYING or not table.host_channel:
                await self._error("the match is not being played")
                return
            self.host_channel = self.host_channel or table.host_channel
        host = hub.hosts.get(self.table_id) if self.following == "local" else None
        if host is not None:  # hosted by this process: straight to it
            host.submit(
                self.seat, content["turn"], content["action"], self.channel_name, received_at
            )
            return
        try:
            await self._send_intent(content, received_at)
        except ChannelFull:
            await self._error("the table's server is busy: try again in a moment")

    async def _send_intent(self, content: dict[str, Any], received_at: float) -> None:
        assert self.host_channel is not None
        await self.channel_layer.send(
            self.host_channel,
            {
                "type": "table.intent",
                "table": self.table_id,
                "seat": self.seat,  # the socket's seat, whatever the message says
                "turn": content["turn"],
                "action": content["action"],
                "reply_to": self.channel_name,
                "received_at": received_at,
            },
        )

    async def _error(self, text: str) -> None:
        await self.send_json({"type": "error", "error": text})

    # ---- from the table -------------------------------------------------------------------
    async def table_message(self, event: dict[str, Any]) -> None:
        """A message of the table's host (JSON text, made once for every socket)."""
        await self.send(text_data=event["text"])

    async def table_lobby(self, event: dict[str, Any]) -> None:
        """Someone took a seat: show the lobby, and start if the table is now full."""
        await self._catch_up()

    async def table_started(self, event: dict[str, Any]) -> None:
        """The match has started: a socket not yet following it (a spectator who came to
        the lobby) catches up with it and hears it from now on."""
        if self.following is None:
            await self._catch_up()

    async def table_moved(self, event: dict[str, Any]) -> None:
        """The table's host died and a process resumed the match (or abandoned it), or its
        host stopped and handed it over: follow it wherever it is now and get the whole
        picture again (a move sent to the old host and never kept is asked again). The
        table's row says where it is: this process may still host it while another has
        taken it over (it was stuck, and has not noticed yet), and then lets go of it."""
        if hub.stopping or self.closing:
            return  # this process stops: its sockets close, and their pages connect again
        table = await database_sync_to_async(_row)(self.table_id)
        local = self.following == "local" and hub.serves(self.table_id, self.audience, self)
        if local and table.host_channel == hub.channel:
            return  # resumed by this process for this very socket: it follows already
        was_following = self.following is not None
        await self._unfollow()
        hub.moved_away(table)  # (its other sockets here are told, as this one was)
        if was_following and table.state == Table.PLAYING:
            await self.send_json({"type": "moved", "text": MOVED})
        await self._catch_up()


@dataclass
class Sight:
    """What a socket needs to know of its table, learnt in one trip to the database."""

    table: Table
    #: an open table: its lobby, and whether every seat is taken
    lobby: dict[str, Any] | None = None
    full: bool = False
    #: a table in play whose host has stopped saying it is alive (resumed by whoever sees
    #: it), for so long that it is abandoned instead (``too_old``)
    stale: bool = False
    too_old: bool = False
    #: a finished or abandoned table: its end (the last view of the table, then ``over``)
    end: list[dict[str, Any]] | None = None


def _row(table_id: int) -> Table:
    """Where a table is now: its state and its host's channel."""
    return Table.objects.only("state", "host_channel").get(pk=table_id)


def _look(seat: int | None, **lookup: Any) -> Sight | None:
    table = tables.load(**lookup)
    if table is None:
        return None
    return _sight(table, seat)


def _sight(table: Table, seat: int | None) -> Sight:
    if table.state == Table.OPEN:
        lobby, full = lobby_message(table), tables.is_full(table)
        if full and (busy := tables.start_refusal(table)):
            # (it is not started: tables.claim_start) its pages say why, and ask again later
            lobby["busy"] = busy
        return Sight(table, lobby=lobby, full=full)
    if table.state == Table.PLAYING:
        stale = tables.is_stale(table)
        return Sight(table, stale=stale, too_old=stale and tables.too_old_to_resume(table))
    return Sight(table, end=tables.end_of(table, seat))


def _seated(user: Any, session: Any, **lookup: Any) -> tuple[Table, int | None] | None:
    """A table (with its seats) and the seat the person behind ``user`` and ``session``
    holds at it now."""
    table = tables.load(**lookup)
    if table is None:
        return None
    return table, tables.seat_of(table, tables.person_of(user, session))


def _load(user: Any, session: Any, **lookup: Any) -> tuple[Sight, int | None] | None:
    found = _seated(user, session, **lookup)
    if found is None:
        return None
    table, seat = found
    return _sight(table, seat), seat


def lobby_message(table: Table) -> dict[str, Any]:
    return {
        "type": "lobby",
        "seats": [
            {"seat": s.seat, "kind": s.kind, "name": s.name, "open": s.kind == TableSeat.OPEN}
            for s in tables.seats_of(table)
        ],
        # a guest who sits down makes the table unrated: the pages drawn before say so now
        "rated": table.rated,
    }
