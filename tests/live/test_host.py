"""A live table's host: people and bots through the one runner, with turn timers, refusals
that go back to the sender alone, and an end that every seat hears."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from typing import Any

import pytest

from bots.running.playing import Entry
from games.live import host as host_module
from games.live.host import NOT_STORED, Finish, SeatPlan, StoreWaits, TableHost
from games.registry import get_game


class Wire:
    """Collects what the host publishes, per audience, and lets a test wait for it."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self.event = asyncio.Event()

    def __call__(self, audience: str, text: str) -> None:
        self.messages.append((audience, json.loads(text)))
        self.event.set()

    def to(self, audience: str, kind: str | None = None) -> list[dict[str, Any]]:
        return [m for a, m in self.messages if a == audience and kind in (None, m["type"])]

    async def wait(self, audience: str, kind: str, after: int = 0, timeout: float = 10.0):
        """The first ``kind`` message to ``audience`` beyond the first ``after`` of them."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.to(audience, kind)
            if len(found) > after:
                return found[after]
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} for {audience} after {after}: {self.messages[-5:]}"
            self.event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), left)


#: the tables a test started (kept referenced while they run)
RUNNING: set[asyncio.Task[None]] = set()


def run(table: TableHost) -> None:
    """Start a table's match on the test's event loop, as the hub does."""
    task = asyncio.get_running_loop().create_task(table.run())
    RUNNING.add(task)
    task.add_done_callback(RUNNING.discard)


async def join(table: TableHost, timeout: float) -> bool:
    """Wait until the table's match is over and everyone told; True if it is in time."""
    try:
        await asyncio.wait_for(table.done.wait(), timeout)
    except TimeoutError:
        return False
    return True


def builtin(game: str, name: str) -> SeatPlan:
    return SeatPlan(name=f"builtin:{name}", kind="bot", entry=Entry(name=name, builtin=name))


def host(game: str, seats: list[SeatPlan], wire: Wire, **kw) -> TableHost:
    return TableHost(get_game(game), seats, seed=kw.pop("seed", 7), publish=wire, **kw)


def ann_against_minimal(wire: Wire, **kw) -> tuple[TableHost, list[Finish]]:
    """An RPS Poker table of a person, ann, against the minimal bot, and the list its end
    is put in once stored."""
    finished: list[Finish] = []

    async def store(finish: Finish) -> None:
        finished.append(finish)

    seats = [SeatPlan("ann", "human"), builtin("rps-poker", "minimal")]
    return host("rps-poker", seats, wire, on_finish=store, **kw), finished


def snapshot(table: TableHost, seat: int | None) -> list[dict[str, Any]]:
    return [json.loads(text) for text in table.snapshot(seat)]


def current_state(wire: Wire, audience: str) -> dict[str, Any]:
    return wire.to(audience, "state")[-1]


@pytest.mark.asyncio
async def test_a_person_plays_rps_poker_against_a_bot_to_the_end():
    wire = Wire()
    finished: list[Finish] = []

    async def store(finish: Finish) -> dict[str, Any]:
        finished.append(finish)
        return {"match": 99}

    table = host(
        "rps-poker",
        [SeatPlan("ann", "human"), builtin("rps-poker", "simple")],
        wire,
        on_finish=store,
    )
    run(table)
    for n in range(15):  # five draft picks, ten games
        turn = await wire.wait("seat:0", "turn", after=n)
        assert turn["turn"] == n + 1 and turn["seconds"] > 0
        actions = current_state(wire, "seat:0")["actions"]
        assert [a["label"] for a in actions] == ["Keep"] * 2 if n < 5 else ["Play"] * 3
        table.submit(0, turn["turn"], actions[-1]["value"], reply_to="sock-a")
    over = await wire.wait("seat:0", "over")
    assert await join(table, 5)
    assert over["match"] == 99
    assert sum(over["result"]["scores"]) == 10
    assert (await wire.wait("public", "over"))["result"]["scores"] == over["result"]["scores"]
    played = finished[0].played
    assert played is not None and not played.outcome.faults
    record = played.outcome.record
    assert record["seat_time_controls"]["0"]["move"] > 30
    assert [s["name"] for s in record["seats"]] == ["ann", "builtin:simple"]
    assert not wire.to("reply:sock-a")  # nothing was refused
    # everyone heard who sits where when the match began (a page drawn while a seat was
    # open learns the name of who took it)
    for audience in ("seat:0", "public"):
        first = wire.to(audience)[0]
        assert first["type"] == "seats"
        assert [s["name"] for s in first["seats"]] == ["ann", "builtin:simple"]


