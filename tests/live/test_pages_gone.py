"""A person whose pages all left a live table (every tab closed, their network gone): the
others at it are told, once the person has been gone for a while, and told again when a page
of theirs is back."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from games.live import host as host_module
from games.live import tables
from games.live.host import SeatPlan
from games.live.hub import hub
from tests.live.test_consumers import finish_off, make_table, make_user, socket
from tests.live.test_host import Wire, host, run


def gone_of(seats: dict) -> list[bool]:
    return [seat["gone"] for seat in seats["seats"]]


@pytest.mark.asyncio
async def test_a_person_with_no_page_left_is_said_to_be_gone_until_one_is_back(monkeypatch):
    monkeypatch.setattr(host_module, "NO_PAGE_S", 0.05)
    wire = Wire()
    pages = {"seat:0": 1, "seat:1": 1, "public": 1}
    table = host(
        "goofspiel",
        [SeatPlan("ann", "human"), SeatPlan("bob", "human")],
        wire,
        watched=lambda audience: pages.get(audience, 0) > 0,
    )
    run(table)
    await wire.wait("seat:0", "turn")
    assert gone_of(wire.to("seat:0", "seats")[-1]) == [False, False]
    told = len(wire.to("seat:0", "seats"))
    # bob's page reloads: gone for less than NO_PAGE_S, nobody is told
    pages["seat:1"] = 0
    table.pages_changed(1)
    pages["seat:1"] = 1
    table.pages_changed(1)
    assert table._gone_timers == {} and table._gone == set()
    assert len(wire.to("seat:0", "seats")) == told
    # bob closes his last tab: ann and the spectators are told, and so is a reload of ann's
    pages["seat:1"] = 0
    table.pages_changed(1)
    for audience in ("seat:0", "public"):
        assert gone_of(await wire.wait(audience, "seats", after=told)) == [False, True]
    shown = [m for m in map(json.loads, table.snapshot(0)) if m["type"] == "seats"]
    assert gone_of(shown[0]) == [False, True]
    # his page is back: said at once
    pages["seat:1"] = 1
    table.pages_changed(1)
    assert gone_of(await wire.wait("seat:0", "seats", after=told + 1)) == [False, False]
    # gone again as the match ends: a page of his that comes back to the ended table is told
    # its end, and nobody hears more of who sits where
    pages["seat:1"] = 0
    table.pages_changed(1)
    assert gone_of(await wire.wait("seat:0", "seats", after=told + 2)) == [False, True]
    table.close()
    await asyncio.wait_for(table.done.wait(), 20)
    pages["seat:1"] = 1
    table.pages_changed(1)
    assert wire.messages[-1][1]["type"] == "over"


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_hub_tells_the_table_when_a_persons_last_socket_closes(monkeypatch):
    monkeypatch.setattr(host_module, "NO_PAGE_S", 0.05)
    ann, bob = await make_user("ann"), await make_user("bob")
    table = await make_table("goofspiel", ann, ["me", "open"])
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    a, b = await socket(table.token, ann), await socket(table.token, bob)
    assert await a.connect() and await b.connect()
    await a.next("turn")
    await b.next("turn")
    await b.close()
    while True:  # every seats message ann hears, until the one that says bob left
        seats = await a.next("seats")
        if gone_of(seats) == [False, True]:
            break
        assert gone_of(seats) == [False, False]
    b = await socket(table.token, bob)
    assert await b.connect()
    assert gone_of(await a.next("seats")) == [False, False]
    assert hub.hosts[table.pk]._gone == set()
    await a.close()
    await b.close()
    await finish_off(table)
