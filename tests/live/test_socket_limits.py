"""One client address may hold only so many live tables' websockets open at once
(``LIVE_SOCKETS_PER_ADDRESS``), across every web process: a socket past it is told why
(a ``refused`` message) and closed with code 4430. Counted in Redis with REDIS_URL (the second
test run), in the one process's memory without. The site's other sockets (a tournament's
progress, the ping check) are counted apart, with the same limit."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from cardsite.asgi import application
from games.live import sockets, tables
from games.live.sockets import TOO_MANY_SOCKETS, SocketCount, refused_text, socket_address
from tests.people.helpers import GAME

HEADERS = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
REFUSED = (
    "too many open connections from your network: 3 pages of live tables are open from it at "
    "once, the most the site allows; close some of them (other tabs or windows of this site), "
    "and this page connects by itself"
)


def from_address(address: str):
    """The site's ASGI app, as reached by a client at ``address`` (Daphne puts it in the
    scope; a test's communicator does not)."""

    async def app(scope, receive, send):
        return await application({**scope, "client": (address, 40000)}, receive, send)

    return app


async def spectator(token: str, address: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(from_address(address), f"/ws/tables/{token}/", headers=HEADERS)


async def first_frame(comm: WebsocketCommunicator) -> dict:
    return json.loads(await comm.receive_from(timeout=10))


async def player(token: str, session_key: str, address: str) -> WebsocketCommunicator:
    """A socket of the person whose session is ``session_key``."""
    headers = [*HEADERS, (b"cookie", f"sessionid={session_key}".encode())]
    return WebsocketCommunicator(from_address(address), f"/ws/tables/{token}/", headers=headers)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_players_own_seat_gets_in_past_its_networks_limit_but_no_flood(settings):
    """A full network (an office, a school) must not keep a seated person off their table:
    its timer would then play their moves for them, in a match that may be rated. A seat has
    SEAT_SOCKETS places of its own past the limit; a spectator has none."""
    settings.LIVE_SOCKETS_PER_ADDRESS = 1
    table, session_key = await sync_to_async(tables.guest_table)(GAME, ["me", "open"])
    held = await spectator(table.token, "203.0.113.9")
    assert (await held.connect())[0] and (await first_frame(held))["type"] == "hello"
    seated = []
    for _ in range(sockets.SEAT_SOCKETS):  # the network is full: the player gets in anyway
        comm = await player(table.token, session_key, "203.0.113.9")
        assert (await comm.connect())[0]
        assert await first_frame(comm) == {"type": "hello", "seat": 0, "table": table.token}
        seated.append(comm)
    for refused in (  # no more for the seat, and none for a spectator
        await player(table.token, session_key, "203.0.113.9"),
        await spectator(table.token, "203.0.113.9"),
    ):
        assert (await refused.connect())[0]
        assert (await first_frame(refused))["type"] == "refused"
        await refused.wait()
    await seated.pop().disconnect()  # a seat's socket that closes frees its place
    again = await player(table.token, session_key, "203.0.113.9")
    assert (await again.connect())[0] and (await first_frame(again))["type"] == "hello"
    for comm in [held, *seated, again]:
        await comm.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_address_may_hold_only_so_many_sockets(settings):
    settings.LIVE_SOCKETS_PER_ADDRESS = 3
    table, _ = await sync_to_async(tables.guest_table)(GAME, ["me", "open"])
    held = []
    for _ in range(3):
        comm = await spectator(table.token, "203.0.113.7")
        assert (await comm.connect())[0]
        assert (await first_frame(comm))["type"] == "hello"
        held.append(comm)
    refused = await spectator(table.token, "203.0.113.7")
    assert (await refused.connect())[0]  # accepted only to be told why
    assert await first_frame(refused) == {"type": "refused", "error": REFUSED}
    closed = await refused.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": TOO_MANY_SOCKETS, "reason": REFUSED[:120]}
    await refused.wait()
    # another network has places of its own
    other = await spectator(table.token, "198.51.100.1")
    assert (await other.connect())[0]
    assert (await first_frame(other))["type"] == "hello"
    # a socket that closes frees its place
    await held.pop().disconnect()
    again = await spectator(table.token, "203.0.113.7")
    assert (await again.connect())[0]
    assert (await first_frame(again))["type"] == "hello"
    for comm in [*held, other, again]:
        await comm.disconnect()


def test_the_address_is_the_trusted_one_and_kept_as_a_keyed_hash(settings):
    scope = {"client": ("10.0.0.2", 1), "headers": [(b"x-forwarded-for", b"1.2.3.4, 203.0.113.9")]}
    settings.TRUSTED_PROXIES = 0  # the connection's own address: the header is the client's
    assert socket_address(scope) == tables.address_key("10.0.0.2")
    settings.TRUSTED_PROXIES = 1  # behind one proxy: what it appended
    assert socket_address(scope) == tables.address_key("203.0.113.9")
    assert "203.0.113.9" not in socket_address(scope)
    assert socket_address({"headers": []}) == ""  # not known: not counted
    assert refused_text(3) == REFUSED


# ---- across web processes: two counters, one Redis ----------------------------------------
@pytest.fixture
def redis_url(settings, tmp_path):
    """The run's Redis (the services half), else one of this test's own, started for real."""
    if getattr(settings, "REDIS_URL", ""):
        yield settings.REDIS_URL
        return
    from cardsite.localservices import redis_server

    with redis_server(tmp_path) as server:
        settings.REDIS_URL = server.url
        yield server.url


class Owner:
    """Stands for a consumer (the counter refreshes the sockets whose consumer lives)."""


@pytest.mark.backends
@pytest.mark.asyncio
async def test_two_processes_count_one_limit_in_redis_and_a_dead_ones_sockets_expire(
    settings, monkeypatch, redis_url
):
    settings.LIVE_SOCKETS_PER_ADDRESS = 3
    address = tables.address_key("203.0.113.50")
    one, two = SocketCount(), SocketCount()  # the counts of two web processes
    client = one._redis()
    await client.delete(sockets.KEY_PREFIX + address)
    owners = [Owner() for _ in range(4)]
    assert await one.admit(address, "one!a", owners[0])
    assert await one.admit(address, "one!b", owners[1])
    assert await two.admit(address, "two!a", owners[2])
    assert not await two.admit(address, "two!b", owners[3])  # the third was the last place
    assert not await one.admit(address, "one!c", owners[3])
    await one.release("one!a")
    assert await two.admit(address, "two!b", owners[3])
    members = await client.zrange(sockets.KEY_PREFIX + address, 0, -1)
    assert sorted(m.decode() for m in members) == ["one!b", "two!a", "two!b"]

    for socket in list(one.mine):
        await one.release(socket)
    for socket in list(two.mine):
        await two.release(socket)
    assert one._client is None and two._client is None  # no socket: no connection kept
    assert await client.zcard(sockets.KEY_PREFIX + address) == 0

    # a process that dies leaves its sockets counted until they expire, not for ever: each
    # living process refreshes its own
    key = sockets.KEY_PREFIX + address
    monkeypatch.setattr(sockets, "EXPIRES_S", 2)
    assert await one.admit(address, "one!x", owners[0])  # one's process dies just after
    monkeypatch.setattr(sockets, "EXPIRES_S", 90)
    assert await two.admit(address, "two!x", owners[1])
    assert await two.admit(address, "two!y", owners[2])
    assert not await two.admit(address, "two!z", owners[3])  # one!x counts, for now
    dead, living = await client.zscore(key, "one!x"), await client.zscore(key, "two!x")
    monkeypatch.setattr(sockets, "EXPIRES_S", 120)
    await two._refresh()  # what two's refresher does while its sockets live
    assert await client.zscore(key, "two!x") >= living + 29  # two's: later
    assert await client.zscore(key, "one!x") == dead  # one's: as it was
    # one!x expires (Redis's clock: the test waits for it, 2 s); two's are alive
    deadline = asyncio.get_running_loop().time() + 30
    while not await two.admit(address, "two!z", owners[3]):
        assert asyncio.get_running_loop().time() < deadline, "one!x never stopped counting"
        await asyncio.sleep(0.05)
    assert not await two.admit(address, "two!w", Owner())
    members = await client.zrange(sockets.KEY_PREFIX + address, 0, -1)
    assert sorted(m.decode() for m in members) == ["two!x", "two!y", "two!z"]
    for socket in list(two.mine):
        await two.release(socket)
    for counter in (one, two):
        if counter._client is not None:
            await counter._client.aclose()
    await client.aclose()  # (one's first client: one let go of it when it had no socket)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_limit_of_0_counts_no_socket(settings):
    """``LIVE_SOCKETS_PER_ADDRESS = 0``: no limit (a load test's clients all come from one
    machine), and nothing is counted."""
    settings.LIVE_SOCKETS_PER_ADDRESS = 0
    table, _ = await sync_to_async(tables.guest_table)(GAME, ["me", "open"])
    held = []
    for _ in range(4):
        comm = await spectator(table.token, "203.0.113.9")
        assert (await comm.connect())[0]
        assert (await first_frame(comm))["type"] == "hello"
        held.append(comm)
    for comm in held:
        await comm.disconnect()


# ---- the site's other sockets: a tournament's progress, the ping check ----------------------
PAGES_REFUSED = refused_text(3, sockets.OTHER_PAGES)


async def other_socket(path: str, address: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(from_address(address), path, headers=HEADERS)


async def assert_refused(comm: WebsocketCommunicator) -> None:
    assert (await comm.connect())[0]  # accepted only to be told why
    assert await first_frame(comm) == {"type": "refused", "error": PAGES_REFUSED}
    closed = await comm.receive_output(timeout=10)
    assert closed["type"] == "websocket.close" and closed["code"] == TOO_MANY_SOCKETS
    await comm.wait()


@pytest.fixture
def tournament(transactional_db):
    from bots import competition
    from tests.games.matchmaking import builtin, enter

    enter("alice", "rps-poker", "simple", builtin("rps-poker", "simple"))
    enter("bob", "rps-poker", "strong", builtin("rps-poker", "strong"))
    return competition.start_round_robin("rps-poker", 2, seed=9)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ping_and_tournament_sockets_are_counted_per_address(settings, tournament):
    """300 ping sockets from one address were all accepted: now they count, as a
    tournament's do, against a limit of their own as large as the tables' (a tournament's
    page must not take a table's place), and past it are refused as a table's are."""
    settings.LIVE_SOCKETS_PER_ADDRESS = 3
    held = []
    for path in ("/ws/ping/", f"/ws/tournaments/{tournament.pk}/", "/ws/ping/"):
        comm = await other_socket(path, "203.0.113.8")
        assert (await comm.connect())[0]
        held.append(comm)
    assert (await first_frame(held[1]))["type"] == "progress"
    for path in ("/ws/ping/", f"/ws/tournaments/{tournament.pk}/"):
        await assert_refused(await other_socket(path, "203.0.113.8"))
    # a table's page from the same address still gets in, another network's pages too
    table, _ = await sync_to_async(tables.guest_table)(GAME, ["me", "open"])
    seen = await spectator(table.token, "203.0.113.8")
    assert (await seen.connect())[0] and (await first_frame(seen))["type"] == "hello"
    other = await other_socket("/ws/ping/", "198.51.100.2")
    assert (await other.connect())[0]
    # a socket that closes frees its place
    await held.pop(1).disconnect()
    again = await other_socket(f"/ws/tournaments/{tournament.pk}/", "203.0.113.8")
    assert (await again.connect())[0]
    assert (await first_frame(again))["type"] == "progress"
    for comm in [*held, seen, other, again]:
        await comm.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_ping_socket_may_send_as_fast_as_a_tables_and_no_faster(settings):
    """One ping socket got 3,000 answers in 9.3 s: now a burst of BURST, then RATE a
    second; one that keeps on is closed."""
    from games.live.consumers import BURST, RATE, STRIKES

    comm = await other_socket("/ws/ping/", "203.0.113.10")
    assert (await comm.connect())[0]
    began = time.monotonic()
    for n in range(BURST + 30):
        await comm.send_json_to({"type": "ping", "echo": n})
    pongs, slow_down = 0, 0
    while True:
        out = await comm.receive_output(timeout=10)
        if out["type"] == "websocket.close":
            assert out["code"] == 4429
            took = time.monotonic() - began
            break
        said = json.loads(out["text"])
        if said["type"] == "pong":
            pongs += 1
        else:
            assert said == {"type": "error", "error": "too many messages: slow down"}
            slow_down += 1
    # (more by what the bucket refilled while they were sent and handled: RATE a second, 57
    # once on a loaded machine; a few less with Redis: the pongs still on their way through
    # the layer when it closed)
    assert BURST - 10 < pongs <= BURST + RATE * took + 2, took
    assert slow_down == STRIKES
    await comm.disconnect()  # as the server says once it closed: its place is freed


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_tournament_socket_that_sends_anything_is_closed(tournament):
    from games.consumers import READ_ONLY

    comm = await other_socket(f"/ws/tournaments/{tournament.pk}/", "203.0.113.11")
    assert (await comm.connect())[0]
    assert (await first_frame(comm))["type"] == "progress"
    await comm.send_to(text_data="x" * 10)
    assert await first_frame(comm) == {"type": "error", "error": "this socket is read-only"}
    assert (await comm.receive_output(timeout=10)) == {"type": "websocket.close", "code": READ_ONLY}
    await comm.disconnect()
