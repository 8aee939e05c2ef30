"""The live tables hosted by this web process, and how their messages travel.

Each web process has one hub. It owns a channel of the channel layer (``tables.…``) on which
sockets of any process (Redis) or of this one (in-memory layer) send a table's intents and
snapshot requests; the table's row names that channel (``Table.host_channel``). A host's
messages go out to groups, one per seat and one for spectators, so a socket hears exactly
its audience. Hosts run on the hub's event loop (one coroutine per table, no thread), and
the sockets of this process at a table hosted here are served directly.

The hub also beats each of its tables' hearts in the database, and writes the steps of
their matches there as they happen (``TableStep``, one INSERT for whatever its tables did
meanwhile). A table whose process died stops beating; the next socket that looks at it, or
the sweep every hub makes at each beat, claims it (one conditional UPDATE: one process wins)
and resumes its match from its seed and its steps. A process that is stopped (SIGTERM) hands
its tables over at once (:meth:`Hub.hand_over`). See docs/live-tables.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from datetime import timedelta
from typing import Any

from channels.db import database_sync_to_async
from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from bots.clock import shared_now
from bots.outages import DATABASE_AWAY, REDIS_UNREACHABLE
from games.live import tables
from games.live.host import Finish, SeatPlan, StoreWaits, TableHost, TableLost, message_text
from games.models import Table
from games.registry import get_game

log = logging.getLogger("games.live")

HEARTBEAT_S = 5.0
#: tables a sweep claims at most (the others wait for the next sweep, or another process's)
SWEEP_MAX = 20
#: step writes carried out in one trip to the database at most
WRITES_MAX = 1000
#: a step waits this long for others to go with it (a trip to the database thread costs the
#: event loop more than the rows: one a step took a seventh of a core at 200 tables); a
#: step lost in that time to a dying process is asked again
STEPS_EVERY_S = 0.1
#: what the people at a table whose host died long ago are told
ABANDONED = "the server running this table stopped; the table is abandoned"
#: what the people at a table are told when its host stopped and another process takes it
#: over (a ``moved`` message; the page adds that a move it had not answered is asked again)
MOVED = "The server running this table stopped; the table is moving to another server."
#: ... and when the one process of the site stops (no other process can take the table)
STOPPED = (
    "The server running this table stopped; the table goes on from where it was when the "
    "server is started again."
)
#: a stopping process hands its tables over within this many seconds, or leaves them to be
#: taken over once stale
HAND_OVER_S = 5.0
#: a handed-over table's heartbeat is this far past the stale limit (other processes' measures
#: of the database's clock)
HAND_OVER_MARGIN_S = 10.0
#: the close code of a table's socket whose process stops (WebSocket's "service restart")
SERVICE_RESTART = 1012
#: a stopping process's last messages to its sockets get this long to go out
FLUSH_S = 0.2
#: the listener's first wait when the channel layer cannot be reached (or receiving fails),
#: doubled after each failed try up to LAYER_RETRY_MOST_S
LAYER_RETRY_FIRST_S = 0.5
LAYER_RETRY_MOST_S = 5.0


#: what the channel layer raises while Redis is away
LAYER_ERRORS = REDIS_UNREACHABLE


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
        #: each hosted table's task, to let go of a table another process took over
        self._runs: dict[int, asyncio.Task[None]] = {}
        #: step writes (tables.StepWrite) waiting for the writer, in order
        self._writes: asyncio.Queue | None = None
        #: when (time.monotonic) the listener found the channel layer unreachable, while it is
        self.layer_lost_at: float | None = None
        #: this process is stopping (SIGTERM): it handed its tables over and takes none
        self.stopping = False

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
                self._writes = asyncio.Queue()
                self.layer_lost_at = None
                self.stopping = False
                self._spawn(self._listen(layer, self.channel))
                self._spawn(self._heartbeat())
                self._spawn(self._write_steps(self._writes))
        return self.channel

    def unreachable(self, table: Table) -> bool:
        """A table in play hosted by another process that this one could never reach: with
        an in-memory channel layer (one process, no Redis) its host was an earlier run of
        this server, so it needs no waiting for its heartbeat to go stale."""
        return (
            table.state == Table.PLAYING
            and table.host_channel != self.channel
            and not self.hosts_here(table.pk)
            and isinstance(get_channel_layer(), InMemoryChannelLayer)
        )

    def hosts_here(self, table_id: int) -> bool:
        return table_id in self.hosts or table_id in self._early

    def attach(self, table_id: int, audience: str, socket: Any) -> None:
        self.local.setdefault(table_id, {}).setdefault(audience, set()).add(socket)
        self.sockets[socket.channel_name] = socket
        self._pages_changed(table_id, audience)

    def serves(self, table_id: int, audience: str, socket: Any) -> bool:
        """Whether a table hosted here serves ``socket`` directly."""
        attached = socket in self.local.get(table_id, {}).get(audience, ())
        return attached and self.hosts_here(table_id)

    def detach(self, table_id: int, audience: str, socket: Any) -> None:
        self.local.get(table_id, {}).get(audience, set()).discard(socket)
        self.sockets.pop(socket.channel_name, None)
        self._pages_changed(table_id, audience)

    def _pages_changed(self, table_id: int, audience: str) -> None:
        """A socket of a person's seat came to a table hosted here, or left it: its host
        says so to the others once none is left (``TableHost.pages_changed``)."""
        host = self.hosts.get(table_id)
        if host is not None and audience.startswith("seat:"):
            host.pages_changed(int(audience.removeprefix("seat:")))

    async def snapshot_to(self, table_id: int, seat: int | None, socket: Any) -> None:
        """A local socket's catch-up, straight from the host (or once it has started)."""
        message = {"type": "table.snapshot", "table": table_id, "seat": seat,
                   "reply_to": socket.channel_name}  # fmt: skip
        await self._handle(message)

    def _spawn(self, coroutine: Any) -> asyncio.Task[None]:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ---- starting a table ---------------------------------------------------------------
    async def start(self, table: Table) -> bool:
        """Start ``table``'s match here if no process has yet; True if this one did."""
        channel = await self.ensure_listening()
        claimed = await database_sync_to_async(tables.claim_and_plan)(table, channel)
        if claimed is None:
            return False
        await self._launch(table, *claimed)
        log.info("event=table.start table=%s game=%s", table.token, table.game)
        # Sockets that came while the table waited and did not start it (spectators, and
        # people whose table another socket started) follow the match from now on.
        await get_channel_layer().group_send(lobby_group(table.pk), {"type": "table.started"})
        return True

    async def resume(self, table: Table) -> bool:
        """Resume here ``table``'s match, whose host died, from its seed and its kept steps,
        if no other process has; True if it is hosted here now."""
        channel = await self.ensure_listening()
        if self.stopping:  # (handed over: another process takes it)
            return False
        if self.hosts_here(table.pk):
            table.host_channel = channel
            return True
        claimed = await database_sync_to_async(tables.claim_and_resume)(
            table, channel, unreachable=self.unreachable(table)
        )
        if claimed is None:
            return False
        table.host_channel = channel  # (the row says so now)
        plans, facts, steps = claimed
        await self._launch(table, plans, facts, steps)
        log.info("event=table.resume table=%s game=%s steps=%d", table.token, table.game,
                 len(steps))  # fmt: skip
        # every socket at the table, of any process, follows the new host from now on
        await get_channel_layer().group_send(lobby_group(table.pk), {"type": "table.moved"})
        return True

    async def _launch(
        self,
        table: Table,
        plans: list[SeatPlan],
        facts: tables.TableFacts,
        steps: list[tuple[int, dict[str, Any]]] | None = None,
    ) -> None:
        """Host a table claimed here: its match runs on this loop from now on."""
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
                steps=steps or (),
                store=_Steps(self, table_id),
                rated=facts.rated,
                share=facts.share,
            )
        except (ValueError, KeyError) as exc:
            self._early.pop(table_id, None)
            await database_sync_to_async(tables.abandon)(table, str(exc))
            raise
        self.hosts[table_id] = host
        if self.layer_lost_at is not None:  # (resumed by a sweep while Redis is away)
            host.layer_lost()
        self._spawn(self._drain(table_id, outbox))
        self._runs[table_id] = self._spawn(self._run_host(host, outbox))
        for message in self._early.pop(table_id, []):
            await self._handle(message)

    async def _finish(self, facts: tables.TableFacts, finish: Finish) -> dict[str, Any]:
        """Store the match, then let go of the table (and forget its steps: the stored
        record holds the whole match). While the database cannot take it (:class:`StoreWaits`)
        the table stays hosted here, its heart beating, and its host tries again; its steps
        stay, so if this process dies meanwhile the table is resumed to the end and stored by
        a process that sweeps it up."""
        waits = False
        try:
            try:
                stored = await database_sync_to_async(tables.store_finish)(
                    facts, finish, self.channel
                )
            except DATABASE_AWAY as exc:
                waits = True
                raise StoreWaits(_said(exc)) from exc
            except TableLost:
                # another process took the table over while this one was stuck: its sockets
                # here follow it there, and nothing of this end is kept
                self._send_after(facts.table_id)
                raise
            self._write(("forget", facts.table_id))
            return stored
        finally:
            if not waits:
                self.hosts.pop(facts.table_id, None)
                self._runs.pop(facts.table_id, None)

    # ---- the steps of matches in play ---------------------------------------------------
    def _write(self, write: tables.StepWrite) -> None:
        if self._writes is not None:
            self._writes.put_nowait(write)

    async def _write_steps(self, writes: asyncio.Queue) -> None:
        """Write the tables' steps in the order they came, whatever came within
        STEPS_EVERY_S in one trip: with many tables a trip carries many steps. A write
        that fails is tried again (later steps wait: what is kept stays a match's beginning)."""
        while True:
            batch = [await writes.get()]
            await asyncio.sleep(STEPS_EVERY_S)  # what the other tables do meanwhile comes along
            while not writes.empty() and len(batch) < WRITES_MAX:
                batch.append(writes.get_nowait())
            while True:
                try:
                    await database_sync_to_async(tables.write_steps)(batch, self.channel)
                    break
                except asyncio.CancelledError:
                    raise
                except Exception:  # the database is away: the steps wait for it
                    log.exception("event=hub.steps_failed writes=%d", len(batch))
                    await asyncio.sleep(1.0)
            for _ in batch:
                writes.task_done()

    async def settled(self) -> None:
        """Wait until the steps queued so far are written (a test, before its database is
        emptied)."""
        if self._writes is not None and self.loop is asyncio.get_running_loop():
            await self._writes.join()

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
            except LAYER_ERRORS as exc:  # Redis is away: the listener says so, once
                if self.layer_lost_at is None:
                    log.warning("event=table.publish_failed table=%s error=%s", table_id,
                                _said(exc))  # fmt: skip
            except Exception:  # one lost message must not silence the table
                log.exception("event=table.publish_failed table=%s", table_id)
        if not self.hosts_here(table_id):  # (a table let go of may be resumed here again)
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
        """Hear this process's table channel for ever. A layer that cannot be reached (Redis
        is away) is waited for (:meth:`_wait_for_layer`); any other failure to receive is
        logged with its traceback and tried again after a wait that doubles, never at once."""
        wait = LAYER_RETRY_FIRST_S
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except LAYER_ERRORS as exc:
                await self._wait_for_layer(layer, channel, exc)
                continue
            except Exception:
                log.exception("event=hub.receive_failed retry_in=%.1fs", wait)
                await asyncio.sleep(wait)
                wait = min(wait * 2, LAYER_RETRY_MOST_S)
                continue
            wait = LAYER_RETRY_FIRST_S
            try:
                await self._handle(message)
            except asyncio.CancelledError:
                raise
            except LAYER_ERRORS as exc:  # a reply the layer could not take: no traceback
                log.warning("event=hub.message_failed error=%s", _said(exc))
            except Exception:  # one bad message must not stop this process's tables
                log.exception("event=hub.message_failed")

    async def _wait_for_layer(self, layer: Any, channel: str, error: BaseException) -> None:
        """The channel layer cannot be reached. No socket reaches a table meanwhile (every
        socket of every process closes, and a handshake fails: Channels needs the layer),
        so the tables hosted here hold their people's turns (TableHost.layer_lost) until it
        answers again: a message to this very channel, tried after LAYER_RETRY_FIRST_S, then
        after twice as long each time up to LAYER_RETRY_MOST_S. One line in the log when it
        goes, one when it is back."""
        lost = time.monotonic()
        log.warning("event=hub.layer_unreachable error=%s", _said(error))
        self.layer_lost_at = lost
        for host in list(self.hosts.values()):
            host.layer_lost()
        wait = LAYER_RETRY_FIRST_S
        while True:
            await asyncio.sleep(wait)
            wait = min(wait * 2, LAYER_RETRY_MOST_S)
            try:
                await layer.send(channel, {"type": "hub.ping"})  # (_handle ignores it)
                break
            except asyncio.CancelledError:
                raise
            except ChannelFull:  # full, but it answered
                break
            except LAYER_ERRORS:
                continue
            except Exception:  # not the connection: said, and tried again all the same
                log.exception("event=hub.layer_probe_failed")
        after = time.monotonic() - lost
        self.layer_lost_at = None
        log.warning("event=hub.layer_back after=%.1fs", after)
        for host in list(self.hosts.values()):
            host.layer_back(after)

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
                self._pages_changed(table_id, message["audience"])
            return
        host = self.hosts.get(table_id)  # type: ignore[arg-type]
        reply_to = message.get("reply_to")
        if host is None:
            if reply_to:
                error = {"type": "error", "error": "the match is over, or its server stopped"}
                await self._reply(reply_to, message_text(error))
            return
        if kind == "table.intent":
            host.submit(
                message["seat"],
                message.get("turn"),
                message.get("action"),
                reply_to,
                message.get("received_at"),
            )
        elif kind == "table.snapshot" and reply_to:
            for snapshot in host.snapshot(message.get("seat")):
                await self._reply(reply_to, snapshot)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(heartbeat_s())
            try:
                if self.hosts:
                    lost = await database_sync_to_async(_beat)(list(self.hosts), self.channel)
                    for table_id in lost:
                        self._let_go(table_id)
                await self._sweep()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database is away: try again at the next beat
                log.exception("event=hub.heartbeat_failed")

    def _let_go(self, table_id: int) -> None:
        """Another process took this table over (this one stopped beating for a while: it
        was stuck): stop hosting it, without storing anything, and tell the sockets of this
        process still at it to follow it to its new host (as ``table.moved`` does: one that
        heard that message before this process noticed would otherwise stay with a host
        that is gone, every move of its person refused while the timer plays for them)."""
        log.warning("event=table.taken_over table=%s", table_id)
        task = self._runs.pop(table_id, None)
        self.hosts.pop(table_id, None)
        if task is not None:
            task.cancel()
        self._send_after(table_id)

    def _send_after(self, table_id: int) -> None:
        """Tell the sockets of this process at a table it lost to follow it to its host."""
        stranded = [s for sockets in self.local.get(table_id, {}).values() for s in sockets]
        if stranded:
            self._spawn(_tell_moved(table_id, stranded))

    def moved_away(self, table: Table) -> bool:
        """Whether ``table`` (its row as just read) is hosted here though its row names
        another host: another process took it over while this one was stuck, and this one
        has not noticed yet (its next beat would). It is let go of at once (:meth:`_let_go`)."""
        if table.pk not in self.hosts or table.host_channel == self.channel:
            return False
        self._let_go(table.pk)
        return True

    async def hand_over(self, timeout: float = HAND_OVER_S) -> None:
        """This process stops (SIGTERM; cardsite/serve.py): its tables go to another process
        at once, not once their heartbeat is stale. Their matches stop here (nothing more is
        taken in), the steps taken so far are written, each table's row says its host is
        stale (one UPDATE), the people at them on this process are told (their sockets close
        with it, and their pages connect again, to another process), and every socket of
        another process at them hears ``table.moved``: the first claims the table and
        resumes it, the others follow (a sweep claims a table nobody looks at). Bounded by
        ``timeout`` seconds: a database or channel layer that does not answer does not hold
        the stop up (the tables are then taken over once stale, as after a crash)."""
        self.stopping = True
        # a match played to its end is being stored: it ends here, and is told
        ending = [h for h in self.hosts.values() if h.state is not None and h.state.is_over()]
        ids = [table_id for table_id, host in self.hosts.items() if host not in ending]
        people = [
            socket
            for table_id in ids
            for sockets in self.local.get(table_id, {}).values()
            for socket in sockets
        ]
        for table_id in ids:
            task = self._runs.pop(table_id, None)
            self.hosts.pop(table_id, None)
            if task is not None:
                task.cancel()
        if not ids and not ending:
            return
        log.info("event=hub.hand_over tables=%d ending=%d", len(ids), len(ending))
        alone = isinstance(get_channel_layer(), InMemoryChannelLayer)
        text = message_text({"type": "moved", "text": STOPPED if alone else MOVED})
        for socket in people:
            with contextlib.suppress(Exception):  # (a socket closing meanwhile)
                await socket.send(text_data=text)
        try:
            async with asyncio.timeout(timeout):
                for host in ending:
                    await host.done.wait()
                if self._writes is not None and self.loop is asyncio.get_running_loop():
                    await self._writes.join()  # every step taken is kept
                await database_sync_to_async(_hand_over)(ids, self.channel)
                if not alone:
                    for table_id in ids:
                        await get_channel_layer().group_send(
                            lobby_group(table_id), {"type": "table.moved"}
                        )
                # their pages connect again (to another process), once told (the server
                # drops the connections it has not closed, with what they had still to send)
                for socket in people:
                    with contextlib.suppress(Exception):
                        await socket.close(code=SERVICE_RESTART)
                await asyncio.sleep(FLUSH_S)
        except TimeoutError:
            log.warning("event=hub.hand_over_timeout tables=%d", len(ids))
        except Exception:  # the database or the layer is away: taken over once stale
            log.exception("event=hub.hand_over_failed tables=%d", len(ids))

    async def _sweep(self) -> None:
        """Resume the tables whose host died (or abandon them, if it died long ago), so that
        a match goes on even when none of its sockets comes back to this process."""
        if self.stopping:
            return
        found = await database_sync_to_async(tables.orphans)(
            self.channel, unreachable=isinstance(get_channel_layer(), InMemoryChannelLayer),
            limit=SWEEP_MAX,
        )  # fmt: skip
        for table in found:
            if self.hosts_here(table.pk):
                continue
            try:
                if tables.too_old_to_resume(table):
                    await database_sync_to_async(tables.abandon)(table, ABANDONED)
                    await get_channel_layer().group_send(
                        lobby_group(table.pk), {"type": "table.moved"}
                    )
                else:
                    await self.resume(table)
            except Exception:  # one table that cannot be resumed must not stop the sweep
                log.exception("event=table.resume_failed table=%s", table.pk)


