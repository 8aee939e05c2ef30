"""Tables that are friendly for what sits at them, said before they start; and a guest who
signs in mid-table keeps their seat.

An audit farmed a person's rating against an uploaded bot that lost to people on purpose (it
told them by their timing), dumped games between two accounts without limit, and lost the
seat of a guest who signed in during the match (it then played by default, "you are
watching")."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bots import playground
from bots.models import BotVersion, PlaygroundRun
from bots.pages.playground import _owner
from games.live import consumers, tables
from games.models import Table, TableSeat
from tests.people.helpers import GAME, make_user, ranked_bot
from tests.people.test_pair_cap import rated_pair_match

pytestmark = pytest.mark.django_db

PASSWORD = "pw-a-password-long-enough"


def signed_in(name: str) -> tuple[Client, User]:
    user = User.objects.create_user(name, password=PASSWORD)
    client = Client()
    client.force_login(user)
    return client, user


def text_of(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", response.content.decode()))


def test_the_lobby_and_the_table_say_a_table_with_an_uploaded_bot_is_friendly():
    client, _ = signed_in("ann")
    version = ranked_bot(make_user("alice"), "drafter", mu=25.0, sigma=3.0).versions.get()
    version.code += "\n# not a copy of a built-in bot\n"  # (those are listed as built-ins)
    version.checksum = BotVersion.checksum_of(version.code)
    version.save()
    lobby = text_of(client.get(f"/games/{GAME}/tables/"))
    assert tables.BOT_UNRATED in lobby
    assert "Uploaded bot (not rated)" in lobby  # the seat's choice
    assert "A table with a guest or an uploaded bot at it is not rated." in lobby  # Rated box
    posted = {"players": "2", "turn_timer": "30", "seat_0": "me", "seat_1": f"bot:{version.pk}",
              "rated": "on"}  # fmt: skip
    assert client.post(f"/games/{GAME}/tables/", posted).status_code == 302
    table = Table.objects.get()
    assert not table.rated and not table.unrated_chosen
    page = text_of(client.get(table.get_absolute_url()))
    assert '<span id="table-rated">unrated</span>' in page
    assert tables.BOT_UNRATED in page
    # the list of games' tables says it too
    assert "Tables with a guest or an uploaded bot at them are friendly" in text_of(
        client.get("/tables/")
    )


def test_the_person_who_sits_down_past_the_cap_is_told_and_everyone_at_the_table_sees_it():
    ann, bob = make_user("ann"), make_user("bob")
    for _ in range(5):
        rated_pair_match(ann, bob)
    table = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    assert table.rated
    client = Client()
    client.force_login(bob)
    page = text_of(client.post(f"/tables/{table.token}/join/1/", follow=True))
    assert (
        "You sit in seat 2. You have played 5 rated tables with ann in RPS Poker in the last "
        "24 hours: this one is friendly."
    ) in page
    assert '<span id="table-rated">unrated</span>' in page
    # ann's page, and anyone's, says why under the header
    watcher = text_of(Client().get(table.get_absolute_url()))
    assert (
        "ann and bob have played 5 rated tables together in RPS Poker in the last 24 hours: "
        "this one is friendly."
    ) in watcher


def test_a_guest_who_signs_in_mid_table_keeps_their_seat_played_as_the_guest():
    guest = Client()
    assert guest.post(f"/games/{GAME}/tables/quick/").status_code == 302
    table = Table.objects.get()
    token = guest.session["guest_token"]
    seat = table.seats.get(seat=0)
    assert (seat.kind, seat.user_id, seat.guest) == (TableSeat.PERSON, None, token)
    User.objects.create_user("gil", password=PASSWORD)
    signed = guest.post("/accounts/login/", {"username": "gil", "password": PASSWORD})
    assert signed.status_code == 302
    page = text_of(guest.get(table.get_absolute_url()))
    assert "you sit in seat 1" in page and "you are watching" not in page
    # the socket knows them by the same person (consumers._seated)
    gil = User.objects.get(username="gil")
    session = guest.session
    _, seat_no = consumers._seated(gil, session, pk=table.pk)
    assert seat_no == 0
    # the seat stays the guest's: the table stays unrated, and a new table of theirs is
    # their own, not the guest's
    seat.refresh_from_db()
    assert (seat.user_id, seat.guest) == (None, token)
    assert not Table.objects.get(pk=table.pk).rated
    person = tables.person_of(gil, session)
    assert person == tables.Person(gil, token)
    assert [t.pk for t in tables.tables_of(person)] == [table.pk]
    mine = tables.create_table(GAME, person, ["me", "builtin:strong"])
    assert mine.seats.get(seat=0).guest == "" and mine.seats.get(seat=0).user_id == gil.pk
    assert tables.seat_of(tables.load(pk=mine.pk), person) == 0
    # a playground run the guest started stays theirs
    run = PlaygroundRun(guest=token, user=None)
    assert playground.owns(run, *_owner(person))
