"""A table is called rated only where its match rates people: the lobby's one-click play and
its list, the create form (a guest's is disabled, with the reason), the table page (and what
its socket tells a page drawn earlier), the match page and the API's match all say the same."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.test import Client

from bots.models import Match
from bots.running.playing import Entry, play
from games.live import tables
from games.live.consumers import lobby_message
from games.live.host import Finish
from games.live.hub import lobby_group
from games.models import Table
from games.registry import get_game
from tests.live.test_consumers import finish_off, make_table, make_user, socket

pytestmark = pytest.mark.django_db

GAME = "rps-poker"


def logged_in(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.create_user(name, password=f"pw-{name}-long-enough"))
    return client


def rated_box(html: str) -> str:
    [box] = re.findall(r'<input[^>]*name="rated"[^>]*>', html)
    return box


def quick_line(html: str) -> str:
    [line] = re.findall(r"<p>One click: .*?</p>", html, re.S)
    return line


def finish(table: Table) -> int:
    """Play ``table`` with built-in bots in its seats and store it as the host does."""
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    names = get_game(table.game).builtin_names
    entries = [Entry(name=f"seat {n}", builtin=names[0]) for n in range(len(facts.seats))]
    told = tables.store_finish(facts, Finish(play(get_game(table.game), entries, seed=3)))
    # the end the players' pages hear says what was stored
    assert told["rated"] is Match.objects.get(pk=told["match"]).rated
    return told["match"]


def said(client: Client, table: Table, match: int) -> tuple[str, str, bool]:
    """What the table page, the match page and the API say of the table's match."""
    page = client.get(table.get_absolute_url()).content.decode()
    # in the header, in the element the page's script keeps true
    [meta] = re.findall(r'<p class="table-meta">.*?, <span id="table-rated">(.*?)</span> ·', page)
    shown = client.get(f"/matches/{match}/").content.decode()
    [played_at] = re.findall(r"<dt>Played at</dt><dd>(.*?)</dd>", shown)
    return (
        meta,
        played_at,
        client.get(f"/api/matches/{match}/").json()["rated"],
    )


def test_a_game_that_rates_no_people_never_calls_a_table_rated():
    ann = logged_in("ann")
    lobby = ann.get("/games/uth/tables/").content.decode()
    assert "unrated. People are not rated in Ultimate Texas Hold" in quick_line(lobby)
    box = rated_box(lobby)
    assert "disabled" in box and "checked" not in box
    assert "People are not rated in Ultimate Texas Hold" in lobby
    quick = ann.post("/games/uth/tables/quick/")
    table = Table.objects.get()
    assert quick.url == table.get_absolute_url() and not table.rated
    page = ann.get(table.get_absolute_url()).content.decode()
    assert "unrated" in page and ", rated" not in page
    # whatever the form posts
    made = ann.post("/games/uth/tables/", {"players": "1", "turn_timer": "30", "seat_0": "me",
                                           "rated": "on", "max_rounds": "5",
                                           "variant": "standard"})  # fmt: skip
    assert made.status_code == 302 and Table.objects.count() == 2
    assert not Table.objects.filter(rated=True).exists()
    # nor is a table made in code, asked to be rated
    assert not tables.create_table("uth", tables.Person(User.objects.get()), ["me"]).rated


def test_a_signed_in_person_s_table_of_a_game_that_rates_people_is_rated():
    ann = logged_in("ann")
    lobby = ann.get(f"/games/{GAME}/tables/").content.decode()
    assert quick_line(lobby).endswith("30 seconds a turn, rated.</p>")
    box = rated_box(lobby)
    assert "checked" in box and "disabled" not in box
    ann.post(f"/games/{GAME}/tables/quick/")
    table = Table.objects.get()
    assert table.rated
    match = finish(table)
    assert said(ann, table, match) == ("rated", "a live table, rated", True)


def test_a_resumed_table_a_person_never_came_back_to_is_stored_unrated_and_says_why():
    """games/live/host.py hands such an end over with its reason (``extra["unrated"]``)."""
    from games.live.host import resumed_unrated

    ann = logged_in("ann")
    ann.post(f"/games/{GAME}/tables/quick/")
    table = Table.objects.get()
    assert table.rated
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    entries = [Entry(name=f"seat {n}", builtin="simple") for n in range(len(facts.seats))]
    why = resumed_unrated(["ann"])
    played = play(get_game(GAME), entries, seed=3)
    told = tables.store_finish(facts, Finish(played, extra={"unrated": why}))
    assert told["rated"] is False and told["note"] == why
    assert not Match.objects.get(pk=told["match"]).rated
    table.refresh_from_db()
    assert not table.rated and table.error == why