@pytest.mark.asyncio
async def test_refusals_go_to_the_sender_alone_and_change_nothing():
    wire = Wire()
    table = host("rps-poker", [SeatPlan("ann", "human"), builtin("rps-poker", "minimal")], wire)
    table.submit(0, 1, 0, reply_to="early")  # before the match: not her turn
    assert wire.to("reply:early", "error")[-1]["error"] == "it is not your turn"
    run(table)
    turn = await wire.wait("seat:0", "turn")
    table.submit(0, turn["turn"], 7, reply_to="s1")  # an offer has two cards
    error = await wire.wait("reply:s1", "error")
    assert "out of range" in error["error"]
    table.submit(0, turn["turn"] + 5, 0, reply_to="s2")
    assert "turn" in (await wire.wait("reply:s2", "error"))["error"]
    table.submit(1, turn["turn"], 0, reply_to="s3")  # the bot's seat
    assert "not a person's seat" in (await wire.wait("reply:s3", "error"))["error"]
    table.submit(0, "1", 0, reply_to="s4")
    assert "which turn" in (await wire.wait("reply:s4", "error"))["error"]
    # none of it reached anyone else, and the turn is still open
    assert all(a.startswith("reply:") for a, m in wire.messages if m["type"] == "error")
    assert table.humans[0].waiting
    table.submit(0, turn["turn"], 1, reply_to="s1")
    assert (await wire.wait("seat:0", "turn", after=1))["turn"] == 2
    table.close()
    assert await join(table, 10)
    assert not table.result["faults"]


@pytest.mark.asyncio
async def test_a_turn_is_answered_once_the_moment_the_answer_comes():
    wire = Wire()
    table, finished = ann_against_minimal(wire)
    run(table)
    turn = await wire.wait("seat:0", "turn")
    ann = table.humans[0]
    table.submit(0, turn["turn"], 1, reply_to="first")
    assert not ann.waiting  # taken at once, before the runner looks again
    table.submit(0, turn["turn"], 0, reply_to="second")  # a double click
    refused = wire.to("reply:second", "error")[-1]["error"]
    assert refused == f"turn {turn['turn']} is already answered"
    assert not wire.to("reply:first")
    await wire.wait("seat:0", "turn", after=1)
    table.close()
    assert await join(table, 10)
    played = finished[0].played
    assert played is not None
    picks = [e for e in played.outcome.record["events"] if e.get("seat") == 0]
    assert picks[0]["action"] == 1  # the first answer, not the second


@pytest.mark.asyncio
async def test_a_person_who_does_not_act_is_played_for_and_marked_away():
    wire = Wire()
    table = host(
        "rps-poker",
        [SeatPlan("ann", "human"), builtin("rps-poker", "simple")],
        wire,
        turn_timer=0.2,
        away_timer=0.01,
    )
    started = time.monotonic()
    run(table)
    assert await join(table, 20)
    # one full timer, then the short one for every later turn
    assert time.monotonic() - started < 5
    seats = [m for m in wire.to("public", "seats")]
    assert any(s["seats"][0]["away"] for s in seats)
    assert sum(table.result["scores"]) == 10
    assert not table.result["faults"]  # playing by default is no fault
    # each turn played for her is in her log, in words: the card kept or played
    notes = wire.to("seat:0", "note")
    assert len(notes) == 15 and len({n["key"] for n in notes}) == 15
    told = "Time ran out, so this was played for you: "
    assert all(n["text"].startswith(told + "keep ") for n in notes[:5])
    assert all(n["text"].startswith(told + "play ") for n in notes[5:])
    assert not wire.to("public", "note") and not wire.to("seat:1", "note")
    # a reload keeps them (the latest twenty)
    again = [m for m in snapshot(table, 0) if m["type"] == "note"]
    assert again == notes