class _Steps:
    """A table's :class:`~games.live.host.StepStore`: its steps go to the hub's writer."""

    __slots__ = ("hub", "table_id")

    def __init__(self, hub: Hub, table_id: int) -> None:
        self.hub, self.table_id = hub, table_id

    def add(self, index: int, step: dict[str, Any]) -> None:
        self.hub._write(("add", self.table_id, index, step))

    def cut(self, index: int) -> None:
        self.hub._write(("cut", self.table_id, index))


def _said(error: BaseException) -> str:
    """An error on one line of the log (its type and message, no traceback)."""
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


def heartbeat_s() -> float:
    """Seconds between two beats (and sweeps); well under TABLE_HOST_STALE_S."""
    return float(getattr(settings, "TABLE_HEARTBEAT_S", HEARTBEAT_S))


async def _tell_moved(table_id: int, sockets: list[Any]) -> None:
    """Tell sockets of this process that their table moved (``table.moved``, through the
    layer: each handles it in turn with its other messages)."""
    layer = get_channel_layer()
    for socket in sockets:
        try:
            await layer.send(socket.channel_name, {"type": "table.moved"})
        except Exception:  # (the layer is away: the page's next move gets it back)
            log.exception("event=table.moved_lost table=%s", table_id)


def _hand_over(ids: list[int], channel: str | None) -> None:
    """The tables ``ids`` hosted by ``channel`` are left for another process to claim now:
    their heartbeat is put past the stale limit (with a margin for the processes' measures of
    the database's clock, :mod:`bots.clock`), well within the window in which a table is
    resumed."""
    beat = shared_now() - tables.host_stale_after() - timedelta(seconds=HAND_OVER_MARGIN_S)
    Table.objects.filter(pk__in=ids, state=Table.PLAYING, host_channel=channel).update(
        host_heartbeat=beat
    )


def _beat(ids: list[int], channel: str | None) -> list[int]:
    """Say that this process's tables are alive; the ones another process has taken over
    (this one was stuck for longer than the stale limit) are returned, to let go of."""
    now = shared_now()
    beaten = Table.objects.filter(pk__in=ids, state=Table.PLAYING, host_channel=channel)
    if beaten.update(host_heartbeat=now) == len(ids):
        return []
    taken = Table.objects.filter(pk__in=ids, state=Table.PLAYING).exclude(host_channel=channel)
    return list(taken.values_list("pk", flat=True))


#: this process's hub
hub = Hub()
