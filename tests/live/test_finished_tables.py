"""A finished table seen again (a reload, a link followed later): its page and its socket show
the table as it ended and the log its page had shown, to each player as their seat saw it and
to anyone else as a spectator saw it, built from the stored match alone (no process
remembers it); a folded hand's cards stay with their owner; and the page costs the same few
queries however long the match was."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bots.running.playing import Entry, play
from games.live import tables
from games.live.host import Finish, TableHost
from games.models import Table
from games.registry import get_game
from games.replays import card_view
from tests.live.test_consumers import make_table, make_user, socket
from tests.live.test_host import Wire, run

#: what a page keeps of its log (static/js/table.js)
LOG_KEPT = 200


def setup_of(html: str) -> dict[str, Any]:
    """The table page's setup, which its script draws from."""
    found = re.search(
        r'<script id="table-setup" type="application/json">(.*?)</script>', html, re.S
    )
    assert found, "no setup in the page"
    return json.loads(found[1])


def without_setup(html: str) -> str:
    return re.sub(r'<script id="table-setup".*?</script>', "", html, flags=re.S)


def page_of(token: str, user=None) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(f"/tables/{token}/")
    assert response.status_code == 200
    return response.content.decode()


def seen_by_a_page(messages: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict]]:
    """The last view a page was sent, and its log as the page kept it (each key once, its
    first text, the latest LOG_KEPT), from every message the page heard."""
    views = [m for m in messages if m["type"] == "state"]
    logged: dict[str, dict[str, Any]] = {}
    for view in views:
        for entry in view["frame"]["log"]:
            logged.setdefault(entry["key"], entry)
    return views[-1], list(logged.values())[-LOG_KEPT:]


def named_cards(text: str) -> set[str]:
    return set(re.findall(r"(jack|queen|king) of spades", text))


async def play_folded_kuhn() -> tuple[Table, Any, Any, Wire, dict[int, dict[int, str]]]:
    """Ann and bob play a sitting of Kuhn poker at a live table's host, every hand folded
    (the first to act bets, the other folds), and it is stored as the hub stores it. Returns
    the table, the people, what the host published, and each seat's card of each hand."""
    ann, bob = await make_user("ann"), await make_user("bob")
    table = await make_table("kuhn", ann, ["me", "open"], config={"hands": 10})
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(bob))
    loaded = await sync_to_async(tables.load)(pk=table.pk)
    plans, facts = await sync_to_async(tables.claim_and_plan)(loaded, "test-host")
    wire = Wire()

    async def store(finish: Finish) -> dict[str, Any]:
        return await sync_to_async(tables.store_finish)(facts, finish)

    host = TableHost(
        get_game("kuhn"), plans, seed=table.seed, config=table.config, publish=wire,
        on_finish=store,
    )  # fmt: skip
    run(host)
    held: dict[int, dict[int, str]] = {0: {}, 1: {}}
    answered: set[tuple[int, int]] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not host.done.is_set():
        assert loop.time() < deadline, "the sitting did not end"
        for seat in (0, 1):
            turns = wire.to(f"seat:{seat}", "turn")
            if not turns or (seat, turns[-1]["turn"]) in answered:
                continue
            view = wire.to(f"seat:{seat}", "state")[-1]
            if not view["actions"]:
                continue
            hand = int(re.match(r"Hand (\d+) of", view["frame"]["label"])[1])
            held[seat][hand] = view["frame"]["hand"][0]["cards"][0]
            answered.add((seat, turns[-1]["turn"]))
            folds = any(a["label"] == "Fold" for a in view["actions"])
            host.submit(seat, turns[-1]["turn"], "p" if folds else "b")
        await asyncio.sleep(0.01)
    assert len(held[0]) == len(held[1]) == 10  # each acted in every hand
    await sync_to_async(table.refresh_from_db)()
    assert table.state == Table.FINISHED and table.match_id
    return table, ann, bob, wire, held


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_finished_table_shows_each_one_the_table_and_the_log_its_page_showed_at_the_end():
    table, ann, bob, wire, held = await play_folded_kuhn()
    caches["replays"].clear()  # built from the stored match, not found in a cache
    pages = {
        0: await sync_to_async(page_of)(table.token, ann),
        1: await sync_to_async(page_of)(table.token, bob),
        None: await sync_to_async(page_of)(table.token),  # a stranger: a spectator's view
    }
    for seat, html in pages.items():
        audience = "public" if seat is None else f"seat:{seat}"
        last, log = seen_by_a_page(wire.to(audience))
        setup = setup_of(html)
        assert setup["seat"] == seat and setup["state"] == "finished"
        view = setup["view"]
        # the very view the live end showed, and the log the page had kept by then
        assert {**view["frame"], "log": None} == {**last["frame"], "log": None}
        assert view["frame"]["log"] == log
        assert view["cards"] == last["cards"] and view["actions"] == []
        assert len(log) > len(last["frame"]["log"])  # each hand's moves too, not its line alone
        # a folded hand's card is named to its owner alone: every hand line of the page names
        # the seat's own card at most (a spectator's none), and the other seat's card of the
        # last hand is face down
        for entry in view["frame"]["log"]:
            found = re.match(r"Hand (\d+): ", entry["text"])
            if found:
                own = set() if seat is None else {card_view(held[seat][int(found[1])])["label"]}
                assert named_cards(entry["text"]) <= {c.split()[0] for c in own}, entry
        zones = {z["label"]: z for z in view["frame"]["shared"]}
        if seat is None:
            assert zones == {} and view["cards"] == {}
            assert not named_cards(json.dumps(view)) and not named_cards(without_setup(html))
        else:
            other = ["ann", "bob"][1 - seat]
            assert zones["Hand 10: you"]["cards"] == [held[seat][10]]
            assert zones[f"Hand 10: {other}"] == {**zones[f"Hand 10: {other}"], "cards": [],
                                                  "down": 1}  # fmt: skip
            assert set(view["cards"]) == {held[seat][10]}
        # nothing else in the page names a card of a hand (the result there is the scores)
        assert not named_cards(without_setup(html))


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_socket_to_a_finished_table_hears_the_table_as_it_ended_then_its_end():
    table, ann, _bob, wire, _held = await play_folded_kuhn()
    caches["replays"].clear()
    for user, seat in ((ann, 0), (None, None)):
        audience = "public" if seat is None else f"seat:{seat}"
        sock = await socket(table.token, user)
        assert await sock.connect()
        assert (await sock.next("hello"))["seat"] == seat
        over = await sock.next("over")
        await sock.close()
        kinds = [f["type"] for f in sock.frames]
        assert kinds == ["hello", "state", "over"], kinds
        last, log = seen_by_a_page(wire.to(audience))
        view = sock.frames[1]
        assert {**view["frame"], "log": None} == {**last["frame"], "log": None}
        assert view["frame"]["log"] == log
        # the end the live table said, its sentence included
        assert over == wire.to(audience, "over")[-1]
        assert over["summary"].startswith("After 10 hands: ")
        # and the page of the same person draws the same view
        html = await sync_to_async(page_of)(table.token, user)
        assert setup_of(html)["view"] == view


