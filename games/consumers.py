"""Websocket consumers: a round-trip check and a tournament's live progress. Live tables come
with their issue."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games.engine import untrusted

#: the longest message the ping socket reads
MAX_PING = 2048


class PingConsumer(AsyncJsonWebsocketConsumer):
    """Answers ``{"type": "ping"}`` through the channel layer, proving the websocket stack and
    the layer (in-memory or Redis) work end to end."""

    async def connect(self) -> None:
        await self.accept()

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """Channels' JSON consumer parses with ``json.loads``, which a deeply nested frame
        crashes (RecursionError): parse with the bounded parser, and answer what it refuses."""
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


class TournamentProgressConsumer(AsyncJsonWebsocketConsumer):
    """``ws/tournaments/<pk>/``: a tournament's progress, read-only.

    On connect it sends the current progress (the same data as ``progress.json``), then
    forwards every ``tournament.progress`` message the worker sends to the group
    ``tournament-<pk>`` (with a shared channel layer: Redis). A tournament that does not exist
    is refused; anything a client sends is answered with an error."""

    async def connect(self) -> None:
        pk = self.scope["url_route"]["kwargs"]["pk"]
        progress = await database_sync_to_async(_progress_of)(pk)
        if progress is None:
            await self.close(code=4404)
            return
        self.group = f"tournament-{pk}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "progress", **progress})

    async def disconnect(self, code: int) -> None:
        group = getattr(self, "group", None)
        if group is not None:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        await self.send_json({"type": "error", "error": "this socket is read-only"})

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
