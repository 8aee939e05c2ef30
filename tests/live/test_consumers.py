"""Live tables over real websockets (the project's ASGI app, its session and auth stack, the
configured channel layer: in-memory, or Redis in the second test run)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from bots.models import MatchSeat
from cardsite.asgi import application
from games.last_card.movecheck import problem
from games.last_card.rules import FULL_DECK as DECK
from games.live import consumers, tables
from games.live.hub import hub, lobby_group
from games.models import Table, TableSeat
from games.replays import card_view

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
ORIGIN = (b"origin", b"http://localhost")
HOST = (b"host", b"localhost")


def cookie_for(user: User) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


class Socket:
    """A browser's socket: everything it received, and waits for the next of a kind."""

    def __init__(self, token: str, cookie: bytes | None = None) -> None:
        headers = [ORIGIN, HOST]
        if cookie is not None:
            headers.append((b"cookie", cookie))
        self.comm = WebsocketCommunicator(application, f"/ws/tables/{token}/", headers=headers)
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []

    async def connect(self) -> bool:
        connected, _ = await self.comm.connect()
        return connected

    async def next(self, kind: str | set[str], timeout: float = 10.0) -> dict[str, Any]:
        """The next frame of ``kind`` (or of any of a set of kinds: one reader takes them all,
        where two racing readers would each drop what the other waits for); frames of other
        kinds are kept, and skipped."""
        kinds = {kind} if isinstance(kind, str) else kind
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            assert left > 0, f"no {kind}: {self.frames[-4:]}"
            try:
                event = await self.comm.receive_output(timeout=left)
            except TimeoutError:
                raise AssertionError(f"no {kind} in {timeout:g} s: {self.frames[-4:]}") from None
            if event["type"] == "websocket.close":
                raise AssertionError(f"closed {event.get('code')} waiting for {kind}")
            text = event["text"]
            self.raw.append(text)
            frame = json.loads(text)
            self.frames.append(frame)
            if frame["type"] in kinds:
                return frame

    async def send(self, message: Any) -> None:
        await self.comm.send_to(text_data=json.dumps(message))

    def last_state(self) -> dict[str, Any]:
        """The last table frame, with its actions."""
        return next(f for f in reversed(self.frames) if f["type"] == "state")

    async def close(self) -> None:
        await self.comm.disconnect()


async def socket(token: str, user: User | None = None) -> Socket:
    cookie = await sync_to_async(cookie_for)(user) if user is not None else None
    return Socket(token, cookie)


async def make_user(name: str) -> User:
    return await sync_to_async(User.objects.create_user)(name, password="pw-" + name)


async def make_table(game: str, owner: User, seats: list[str], **kw) -> Table:
    return await sync_to_async(tables.create_table)(game, tables.Person(owner), seats, **kw)


async def two_players_and_a_spectator(game: str, **kw) -> tuple[Table, Socket, Socket, Socket]:
    """A table of ``game`` opened by ann, bob in its other seat: the table, and ann's,
    bob's and a spectator's sockets, connected."""
    ann, bob = await make_user("ann"), await make_user("bob")
    table = await make_table(game, ann, ["me", "open"], **kw)
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    sockets = (
        await socket(table.token, ann),
        await socket(table.token, bob),
        await socket(table.token),
    )
    for sock in sockets:
        assert await sock.connect()
    return (table, *sockets)


