"""What the sockets say of a frame they do not read: a binary frame is told to be text (it
was told it was too long), and the size limit counts bytes, as it says."""

from __future__ import annotations

import json

import pytest
from channels.testing import WebsocketCommunicator

from cardsite.asgi import application
from games.engine import untrusted
from tests.live.test_consumers import finish_off, make_table, make_user, socket

SITE = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
BINARY = "binary frames are not read: send a JSON text message"
TOO_LONG = "a message is JSON text of at most 2048 bytes"


def over_in_bytes_only() -> str:
    """A ping of fewer than 2048 characters but more than 2048 bytes (é is two)."""
    text = json.dumps({"type": "ping", "echo": "é" * 1100}, ensure_ascii=False)
    assert len(text) < 2048 < len(text.encode())
    return text


def test_the_limit_counts_bytes_and_a_binary_frame_is_told_to_be_text():
    with pytest.raises(ValueError, match=BINARY):
        untrusted.message(None, 2048)
    with pytest.raises(ValueError, match=TOO_LONG):
        untrusted.message(over_in_bytes_only(), 2048)
    at_limit = json.dumps({"echo": "é" * 1010}, ensure_ascii=False)
    assert len(at_limit.encode()) <= 2048
    assert untrusted.message(at_limit, 2048) == {"echo": "é" * 1010}


@pytest.mark.django_db
@pytest.mark.asyncio
async def test_the_ping_socket_says_so_of_binary_and_too_many_bytes():
    communicator = WebsocketCommunicator(application, "/ws/ping/", headers=SITE)
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_to(bytes_data=b'{"type": "ping"}')
    assert await communicator.receive_json_from(timeout=5) == {"type": "error", "error": BINARY}
    await communicator.send_to(text_data=over_in_bytes_only())
    assert await communicator.receive_json_from(timeout=5) == {"type": "error", "error": TOO_LONG}
    await communicator.send_json_to({"type": "ping", "echo": 7})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "echo": 7}
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_table_socket_says_so_of_binary_and_too_many_bytes():
    ann = await make_user("ann")
    table = await make_table("rps-poker", ann, ["me", "open"])
    sock = await socket(table.token, ann)
    assert await sock.connect()
    await sock.comm.send_to(bytes_data=b'{"type": "ping"}')
    assert (await sock.next("error"))["error"] == BINARY
    await sock.comm.send_to(text_data=over_in_bytes_only())
    assert (await sock.next("error"))["error"] == TOO_LONG
    await sock.send({"type": "ping"})
    await sock.next("pong")
    await sock.close()
    await finish_off(table)
