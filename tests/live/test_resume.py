"""A live table survives its process: its match's deciding steps are kept as they happen,
and another host (another process, or the same one started again) resumes it from its seed
and those steps, at the same point, the people in their seats (docs/live-tables.md). The
same with real server processes killed with SIGKILL: tests/site/test_tables_survive.py."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.utils import timezone

from bots.models import Match
from games.live import host as host_module
from games.live import hub as hub_module
from games.live import tables
from games.live.host import SeatPlan, TableHost
from games.live.hub import _beat, hub, lobby_group
from games.models import Table, TableStep
from tests.live.test_consumers import finish_off, make_table, make_user, socket
from tests.live.test_host import Wire, builtin, host, snapshot


class Store:
    """A table's steps kept in memory, as the database keeps them (JSON)."""

    def __init__(self) -> None:
        self.steps: dict[int, dict[str, Any]] = {}

    def add(self, index: int, step: dict[str, Any]) -> None:
        self.steps[index] = json.loads(json.dumps(step))

    def cut(self, index: int) -> None:
        self.steps = {i: s for i, s in self.steps.items() if i < index}


def start(table: TableHost) -> asyncio.Task[None]:
    return asyncio.get_running_loop().create_task(table.run())


async def kill(task: asyncio.Task[None]) -> None:
    """The host's process dies: the match stops where it is, nothing stored, nobody told."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def last_action(wire: Wire, seat: int) -> Any:
    return wire.to(f"seat:{seat}", "state")[-1]["actions"][-1]["value"]


#: ann against RPS Poker's strong bot, on timers of 2 s
PLANS = [SeatPlan("ann", "human"), builtin("rps-poker", "strong")]
TIMERS = {"turn_timer": 2.0, "away_timer": 2.0}


async def ann_away_at_turn_3(store: Store) -> tuple[TableHost, asyncio.Task[None], Wire]:
    """A table of :data:`PLANS` keeping its steps in ``store``, at ann's fourth turn: she
    played her first two and let the third pass (played for her: she is away)."""
    wire = Wire()
    first = host("rps-poker", PLANS, wire, store=store, **TIMERS)
    task = start(first)
    for n in range(2):
        turn = await wire.wait("seat:0", "turn", after=n)
        first.submit(0, turn["turn"], last_action(wire, 0))
    await wire.wait("seat:0", "note")
    await wire.wait("seat:0", "turn", after=3)
    return first, task, wire


@pytest.mark.asyncio
async def test_a_resumed_table_is_at_the_same_point_with_its_people_as_they_were():
    store = Store()
    plans, timers = PLANS, TIMERS
    first, task, wire = await ann_away_at_turn_3(store)
    before = snapshot(first, 0)
    events = list(first.state.log)
    await kill(task)

    wire = Wire()
    steps = sorted(store.steps.items())
    second = host("rps-poker", plans, wire, store=store, steps=steps, **timers)
    task = start(second)
    turn = await wire.wait("seat:0", "turn")
    assert turn["turn"] == 4 and turn["seconds"] > 1.5  # asked again, with a whole timer
    after = snapshot(second, 0)
    kinds = ["seats", "state", "note", "turn"]  # (the notes before the turn asked now)
    assert [m["type"] for m in before] == [m["type"] for m in after] == kinds
    assert after[1] == before[1]  # the same view: the same deal, at the same point
    assert after[2] == before[2]  # her log says what was played for her, and for which turn
    assert after[2]["turn"] == 3
    assert after[0]["seats"][0]["away"] is True
    # while the match was played again up to there, nobody was shown anything of it
    assert [m["type"] for m in wire.to("seat:0")][:3] == ["seats", "seats", "state"]
    for n in range(12):
        turn = await wire.wait("seat:0", "turn", after=n)
        second.submit(0, turn["turn"], last_action(wire, 0))
    await task
    assert second.state.log[: len(events)] == events
    assert sum(second.result["scores"]) == 10 and not second.result["faults"]


@pytest.mark.asyncio
async def test_a_log_that_does_not_replay_abandons_the_table_with_the_reason():
    store = Store()
    plans = [SeatPlan("ann", "human"), builtin("rps-poker", "simple")]
    wire = Wire()
    first = host("rps-poker", plans, wire, store=store)
    task = start(first)
    turn = await wire.wait("seat:0", "turn")
    first.submit(0, turn["turn"], 0)
    await wire.wait("seat:0", "turn", after=1)
    await kill(task)
    # the game's code changed meanwhile: the kept answer is now made at another point
    index, step = max(store.steps.items())
    wire = Wire()
    finished = []

    async def on_finish(finish):
        finished.append(finish)
        return {}

    forged = [(index, step | {"n": step["n"] + 1})]
    second = host("rps-poker", plans, wire, steps=forged, on_finish=on_finish)
    await start(second)
    over = await wire.wait("seat:0", "over")
    assert over["error"].startswith("the table could not be resumed: its log does not replay")
    assert finished[0].played is None


def fresh_receive_locks() -> None:
    """channels_redis keeps a receive lock per channel across event loops, and a test that
    ended while a socket was receiving leaves one bound to its closed loop (a server has one
    loop; these tests one each): this test's sockets get locks of their own."""
    layer = get_channel_layer()
    locks = getattr(layer, "receive_clean_locks", None)
    if locks is not None:
        layer.receive_clean_locks = type(locks)()