async def eventually(read, good, waiting_for: str, timeout: float = 20, offload: bool = True):
    """``read()`` (in a thread if ``offload``: a database read) once ``good`` of it, within
    ``timeout`` seconds; what it read last is in the failure."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        seen = await sync_to_async(read)() if offload else read()
        if good(seen):
            return seen
        assert loop.time() < deadline, f"waited {timeout:g} s for {waiting_for}; last seen: {seen}"
        await asyncio.sleep(0.05)


async def finish_off(table: Table) -> None:
    """End a table the test leaves running: its people are played for at once."""
    host = hub.hosts.get(table.pk)
    if host is not None:
        host.close()
        await asyncio.wait_for(host.done.wait(), 20)


async def test_a_person_plays_rps_poker_against_a_bot_over_a_websocket():
    ann = await make_user("ann")
    table = await make_table("rps-poker", ann, ["me", "builtin:simple"])
    sock = await socket(table.token, ann)
    assert await sock.connect()
    assert (await sock.next("hello"))["seat"] == 0
    answered: set[int] = set()
    while len(answered) < 15:  # five draft picks and ten games
        turn = await sock.next("turn")
        if turn["turn"] in answered:
            continue  # heard twice (live and in a catch-up): answered once
        answered.add(turn["turn"])
        actions = sock.last_state()["actions"]
        assert [a["value"] for a in actions] == list(range(len(actions))) and actions
        await sock.send({"type": "act", "turn": turn["turn"], "action": 0})
    assert answered == set(range(1, 16))
    over = await sock.next("over")
    assert sum(over["result"]["scores"]) == 10
    assert over["url"] == f"/matches/{over['match']}/"
    assert not [f for f in sock.frames if f["type"] == "error"]
    await sock.close()
    table = await eventually(
        lambda: Table.objects.get(pk=table.pk),
        lambda row: row.state == Table.FINISHED,
        "the table's row to say it finished",
    )
    assert table.state == Table.FINISHED and table.match_id == over["match"]
    seats = await sync_to_async(list)(
        MatchSeat.objects.filter(match_id=table.match_id).order_by("seat")
    )
    assert [(s.user_id, s.bot_id, s.name) for s in seats] == [
        (ann.pk, None, "ann"),
        (None, None, "house/simple"),
    ]
    assert sum(s.score for s in seats) == 10


async def test_forged_malformed_and_out_of_turn_messages_are_refused_to_the_sender_only():
    ann, bob = await make_user("ann"), await make_user("bob")
    table = await make_table("rps-poker", ann, ["me", "open"])
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    a, b, watcher = (
        await socket(table.token, ann),
        await socket(table.token, bob),
        await socket(table.token),
    )
    for sock in (a, b, watcher):
        assert await sock.connect()
    assert [(await s.next("hello"))["seat"] for s in (a, b, watcher)] == [0, 1, None]
    turn = (await a.next("turn"))["turn"]
    await b.next("turn")
    await a.comm.send_to(text_data="not json")
    assert (await a.next("error"))["error"] == "a message must be JSON"
    await a.send(["act"])
    assert "object" in (await a.next("error"))["error"]
    await a.send({"type": "shout"})
    assert "unknown message type" in (await a.next("error"))["error"]
    # a forged seat: the socket's seat is the one it connected with
    await a.send({"type": "act", "turn": turn, "action": 0, "seat": 1})
    assert "unknown field 'seat'" in (await a.next("error"))["error"]
    await a.send({"type": "act", "turn": turn + 3, "action": 0})
    assert "turn" in (await a.next("error"))["error"]
    await a.send({"type": "act", "turn": turn, "action": 9})
    assert "out of range" in (await a.next("error"))["error"]
    await a.send({"type": "act", "turn": turn, "action": "x" * 3000})
    assert "at most" in (await a.next("error"))["error"]
    await watcher.send({"type": "act", "turn": turn, "action": 0})
    assert (await watcher.next("error"))["error"] == "spectators cannot act"
    # ann acts once; acting again in the same turn is refused as answered
    await a.send({"type": "act", "turn": turn, "action": 0})
    await a.send({"type": "act", "turn": turn, "action": 1})
    assert (await a.next("error"))["error"] in (
        f"turn {turn} is already answered",
        f"that action was for turn {turn}; it is turn {turn + 1} now",
    )
    # nobody else heard of any of it, and nothing changed for bob
    await b.send({"type": "ping"})
    await b.next("pong")
    assert not [f for f in b.frames if f["type"] == "error"]
    assert [f for f in watcher.frames if f["type"] == "error"] == [
        {"type": "error", "error": "spectators cannot act"}
    ]
    for sock in (a, b, watcher):
        await sock.close()
    await finish_off(table)


async def test_a_deeply_nested_frame_is_refused_and_the_socket_stays_open():
    ann, bob = await make_user("ann"), await make_user("bob")
    table = await make_table("rps-poker", ann, ["me", "open"])
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    a, b = await socket(table.token, ann), await socket(table.token, bob)
    for sock in (a, b):
        assert await sock.connect()
    turn = (await a.next("turn"))["turn"]
    await b.next("turn")
    # under the frame cap, but json.loads would recurse a thousand times
    nested = "[" * 1000 + "]" * 1000
    assert len(nested) <= 2048
    await a.comm.send_to(text_data=nested)
    error = (await a.next("error"))["error"]
    assert error == "a message may nest arrays and objects at most 32 deep"
    await a.comm.send_to(text_data='{"type": "act", "turn": 1, "action": ' + nested + "}")
    assert "nest" in (await a.next("error"))["error"]
    # the same socket still plays: its action is taken, and the turn moves on for both
    await a.send({"type": "ping"})
    await a.next("pong")
    await a.send({"type": "act", "turn": turn, "action": 0})
    await b.send({"type": "act", "turn": turn, "action": 0})
    while (await a.next("turn"))["turn"] <= turn:
        pass  # a turn heard twice around connecting
    assert [f for f in a.frames if f["type"] == "error"] == [
        {"type": "error", "error": error},
        {"type": "error", "error": error},
    ]
    assert not [f for f in b.frames if f["type"] == "error"]
    for sock in (a, b):
        await sock.close()
    await finish_off(table)


SUIT_CODES = {"spades": "s", "hearts": "h", "diamonds": "d", "clubs": "c"}


def legal_single(sent: dict[str, Any]) -> dict[str, Any]:
    """A legal move of one card, read off the table as the page shows it (or a draw)."""
    several = next(a["several"] for a in sent["actions"] if "several" in a)
    hand = several["cards"]
    top = sent["frame"]["shared"][0]
    follow = re.search(r"suit to follow: (\w+)", top.get("note") or "")
    suit = SUIT_CODES[follow.group(1)] if follow else None
    owed = re.match(r"Draw (\d+) cards", sent["actions"][-1]["label"])
    punishment = int(owed.group(1)) if owed else 0
    for card in hand:
        move = {"cards": [card], "suit": card[1] if card[0] == "A" else None,
                "last_card": len(hand) == 2}  # fmt: skip
        if problem(hand, top["cards"][0], suit, punishment, move) is None:
            return move
    return {"cards": [], "suit": None, "last_card": False}


async def test_no_hidden_card_reaches_another_seat_or_a_spectator():
    table, a, b, watcher = await two_players_and_a_spectator("last-card")
    socks = {0: a, 1: b}
    answered: dict[int, set[int]] = {0: set(), 1: set()}
    for _ in range(80):
        waits = {
            seat: asyncio.ensure_future(sock.next("turn", timeout=20))
            for seat, sock in socks.items()
        }
        done, pending = await asyncio.wait(
            [*waits.values()], return_when=asyncio.FIRST_COMPLETED, timeout=20
        )
        for task in pending:
            task.cancel()
        if not done:
            break
        seat = next(s for s, t in waits.items() if t in done)
        turn = waits[seat].result()["turn"]
        view = socks[seat].last_state()
        if not view["actions"]:
            break
        if turn in answered[seat]:
            continue
        answered[seat].add(turn)
        # ann plays her first few turns, then both draw: each keeps cards never shown
        move = legal_single(view) if seat == 0 and turn <= 5 else {"cards": []}
        await socks[seat].send({"type": "act", "turn": turn, "action": move})
    await finish_off(table)
    for sock in (a, b, watcher):
        await sock.close()
    states = [f for sock in (a, b, watcher) for f in sock.frames if f["type"] == "state"]
    plays = [e["text"] for f in states for e in f["frame"]["log"] if " plays " in e["text"]]
    played_ever = {c for c in DECK if any(card_view(c)["label"] in text for text in plays)}
    # the first turned-up card is public too (it may be reshuffled and drawn later)
    played_ever |= {f["frame"]["shared"][0]["cards"][0] for f in states}

    def hand(sent: dict[str, Any]) -> set[str]:
        cards = {c for z in sent["frame"]["hand"] for c in z["cards"]}
        return cards | {c for a in sent["actions"] if "several" in a for c in a["several"]["cards"]}

    held = {
        seat: {c for f in sock.frames if f["type"] == "state" for c in hand(f)}
        for seat, sock in socks.items()
    }
    assert held[0] and held[1]
    secret = {seat: cards - played_ever for seat, cards in held.items()}
    assert secret[0] and secret[1]
    for raw in b.raw + watcher.raw:
        assert not any(shows(raw, card) for card in secret[0]), "ann's hand leaked"
    for raw in a.raw + watcher.raw:
        assert not any(shows(raw, card) for card in secret[1]), "bob's hand leaked"
    watched = [f for f in watcher.frames if f["type"] == "state"]
    assert all(not f["frame"]["hand"] and not f["actions"] for f in watched)


def shows(raw: str, card: str) -> bool:
    """Whether a socket's message shows ``card``: by its code or by its name."""
    return f'"{card}"' in raw or card_view(card)["label"] in raw


