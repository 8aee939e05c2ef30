"""A guest sitting down at a signed-in person's rated table makes it unrated (docs/live-tables.md):
the guest is told so next to the Join buttons before joining, and once they sat down the
table's pages say why it is unrated, live (a line in the log of every page at it, see
tests/live/test_table_pages.py) and in the page drawn afterwards."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.live import tables
from games.models import Table

pytestmark = pytest.mark.django_db

GAME = "kuhn"
WHY = "Unrated: a guest sat down, and a table with a guest at it is not rated."
WARNING = 'id="guest-unrates"'


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page_of(client: Client, table: Table) -> str:
    return client.get(f"/tables/{table.token}/").content.decode()


def test_a_guest_is_told_next_to_join_that_joining_makes_the_rated_table_unrated():
    ann, bob = User.objects.create_user("ann"), User.objects.create_user("bob")
    table = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    assert table.rated
    page = page_of(Client(), table)
    assert WARNING in page
    assert "if you join as a guest, it is played unrated, for everyone at it" in page
    assert f'href="/accounts/login/?next=/tables/{table.token}/"' in page
    assert 'aria-label="Join in seat 2" aria-describedby="guest-unrates"' in page
    # a signed-in visitor keeps it rated; the opener is seated already
    assert WARNING not in page_of(signed_in(bob), table)
    assert WARNING not in page_of(signed_in(ann), table)
    # a friendly table has no rating to lose
    friendly = tables.create_table(GAME, tables.Person(bob), ["me", "open"], rated=False)
    assert WARNING not in page_of(Client(), friendly)


def test_the_lobby_tells_a_guest_next_to_join_that_joining_makes_the_table_unrated():
    """The lobby's Join seats a guest at once: it says what the table's page says first."""
    ann, bob = User.objects.create_user("ann"), User.objects.create_user("bob")
    rated = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    friendly = tables.create_table(GAME, tables.Person(bob), ["me", "open"], rated=False)
    lobby = f"/games/{GAME}/tables/"
    page = Client().get(lobby).content.decode()
    note = f'id="guest-unrates-{rated.token}"'
    assert note in page
    join = f'aria-label="Join table {rated.token} in seat 2" aria-describedby="guest-unrates-'
    assert join in page
    warning = page.split(note)[1].split("</p>")[0]
    assert "if you join as a guest, it is played unrated, for everyone at it" in warning
    assert f'href="/accounts/login/?next={lobby.replace("/", "%2F")}"' in warning or (
        f'href="/accounts/login/?next={lobby}"' in warning
    )
    assert f'id="guest-unrates-{friendly.token}"' not in page  # no rating to lose
    assert "guest-unrates" not in signed_in(bob).get(lobby).content.decode()


def test_once_a_guest_sat_down_the_table_says_why_it_is_unrated():
    ann = User.objects.create_user("ann")
    table = tables.create_table(GAME, tables.Person(ann), ["me", "open"])
    assert WHY not in page_of(signed_in(ann), table)
    guest = Client()
    guest.post(f"/tables/{table.token}/join/1/")
    table.refresh_from_db()
    assert not table.rated
    for client in (signed_in(ann), guest, Client()):
        page = page_of(client, table)
        assert "unrated</span>" in page and WHY in page
        assert WARNING not in page


def test_tables_unrated_for_another_reason_do_not_blame_a_guest():
    ann = User.objects.create_user("ann")
    # a friendly game by choice, a guest at it
    friendly = tables.create_table(GAME, tables.Person(ann), ["me", "open"], rated=False)
    tables.take_seat(friendly, 1, tables.Person(None, "a-guest-token"))
    assert WHY not in page_of(signed_in(ann), friendly)
    # a guest's own table, another guest joining
    own, _ = tables.guest_table(GAME, ["me", "open"])
    tables.take_seat(own, 1, tables.Person(None, "another-guest-token"))
    assert WHY not in page_of(Client(), own)
    # a game that rates no people
    alone = tables.create_table("uth", tables.Person(ann), ["me"])
    assert WHY not in page_of(signed_in(ann), alone)
