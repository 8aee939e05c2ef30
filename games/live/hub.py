"""The live tables hosted by this web process, and how their messages travel.

Each web process has one hub. It owns a channel of the channel layer (``tables.…``) on which
sockets of any process (Redis) or of this one (in-memory layer) send a table's intents and
snapshot requests; the table's row names that channel (``Table.host_channel``). A host's
messages go out to groups, one per seat and one for spectators, so a socket hears exactly
its audience. Hosts run on the hub's event loop (one coroutine per table, no thread), and
the sockets of this process at a table hosted here are served directly.

The hub also beats each of its tables' hearts in the database; a table whose process died
stops beating and is abandoned by the next socket that looks at it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from games.live import tables
from games.live.host import Finish, TableHost, message_text
from games.models import Table
from games.registry import get_game

log = logging.getLogger("games.live")

HEARTBEAT_S = 10.0


def seat_group(table_id: int, seat: int) -> str:
    return f"table.{table_id}.seat.{seat}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


def lobby_group(table_id: int) -> str:
    """Every socket at a table, seated or not: lobby news, and the start of the match."""
    return f"table.{table_id}.lobby"


class Hub:
    def __init__(self) -> None:
        self.hosts: dict[int, TableHost] = {}
        self.channel: str | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        #: the listener, the heartbeat and each table's outbox drain (kept referenced)
        self._tasks: set[asyncio.Task[None]] = set()
        self._starting: asyncio.Lock | None = None
        #: messages for tables this process has claimed but not started yet
        self._early: dict[int, list[dict[str, Any]]] = {}
        #: sockets of this process at tables it hosts, per audience: served directly, with
        #: no round trip through the channel layer
        self.local: dict[int, dict[str, set[Any]]] = {}
        #: channel name -> local socket (for replies to one socket)
        self.sockets: dict[str, Any] = {}
        #: sockets of other processes at tables hosted here, per audience (they said so with
        #: ``table.watch``): only audiences that have some are sent to the layer's groups
        self.remote: dict[int, Counter[str]] = {}

    async def ensure_listening(self) -> str:
        """Start listening on this process's table channel (once per event loop: a process
        has one; tests have one per test) and return its name."""
        loop = asyncio.get_running_loop()
        if self._starting is None or self.loop is not loop:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self.channel is None or self.loop is not loop:
                layer = get_channel_layer()
                self.loop = asyncio.get_running_loop()
                # the default prefix: channels_redis reads every process-specific channel of a
                # layer through one shared real channel, which only "specific." names use
                self.channel = await layer.new_channel()
                self._tasks = set()
                self._spawn(self._listen(layer, self.channel))
                self._spawn(self._heartbeat())
        return self.channel

    def hosts_here(self, table_id: int) -> bool:
        return table_id in self.hosts or table_id in self._early

    def attach(self, table_id: int, audience: str, socket: Any) -> None:
        self.local.setdefault(table_id, {}).setdefault(audience, set()).add(socket)
        self.sockets[socket.channel_name] = socket

    def detach(self, table_id: int, audience: str, socket: Any) -> None:
        self.local.get(table_id, {}).get(audience, set()).discard(socket)
        self.sockets.pop(socket.channel_name, None)

    async def snapshot_to(self, table_id: int, seat: int | None, socket: Any) -> None:
        """A local socket's catch-up, straight from the host (or once it has started)."""
        message = {"type": "table.snapshot", "table": table_id, "seat": seat,
                   "reply_to": socket.channel_name}  # fmt: skip
        await self._handle(message)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- starting a table ---------------------------------------------------------------
    async def start(self, table: Table) -> bool:
        """Start ``table``'s match here if no process has yet; True if this one did."""
        channel = await self.ensure_listening()
        claimed = await database_sync_to_async(tables.claim_and_plan)(table, channel)
        if claimed is None:
            return False
        plans, facts = claimed
        # what the host keeps of the table (its closures live as long as the match): its id
        # and the facts its end is stored with, not the rows
        table_id = table.pk
        self._early[table_id] = []
        outbox: asyncio.Queue = asyncio.Queue()
        try:
            host = TableHost(
                get_game(table.game),
                plans,
                seed=table.seed,
                config=table.config or None,
                turn_timer=table.turn_timer,
                publish=self._publisher(table_id, outbox),
                watched=lambda audience: self._watched(table_id, audience),
                on_finish=lambda finish: self._finish(facts, finish),
            )
        except (ValueError, KeyError) as exc:
            self._early.pop(table_id, None)
            await database_sync_to_async(tables.abandon)(table, str(exc))
            raise
        self.hosts[table_id] = host
        self._spawn(self._drain(table_id, outbox))
        self._spawn(self._run_host(host, outbox))
        log.info("event=table.start table=%s game=%s", table.token, table.game)
        for message in self._early.pop(table_id, []):
            await self._handle(message)
        # Sockets that came while the table waited and did not start it (spectators, and
        # people whose table another socket started) follow the match from now on.
        await get_channel_layer().group_send(lobby_group(table_id), {"type": "table.started"})
        return True

    async def _finish(self, facts: tables.TableFacts, finish: Finish) -> dict[str, Any]:
        """Store the match, then let go of the table."""
        try:
            return await database_sync_to_async(tables.store_finish)(facts, finish)
        finally:
            self.hosts.pop(facts.table_id, None)

    # ---- messages -------------------------------------------------------------------------
    def _publisher(self, table_id: int, outbox: asyncio.Queue):
        """The host's ``publish`` (on the loop): messages join the table's outbox, in order."""

        def publish(audience: str, text: str) -> None:
            outbox.put_nowait((audience, text))

        return publish

    def _watched(self, table_id: int, audience: str) -> bool:
        """Whether a socket of this process or another follows ``audience`` of a table."""
        return bool(self.local.get(table_id, {}).get(audience)) or bool(
            self.remote.get(table_id, {}).get(audience)
        )

    async def _drain(self, table_id: int, outbox: asyncio.Queue) -> None:
        """Deliver a table's messages one after another: sends to the channel layer that
        run side by side may overtake each other, and a turn must not arrive before the
        view it belongs to. Ends at the ``None`` the host leaves last."""
        while (item := await outbox.get()) is not None:
            try:
                await self._deliver(table_id, *item)
            except Exception:  # one lost message must not silence the table
                log.exception("event=table.publish_failed table=%s", table_id)
        self.local.pop(table_id, None)
        self.remote.pop(table_id, None)

    async def _run_host(self, host: TableHost, outbox: asyncio.Queue) -> None:
        try:
            await host.run()
        finally:
            outbox.put_nowait(None)

    async def _deliver(self, table_id: int, audience: str, text: str) -> None:
        if audience.startswith("reply:"):
            await self._reply(audience.removeprefix("reply:"), text)
            return
        for socket in list(self.local.get(table_id, {}).get(audience, ())):
            try:
                await socket.send(text_data=text)
            except Exception:  # one socket failing must not keep the others from hearing
                log.exception("event=table.local_send_failed table=%s", table_id)
        if self.remote.get(table_id, {}).get(audience):
            group = (
                public_group(table_id)
                if audience == "public"
                else seat_group(table_id, int(audience.removeprefix("seat:")))
            )
            event = {"type": "table.message", "text": text}
            await get_channel_layer().group_send(group, event)

    async def _reply(self, channel: str, text: str) -> None:
        """One message (JSON text) to one socket, of this process or another."""
        socket = self.sockets.get(channel)
        if socket is not None:
            await socket.send(text_data=text)
        else:
            await get_channel_layer().send(channel, {"type": "table.message", "text": text})

    async def _listen(self, layer: Any, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
                await self._handle(message)
            except asyncio.CancelledError:
                raise
            except Exception:  # one bad message must not stop this process's tables
                log.exception("event=hub.message_failed")

    async def _handle(self, message: dict[str, Any]) -> None:
        table_id = message.get("table")
        if table_id in self._early:
            self._early[table_id].append(message)  # claimed here, starting: soon
            return
        kind = message.get("type")
        if kind == "table.watch":  # a socket of another process follows an audience
            if table_id in self.hosts:
                counts = self.remote.setdefault(table_id, Counter())
                counts[message["audience"]] = max(counts[message["audience"]] + message["delta"], 0)
            return
        host = self.hosts.get(table_id)  # type: ignore[arg-type]
        reply_to = message.get("reply_to")
        if host is None:
            if reply_to:
                error = {"type": "error", "error": "the match is over, or its server stopped"}
                await self._reply(reply_to, message_text(error))
            return
        if kind == "table.intent":
            host.submit(message["seat"], message.get("turn"), message.get("action"), reply_to)
        elif kind == "table.snapshot" and reply_to:
            for snapshot in host.snapshot(message.get("seat")):
                await self._reply(reply_to, snapshot)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            if self.hosts:
                try:
                    await database_sync_to_async(_beat)(list(self.hosts))
                except Exception:  # the database is away: try again at the next beat
                    log.exception("event=hub.heartbeat_failed")


def _beat(ids: list[int]) -> None:
    Table.objects.filter(pk__in=ids, state=Table.PLAYING).update(host_heartbeat=timezone.now())


#: this process's hub
hub = Hub()