async def test_a_person_who_comes_back_gets_the_seat_and_the_whole_view():
    ann = await make_user("ann")
    table = await make_table("uth", ann, ["me"], config={"max_rounds": 5})
    first = await socket(table.token, ann)
    assert await first.connect()
    turn = await first.next("turn")
    hole = first.last_state()["frame"]["hand"][0]["cards"]
    assert len(hole) == 2
    await first.close()
    again = await socket(table.token, ann)
    assert await again.connect()
    assert (await again.next("hello"))["seat"] == 0
    seats = await again.next("seats")
    assert seats["seats"][0]["name"] == "ann"
    state = await again.next("state")
    assert state["frame"]["hand"][0]["cards"] == hole
    assert (await again.next("turn"))["turn"] == turn["turn"]
    await again.send({"type": "act", "turn": turn["turn"], "action": "[check]"})
    assert (await again.next("turn"))["turn"] == turn["turn"] + 1
    await again.close()
    await finish_off(table)


async def test_unknown_tables_foreign_origins_and_dead_hosts():
    sock = WebsocketCommunicator(application, "/ws/tables/nope/", headers=[ORIGIN, HOST])
    connected, code = await sock.connect()
    assert not connected and code == 4404
    ann = await make_user("ann")
    table = await make_table("uth", ann, ["me"])
    foreign = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.token}/",
        headers=[(b"origin", b"http://evil.example"), HOST],
    )
    assert not (await foreign.connect())[0]
    # a table whose host process died long ago
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(
        state=Table.PLAYING,
        host_channel="tables.gone!x",
        started=timezone.now() - timedelta(hours=1),
        host_heartbeat=timezone.now() - timedelta(hours=1),
    )
    watcher = await socket(table.token)
    assert await watcher.connect()
    over = await watcher.next("over")
    assert "abandoned" in over["error"]
    assert (await sync_to_async(Table.objects.get)(pk=table.pk)).state == Table.ABANDONED
    await watcher.close()


