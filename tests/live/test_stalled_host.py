"""A web process that was stalled (stopped, or its event loop held up) is the site's trouble:
a person's turn whose timer ran out meanwhile is given back, not played by default; and if
another process took its table over meanwhile, nothing the stalled one does after it wakes
is kept: not its steps, not the end of the match, not a rating (games/live/humans.py,
host.py, tables.py)."""

from __future__ import annotations

import time

import pytest

from bots.models import Match
from bots.running.playing import Entry, play
from games.live import humans, tables
from games.live.host import STALLED, Finish, SeatPlan, TableLost
from games.models import PersonRating, Table, TableStep
from games.registry import get_game
from tests.live.test_host import Wire, ann_against_minimal, host, join, run
from tests.people.helpers import GAME, make_user

HELD_UP = f"{STALLED} 1 s; your time was given back."


@pytest.mark.asyncio
async def test_a_turn_whose_timer_fires_after_the_server_was_held_up_is_given_back(
    monkeypatch,
):
    """Ann's 0.2 s turn timer fires 0.5 s late, the event loop held up meanwhile: her turn
    gets its whole timer again and she is told why; her move in that time counts, and she
    is not away."""
    monkeypatch.setattr(humans, "STALL_S", 0.3)
    wire = Wire()
    table, finished = ann_against_minimal(wire, turn_timer=0.2)
    run(table)
    ann = table.humans[0]
    turn = await wire.wait("seat:0", "turn")
    time.sleep(0.7)  # the server is held up (its loop does nothing) past her deadline
    given = await wire.wait("seat:0", "turn", after=1)
    assert given["turn"] == turn["turn"] and 0.1 < given["seconds"] <= 0.2
    assert [n["text"] for n in wire.to("seat:0", "note")] == [HELD_UP]
    assert ann.waiting and not ann.away
    table.submit(0, turn["turn"], 1, reply_to="ann")
    await wire.wait("seat:0", "turn", after=2)
    assert not wire.to("reply:ann")
    table.close()
    assert await join(table, 10)
    record = finished[0].played.outcome.record
    assert not finished[0].played.outcome.faults
    first = next(i for i, e in enumerate(record["events"]) if e.get("seat") == 0)
    assert record["events"][first]["action"] == 1  # her move, not the default
    assert [0, first] not in record.get("played_for", [])


@pytest.mark.asyncio
async def test_a_timer_late_by_less_than_a_stall_still_plays_the_default(monkeypatch):
    monkeypatch.setattr(humans, "STALL_S", 5.0)
    wire = Wire()
    table, _ = ann_against_minimal(wire, turn_timer=0.2)
    run(table)
    await wire.wait("seat:0", "turn")
    time.sleep(0.4)  # late, but not a stall
    assert (await wire.wait("seat:0", "note"))["text"] != HELD_UP
    assert table.humans[0].away  # the default was hers: she did not move
    table.close()
    assert await join(table, 10)


@pytest.mark.asyncio
async def test_a_host_whose_table_was_taken_over_announces_no_end():
    """The store finds the table hosted elsewhere now (TableLost): the people here hear no
    ``over`` from this host (the new host ends the match for them)."""
    wire = Wire()

    async def lost(finish: Finish) -> None:
        raise TableLost("table 1 is no longer hosted here")

    table = host("uth", [SeatPlan("ann", "human")], wire, config={"max_rounds": 1}, on_finish=lost)
    table.close()  # plays by default at once
    run(table)
    assert await join(table, 10)
    assert not wire.to("seat:0", "over") and not wire.to("public", "over")


def claimed_table(channel: str, person: str = "ann") -> tuple[Table, tables.TableFacts]:
    table = tables.create_table(GAME, tables.Person(make_user(person)), ["me", "builtin:strong"])
    claimed = tables.claim_and_plan(tables.load(pk=table.pk), channel)
    assert claimed is not None
    return table, claimed[1]


def taken_over(table: Table) -> None:
    """Another process resumed the table while its first host was stuck."""
    Table.objects.filter(pk=table.pk).update(host_channel="tables.other!x")


@pytest.mark.django_db
def test_the_steps_of_a_table_taken_over_are_not_written_by_its_old_host():
    mine, _ = claimed_table("tables.me!a")
    lost, _ = claimed_table("tables.me!a", "bob")
    taken_over(lost)
    step = {"s": 0, "m": "receive", "n": 1, "a": 0}
    writes = [("add", mine.pk, 0, step), ("add", lost.pk, 0, step), ("cut", lost.pk, 0)]
    tables.write_steps(writes, "tables.me!a")
    assert list(TableStep.objects.values_list("table_id", flat=True)) == [mine.pk]
    tables.write_steps([("add", lost.pk, 0, step)], "tables.other!x")  # its host's are
    assert TableStep.objects.filter(table_id=lost.pk).count() == 1


@pytest.mark.django_db
def test_a_host_whose_table_was_taken_over_stores_no_end_and_rates_nobody():
    table, facts = claimed_table("tables.me!a")
    entries = [Entry(name="ann", builtin="minimal"), Entry(name="strong", builtin="strong")]
    played = play(get_game(GAME), entries, seed=3)
    taken_over(table)
    with pytest.raises(TableLost):
        tables.store_finish(facts, Finish(played), "tables.me!a")
    table.refresh_from_db()
    assert table.state == Table.PLAYING and table.match_id is None
    assert not Match.objects.exists() and not PersonRating.objects.exists()
    # its new host stores it
    told = tables.store_finish(facts, Finish(played), "tables.other!x")
    table.refresh_from_db()
    assert table.state == Table.FINISHED and told["match"] == table.match_id