async def steps_kept(table: Table, at_least: int) -> list[int]:
    """Wait until the hub's writer has kept ``at_least`` steps of ``table``."""
    for _ in range(200):
        kept = await sync_to_async(tables.steps_of)(table.pk)
        if len(kept) >= at_least:
            return [index for index, _ in kept]
        await asyncio.sleep(0.05)
    raise AssertionError(f"{len(kept)} steps kept, not {at_least}")


async def die(table: Table, beat_ago: timedelta = timedelta(seconds=60)) -> None:
    """This process stops hosting ``table`` as if it had died: another process's channel in
    the row, its last heartbeat ``beat_ago``."""
    task = hub._runs.pop(table.pk)
    hub.hosts.pop(table.pk)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    # its messages are all out: it serves no socket any more
    deadline = asyncio.get_running_loop().time() + 10
    while table.pk in hub.local or table.pk in hub.remote:
        assert asyncio.get_running_loop().time() < deadline, (
            f"10 s on, the dead host still serves sockets: {hub.local.get(table.pk)}, "
            f"{hub.remote.get(table.pk)}"
        )
        await asyncio.sleep(0.01)
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(
        host_channel="tables.gone!dead", host_heartbeat=timezone.now() - beat_ago
    )


async def play_to_the_end(sock) -> dict[str, Any]:
    """Play the first choice at every turn until the match is over; its end."""
    answered: set[int] = set()
    while True:
        frame = await next_frame(sock)
        if frame["type"] == "over":
            return frame
        if frame["type"] == "turn" and frame["turn"] not in answered:
            answered.add(frame["turn"])
            await sock.send({"type": "act", "turn": frame["turn"], "action": first_choice(sock)})


async def next_frame(sock) -> dict[str, Any]:
    event = await sock.comm.receive_output(timeout=20)
    assert event["type"] != "websocket.close", event
    frame = json.loads(event["text"])
    sock.frames.append(frame)
    return frame


def first_choice(sock) -> Any:
    return sock.last_state()["actions"][0]["value"]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_table_whose_process_died_is_resumed_by_the_next_socket():
    ann = await make_user("ann")
    table = await make_table("rps-poker", ann, ["me", "builtin:strong"])
    first = await socket(table.token, ann)
    assert await first.connect()
    for _ in range(3):
        turn = await first.next("turn")
        await first.send({"type": "act", "turn": turn["turn"], "action": 0})
    turn = await first.next("turn")
    seen = first.last_state()
    await steps_kept(table, 3)
    await first.close()
    await die(table)

    again = await socket(table.token, ann)
    assert await again.connect()
    assert (await again.next("hello"))["seat"] == 0
    assert (await again.next("state"))["frame"] == seen["frame"]
    assert (await again.next("turn"))["turn"] == turn["turn"]
    await again.send({"type": "act", "turn": turn["turn"], "action": first_choice(again)})
    row = await sync_to_async(Table.objects.get)(pk=table.pk)
    assert row.state == Table.PLAYING and row.host_channel == hub.channel
    over = await play_to_the_end(again)
    assert over["url"] == f"/matches/{over['match']}/"
    match = await sync_to_async(Match.objects.get)(pk=over["match"])
    assert match.seed == table.seed
    for _ in range(100):  # the steps are forgotten once the match is stored
        if not await sync_to_async(TableStep.objects.filter(table_id=table.pk).exists)():
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the steps of a stored match were kept")
    await again.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_people_at_another_process_follow_a_resumed_table_and_a_lost_move_is_asked_again(
    monkeypatch,
):
    """Two people; bob's socket is of another process, which stays up. The host dies with
    bob's move sent but not kept; the table is resumed (by the sweep) and bob is asked
    again, on the socket he has."""
    fresh_receive_locks()
    ann, bob = await make_user("ann"), await make_user("bob")
    table = await make_table("goofspiel", ann, ["me", "open"])
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    a = await socket(table.token, ann)
    assert await a.connect()
    await a.next("lobby")
    with monkeypatch.context() as elsewhere:  # bob connects "from another process"
        elsewhere.setattr(hub, "hosts_here", lambda table_id: False)
        b = await socket(table.token, bob)
        assert await b.connect()
        b_turn = await b.next("turn")
    a_turn = await a.next("turn")
    await a.send(
        {"type": "act", "turn": a_turn["turn"], "action": a.last_state()["actions"][0]["value"]}
    )
    await steps_kept(table, 1)
    await die(table)
    # bob's move goes to the dead host's channel and is never kept: that process hosts no
    # such table and says so (once it has, a resume cannot take the move in)
    await b.send(
        {"type": "act", "turn": b_turn["turn"], "action": b.last_state()["actions"][0]["value"]}
    )
    assert "server stopped" in (await b.next("error"))["error"]
    await hub._sweep()
    assert table.pk in hub.hosts
    again = await b.next("turn")
    assert again["turn"] == b_turn["turn"]
    await a.next("state")  # ann's socket follows the new host too
    a_views = [f for f in a.frames if f["type"] == "turn"]
    assert len(a_views) == 1  # ann's move was kept: she is not asked again
    await a.close()
    await b.close()
    await finish_off(table)