@pytest.mark.asyncio
async def test_a_note_of_time_running_out_names_its_turn_and_comes_before_the_turn_asked_now():
    """A reload (or a sync) late in a turn hears the notes of turns the timer played before
    the turn asked now, each naming the turn it was played for: the page ends a turn only on
    a note of that very turn, never the turn still open (it did, guessing by the clock, and
    showed "Time ran out, so this was played for you" for a turn not over)."""
    wire = Wire()
    table, _ = ann_against_minimal(wire, turn_timer=0.3)
    run(table)
    note = await wire.wait("seat:0", "note")  # her first turn: played for her
    assert (note["key"], note["turn"]) == ("timeout0", 1)
    turn = await wire.wait("seat:0", "turn", after=1)
    assert turn["turn"] == 2 and table.humans[0].waiting
    told = snapshot(table, 0)  # (her second turn still open)
    kinds = [m["type"] for m in told]
    assert kinds[:4] == ["seats", "state", "note", "turn"], kinds
    assert told[2] == note and told[3]["turn"] == 2
    second = await wire.wait("seat:0", "note", after=1)  # the second too, in its turn
    assert (second["key"], second["turn"]) == ("timeout1", 2)
    table.close()
    assert await join(table, 10)


async def past_deadline(agent, margin: float = 0.1) -> float:
    """Wait until the person's turn timer ran out ``margin`` seconds ago (its callback has
    fired by then); returns the deadline as a time of day."""
    deadline, deadline_at = agent.deadline, agent.deadline_at
    while agent.clock() < deadline + margin:
        await asyncio.sleep(0.02)
    return deadline_at


@pytest.mark.asyncio
async def test_a_move_received_in_time_counts_though_it_reaches_the_table_after_its_timer():
    """A busy server, or a socket of another server process, may bring a person's move to
    the table's host after the turn's timer ran out: it counts if her socket received it
    before the deadline, and a move received after the deadline is refused."""
    wire = Wire()
    table, finished = ann_against_minimal(wire, turn_timer=0.4)
    run(table)
    ann = table.humans[0]
    turn = await wire.wait("seat:0", "turn")
    received = time.time()  # her socket has her move now, within the turn
    await past_deadline(ann)
    assert ann.waiting  # the timer ran out: the table waits a moment for moves on their way
    table.submit(0, turn["turn"], 1, reply_to="late-but-in-time", received_at=received)
    assert not wire.to("reply:late-but-in-time")
    assert not ann.waiting and not ann.away and not wire.to("seat:0", "note")
    # the next turn: a move her socket received after the deadline is too late
    turn = await wire.wait("seat:0", "turn", after=1)
    deadline_at = await past_deadline(ann)
    table.submit(0, turn["turn"], 1, reply_to="too-late", received_at=deadline_at + 0.05)
    refused = (await wire.wait("reply:too-late", "error"))["error"]
    assert refused == "time ran out for this turn: the default was played for you"
    note = await wire.wait("seat:0", "note")  # then the default, once the moment is over
    assert note["text"].startswith("Time ran out, so this was played for you")
    table.close()
    assert await join(table, 10)
    picks = [e for e in finished[0].played.outcome.record["events"] if e.get("seat") == 0]
    assert picks[0]["action"] == 1  # her move, not the default


@pytest.mark.asyncio
async def test_the_wait_for_moves_on_their_way_ends_within_what_the_runner_allows():
    """The wait after a person's timer grows with how late the timer fired (a loaded server),
    but never past GRACE_S / 2 after the deadline: the runner's own limit for a person is
    GRACE_S beyond it, and going past that would be the person's fault."""
    from games.live.humans import GRACE_S, IN_FLIGHT_S, HumanAgent

    class Deaf:
        def on_turn(self, *args) -> None: ...

        def on_away(self, *args) -> None: ...

        def stalled(self, *args) -> bool:
            return False  # (a late timer is played as ever: see test_stalled_host.py)

    ann = HumanAgent("ann", Deaf(), check=lambda seat, action: None, default=lambda seat: 0)
    loop = asyncio.get_running_loop()
    for late, most in ((0.0, IN_FLIGHT_S), (1.0, GRACE_S / 2 - 1.0), (GRACE_S, 0.0)):
        answer = loop.create_future()
        ann._time_up(answer, loop.time() - late)
        (wait,) = ann._later
        left = wait.when() - loop.time()
        assert most - 0.05 <= left <= most + 0.01, (late, left)
        ann._stop_timers()