def test_a_guest_s_form_is_not_rated_and_says_why_whatever_is_posted():
    guest = Client()
    lobby = guest.get(f"/games/{GAME}/tables/").content.decode()
    box = rated_box(lobby)
    assert "disabled" in box and "checked" not in box
    assert "A guest&#x27;s table is not rated: log in to play rated tables." in lobby
    assert "unrated. A guest" in quick_line(lobby)
    made = guest.post(f"/games/{GAME}/tables/", {"players": "2", "turn_timer": "30",
                                                 "seat_0": "me", "seat_1": "builtin:simple",
                                                 "rated": "on"})  # fmt: skip
    table = Table.objects.get()
    assert made.url == table.get_absolute_url() and not table.rated
    # the table page, the match page and the API agree
    match = finish(table)
    assert said(guest, table, match) == ("unrated", "a live table, unrated", False)


def test_a_guest_sitting_down_makes_a_rated_table_unrated_from_then_on():
    ann = logged_in("ann")
    ann.post(f"/games/{GAME}/tables/", {"players": "2", "turn_timer": "30", "seat_0": "me",
                                        "seat_1": "open", "rated": "on"})  # fmt: skip
    table = Table.objects.get()
    assert table.rated and lobby_message(tables.load(pk=table.pk))["rated"] is True
    assert "s turns · rated" in Client().get(f"/games/{GAME}/tables/").content.decode()
    tables.take_seat(table, 1, tables.Person(None, "a-guest-token"))
    table.refresh_from_db()
    assert not table.rated
    # what the sockets of the pages drawn before hear (tested live below)
    assert lobby_message(tables.load(pk=table.pk))["rated"] is False
    match = finish(table)
    assert said(ann, table, match) == ("unrated", "a live table, unrated", False)


def test_the_migration_makes_stored_tables_and_their_matches_say_what_was():
    from importlib import import_module

    from django.apps import apps

    from bots.models import Match

    migration = import_module("games.migrations.0008_rated_says_what_was")
    ann = logged_in("ann")
    ann.post(f"/games/{GAME}/tables/quick/")
    rated = Table.objects.get()
    rated_match = finish(rated)
    guest, _ = tables.guest_table(GAME, ["me", "builtin:simple"])
    guest_match = finish(guest)
    # as they were stored before: every table's match "rated", a table a guest joined rated
    Match.objects.update(rated=True)
    Table.objects.update(rated=True)
    waiting = tables.create_table(GAME, tables.Person(User.objects.get()), ["me", "open"])
    tables.take_seat(waiting, 1, tables.Person(None, "a-guest-token"))
    Table.objects.update(rated=True)
    migration.rated_as_it_was(apps, None)
    assert Match.objects.get(pk=rated_match).rated and not Match.objects.get(pk=guest_match).rated
    assert list(Table.objects.order_by("pk").values_list("rated", flat=True)) == [
        True, False, False,
    ]  # fmt: skip


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_page_that_opened_a_table_hears_it_become_unrated_when_a_guest_sits_down():
    """The opener's page was drawn "rated"; it is never reloaded while the guest sits down,
    the match is played and ends: each message that can change the table's label says what
    it is now, from the lobby to the end."""
    ann = await make_user("ann")
    table = await make_table(GAME, ann, ["me", "open"])
    assert table.rated
    opener = await socket(table.token, ann)
    assert await opener.connect()
    assert (await opener.next("lobby"))["rated"] is True
    await sync_to_async(tables.take_seat)(table, 1, tables.Person(None, "a-guest-token"))
    # as the join view does: every socket of the table hears of it, and the full table starts
    await get_channel_layer().group_send(lobby_group(table.pk), {"type": "table.lobby"})
    assert (await opener.next("lobby"))["rated"] is False
    assert (await opener.next("seats"))["rated"] is False
    await finish_off(table)
    over = await opener.next("over")
    assert over["rated"] is False and "result" in over
    assert not await sync_to_async(lambda: Match.objects.get(pk=over["match"]).rated)()
    await opener.close()


# ---- play again ------------------------------------------------------------------------------
def rematch_of(client: Client, table: Table) -> Table:
    """The table "Play again" at ``table`` opens for ``client``."""
    response = client.post(f"/tables/{table.token}/again/")
    rematch = Table.objects.get(previous=table)
    assert response.url == rematch.get_absolute_url()
    return rematch