async def test_a_flooding_socket_is_told_then_closed():
    ann = await make_user("ann")
    table = await make_table("uth", ann, ["me"])
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(state=Table.FINISHED)
    sock = await socket(table.token)
    assert await sock.connect()
    await sock.next("over")
    for _ in range(120):
        await sock.send({"type": "ping"})
    closed = False
    try:
        while True:
            await sock.next("never")
    except AssertionError as exc:
        closed = "closed 4429" in str(exc)
    assert closed
    assert any(f.get("error") == "too many messages: slow down" for f in sock.frames)
    assert sum(f["type"] == "pong" for f in sock.frames) >= 35


async def test_a_seat_is_taken_once_and_only_while_the_table_waits():
    ann, bob, cy = await make_user("ann"), await make_user("bob"), await make_user("cy")
    table = await make_table("last-card", ann, ["me", "open", "builtin:naive"])
    with pytest.raises(tables.TableError, match="already have a seat"):
        await sync_to_async(tables.take_seat)(table, 1, tables.Person(ann))
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    with pytest.raises(tables.TableError, match="not open"):
        await sync_to_async(tables.take_seat)(table, 1, tables.Person(cy))
    seat = await sync_to_async(TableSeat.objects.get)(table=table, seat=1)
    assert (seat.kind, seat.user_id, seat.name) == (TableSeat.PERSON, bob.pk, "bob")