@pytest.mark.asyncio
async def test_an_away_person_who_acts_again_is_back():
    wire = Wire()
    table = host(
        "uth",
        [SeatPlan("ann", "human")],
        wire,
        config={"max_rounds": 3},
        turn_timer=0.3,
        away_timer=0.3,
    )
    run(table)
    # the first "seats" says who sits where; the next, that she let the first turn pass
    away = await wire.wait("public", "seats", after=1)
    assert away["seats"][0]["away"] is True
    turn = await wire.wait("seat:0", "turn", after=1)
    assert turn["default"] == "check"
    table.submit(0, turn["turn"], "[check]", reply_to="s")
    last = await wire.wait("public", "seats", after=2)
    assert last["seats"][0]["away"] is False
    table.close()
    assert await join(table, 10)


@pytest.mark.asyncio
async def test_a_mixed_last_card_table_of_people_and_bots_ends():
    wire = Wire()
    table = host(
        "last-card",
        [
            SeatPlan("ann", "human"),
            builtin("last-card", "naive"),
            SeatPlan("bob", "human"),
            builtin("last-card", "heuristic"),
        ],
        wire,
        turn_timer=0.01,
        away_timer=0.01,
        away_turns_end=0,  # (nobody plays: the table would end once all were away for long)
    )
    run(table)
    assert await join(table, 60)
    over = wire.to("seat:2", "over")[-1]
    assert over["result"] == table.result
    views = wire.to("seat:0", "state")
    assert all(len(v["frame"]["seats"]) == 4 for v in views)
    # a person's seat is shown its own hand, and the others' only as a count
    assert all(v["frame"]["hand"] or v["actions"] for v in views[:-1])
    for v in views:
        assert [bool(s["zones"]) for s in v["frame"]["seats"]] == [False, True, True, True]
        assert all(not s["zones"][0]["cards"] for s in v["frame"]["seats"] if s["zones"])
    public = wire.to("public", "state")
    assert all(not v["frame"]["hand"] and not v["actions"] for v in public)


@pytest.mark.asyncio
async def test_a_reconnecting_socket_gets_the_whole_picture():
    wire = Wire()
    table = host("rps-poker", [SeatPlan("ann", "human"), builtin("rps-poker", "simple")], wire)
    run(table)
    turn = await wire.wait("seat:0", "turn")
    heard = time.monotonic()
    kinds = [m["type"] for m in snapshot(table, 0)]
    assert kinds == ["seats", "state", "turn"]
    assert snapshot(table, 0)[2]["turn"] == turn["turn"]
    # a reload is told the time really left, not the whole timer again: it goes down (half a
    # second of it, within 20 s), as fast as the time passes (a tenth of rounding either way)
    deadline = time.monotonic() + 20
    while True:
        gone = time.monotonic() - heard
        told = snapshot(table, 0)[2]
        assert told["turn"] == turn["turn"], told
        if told["seconds"] <= turn["seconds"] - 0.5:
            break
        assert time.monotonic() < deadline, f"after {gone:.1f} s a reload is told {told}"
        await asyncio.sleep(0.05)
    assert told["seconds"] <= turn["seconds"] - gone + 0.2, (told, turn, gone)
    assert [m["type"] for m in snapshot(table, None)] == ["seats", "state"]
    watched = snapshot(table, None)[1]
    assert not watched["frame"]["hand"] and not watched["actions"]
    table.close()
    assert await join(table, 10)
    assert [m["type"] for m in snapshot(table, 0)][-1] == "over"


