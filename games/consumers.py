"""Websocket consumers: a round-trip check and a tournament's live progress. Live tables come
with their issue.

Both are counted per client address as the tables' sockets are (games/live/sockets.py), apart
from them and with the same limit (``LIVE_SOCKETS_PER_ADDRESS``): one more is accepted only to
be told why (a ``refused`` message) and closed with code 4430. The ping socket may send as
many messages as a table's (``games.live.consumers.Throttled``); the tournament's
socket only listens, and is closed when it sends anything."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games.engine import untrusted
from games.live import sockets
from games.live.consumers import Throttled

#: the longest message the ping socket reads
MAX_PING = 2048
#: the close code of a tournament's socket that sent something (it only listens)
READ_ONLY = 4400


class CountedConsumer(AsyncJsonWebsocketConsumer):
    """A socket counted against its address (:func:`sockets.pages_key`) while it is open."""

    counted = False

    async def admitted(self) -> bool:
        """Count this socket; if its address has no place left, accept it only to say why,
        close it and return False."""
        key = sockets.pages_key(sockets.socket_address(self.scope))
        self.counted = await sockets.counter.admit(key, self.channel_name, self)
        if self.counted:
            return True
        await self.accept()
        error = sockets.refused_text(sockets.limit(), sockets.OTHER_PAGES)
        await self.send_json({"type": "refused", "error": error})
        await self.close(code=sockets.TOO_MANY_SOCKETS, reason=error[:120])
        return False

    async def disconnect(self, code: int) -> None:
        if self.counted:
            self.counted = False
            await sockets.counter.release(self.channel_name)


class PingConsumer(Throttled, CountedConsumer):
    """Answers ``{"type": "ping"}`` through the channel layer, proving the websocket stack and
    the layer (in-memory or Redis) work end to end."""

    async def connect(self) -> None:
        if not await self.admitted():
            return
        self.start_rate()
        await self.accept()

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """Channels' JSON consumer parses with ``json.loads``, which a deeply nested frame
        crashes (RecursionError): parse with the bounded parser, and answer what it refuses."""
        if await self.flooded():
            return
        try:
            content = untrusted.message(text_data, MAX_PING)
        except ValueError as exc:
            await self._error(str(exc))
            return
        await self.receive_json(content)

    async def _error(self, text: str) -> None:
        await self.send_json({"type": "error", "error": text})

    async def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict) or content.get("type") != "ping":
            await self._error('expected {"type": "ping"}')
            return
        await self.channel_layer.send(
            self.channel_name, {"type": "pong.message", "echo": content.get("echo")}
        )

    async def pong_message(self, event) -> None:
        await self.send_json({"type": "pong", "echo": event.get("echo")})


class TournamentProgressConsumer(CountedConsumer):
    """``ws/tournaments/<pk>/``: a tournament's progress, read-only.

    On connect it sends the current progress (the same data as ``progress.json``), then
    forwards every ``tournament.progress`` message the worker sends to the group
    ``tournament-<pk>`` (with a shared channel layer: Redis). A tournament that does not exist
    is refused; a socket that sends anything is answered with an error and closed."""

    async def connect(self) -> None:
        if not await self.admitted():
            return
        pk = self.scope["url_route"]["kwargs"]["pk"]
        progress = await database_sync_to_async(_progress_of)(pk)
        if progress is None:
            await CountedConsumer.disconnect(self, 4404)  # (its place, now)
            await self.close(code=4404)
            return
        self.group = f"tournament-{pk}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "progress", **progress})

    async def disconnect(self, code: int) -> None:
        await super().disconnect(code)
        group = getattr(self, "group", None)
        if group is not None:
            self.group = None
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """It only listens: a client that sends anything is told so, and let go."""
        await self.send_json({"type": "error", "error": "this socket is read-only"})
        await self.close(code=READ_ONLY)

    async def tournament_progress(self, event) -> None:
        jobs = event.get("jobs") or {}
        total = sum(jobs.values())
        finished_jobs = jobs.get("done", 0) + jobs.get("failed", 0)
        await self.send_json(
            {
                "type": "progress",
                "tournament": event.get("tournament"),
                "match": event.get("match"),
                "scores": event.get("scores"),
                "finished": bool(event.get("finished")),
                "jobs": jobs,
                "total": total,
                "percent": round(100 * finished_jobs / total, 1) if total else 0.0,
            }
        )


def _progress_of(pk: int) -> dict | None:
    from bots.models import Tournament
    from games.views import tournament_progress

    found = Tournament.objects.filter(pk=pk).first()
    return tournament_progress(found) if found is not None else None