async def test_sockets_of_another_process_hear_and_act_through_the_channel_layer(monkeypatch):
    """Sockets whose process does not host the table follow it through the layer's groups
    (and tell the host they do); the host's own process serves its sockets directly."""
    from channels.exceptions import ChannelFull
    from channels.layers import get_channel_layer

    ann, bob = await make_user("ann"), await make_user("bob")
    table = await make_table("rps-poker", ann, ["me", "open"])
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    a = await socket(table.token, ann)
    assert await a.connect()
    await a.next("lobby")
    # bob and a spectator connect "from another process": this one does not host for them
    monkeypatch.setattr(hub, "hosts_here", lambda table_id: False)
    b, watcher = await socket(table.token, bob), await socket(table.token)
    assert await b.connect() and await watcher.connect()
    b_turn = await b.next("turn")
    await watcher.next("state")
    assert hub.remote[table.pk] == {"seat:1": 1, "public": 1}
    assert {s.channel_name for s in hub.sockets.values()} == set(hub.sockets)
    a_turn = await a.next("turn")
    await a.send({"type": "act", "turn": a_turn["turn"], "action": 0})
    # bob's action travels through the layer; a full layer is a busy table, not a crash
    layer = get_channel_layer()

    async def full(channel: str, message: dict) -> None:
        raise ChannelFull()

    with monkeypatch.context() as patched:
        patched.setattr(layer, "send", full)
        await b.send({"type": "act", "turn": b_turn["turn"], "action": 0})
        assert "busy" in (await b.next("error"))["error"]
    sent: list[dict] = []
    send = layer.send

    async def recorded(channel: str, message: dict) -> None:
        sent.append(message)
        await send(channel, message)

    monkeypatch.setattr(layer, "send", recorded)
    before = time.time()
    await b.send({"type": "act", "turn": b_turn["turn"], "action": 1})
    assert (await b.next("turn"))["turn"] == b_turn["turn"] + 1
    # stamped with when bob's socket got it: what decides a move that comes after the timer
    intent = next(m for m in sent if m["type"] == "table.intent")
    assert before <= intent["received_at"] <= time.time()
    monkeypatch.setattr(layer, "send", send)
    watched = await watcher.next("state")
    assert watched["frame"]["label"] != "Draft 1 of 5" and not watched["frame"]["hand"]
    await watcher.close()
    await b.close()
    # the host hears that the other process's sockets left
    await eventually(
        lambda: dict(hub.remote[table.pk]),
        lambda remote: remote == {"seat:1": 0, "public": 0},
        "the host to count no socket of the other process",
        offload=False,
    )
    assert hub.remote[table.pk] == {"seat:1": 0, "public": 0}
    await a.close()
    await finish_off(table)