@pytest.mark.django_db(transaction=True)
def test_one_process_wins_the_claim_of_a_dead_table():
    table = tables.create_table("uth", tables.Person(None, "g"), ["me"])
    Table.objects.filter(pk=table.pk).update(
        state=Table.PLAYING,
        host_channel="tables.gone!dead",
        host_heartbeat=timezone.now() - timedelta(seconds=60),
    )
    table.refresh_from_db()
    assert tables.claim_resume(table, "tables.one!a")
    assert not tables.claim_resume(table, "tables.two!b")
    table.refresh_from_db()
    assert table.host_channel == "tables.one!a"
    # a live host is never taken over, unless it cannot be reached at all
    assert not tables.claim_resume(table, "tables.two!b")
    assert tables.claim_resume(table, "tables.two!b", unreachable=True)


@pytest.mark.django_db
def test_a_process_whose_clock_runs_ahead_takes_over_no_table_with_a_live_host(clock_ahead):
    """Beats and takeovers are on the database's clock (bots.clock): a process of a machine
    whose clock runs 30 s ahead (more than TABLE_HOST_STALE_S) finds another process's table
    that beat just now alive, as every process does (it once took over every such table,
    telling its people that "the server running this table stopped")."""
    table = tables.create_table("uth", tables.Person(None, "g"), ["me"])
    assert tables.claim_start(table, "tables.one!a")  # beats now, on a clock kept in time
    clock_ahead(30)
    table.refresh_from_db()
    assert not tables.is_stale(table)
    assert tables.orphans("tables.two!b") == []
    assert not tables.claim_resume(table, "tables.two!b")
    assert Table.objects.get(pk=table.pk).host_channel == "tables.one!a"
    # its own beats are on the database's clock too, so the other processes find them alive
    assert _beat([table.pk], "tables.two!b") == [table.pk]  # (not its table: let go of)
    Table.objects.filter(pk=table.pk).update(host_channel="tables.two!b")
    assert _beat([table.pk], "tables.two!b") == []
    beat = Table.objects.get(pk=table.pk).host_heartbeat
    assert abs(beat - (timezone.now() - timedelta(seconds=30))) < timedelta(seconds=5)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_sweep_resumes_a_dead_table_and_abandons_one_dead_for_long():
    ann = await make_user("ann")
    recent = await make_table("uth", ann, ["me"], config={"max_rounds": 5})
    old = await make_table("uth", ann, ["me"], config={"max_rounds": 5})
    for table, ago in ((recent, timedelta(seconds=60)), (old, timedelta(hours=1))):
        await sync_to_async(Table.objects.filter(pk=table.pk).update)(
            state=Table.PLAYING,
            started=timezone.now() - ago,
            host_channel="tables.gone!dead",
            host_heartbeat=timezone.now() - ago,
        )
    await hub.ensure_listening()
    await hub._sweep()
    assert recent.pk in hub.hosts and old.pk not in hub.hosts
    old = await sync_to_async(Table.objects.get)(pk=old.pk)
    assert old.state == Table.ABANDONED and "stopped" in old.error
    await finish_off(recent)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_process_whose_table_was_taken_over_lets_go_of_it(monkeypatch):
    monkeypatch.setattr(hub, "unreachable", lambda table: False)  # (another process's, live)
    ann = await make_user("ann")
    table = await make_table("uth", ann, ["me"])
    sock = await socket(table.token, ann)
    assert await sock.connect()
    await sock.next("turn")
    assert await sync_to_async(_beat)([table.pk], hub.channel) == []
    # it was stuck for longer than the stale limit, and another process resumed the table
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(host_channel="tables.b!x")
    assert await sync_to_async(_beat)([table.pk], hub.channel) == [table.pk]
    host = hub.hosts[table.pk]
    hub._let_go(table.pk)
    # its match is stopped: wait (10 s at most) until it is over
    deadline = asyncio.get_running_loop().time() + 10
    while table.pk in hub.hosts or not host.done.is_set():
        assert asyncio.get_running_loop().time() < deadline, (
            f"10 s after letting go: hosted {table.pk in hub.hosts}, done {host.done.is_set()}"
        )
        await asyncio.sleep(0.01)
    assert table.pk not in hub.hosts and host.done.is_set()
    await sock.close()