def finished_kuhn(hands: int, user) -> Table:
    """A finished Kuhn poker table of ``hands`` hands, its person's moves made by a bot."""
    table = tables.create_table(
        "kuhn", tables.Person(user), ["me", "builtin:cfr"], config={"hands": hands}
    )
    Table.objects.filter(pk=table.pk).update(state=Table.PLAYING)
    played = play(
        get_game("kuhn"),
        [Entry(name=user.username, builtin="cfr"), Entry(name="house/cfr", builtin="cfr")],
        seed=table.seed,
        config=table.config,
    )
    tables.store_finish(tables.facts_of(table), Finish(played))
    table.refresh_from_db()
    return table


@pytest.mark.django_db
def test_a_finished_tables_page_costs_the_same_few_queries_however_long_its_match():
    ann = User.objects.create_user("ann", password="pw-ann-long-enough")
    client = Client()
    client.force_login(ann)
    counts = []
    for hands in (10, 50):
        table = finished_kuhn(hands, ann)
        for _ in range(2):  # built, then found in the cache: the same queries
            with CaptureQueriesContext(connection) as queries:
                response = client.get(f"/tables/{table.token}/")
            assert response.status_code == 200
            assert len(setup_of(response.content.decode())["view"]["frame"]["log"]) >= hands
            counts.append(len(queries))
    # the session, the user, the table with its match, its seats, and for a player whether a
    # rematch waits for them
    assert counts == [counts[0]] * 4 and counts[0] <= 5, counts


@pytest.mark.django_db
def test_a_finished_table_whose_record_no_longer_replays_still_shows_its_end(monkeypatch):
    """A stored match the game's code cannot replay any more (a record of an older version):
    the end as the seat may see it, its summary with why the table is not rated, no table."""
    ann = User.objects.create_user("ann", password="pw-ann-long-enough")
    table = finished_kuhn(10, ann)
    Table.objects.filter(pk=table.pk).update(error="house/cfr could not start.")
    table.refresh_from_db()
    caches["replays"].clear()

    def broken(*args, **kwargs):
        raise KeyError("events")

    monkeypatch.setattr(tables, "final_messages", broken)
    (over,) = tables.end_of(table, 0)
    result = table.match.public_record(0)["result"]
    assert over["type"] == "over" and over["result"] == result
    assert over["summary"].endswith(" house/cfr could not start.")
    assert over["match"] == table.match_id and over["note"] == "house/cfr could not start."


def test_the_end_of_a_table_shows_a_bots_fault_reason_on_one_line():
    """A live table's ``over`` message carries the result, with the reasons of its faults:
    written by a bot, they are on one line there, escaped and cut, as on every page."""
    from games.engine.table import TableRules
    from games.live.host import result_message

    said = "bad card\n\n\u2022 ann (seat 1): invalid\u202e" + "!" * 2000
    result = {"scores": [1, 0], "winner": 0, "faults": {"1": {"kind": "exception", "reason": said}}}
    over = result_message(TableRules(), result, None, ["ann", "bot"], {})
    shown = over["result"]["faults"]["1"]["reason"]
    assert shown.startswith("bad card \u2022 ann (seat 1): invalid\\u202e!!")
    assert len(shown) == 300 and shown.endswith("\u2026")
    assert result["faults"]["1"]["reason"] == said  # (the result itself is left as it was)


def test_a_finished_tables_log_numbers_its_kept_lines_from_where_they_start(monkeypatch):
    """The log keeps its latest lines; the page numbers them from where they really are in
    the match (the list's start), as the live page does, not from 1."""
    from games.live import host

    spec = get_game("last-card")
    names = ["ann", "bob"]
    played = play(spec, [Entry(name=n, builtin="naive") for n in names], seed=5)
    record = played.outcome.record
    view, _ = host.final_messages(spec, record, 0, names, {})
    every = view["frame"]["log"]
    assert "log_dropped" not in view["frame"] and len(every) > 12
    monkeypatch.setattr(host, "LOG_KEPT", 10)
    view, _ = host.final_messages(spec, record, 0, names, {})
    assert view["frame"]["log"] == every[-10:]
    assert view["frame"]["log_dropped"] == len(every) - 10