async def test_a_spectator_who_comes_before_the_match_starts_hears_it_to_the_end():
    ann = await make_user("ann")
    table = await make_table("kuhn", ann, ["me", "builtin:simple"])  # full at once
    watcher = await socket(table.token)
    assert await watcher.connect()
    assert (await watcher.next("hello"))["seat"] is None
    await watcher.next("lobby")
    player = await socket(table.token, ann)
    assert await player.connect()  # the seated socket starts the match
    answered: set[int] = set()
    while True:
        heard = await player.next({"turn", "over"}, timeout=20)
        if heard["type"] == "over":
            break
        number = heard["turn"]
        if not answered:
            # the spectator follows the match once it hears that it started (through the
            # channel layer): it is shown the play from then on, so the first move waits
            await watcher.next("state", timeout=20)
        if number not in answered:
            answered.add(number)
            await player.send({"type": "act", "turn": number, "action": "p"})
    end = await watcher.next("over", timeout=20)
    assert end["url"] == f"/matches/{end['match']}/"
    views = [f for f in watcher.frames if f["type"] == "state"]
    assert views, "the spectator saw no play"
    assert all(not view["frame"]["hand"] and not view["actions"] for view in views)
    for sock in (player, watcher):
        await sock.close()


# ---- a seat left while the table waits -------------------------------------------------------
def guest_with_a_session() -> tuple[tables.Person, bytes]:
    """A guest (a browser with a guest token in its session) and the cookie of that session."""
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    person = tables.person_of(None, session, create=True)
    assert person is not None
    tables.keep_guest(session, person)
    session.save()
    return person, f"sessionid={session.session_key}".encode()


async def news_of(table: Table) -> None:
    """As the join and leave views do: every socket of the table hears that a seat changed."""
    await get_channel_layer().group_send(lobby_group(table.pk), {"type": "table.lobby"})


async def closed_with(sock: Socket) -> int | None:
    """The code ``sock`` is closed with next (the frames before it are kept)."""
    try:
        await sock.next("never", timeout=10)
    except AssertionError as exc:
        found = re.search(r"closed (\d+)", str(exc))
        return int(found.group(1)) if found else None
    return None


async def the_audits_table(*, news: bool) -> tuple[Table, Socket, tables.Person, User]:
    """A guest opens a table of three (seats 2 and 3 open) with a page (its socket: seat 1),
    their second identity takes seat 2, and the guest leaves seat 1 from another page (the
    socket of the first page is left open); the lobby news of it is sent if ``news``. Returns
    the table, that first page's socket, the guest and a victim, not seated yet."""
    guest, cookie = await sync_to_async(guest_with_a_session)()
    second, _ = await sync_to_async(guest_with_a_session)()
    victim = await make_user("victim")
    table = await sync_to_async(tables.create_table)("last-card", guest, ["me", "open", "open"])
    stale = Socket(table.token, cookie)
    assert await stale.connect()
    assert (await stale.next("hello"))["seat"] == 0
    await stale.next("lobby")
    await sync_to_async(tables.take_seat)(table, 1, second)
    await news_of(table)
    await stale.next("lobby")
    await sync_to_async(tables.leave_table)(table, guest)
    if news:
        await news_of(table)
    return table, stale, guest, victim


async def test_a_socket_of_a_seat_its_person_left_is_closed_and_hears_nothing_of_who_takes_it():
    """The audit's sequence: a page of a guest who then left its seat from another page kept
    hearing (and playing) that seat once a victim took it. The leave's news reads the seat
    again: the old page's socket is closed (its page reloads), and hears nothing after."""
    table, stale, guest, victim = await the_audits_table(news=True)
    assert await closed_with(stale) == consumers.SEAT_CHANGED
    await sync_to_async(tables.take_seat)(table, 0, tables.Person(victim))
    await news_of(table)
    hers = await socket(table.token, victim)
    assert await hers.connect()
    assert (await hers.next("hello"))["seat"] == 0
    await sync_to_async(tables.take_seat)(table, 2, guest)  # full: the match starts
    await news_of(table)
    assert (await hers.next("state"))["actions"]  # her hand's cards, hers alone
    assert (await hers.next("turn"))["turn"] == 1  # seat 1 plays first
    assert await stale.comm.receive_nothing(timeout=0.3)
    assert not any(f["type"] in ("state", "turn", "seats") for f in stale.frames)
    await hers.close()
    await finish_off(table)