# ---- moves that were in, and people whose page has not come yet --------------------------
async def ann_and_bob_at_a_second_bid(store: Store, **timers: float) -> tuple[TableHost, Any]:
    """Ann and bob at Goofspiel (simultaneous bids), keeping their steps in ``store``: both
    bid once, then ann bids again and the table waits for bob's second bid."""
    wire = Wire()
    plans = [SeatPlan("ann", "human"), SeatPlan("bob", "human")]
    first = host("goofspiel", plans, wire, store=store, config=GOOFSPIEL, **timers)
    task = start(first)
    for n in range(2):
        for seat in (0, 1):
            turn = await wire.wait(f"seat:{seat}", "turn", after=n)
            if n == 0 or seat == 0:
                first.submit(seat, turn["turn"], first.state.hands[seat][0])
    await wire.wait("seat:1", "taken", after=1)  # ann's second bid is in
    for _ in range(100):  # ... and kept once the runner, awaiting it, takes it
        if sum("a" in step for step in store.steps.values()) == 3:
            return first, task
        await asyncio.sleep(0)
    raise AssertionError(f"ann's second bid was not kept: {store.steps}")


#: a short Goofspiel: one deal of five cards
GOOFSPIEL = {"num_cards": 5, "deals": 1}


@pytest.mark.asyncio
async def test_a_resumed_table_marks_the_moves_that_were_in_as_they_were():
    """Ann's bid was in, the table waiting for bob's, when its host stopped: the table that
    takes over shows her bid in to her page ("Your card is down"), and her seat marked to
    bob's and the spectators', as before; it does not ask her again."""
    store = Store()
    first, task = await ann_and_bob_at_a_second_bid(store)
    before = {seat: snapshot(first, seat)[-1] for seat in (0, 1, None)}
    assert before[0] == {"type": "taken", "seat": 0, "turn": 2}
    assert before[1] == before[None] == {"type": "taken", "seat": 0}
    await kill(task)

    wire = Wire()
    plans = [SeatPlan("ann", "human"), SeatPlan("bob", "human")]
    steps = sorted(store.steps.items())
    second = host("goofspiel", plans, wire, store=store, steps=steps, config=GOOFSPIEL)
    task = start(second)
    assert (await wire.wait("seat:1", "turn"))["turn"] == 2  # bob is asked again
    for seat in (0, 1, None):
        assert snapshot(second, seat)[-1] == before[seat]
    # the pages that followed the table heard the marks as it came back
    assert wire.to("seat:0", "taken") == [before[0]]
    assert wire.to("seat:1", "taken") == wire.to("public", "taken") == [before[1]]
    assert not wire.to("seat:0", "turn")  # her bid was kept: she is not asked again
    second.close()
    await task


async def bob_asked_again_without_his_page(store: Store, **timers: float):
    """The table of :func:`ann_and_bob_at_a_second_bid` taken over with neither bid of the
    second turn kept, by a host that ann's page came to (and bob's did not); its wire."""
    _, task = await ann_and_bob_at_a_second_bid(store, **timers)
    await kill(task)
    wire = Wire()
    plans = [SeatPlan("ann", "human"), SeatPlan("bob", "human")]
    steps = sorted(store.steps.items())[:-1]  # ann's second bid was not kept either
    second = host("goofspiel", plans, wire, store=store, steps=steps, config=GOOFSPIEL,
                  **timers)  # fmt: skip
    snapshot(second, 0)  # ann's page came to it first
    return second, start(second), wire