def test_play_again_after_a_guest_sat_down_is_rated_for_a_signed_in_person():
    """A guest made the table unrated; its rematch is the table the person asking would open
    from the lobby: rated, until a guest sits down at it too."""
    ann = logged_in("ann")
    ann.post(f"/games/{GAME}/tables/", {"players": "2", "turn_timer": "30", "seat_0": "me",
                                        "seat_1": "open", "rated": "on"})  # fmt: skip
    table = Table.objects.get()
    guest = Client()
    guest.post(f"/tables/{table.token}/join/1/")
    table.refresh_from_db()
    assert not table.rated
    finish(table)
    table.refresh_from_db()
    assert not table.rated and not table.unrated_chosen
    rematch = rematch_of(ann, table)
    assert rematch.rated and not rematch.unrated_chosen
    page = ann.get(rematch.get_absolute_url()).content.decode()
    assert '<span id="table-rated">rated</span>' in page
    # the guest takes the open seat again: the rematch is a friendly game once more
    guest.post(f"/tables/{rematch.token}/join/1/")
    rematch.refresh_from_db()
    assert not rematch.rated
    # the guest asking for the rematch gets a guest's table: unrated
    Table.objects.filter(pk=rematch.pk).update(state=Table.FINISHED)
    assert not rematch_of(guest, rematch).rated


def test_play_again_for_a_signed_in_person_at_a_guest_s_table_is_rated():
    guest = Client()
    guest.post(f"/games/{GAME}/tables/", {"players": "2", "turn_timer": "30", "seat_0": "me",
                                          "seat_1": "open"})  # fmt: skip
    table = Table.objects.get()
    assert not table.rated and not table.unrated_chosen  # the guest had no choice
    bob = logged_in("bob")
    bob.post(f"/tables/{table.token}/join/1/")
    finish(table)
    assert rematch_of(bob, table).rated


def test_play_again_at_a_friendly_table_by_choice_stays_friendly():
    ann = logged_in("ann")
    unticked = {"players": "2", "turn_timer": "30", "seat_0": "me", "seat_1": "builtin:simple"}
    ann.post(f"/games/{GAME}/tables/", unticked)  # "Rated" not sent: unticked
    table = Table.objects.get()
    assert not table.rated and table.unrated_chosen
    finish(table)
    rematch = rematch_of(ann, table)
    assert not rematch.rated and rematch.unrated_chosen
    # and a rematch of a rated table is rated, as before
    ann.post(f"/games/{GAME}/tables/quick/")
    rated = Table.objects.get(previous=None, rated=True)
    finish(rated)
    assert rematch_of(ann, rated).rated


def test_play_again_after_a_bot_could_not_start_is_rated():
    ann = logged_in("ann")
    ann.post(f"/games/{GAME}/tables/quick/")
    table = Table.objects.get()
    finish(table)
    # as a table whose uploaded bot could not start ends (tables.store_finish)
    Table.objects.filter(pk=table.pk).update(rated=False, error="x could not start, so ...")
    assert rematch_of(ann, table).rated


def test_the_migration_marks_the_tables_unrated_by_choice_as_far_as_is_known():
    from importlib import import_module

    from django.apps import apps

    migration = import_module("games.migrations.0009_table_unrated_chosen")
    ann = User.objects.create_user("ann", password="pw-ann-long-enough")
    me = tables.Person(ann)
    chosen = tables.create_table(GAME, me, ["me", "builtin:simple"], rated=False)
    rated = tables.create_table(GAME, me, ["me", "builtin:simple"])
    guest_sat = tables.create_table(GAME, me, ["me", "open"])
    tables.take_seat(guest_sat, 1, tables.Person(None, "a-guest-token"))
    unstarted = tables.create_table(GAME, me, ["me", "builtin:simple"])
    Table.objects.filter(pk=unstarted.pk).update(rated=False, error="x could not start")
    guests, _ = tables.guest_table(GAME, ["me", "builtin:simple"])
    alone = tables.create_table("uth", me, ["me"])
    Table.objects.update(unrated_chosen=False)  # as they were stored before
    migration.chosen_as_far_as_known(apps, None)
    marked = set(Table.objects.filter(unrated_chosen=True).values_list("pk", flat=True))
    assert marked == {chosen.pk}
    assert {rated.pk, guest_sat.pk, unstarted.pk, guests.pk, alone.pk}.isdisjoint(marked)
