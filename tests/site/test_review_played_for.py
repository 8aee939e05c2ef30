"""A finished live table where a person's turn timer ran out, as the site shows it afterwards:
the stored match says which moves the table played for them (``played_for``,
games/engine/played_for.py); the match page's review lists those moves without judging them
("Time ran out: ..."), so a forced fold is no mistake of theirs; and the table's page shows
their "Time ran out, so this was played for you..." lines again, to them alone."""

from __future__ import annotations

import asyncio
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.test import Client

from games.engine.played_for import KEY
from games.live import tables
from games.live.host import Finish, TableHost
from games.models import SolveJob, Table
from games.registry import get_game
from tests.live.test_finished_tables import page_of, setup_of
from tests.live.test_host import Wire, join, run
from tests.site.test_match_review import solved

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("keep_the_test_connection")]

NOT_REVIEWED = "Time ran out: the table played this move by default, so it is not reviewed."


def away_at_a_table(user) -> tuple[Table, Wire]:
    """A sitting of Kuhn poker at a live table, ``user`` against house/cfr, where the person
    never acts: each of their moves is played by the timer. Stored as the hub stores it."""
    table = tables.create_table(
        "kuhn", tables.Person(user), ["me", "builtin:cfr"], config={"hands": 10}
    )
    plans, facts = tables.claim_and_plan(tables.load(pk=table.pk), "test-host")
    wire = Wire()
    finished: list[Finish] = []

    async def match() -> None:
        async def keep(finish: Finish) -> None:
            finished.append(finish)

        host = TableHost(
            get_game("kuhn"), plans, seed=table.seed, config=table.config, publish=wire,
            turn_timer=0.2, away_timer=0.01, on_finish=keep,
        )  # fmt: skip
        run(host)
        assert await join(host, 30)

    asyncio.run(match())
    tables.store_finish(facts, finished[0])
    table.refresh_from_db()
    assert table.state == Table.FINISHED
    return table, wire


def test_a_person_whose_time_ran_out_is_not_reviewed_for_the_moves_played_for_them():
    ann = get_user_model().objects.create_user("ann", password="pw-for-ann")
    table, wire = away_at_a_table(ann)
    match = table.match
    notes = wire.to("seat:0", "note")
    mine = [i for i, e in enumerate(match.record["events"]) if e.get("seat") == 0
            and e["type"] == "action"]  # fmt: skip
    assert notes and match.record[KEY] == [[0, i] for i in mine]

    client = Client()
    client.force_login(ann)
    page = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    assert not SolveJob.objects.exists()  # nothing of hers to review: no solve asked for
    # every decision of hers is listed, none judged: no "You folded with the king, ...: a
    # mistake that costs 3.00 chips", nor "0 mistakes in the 0 decisions reviewed"
    assert page.count(NOT_REVIEWED) == len(mine) == len(notes)
    assert "No decision of seat 1 (you) was reviewed." in page
    assert "mistakes in the 0 decisions" not in page
    moves = "move" if len(mine) == 1 else "moves"
    said = f"Not reviewed: {len(mine)} {moves} the table played by default when time ran out."
    assert said in page
    assert "data-verdict" not in page
    # the bot's decisions are reviewed as ever, and none of them is said to be the timer's
    client.get(f"/matches/{match.pk}/?review=1")
    solved()
    theirs = client.get(f"/matches/{match.pk}/?review=1").content.decode()
    assert "data-verdict" in theirs and NOT_REVIEWED not in theirs


def test_a_finished_tables_page_shows_the_person_the_moves_played_for_them_again():
    ann = get_user_model().objects.create_user("ann", password="pw-for-ann")
    table, wire = away_at_a_table(ann)
    caches["replays"].clear()  # built from the stored match
    told = [n["text"] for n in wire.to("seat:0", "note")]
    log = setup_of(page_of(table.token, ann))["view"]["frame"]["log"]
    lines = [e["text"] for e in log if e["key"].startswith("timeout")]
    assert lines == told and lines[0].startswith("Time ran out, so this was played for you: ")
    # each before the line of the hand it was played in
    first = next(n for n, e in enumerate(log) if e["key"].startswith("timeout"))
    assert re.match(r"Hand 1\b", log[first + 1]["text"]), log[first : first + 2]
    # a spectator's page never had them
    seen = setup_of(page_of(table.token))["view"]["frame"]["log"]
    assert not [e for e in seen if e["key"].startswith("timeout") or "Time ran out" in e["text"]]
