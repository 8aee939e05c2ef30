"""A person who hides their profile is named, without a link to it, on the pages of their
matches and tables (the link led to a 404), in the seats' own query; and the sign-up page
says truly what hiding takes off."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.live import tables
from games.models import PersonProfile, Table, TableSeat
from tests.games.matchmaking import live_table_match


@pytest.fixture
def people(db) -> tuple[User, User]:
    shy = User.objects.create_user("shy", password="x" * 12)
    PersonProfile.objects.create(user=shy, hidden=True)
    open_ = User.objects.create_user("open", password="x" * 12)
    return shy, open_


@pytest.mark.django_db
@pytest.mark.parametrize("hidden", [False, True])
def test_a_match_page_links_a_person_only_while_their_profile_is_public(hidden):
    match = live_table_match()  # seat 0: the person "ann"
    PersonProfile.objects.create(user=User.objects.get(username="ann"), hidden=hidden)
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert ('href="/people/ann/"' in page) is not hidden
    assert '<th scope="row">ann</th>' in page or not hidden


@pytest.mark.django_db
def test_a_table_page_names_a_hidden_person_without_a_link_in_one_query_of_seats(people):
    shy, open_ = people
    table = tables.create_table("rps-poker", tables.Person(shy), ["me", "open"])
    tables.take_seat(table, 1, tables.Person(open_))
    with CaptureQueriesContext(connection) as queries:
        page = Client().get(f"/tables/{table.token}/").content.decode()
    assert 'href="/people/open/"' in page
    assert 'href="/people/shy/"' not in page
    assert "shy" in page
    profile_reads = [q["sql"] for q in queries if PersonProfile._meta.db_table in q["sql"]]
    seat_reads = [q["sql"] for q in queries if TableSeat._meta.db_table in q["sql"]]
    assert len(profile_reads) == 1, profile_reads
    assert profile_reads[0] in seat_reads
    Table.objects.filter(pk=table.pk).update(state=Table.FINISHED)
    ended = Client().get(f"/tables/{table.token}/").content.decode()
    assert 'href="/people/shy/"' not in ended


@pytest.mark.django_db
def test_the_sign_up_page_says_what_hiding_the_profile_takes_off(client):
    page = " ".join(client.get("/accounts/signup/").content.decode().split())
    assert (
        "you can hide your profile, which takes your name off the leaderboards of people "
        "(your bots' pages and leaderboards and your tables still show it)" in page
    )


@pytest.mark.django_db
def test_the_lobby_names_a_hidden_person_without_a_link(people):
    shy, open_ = people
    waiting = tables.create_table("rps-poker", tables.Person(shy), ["me", "open"])
    playing = tables.create_table("rps-poker", tables.Person(open_), ["me", "open"])
    tables.take_seat(playing, 1, tables.Person(shy))
    now = timezone.now()
    Table.objects.filter(pk=playing.pk).update(state=Table.PLAYING, started=now)
    page = Client().get("/games/rps-poker/tables/").content.decode()
    assert waiting.token in page and playing.token in page
    assert 'href="/people/open/"' in page
    assert 'href="/people/shy/"' not in page and "shy" in page
