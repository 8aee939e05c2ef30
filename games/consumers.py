"""Websocket consumers. Live tables come with their issue; for now a round-trip check."""

from __future__ import annotations

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class PingConsumer(AsyncJsonWebsocketConsumer):
    """Answers ``{"type": "ping"}`` through the channel layer, proving the websocket stack and
    the layer (in-memory or Redis) work end to end."""

    async def connect(self) -> None:
        await self.accept()

    async def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict) or content.get("type") != "ping":
            await self.send_json({"type": "error", "error": 'expected {"type": "ping"}'})
            return
        await self.channel_layer.send(
            self.channel_name, {"type": "pong.message", "echo": content.get("echo")}
        )

    async def pong_message(self, event) -> None:
        await self.send_json({"type": "pong", "echo": event.get("echo")})
