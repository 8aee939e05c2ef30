"""The websocket stack end to end through the configured channel layer (in-memory by
default, real Redis when REDIS_URL is set by the test run)."""

from __future__ import annotations

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from cardsite.asgi import application
from cardsite.origins import allowed, parse_origin


#: a socket's test: Channels closes stale database connections around each message, so even
#: a consumer that stores nothing reaches the database layer (and the channel layer: Redis in
#: the second half of scripts/run-tests)
def socket_test(test):
    return pytest.mark.django_db(pytest.mark.asyncio(test))


#: what a browser on a page of the site sends
SITE = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


@socket_test
async def test_it_round_trips_a_ping_through_the_channel_layer():
    communicator = WebsocketCommunicator(application, "/ws/ping/", headers=SITE)
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_json_to({"type": "ping", "echo": 42})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "echo": 42}
    await communicator.send_json_to({"type": "hello"})
    reply = await communicator.receive_json_from(timeout=5)
    assert reply["type"] == "error"
    await communicator.disconnect()


@socket_test
async def test_the_ping_socket_answers_a_deeply_nested_frame_with_an_error():
    communicator = WebsocketCommunicator(application, "/ws/ping/", headers=SITE)
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


@socket_test
async def test_it_refuses_a_websocket_from_a_foreign_origin():
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://evil.example"), SITE[1]]
    )
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.backends
def test_it_uses_the_layer_the_environment_asks_for():
    layer = get_channel_layer()
    if settings.REDIS_URL:
        assert type(layer).__name__ == "RedisChannelLayer"
    else:
        assert type(layer).__name__ == "InMemoryChannelLayer"


async def opens(*headers: tuple[bytes, bytes], scheme: str = "ws") -> bool:
    communicator = WebsocketCommunicator(application, "/ws/ping/", headers=list(headers))
    communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect()
    if connected:
        await communicator.disconnect()
    return connected


@socket_test
async def test_an_origin_must_match_the_host_the_socket_came_in_on_port_included():
    host = (b"host", b"localhost:8000")
    assert await opens((b"origin", b"http://localhost:8000"), host)
    # the same host name on another port is another site (anything served on this machine)
    assert not await opens((b"origin", b"http://localhost:9999"), host)
    assert not await opens((b"origin", b"http://localhost"), host)  # port 80
    assert not await opens((b"origin", b"https://localhost:8000"), host)  # another scheme
    assert not await opens((b"origin", b"http://127.0.0.1:8000"), host)  # another host
    # no port in Host: the scheme's default one
    assert await opens((b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"))
    assert not await opens((b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1"))
    assert await opens((b"origin", b"http://[::1]:8000"), (b"host", b"[::1]:8000"))
    # over TLS the page's origin is https
    assert await opens((b"origin", b"https://localhost"), (b"host", b"localhost"), scheme="wss")
    assert not await opens((b"origin", b"http://localhost"), (b"host", b"localhost"), scheme="wss")


@socket_test
async def test_a_socket_without_an_origin_or_a_usable_host_is_refused():
    # browsers always send Origin on a websocket handshake: a client without it is refused
    assert not await opens((b"host", b"localhost"))
    # a Host the site does not serve, or none, gives no origin to match
    assert not await opens((b"origin", b"http://evil.example"), (b"host", b"evil.example"))
    assert not await opens((b"origin", b"http://localhost"))
    for junk in (b"null", b"localhost", b"http://localhost/page", b"ftp://localhost",
                 b"http://localhost:99999", b"http://user@localhost"):  # fmt: skip
        assert not await opens((b"origin", junk), (b"host", b"localhost")), junk


def scope(origin: str, host: str, **extra_headers: str) -> dict:
    headers = [(b"origin", origin.encode()), (b"host", host.encode())]
    headers += [(k.replace("_", "-").encode(), v.encode()) for k, v in extra_headers.items()]
    return {"type": "websocket", "scheme": "ws", "headers": headers}


def test_trusted_origins_are_matched_by_scheme_host_and_port(settings):
    settings.ALLOWED_HOSTS = ["arena.example.org", ".example.org"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://arena.example.org", "https://*.cards.example.org"]
    host = "internal.example.org:8000"  # a proxy that passes its own Host on
    assert allowed(scope("https://arena.example.org", host))
    assert allowed(scope("https://arena.example.org:443", host))
    assert not allowed(scope("https://arena.example.org:8443", host))
    assert not allowed(scope("http://arena.example.org", host))
    assert allowed(scope("https://eu.cards.example.org", host))
    assert allowed(scope("https://cards.example.org", host))
    assert not allowed(scope("https://evilcards.example.org", host))
    assert not allowed(scope("https://arena.example.org.evil.example", host))


def test_a_trusted_tls_proxy_makes_the_origin_https(settings):
    settings.ALLOWED_HOSTS = ["arena.example.org"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    proxied = {"x_forwarded_proto": "https"}
    assert allowed(scope("https://arena.example.org", "arena.example.org", **proxied))
    assert not allowed(scope("http://arena.example.org", "arena.example.org", **proxied))
    assert allowed(scope("http://arena.example.org", "arena.example.org"))
    # without a declared proxy the header is the client's to write, and means nothing
    settings.SECURE_PROXY_SSL_HEADER = None
    assert not allowed(scope("https://arena.example.org", "arena.example.org", **proxied))


def test_parse_origin():
    assert parse_origin("HTTP://LocalHost:8000") == ("http", "localhost", 8000)
    assert parse_origin("https://[::1]") == ("https", "::1", 443)
    assert parse_origin("null") is None
    assert parse_origin("http://") is None