@pytest.mark.asyncio
async def test_a_table_whose_store_fails_tells_its_players_so_in_plain_words():
    """An error of the site's in the store (not the database being away): the table is
    stored as stopped, with words a person understands, never the error's."""
    wire = Wire()
    tried: list[Finish] = []

    async def broken(finish: Finish) -> dict[str, Any]:
        tried.append(finish)
        if finish.played is not None:
            raise RuntimeError("'NoneType' object is not subscriptable")
        return {}

    table = host(
        "uth", [SeatPlan("ann", "human")], wire, config={"max_rounds": 1}, on_finish=broken
    )
    table.close()  # plays by default at once
    run(table)
    assert await join(table, 10)
    over = await wire.wait("seat:0", "over")
    assert over == {"type": "over", "error": NOT_STORED, "rated": False}
    assert "subscriptable" not in json.dumps(wire.messages)
    # stored as a table that stopped (no longer in play), for that reason
    assert [f.played is None for f in tried] == [False, True] and tried[1].error == NOT_STORED


@pytest.mark.asyncio
async def test_an_end_the_database_cannot_take_is_told_as_waiting_and_stored_once_it_can(
    monkeypatch,
):
    monkeypatch.setattr(host_module, "STORE_RETRY_MOST_S", 0.05)
    wire = Wire()
    tries: list[Finish] = []

    async def away_twice(finish: Finish) -> dict[str, Any]:
        tries.append(finish)
        if len(tries) <= 2:
            raise StoreWaits("OperationalError: database or disk is full")
        return {"match": 12, "url": "/matches/12/", "rated": True}

    seats = [SeatPlan("ann", "human"), builtin("rps-poker", "simple")]
    table = host("rps-poker", seats, wire, rated=True, on_finish=away_twice)
    table.close()  # ann is played for at once
    run(table)
    waiting = await wire.wait("seat:0", "over")
    assert waiting["pending"] is True and "url" not in waiting and "error" not in waiting
    # the result, then that it is not saved yet, and what comes of it
    assert re.fullmatch(
        r"\S+ wins, \d+ to \d+\. Not saved yet: the site cannot write to its database just "
        r"now\. The result is saved and rated as soon as the site can write again; this page "
        r"says so then\.",
        waiting["summary"],
    ), waiting["summary"]
    assert sum(waiting["result"]["scores"]) == 10
    assert (await wire.wait("public", "over"))["pending"] is True
    assert "disk is full" not in json.dumps(wire.messages)  # (the log has it)
    assert await join(table, 10)
    stored = await wire.wait("seat:0", "over", after=1)
    assert stored["url"] == "/matches/12/" and stored["rated"] is True
    assert "pending" not in stored and "Not saved" not in stored["summary"]
    assert stored["result"] == waiting["result"]
    assert len(tries) == 3 and all(f is tries[0] for f in tries)  # the same match, kept
    assert snapshot(table, 0)[-1] == stored  # a page opened now hears the end as saved


def test_a_game_without_a_table_is_refused():
    spec = get_game("rps-poker")
    from dataclasses import replace

    with pytest.raises(ValueError, match="cannot be played at a live table"):
        TableHost(replace(spec, table=None), [], seed=1, publish=Wire())


def uploaded(name: str) -> SeatPlan:
    """An uploaded bot's seat: its code runs in the sandbox, as in tournaments."""
    code = get_game("rps-poker").builtin_path(name).read_text()
    return SeatPlan(
        name=f"alice/{name}", kind="bot", entry=Entry(name=name, code=code, filename=f"{name}.py")
    )


@pytest.mark.asyncio
async def test_uploaded_bots_play_at_tables_in_the_sandbox_two_tables_at_once():
    wires = [Wire(), Wire()]
    tables = [
        host("rps-poker", [SeatPlan("ann", "human"), uploaded("simple")], wires[0], seed=3,
             turn_timer=0.05, away_timer=0.01),
        host("rps-poker", [uploaded("strong"), SeatPlan("bob", "human")], wires[1], seed=4,
             turn_timer=0.05, away_timer=0.01),
    ]  # fmt: skip
    for table in tables:
        run(table)
    for table in tables:
        assert await join(table, 60)
        assert sum(table.result["scores"]) == 10
        assert not table.result["faults"], table.result["faults"]


