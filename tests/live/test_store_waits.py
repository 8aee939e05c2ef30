"""A live table whose match ends while the database cannot take it (SQLite's data folder
full, or locked past its busy timeout; PostgreSQL away): its people are told the result and
that it is not saved yet, the table stays hosted (its heart beating), and its end is stored,
and rated, once, as soon as the database takes it, with no restart. A store that fails for
another reason stops the table, in plain words, instead of leaving it in play
(games/live/host.py, hub.py, tables.py)."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError

from bots.models import Match
from bots.running.playing import Entry, play
from games.live import host as host_module
from games.live import tables
from games.live.host import NOT_STORED, Finish
from games.live.hub import _beat, hub
from games.models import PersonRatingHistory, Table, TableStep
from games.registry import get_game
from tests.live.test_consumers import eventually, make_table, make_user, socket
from tests.live.test_stalled_host import claimed_table

GAME = "rps-poker"


async def ann_against_strong() -> tuple[Table, object, object]:
    """ann at a rated table against the strong bot, her socket connected, the match started:
    the table, her socket and its host."""
    ann = await make_user("ann")
    table = await make_table(GAME, ann, ["me", "builtin:strong"])
    sock = await socket(table.token, ann)
    assert await sock.connect()
    await sock.next("state")
    return table, sock, hub.hosts[table.pk]


def row(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_rated_end_the_database_cannot_take_waits_and_is_stored_and_rated_once(
    monkeypatch,
):
    monkeypatch.setattr(host_module, "STORE_RETRY_MOST_S", 0.05)
    store = tables.store_finish
    full = True
    tries = []

    def disk_full_for_a_while(*args, **kw):
        tries.append(args[1])
        if full:
            raise OperationalError("database or disk is full")
        return store(*args, **kw)

    monkeypatch.setattr(tables, "store_finish", disk_full_for_a_while)
    table, sock, host = await ann_against_strong()
    host.close()  # ann is played for at once: the match ends
    waiting = await sock.next("over")
    assert waiting["pending"] is True and "url" not in waiting and "error" not in waiting
    assert waiting["summary"].endswith(
        "Not saved yet: the site cannot write to its database just now. The result is saved "
        "and rated as soon as the site can write again; this page says so then."
    )
    assert "disk is full" not in str(sock.frames)
    await eventually(lambda: len(tries), lambda n: n >= 3, "the store to be tried again", 5, False)
    # the table is still hosted here, and in play: its heart beats, nobody else takes it
    assert hub.hosts_here(table.pk) and (await sync_to_async(row)(table)).state == Table.PLAYING
    assert await sync_to_async(_beat)([table.pk], hub.channel) == []
    full = False  # room again
    stored = await sock.next("over")
    assert "pending" not in stored and stored["rated"] is True
    assert stored["url"] == f"/matches/{stored['match']}/"
    assert stored["result"] == waiting["result"]
    assert all(finish is tries[0] for finish in tries)  # the match as it was played, kept
    await asyncio.wait_for(host.done.wait(), 5)
    await hub.settled()
    assert not hub.hosts_here(table.pk)

    def stored_rows():
        finished = row(table)
        assert finished.state == Table.FINISHED and finished.rated
        assert finished.match_id == stored["match"] and Match.objects.count() == 1
        # ann is rated once, for this match
        history = PersonRatingHistory.objects.filter(rating__user__username="ann")
        assert list(history.values_list("match_id", flat=True)) == [stored["match"]]
        assert not TableStep.objects.filter(table_id=table.pk).exists()

    await sync_to_async(stored_rows)()
    await sock.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_store_that_fails_for_another_reason_stops_the_table_in_plain_words(
    monkeypatch,
):
    store = tables.store_finish

    def broken(facts, finish, *args, **kw):
        if finish.played is not None:
            raise KeyError("seats")
        return store(facts, finish, *args, **kw)

    monkeypatch.setattr(tables, "store_finish", broken)
    table, sock, host = await ann_against_strong()
    host.close()
    over = await sock.next("over")
    assert over["error"] == NOT_STORED and over["rated"] is False
    await asyncio.wait_for(host.done.wait(), 5)
    assert not hub.hosts_here(table.pk)
    # no longer in play (it does not count as one of ann's tables), and says why
    stopped = await sync_to_async(row)(table)
    assert stopped.state == Table.ABANDONED and stopped.error == NOT_STORED
    assert not await sync_to_async(Match.objects.exists)()
    await sock.close()


@pytest.mark.django_db
def test_an_end_stored_whose_answer_was_lost_is_not_stored_or_rated_again():
    """The database went away as the store committed: the host tries again, and is told
    what was stored, not a second match nor a second rating."""
    table, facts = claimed_table("tables.me!a")
    entries = [Entry(name="ann", builtin="minimal"), Entry(name="strong", builtin="strong")]
    played = play(get_game(GAME), entries, seed=3)
    first = tables.store_finish(facts, Finish(played), "tables.me!a")
    again = tables.store_finish(facts, Finish(played), "tables.me!a")
    assert again == first and first["rated"] is True
    assert Match.objects.count() == 1 and row(table).match_id == first["match"]
    assert PersonRatingHistory.objects.filter(rating__user__username="ann").count() == 1