async def test_a_socket_that_missed_the_news_of_its_seat_left_cannot_hear_or_act_for_it(
    monkeypatch,
):
    """The same with the news lost (a busy layer): the match starts with the victim in the
    seat; the old page's socket follows nothing, and a move from it is refused (the socket
    closed) rather than played for the victim."""
    table, stale, guest, victim = await the_audits_table(news=False)

    async def lost(self, event) -> None:
        return None

    monkeypatch.setattr(consumers.TableConsumer, "table_lobby", lost)
    monkeypatch.setattr(consumers.TableConsumer, "table_started", lost)
    await sync_to_async(tables.take_seat)(table, 0, tables.Person(victim))
    await sync_to_async(tables.take_seat)(table, 2, guest)
    hers = await socket(table.token, victim)
    assert await hers.connect()  # the table is full: her socket starts it
    assert (await hers.next("hello"))["seat"] == 0
    await hers.next("state")
    sent: list[dict[str, Any]] = []
    submit = hub.hosts[table.pk].submit
    monkeypatch.setattr(hub.hosts[table.pk], "submit", lambda *a: sent.append(a) or submit(*a))
    layer = get_channel_layer()
    send = layer.send

    async def recorded(channel: str, message: dict) -> None:
        if message.get("type") == "table.intent":
            sent.append(message)
        await send(channel, message)

    monkeypatch.setattr(layer, "send", recorded)
    for turn in range(1, 4):
        await stale.send({"type": "act", "turn": turn, "action": {"cards": [], "suit": None,
                                                                  "last_card": False}})  # fmt: skip
    assert await closed_with(stale) == consumers.SEAT_CHANGED
    assert not sent
    assert not any(f["type"] in ("state", "turn", "seats") for f in stale.frames)
    await hers.close()
    await finish_off(table)


async def test_a_table_whose_seats_changed_since_they_were_read_is_not_started_from_them():
    """A socket reads a full table and starts it; if meanwhile its person left and another
    sat down, the match is not started with the seats read (their names, who is rated)."""
    ann, bob, cy = await make_user("ann"), await make_user("bob"), await make_user("cy")
    table = await make_table("kuhn", ann, ["me", "open"])
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    read = await sync_to_async(tables.load)(pk=table.pk)
    await sync_to_async(tables.leave_table)(table, tables.Person(bob))
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(cy))
    assert await sync_to_async(tables.claim_and_plan)(read, "host-channel") is None
    assert (await sync_to_async(Table.objects.get)(pk=table.pk)).state == Table.OPEN
    now = await sync_to_async(tables.load)(pk=table.pk)
    plans, facts = await sync_to_async(tables.claim_and_plan)(now, "host-channel")
    assert [p.name for p in plans] == ["ann", "cy"]
    assert [s.user_id for s in facts.seats] == [ann.pk, cy.pk]


async def test_a_full_table_the_site_has_no_place_for_yet_says_so_and_starts_once_it_has(settings):
    """A table with uploaded bots starts only while the site plays fewer than its most of
    them: until then its people's pages say why (the ``lobby`` message's ``busy``), the table
    waits, open, and a page that asks again (``sync``) starts it once a place frees."""
    settings.LIVE_BOT_TABLES_TOTAL = 0  # (every place taken)
    ann = await make_user("ann")
    table = await make_table("rps-poker", ann, ["me", "builtin:simple"])
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(bots=1)  # (as if uploaded)
    sock = await socket(table.token, ann)
    assert await sock.connect()
    lobby = await sock.next("lobby")
    assert lobby["busy"] == (
        "The site is busy: 0 tables with uploaded bots are being played, the most at once. "
        "This table starts as soon as one of them ends: keep this page open."
    )
    assert (await sync_to_async(Table.objects.get)(pk=table.pk)).state == Table.OPEN
    settings.LIVE_BOT_TABLES_TOTAL = 24  # a place frees
    await sock.send({"type": "sync"})
    assert "busy" not in await sock.next("lobby")
    await sock.next("turn")  # the match is on
    assert (await sync_to_async(Table.objects.get)(pk=table.pk)).state == Table.PLAYING
    await sock.close()
    await finish_off(table)
