"""A web process hosting hundreds of tables must not leave its garbage to the cyclic
collector, whose full passes stop every table (cardsite/collector.py): a finished table,
its match and its bots are freed by reference counting alone."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections import Counter

import pytest

from bots.running.playing import Entry, play
from games.live import tables
from games.live.host import SeatPlan
from games.registry import game_slugs, get_game
from tests.live.test_host import Wire, builtin, host, join, run

SEATS = {"last-card": 4, "uth": 1}


def quick_builtins() -> list[tuple[str, str]]:
    """Every built-in a live table asks on its event loop."""
    found = []
    for slug in game_slugs():
        spec = get_game(slug)
        for name in spec.builtin_bots:
            if getattr(spec.builtin_class(name), "quick", False):
                found.append((slug, name))
    return found


class NoCycles:
    """Collects (and keeps) whatever cyclic garbage the code in its block leaves."""

    def __enter__(self) -> NoCycles:
        gc.collect()
        gc.disable()
        return self

    def __exit__(self, *exc) -> None:
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            self.garbage = Counter(type(o).__qualname__ for o in gc.garbage)
        finally:
            gc.garbage.clear()
            gc.set_debug(0)
            gc.enable()


@pytest.mark.parametrize(("slug", "name"), quick_builtins())
def test_a_match_of_built_in_bots_leaves_no_cyclic_garbage(slug: str, name: str):
    spec = get_game(slug)
    entries = [Entry(name=f"{name}{i}", builtin=name) for i in range(SEATS.get(slug, 2))]
    play(spec, entries, seed=1)  # the first match may fill caches that live on
    with NoCycles() as watch:
        played = play(spec, entries, seed=2)
    assert played.outcome.record["events"]
    assert not watch.garbage, f"{slug} {name} left {watch.garbage.most_common(5)}"


@pytest.mark.asyncio
async def test_a_finished_table_is_freed_by_reference_counting():
    wire = Wire()
    table = host(
        "rps-poker", [SeatPlan("ann", "human"), builtin("rps-poker", "strong")], wire,
        turn_timer=0.01, away_timer=0.01,
    )  # fmt: skip
    run(table)
    assert await join(table, 20)
    await asyncio.sleep(0)  # the table's task finishes
    gone = [weakref.ref(table), weakref.ref(table.state), weakref.ref(table.humans[0])]
    with NoCycles() as watch:
        del table
        assert [ref() for ref in gone] == [None, None, None]
    assert not watch.garbage


@pytest.mark.django_db
def test_a_table_loaded_with_its_seats_is_freed_by_reference_counting():
    """Sockets and hosts load tables all the time; Django's prefetch cache would tie each
    one into a cycle with its seats."""
    made = tables.create_table("rps-poker", tables.Person(None, "guest"), ["me", "open"])
    tables.load(pk=made.pk)  # the first query may fill caches that live on
    with NoCycles() as watch:
        table = tables.load(pk=made.pk)
        assert table is not None
        assert [seat.kind for seat in tables.seats_of(table)] == ["person", "open"]
        gone = weakref.ref(table)
        del table
        assert gone() is None
    assert not {"Table", "TableSeat", "QuerySet"} & set(watch.garbage), watch.garbage
