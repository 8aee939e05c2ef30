"""The websocket stack end to end through the configured channel layer (in-memory by
default, real Redis when REDIS_URL is set by the test run)."""

from __future__ import annotations

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from cardsite.asgi import application


@pytest.mark.asyncio
async def test_it_round_trips_a_ping_through_the_channel_layer():
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://localhost")]
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_json_to({"type": "ping", "echo": 42})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "echo": 42}
    await communicator.send_json_to({"type": "hello"})
    reply = await communicator.receive_json_from(timeout=5)
    assert reply["type"] == "error"
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_the_ping_socket_answers_a_deeply_nested_frame_with_an_error():
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://localhost")]
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_to(text_data="[" * 1000 + "]" * 1000)
    assert await communicator.receive_json_from(timeout=5) == {
        "type": "error",
        "error": "a message may nest arrays and objects at most 32 deep",
    }
    await communicator.send_to(text_data="{not json")
    assert (await communicator.receive_json_from(timeout=5))["error"] == "a message must be JSON"
    await communicator.send_json_to({"type": "ping", "echo": 7})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "echo": 7}
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_it_refuses_a_websocket_from_a_foreign_origin():
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


def test_it_uses_the_layer_the_environment_asks_for():
    layer = get_channel_layer()
    if settings.REDIS_URL:
        assert type(layer).__name__ == "RedisChannelLayer"
    else:
        assert type(layer).__name__ == "InMemoryChannelLayer"
