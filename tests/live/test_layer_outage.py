"""When a web process cannot reach its channel layer (Redis is away): no socket reaches a
table, so a person's turn timer is held and given back, never played by default; the hub's
listener waits for the layer with one line in the log and a growing wait, not a traceback a
try (games/live/hub.py, games/live/host.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import signal
import tempfile
import types
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from games.live import host as host_module
from games.live import hub as hub_module
from games.live.host import REJOIN_S, Finish, SeatPlan
from games.live.hub import Hub
from tests.live.test_host import Wire, builtin, host, join, run

GIVEN_BACK = "The site lost its connection for 17 s; your time was given back."
NOBODY_LATE = "The site lost its connection for 17 s; no one's time ran out meanwhile."


async def until(condition, timeout: float = 10.0, what: str = "") -> None:
    """Wait (on the test's loop) until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what or condition}"
        await asyncio.sleep(0.005)


def ann_against_minimal(wire: Wire, **kw) -> tuple[Any, list[Finish]]:
    finished: list[Finish] = []

    async def store(finish: Finish) -> None:
        finished.append(finish)

    seats = [SeatPlan("ann", "human"), builtin("rps-poker", "minimal")]
    return host("rps-poker", seats, wire, on_finish=store, **kw), finished


def messages(table, seat: int | None) -> list[dict[str, Any]]:
    return [json.loads(text) for text in table.snapshot(seat)]


# ---- the host: a turn timer held while the layer is away --------------------------------
@pytest.mark.asyncio
async def test_a_turn_that_runs_out_while_the_layer_is_away_is_given_back_not_played(
    monkeypatch,
):
    """Ann's timer runs out while nobody can reach the table: no default is played and she
    is not away; once the layer is back her turn waits for her page, and when it is back
    (its snapshot) she has her whole timer again. Her move then counts, and the time the
    site took is not hers: the runner's limit for a person (timer + GRACE_S) is not run
    over, so the turn is no fault of hers."""
    monkeypatch.setattr(host_module, "GRACE_S", 0.2)  # the runner's limit: 0.3 + 0.2 s
    wire = Wire()
    table, finished = ann_against_minimal(wire, turn_timer=0.3)
    run(table)
    ann = table.humans[0]
    turn = await wire.wait("seat:0", "turn")
    table.layer_lost()
    deadline = ann.deadline
    await until(lambda: ann.clock() > deadline + 0.6, what="the turn's limit is past")
    assert ann.waiting and not ann.away
    assert not wire.to("seat:0", "note")
    assert table._away_turns.get(0, 0) == 0

    table.layer_back(17.2)
    given = await wire.wait("seat:0", "turn", after=1)
    assert given["turn"] == turn["turn"]
    assert REJOIN_S < given["seconds"] <= REJOIN_S + 0.3  # until her page is back
    notes = wire.to("seat:0", "note")
    assert [n["text"] for n in notes] == [GIVEN_BACK]
    assert wire.to("public", "note")[-1]["text"] == NOBODY_LATE

    # her page is back: the whole timer from now, and the note where it came in her log
    again = messages(table, 0)
    turns = [m for m in again if m["type"] == "turn"]
    assert len(turns) == 1 and 0.2 < turns[0]["seconds"] <= 0.3
    state = next(m for m in again if m["type"] == "state")
    assert GIVEN_BACK in [line["text"] for line in state["frame"]["log"]]
    assert any(m["type"] == "note" and m["text"] == GIVEN_BACK for m in again)
    assert [m for m in messages(table, None) if m["type"] == "note"][-1]["text"] == NOBODY_LATE

    table.submit(0, turn["turn"], 1, reply_to="ann")
    assert not wire.to("reply:ann")
    await wire.wait("seat:0", "turn", after=2)
    table.close()
    assert await join(table, 10)
    record = finished[0].played.outcome.record
    assert not finished[0].played.outcome.faults
    picks = [i for i, e in enumerate(record["events"]) if e.get("seat") == 0]
    assert record["events"][picks[0]]["action"] == 1  # her move, not the default
    assert [0, picks[0]] not in record.get("played_for", [])


@pytest.mark.asyncio
async def test_a_turn_asked_while_the_layer_is_away_waits_and_a_default_after_is_hers():
    """The layer is lost before Ann's turn is asked: the turn is held all the same. Given
    back and still not answered (she left), the default is played at the end of the time
    given, as any, with no fault: the runner is not charged the time the site took."""
    wire = Wire()
    table, finished = ann_against_minimal(wire, turn_timer=0.05, away_timer=0.05)
    table.layer_lost()
    run(table)
    ann = table.humans[0]
    turn = await wire.wait("seat:0", "turn")
    deadline = ann.deadline
    await until(lambda: ann.clock() > deadline + 0.3, what="the turn's timer is past")
    assert ann.waiting and not wire.to("seat:0", "note")
    table.layer_back(0.4)
    assert wire.to("seat:0", "note")[-1]["text"] == (
        "The site lost its connection for 1 s; your time was given back."
    )
    messages(table, 0)  # her page is back: 0.05 s from now
    note = await wire.wait("seat:0", "note", after=1)
    assert note["text"].startswith("Time ran out, so this was played for you")
    assert wire.to("seat:0", "turn")[-1]["turn"] >= turn["turn"]
    table.close()
    assert await join(table, 10)
    assert not finished[0].played.outcome.faults


@pytest.mark.asyncio
async def test_a_default_waiting_for_a_move_on_its_way_is_held_when_the_layer_goes(
    monkeypatch,
):
    """Ann's timer ran out a moment before the layer went: the table was waiting for a move
    of hers on its way (IN_FLIGHT_S), which the outage may have lost. It is held too."""
    from games.live import humans

    monkeypatch.setattr(humans, "IN_FLIGHT_S", 0.3)
    wire = Wire()
    table, _ = ann_against_minimal(wire, turn_timer=0.1)
    run(table)
    ann = table.humans[0]
    await wire.wait("seat:0", "turn")
    deadline = ann.deadline
    await until(lambda: ann.clock() > deadline + 0.05, what="the timer ran out")
    assert ann.waiting  # waiting for a move on its way
    table.layer_lost()
    await until(lambda: ann.clock() > deadline + 0.6, what="the wait would be over")
    assert ann.waiting and not wire.to("seat:0", "note") and not ann.away
    table.close()
    assert await join(table, 10)


@pytest.mark.asyncio
async def test_an_outage_never_counts_towards_everyone_being_away():
    """Two people at a table that ends when all are away for 2 turns of their own: a long
    outage with their turns held plays none of them, and the table goes on."""
    wire = Wire()
    seats = [SeatPlan("ann", "human"), builtin("last-card", "naive"), SeatPlan("bob", "human")]
    table = host("last-card", seats, wire, turn_timer=0.05, away_timer=0.05, away_turns_end=2)
    table.layer_lost()
    run(table)
    await until(lambda: any(h.waiting for h in table.humans.values()), what="a turn")
    waiting = [seat for seat, h in table.humans.items() if h.waiting]
    deadline = table.humans[waiting[0]].deadline
    await until(lambda: table.clock() > deadline + 0.5, what="well past the timer")
    assert not table.done.is_set() and not table._everyone_away
    assert not any(table._away_turns.values())
    assert not wire.to("seat:0", "note") and not wire.to("seat:2", "note")
    table.close()
    assert await join(table, 10)


# ---- the hub: waiting for the layer ------------------------------------------------------
class FakeLayer:
    """A channel layer whose server goes away (``down``): receive and send raise as
    channels_redis does then; else send queues a message that receive gives."""

    def __init__(self, down: bool = False, error: BaseException | None = None) -> None:
        self.down = down
        self.error = error
        self.queue: asyncio.Queue = asyncio.Queue()
        self.receives = 0
        self.sends = 0

    async def receive(self, channel: str) -> dict[str, Any]:
        self.receives += 1
        await asyncio.sleep(0)  # (a listener that spins lets the test see it)
        if self.error is not None:
            raise self.error
        if self.down:
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379.")
        return await self.queue.get()

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        self.sends += 1
        if self.down:
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379.")
        self.queue.put_nowait(message)


class Tables:
    """Stands for the hub's hosted tables: what they are told of the layer."""

    def __init__(self) -> None:
        self.told: list[Any] = []

    def layer_lost(self) -> None:
        self.told.append("lost")

    def layer_back(self, seconds: float) -> None:
        self.told.append(("back", seconds))


def timed_waits(monkeypatch, on_wait=None) -> list[float]:
    """The waits the hub asks for, recorded and not waited (``on_wait(waits)`` may end
    the outage)."""
    waits: list[float] = []
    real = asyncio.sleep

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if on_wait is not None:
            on_wait(waits)
        await real(0)

    fake = types.SimpleNamespace(**{k: getattr(asyncio, k) for k in dir(asyncio)})
    fake.sleep = sleep
    monkeypatch.setattr(hub_module, "asyncio", fake)
    return waits


def listen(hub: Hub, layer: Any, channel: str = "specific.test!x") -> asyncio.Task[None]:
    return asyncio.get_running_loop().create_task(hub._listen(layer, channel))


async def stopped(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.asyncio
async def test_the_listener_waits_for_a_lost_layer_with_one_line_and_a_growing_wait(
    monkeypatch, caplog
):
    layer = FakeLayer(down=True)

    def back_after_six(waits: list[float]) -> None:
        if len(waits) == 6:
            layer.down = False

    waits = timed_waits(monkeypatch, back_after_six)
    hub, tables = Hub(), Tables()
    hub.hosts[1] = tables  # type: ignore[assignment]
    caplog.set_level(logging.INFO, logger="games.live")
    task = listen(hub, layer)
    await until(lambda: ("back" in str(tables.told)) and layer.receives == 3, what="back")
    await stopped(task)
    assert waits == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]  # doubled up to 5 s, never at once
    assert layer.sends == 6  # one try after each wait
    assert layer.receives == 3  # the failure, the ping that said it is back, the next
    assert tables.told[0] == "lost" and tables.told[1][0] == "back" and len(tables.told) == 2
    lines = [r for r in caplog.records if r.name == "games.live"]
    said = [r.getMessage() for r in lines]
    assert said[0].startswith("event=hub.layer_unreachable error=ConnectionError: Error 111")
    assert said[1].startswith("event=hub.layer_back after=") and said[1].endswith("s")
    assert len(lines) == 2 and not any(r.exc_info for r in lines)
    assert hub.layer_lost_at is None


@pytest.mark.asyncio
async def test_another_failure_to_receive_keeps_its_traceback_but_does_not_spin(
    monkeypatch, caplog
):
    layer = FakeLayer(error=RuntimeError("something else"))

    def fixed_after_three(waits: list[float]) -> None:
        if len(waits) == 3:
            layer.error = None

    waits = timed_waits(monkeypatch, fixed_after_three)
    hub, tables = Hub(), Tables()
    hub.hosts[1] = tables  # type: ignore[assignment]
    caplog.set_level(logging.INFO, logger="games.live")
    task = listen(hub, layer)
    await until(lambda: layer.receives == 4, what="receiving again")
    await stopped(task)
    assert waits == [0.5, 1.0, 2.0]
    failed = [r for r in caplog.records if "hub.receive_failed" in r.getMessage()]
    assert len(failed) == 3 and all(r.exc_info for r in failed)
    assert tables.told == []  # not an outage: the turn timers run


@pytest.mark.asyncio
async def test_a_table_of_the_hub_holds_its_turns_while_the_layer_is_away(monkeypatch):
    """The hub and a table it hosts: the layer goes while Ann is asked; her timer runs out
    meanwhile and nothing is played for her; the layer comes back and she is told."""
    layer = FakeLayer(down=True)
    gate = asyncio.Event()
    real = asyncio.sleep

    async def sleep(seconds: float) -> None:
        await gate.wait()  # the outage lasts until the test ends it
        await real(0)

    fake = types.SimpleNamespace(**{k: getattr(asyncio, k) for k in dir(asyncio)})
    fake.sleep = sleep
    monkeypatch.setattr(hub_module, "asyncio", fake)
    wire = Wire()
    table, _ = ann_against_minimal(wire, turn_timer=0.1)
    hub = Hub()
    hub.hosts[1] = table
    run(table)
    ann = table.humans[0]
    await wire.wait("seat:0", "turn")
    task = listen(hub, layer)
    await until(lambda: table.layer_down, what="the table told")
    deadline = ann.deadline
    await until(lambda: ann.clock() > deadline + 0.3, what="the timer is past")
    assert ann.waiting and not wire.to("seat:0", "note")
    layer.down = False
    gate.set()
    note = await wire.wait("seat:0", "note")
    assert note["text"].startswith("The site lost its connection for ")
    assert note["text"].endswith("s; your time was given back.")
    assert not table.layer_down and ann.waiting
    await stopped(task)
    table.close()
    assert await join(table, 10)


# ---- a real Redis, stopped and started again ---------------------------------------------
class Counting:
    """A channel layer that counts its receives."""

    def __init__(self, layer: Any) -> None:
        self.layer, self.receives = layer, 0

    async def receive(self, channel: str) -> dict[str, Any]:
        self.receives += 1
        return await self.layer.receive(channel)

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await self.layer.send(channel, message)


@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server")
@pytest.mark.asyncio
async def test_the_listener_waits_out_a_real_redis_stopped_and_started_again(tmp_path, caplog):
    """What channels_redis raises when its Redis goes is an outage to the hub: one line,
    the tables told, no traceback and no spinning; and it hears its channel once Redis is
    started again on the same port."""
    from channels_redis.core import RedisChannelLayer

    from cardsite import localservices

    server = localservices.start_redis(tmp_path)
    layer = RedisChannelLayer(hosts=[server.url])
    counting = Counting(layer)
    hub, tables = Hub(), Tables()
    hub.hosts[1] = tables  # type: ignore[assignment]
    heard: list[dict[str, Any]] = []

    async def handle(message: dict[str, Any]) -> None:
        heard.append(message)

    hub._handle = handle  # type: ignore[method-assign]
    caplog.set_level(logging.INFO, logger="games.live")
    channel = await layer.new_channel()
    task = listen(hub, counting, channel)
    again = None
    try:
        await layer.send(channel, {"type": "table.watch", "n": 1})
        await until(lambda: len(heard) == 1, what="a message before")
        os.kill(server.pid, signal.SIGKILL)
        assert server._proc is not None
        server._proc.wait(timeout=10)
        await until(lambda: tables.told == ["lost"], what="the outage noticed")
        receives = counting.receives
        program = shutil.which("redis-server")
        workdir = tempfile.mkdtemp(prefix="redis-", dir=tmp_path)
        again = localservices._start_redis(program, workdir, server.port, 20)
        await until(lambda: len(tables.told) == 2, timeout=20, what="the layer back")
        assert counting.receives - receives <= 2  # no spinning while it was away
        await layer.send(channel, {"type": "table.watch", "n": 2})
        await until(lambda: [m.get("n") for m in heard][-1:] == [2], what="a message after")
    finally:
        await stopped(task)
        await layer.close_pools()
        if again is not None:
            again.stop()
        server.stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "games.live"]
    assert [line.split(" ")[0] for line in lines] == [
        "event=hub.layer_unreachable",
        "event=hub.layer_back",
    ], lines
    assert not any(r.exc_info for r in caplog.records if r.name == "games.live")