@pytest.mark.asyncio
async def test_a_resumed_table_starts_a_persons_timer_once_their_page_comes():
    """Bob's page had not come to the host that took the table over (it was left on the one
    that stopped): his turn's timer does not run out before it comes, and then he has his
    whole timer; ann's page was there, and her turn is timed as ever."""
    second, task, wire = await bob_asked_again_without_his_page(Store(), turn_timer=3.0)
    ann = await wire.wait("seat:0", "turn")
    assert ann["turn"] == 2 and ann["seconds"] <= 3.0
    assert (await wire.wait("seat:1", "turn"))["turn"] == 2
    waits = await wire.wait("seat:1", "turn", after=1)  # his timer waits for his page
    assert waits["turn"] == 2 and waits["seconds"] > host_module.PAGE_WAIT_S
    told = snapshot(second, 1)  # his page comes: his whole timer, from now
    assert told[2]["type"] == "turn" and 2.5 < told[2]["seconds"] <= 3.0, told
    assert not wire.to("seat:1", "note")  # nothing was played for him
    second.close()
    await task


@pytest.mark.asyncio
async def test_a_person_whose_page_never_comes_to_a_resumed_table_is_played_for(monkeypatch):
    monkeypatch.setattr(host_module, "PAGE_WAIT_S", 0.3)
    second, task, wire = await bob_asked_again_without_his_page(
        Store(), turn_timer=0.3, away_timer=0.3
    )
    note = await wire.wait("seat:1", "note")
    assert note["text"].startswith("Time ran out, so this was played for you")
    second.close()
    await task


@pytest.mark.asyncio
@pytest.mark.parametrize("bob_comes_back", [False, True])
async def test_a_resumed_rated_table_a_person_never_came_back_to_is_not_rated(
    monkeypatch, bob_comes_back
):
    """The server stopped (the site's trouble) and bob's page never came back: his turns were
    played for him to the end, a result nobody chose to play out, so it is stored unrated,
    saying why. Had his page come back, the table would be rated as ever."""
    monkeypatch.setattr(host_module, "PAGE_WAIT_S", 0.2)
    store = Store()
    _, task = await ann_and_bob_at_a_second_bid(store, turn_timer=0.2, away_timer=0.2)
    await kill(task)
    finished: list[Any] = []

    async def keep(finish: Any) -> None:
        finished.append(finish)

    plans = [SeatPlan("ann", "human"), SeatPlan("bob", "human")]
    second = host("goofspiel", plans, Wire(), store=store, steps=sorted(store.steps.items()),
                  config=GOOFSPIEL, rated=True, on_finish=keep, turn_timer=0.2,
                  away_timer=0.2)  # fmt: skip
    snapshot(second, 0)  # ann's page came to it
    if bob_comes_back:
        snapshot(second, 1)
    await start(second)  # (both away: the timer plays on to the end)
    (finish,) = finished
    assert finish.played is not None
    if bob_comes_back:
        assert "unrated" not in finish.extra
    else:
        assert finish.extra["unrated"] == (
            "The site's server stopped during this table, and bob did not come back to it: "
            "their turns were played for them, so this table is not rated."
        )


# ---- a process stuck for longer than the stale limit, and one that stops ------------------
async def ann_at_a_table_hosted_here() -> tuple[Table, Any, Any]:
    """Ann against a bot, her socket on this process, which hosts the table: the table,
    her socket, and its consumer (as the hub serves it)."""
    fresh_receive_locks()
    ann = await make_user("ann")
    table = await make_table("rps-poker", ann, ["me", "builtin:simple"])
    sock = await socket(table.token, ann)
    assert await sock.connect()
    await sock.next("turn")
    (consumer,) = hub.local[table.pk]["seat:0"]
    return table, sock, consumer


async def taken_over(table: Table, monkeypatch) -> str:
    """Another process took ``table`` over (this one was stuck): its channel, and a beat.
    (With the in-memory layer, a table hosted by another channel is one this process could
    never reach, so it would claim it at once: here it is reached, as with Redis.)"""
    monkeypatch.setattr(hub, "unreachable", lambda table: False)
    other = await get_channel_layer().new_channel()
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(
        host_channel=other, host_heartbeat=timezone.now()
    )
    return other