@pytest.mark.asyncio
async def test_an_empty_gallery_costs_no_view_and_a_first_spectator_sees_the_table():
    wire = Wire()
    gallery: set[str] = set()
    table = host(
        "rps-poker", [SeatPlan("ann", "human"), builtin("rps-poker", "simple")], wire,
        watched=lambda audience: audience in gallery,
    )  # fmt: skip
    run(table)
    turn = await wire.wait("seat:0", "turn")
    table.submit(0, turn["turn"], 0, reply_to="s")
    await wire.wait("seat:0", "turn", after=1)
    assert not wire.to("public", "state")  # nobody watched: nothing worked out for them
    first = snapshot(table, None)
    assert [m["type"] for m in first] == ["seats", "state"]
    names = ["ann", "builtin:simple"]
    assert first[1]["frame"] == table.rules.frame(table.state, None, names)
    assert not first[1]["actions"]
    gallery.add("public")
    table.submit(0, 2, 0, reply_to="s")
    frame = (await wire.wait("public", "state"))["frame"]
    assert frame == table.rules.frame(table.state, None, names)
    table.close()
    assert await join(table, 10)


def ann_and_bob_at_goofspiel(wire: Wire, **timers: float) -> TableHost:
    """Two people at a Goofspiel table of one short deal (its bids are simultaneous)."""
    return host(
        "goofspiel",
        [SeatPlan("ann", "human"), SeatPlan("bob", "human")],
        wire,
        config={"num_cards": 5, "deals": 1},
        **timers,
    )


@pytest.mark.asyncio
async def test_a_bid_taken_is_said_at_once_and_the_others_see_who_is_awaited():
    """Goofspiel's bids are simultaneous: the table moves on only once both are in. The
    bidder hears at once that the table has the bid (their page then says whom it awaits,
    not that the move is on its way), and everyone else hears that the seat's bid is in,
    never which card."""
    wire = Wire()
    table = ann_and_bob_at_goofspiel(wire)
    run(table)
    turn = await wire.wait("seat:0", "turn")
    await wire.wait("seat:1", "turn")
    card = table.state.hands[0][0]
    table.submit(0, turn["turn"], card, reply_to="ann")
    assert not wire.to("reply:ann")
    assert await wire.wait("seat:0", "taken") == {"type": "taken", "seat": 0, "turn": turn["turn"]}
    for audience in ("seat:1", "public"):
        assert await wire.wait(audience, "taken") == {"type": "taken", "seat": 0}
    assert len(wire.to("seat:0", "taken")) == 1  # her own page hears it once
    table.close()
    assert await join(table, 10)


@pytest.mark.asyncio
async def test_a_move_for_a_turn_whose_default_was_played_is_refused_as_such():
    """Ann's time ran out and her default bid was played while the table awaits bob: a bid
    of hers for that turn is refused with the reason, not as out of turn."""
    wire = Wire()
    table = ann_and_bob_at_goofspiel(wire, turn_timer=0.2, away_timer=0.2)
    table.humans[0].away = True  # ann's short timer: played for her at once
    table.humans[1].turn_timer = 30.0  # bob thinks: the table awaits him
    run(table)
    turn = await wire.wait("seat:0", "turn")
    await wire.wait("seat:0", "note")
    # bob's page (and a spectator's) hears that ann is no longer awaited
    assert await wire.wait("seat:1", "taken") == {"type": "taken", "seat": 0}
    table.submit(0, turn["turn"], table.state.hands[0][0], reply_to="late")
    refused = (await wire.wait("reply:late", "error"))["error"]
    assert refused == "time ran out for this turn: the default was played for you"
    table.close()
    assert await join(table, 10)


@pytest.mark.asyncio
async def test_a_reload_keeps_the_bid_in_marks_until_the_next_view():
    """A reload during a simultaneous turn shows whose bids are in (the "taken" marks), as
    the page had them, until the next view clears them."""
    wire = Wire()
    table = ann_and_bob_at_goofspiel(wire)
    run(table)
    turn = await wire.wait("seat:0", "turn")
    await wire.wait("seat:1", "turn")
    table.submit(0, turn["turn"], table.state.hands[0][0], reply_to="ann")
    await wire.wait("seat:1", "taken")
    mine = {"type": "taken", "seat": 0, "turn": turn["turn"]}
    assert snapshot(table, 0)[-1] == mine
    for seat in (1, None):
        assert snapshot(table, seat)[-1] == {"type": "taken", "seat": 0}
    # bob bids too: the next view, and the marks are gone
    views = len(wire.to("seat:1", "state"))
    bob = (await wire.wait("seat:1", "turn"))["turn"]
    table.submit(1, bob, table.state.hands[1][0], reply_to="bob")
    await wire.wait("seat:1", "state", after=views)
    await wire.wait("seat:1", "turn", after=1)
    assert not [m for m in snapshot(table, 1) if m["type"] == "taken"]
    assert not [m for m in snapshot(table, 0) if m["type"] == "taken"]
    table.close()
    assert await join(table, 10)


@pytest.mark.asyncio
async def test_a_reload_puts_each_time_ran_out_note_where_it_came_in_the_log():
    """Live, each "Time ran out..." note comes before the line of the move played for the
    person; a reload's view has them in its log at the same places, not piled at its end."""
    wire = Wire()
    table = host(
        "kuhn",
        [builtin("kuhn", "cfr"), SeatPlan("ann", "human")],
        wire,
        config={"hands": 4},
        turn_timer=0.2,
        away_timer=0.01,
    )
    run(table)
    assert await join(table, 20)
    live = [m for m in wire.to("seat:1") if m["type"] in ("state", "note")]
    order: list[str] = []  # the keys in the order the live page showed them
    for message in live:
        keys = (
            [e["key"] for e in message["frame"]["log"]]
            if message["type"] == "state"
            else [message["key"]]
        )
        order += [k for k in keys if k not in order]
    view = next(m for m in snapshot(table, 1) if m["type"] == "state")
    reloaded = [e["key"] for e in view["frame"]["log"]]
    notes = [k for k in reloaded if k.startswith("timeout")]
    assert len(notes) >= 4 and all(e["mine"] for e in view["frame"]["log"] if e["key"] in notes)
    assert reloaded == [k for k in order if k in reloaded]
    assert not reloaded[-1].startswith("timeout")  # the last lines are moves, not the notes


@pytest.mark.asyncio
async def test_a_table_whose_people_are_all_away_plays_out_at_once():
    """Two people left a Last Card table: once each let their last turns pass (here 3; at a
    real table AWAY_TURNS_END), the rest of the match is played by default at once, rather
    than the timer playing it alone to its last turn (half a second a turn here: minutes).
    The match ends with its result, stored (and rated where the table is) as any: walking
    away from a losing table does not void it."""
    from games.live.host import AWAY_TURNS_END

    assert AWAY_TURNS_END >= 12  # a short absence never hurries a table
    wire = Wire()
    finished: list[Finish] = []

    async def store(finish: Finish) -> None:
        finished.append(finish)

    table = host(
        "last-card",
        [SeatPlan("ann", "human"), builtin("last-card", "naive"), SeatPlan("bob", "human")],
        wire,
        on_finish=store,
        turn_timer=0.05,
        away_timer=0.5,
        away_turns_end=3,
    )
    run(table)
    assert await join(table, 20)
    assert finished[0].played is not None and finished[0].error in (None, "")
    assert table.result is not None
    for audience in ("seat:0", "seat:2", "public"):
        assert "result" in wire.to(audience, "over")[-1]


@pytest.mark.asyncio
async def test_a_table_plays_on_while_one_person_at_it_plays():
    wire = Wire()
    table = host(
        "rps-poker",
        [SeatPlan("ann", "human"), SeatPlan("bob", "human")],
        wire,
        turn_timer=0.05,
        away_timer=0.01,
        away_turns_end=2,
    )
    table.humans[0].turn_timer = table.humans[0].away_timer = 30.0
    run(table)
    for n in range(15):  # ann plays every turn; bob is away from the first
        turn = await wire.wait("seat:0", "turn", after=n)
        table.submit(0, turn["turn"], current_state(wire, "seat:0")["actions"][0]["value"])
    assert await join(table, 20)
    assert table.result is not None and sum(table.result["scores"]) == 10
    assert len(wire.to("seat:1", "note")) == 15