async def followed_by(other: str, consumer: Any) -> dict[str, Any]:
    """What the socket ``consumer`` asks of the host on ``other`` once it follows it: its
    snapshot request (its ``table.watch`` comes first)."""
    layer = get_channel_layer()
    while True:
        message = await asyncio.wait_for(layer.receive(other), 10)
        if message["type"] == "table.snapshot":
            assert message["reply_to"] == consumer.channel_name
            return message
        assert message == {"type": "table.watch", "table": message["table"],
                           "audience": "seat:0", "delta": 1}  # fmt: skip


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_socket_that_hears_the_table_moved_before_its_stuck_process_does_follows_it(
    monkeypatch,
):
    """This process was stuck; another took its table over and said so (``table.moved``).
    Ann's socket hears that before this process's next beat: it follows the new host (where
    her moves now go), and this process lets go of the table at once."""
    table, sock, consumer = await ann_at_a_table_hosted_here()
    other = await taken_over(table, monkeypatch)
    await get_channel_layer().group_send(lobby_group(table.pk), {"type": "table.moved"})
    asked = await followed_by(other, consumer)
    assert asked["seat"] == 0 and table.pk not in hub.hosts
    moved = await sock.next("moved")
    assert moved["text"].startswith("The server running this table stopped")
    # her moves go to the new host, not to the one this process let go of
    await sock.send({"type": "act", "turn": 1, "action": 0})
    intent = await asyncio.wait_for(get_channel_layer().receive(other), 10)
    assert intent["type"] == "table.intent" and intent["seat"] == 0
    await sock.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_process_that_lets_go_of_a_table_sends_its_sockets_there_to_the_new_host(
    monkeypatch,
):
    """The same, the other way round: this process's beat finds the table taken over first,
    and lets go of it; ann's socket, still at it here, is sent to follow the new host."""
    table, sock, consumer = await ann_at_a_table_hosted_here()
    other = await taken_over(table, monkeypatch)
    assert await sync_to_async(_beat)([table.pk], hub.channel) == [table.pk]
    hub._let_go(table.pk)
    assert (await followed_by(other, consumer))["seat"] == 0
    await sock.next("moved")
    await sock.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_sync_after_a_refused_move_follows_the_table_where_it_is_now(monkeypatch):
    """A socket left at a host that is gone (this process let go of its table and told no
    one): its move is refused ("... its server stopped"), and the page's ``sync`` then
    follows the table where its row says it is."""
    table, sock, consumer = await ann_at_a_table_hosted_here()
    other = await taken_over(table, monkeypatch)
    task = hub._runs.pop(table.pk)
    hub.hosts.pop(table.pk)
    task.cancel()
    await sock.send({"type": "act", "turn": 1, "action": 0})
    assert "server stopped" in (await sock.next("error"))["error"]
    await sock.send({"type": "sync"})
    assert (await followed_by(other, consumer))["seat"] == 0
    await sock.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_stopping_process_hands_its_tables_over_at_once():
    """SIGTERM (cardsite/serve.py): the tables this process hosts are left to another at
    once, every step taken written first; the people here are told, and the sockets of
    other processes at the table hear ``table.moved`` (with a shared channel layer)."""
    table, sock, _ = await ann_at_a_table_hosted_here()
    probe = await get_channel_layer().new_channel()  # a socket of another process
    await get_channel_layer().group_add(lobby_group(table.pk), probe)
    for turn in (1, 2):
        await sock.send({"type": "act", "turn": turn, "action": 0})
        assert (await sock.next("turn"))["turn"] == turn + 1
    try:
        await hub.hand_over()
        assert not hub.hosts
        kept = [step for _, step in await sync_to_async(tables.steps_of)(table.pk)]
        assert [step["s"] for step in kept if "a" in step].count(0) == 2  # both her moves
        row = await sync_to_async(Table.objects.get)(pk=table.pk)
        assert row.state == Table.PLAYING and row.host_channel == hub.channel
        assert tables.is_stale(row) and not tables.too_old_to_resume(row)
        assert not await hub.resume(row)  # never by the process that stops
        moved = await sock.next("moved")
        alone = isinstance(get_channel_layer(), InMemoryChannelLayer)
        assert moved["text"] == (hub_module.STOPPED if alone else hub_module.MOVED)
        if not alone:
            heard = await asyncio.wait_for(get_channel_layer().receive(probe), 10)
            assert heard == {"type": "table.moved"}
    finally:
        hub.stopping = False
    await sock.close()
