"""Every live table is limited, whoever sits at it (built-in bots included): a person (a
signed-in user, a guest's session) may be at only so many tables open or being played, the
guests of one address together too, and tables are opened at only so many per window; all
counted in the database (Table rows), so every web process counts the same. The lobby lists
a few tables of each opener at most, so one client cannot push everyone else's out of it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.live import tables, views
from games.models import Table, TableSeat
from tests.people.helpers import GAME, make_user

pytestmark = pytest.mark.django_db
LIMITS = tables.TableLimits(
    per_person=3, per_guest_address=5, created_per_window=8, window=timedelta(minutes=10)
)
BOT = ["me", "builtin:simple"]


def open_table(person: tables.Person, seats: list[str] = BOT, address: str = "") -> Table:
    return tables.create_table(GAME, person, seats, address=address, table_limits=LIMITS)


def guest(n: int) -> tables.Person:
    return tables.Person(None, f"guest-token-{n}")


def refusal(person: tables.Person, address: str = "") -> str:
    with pytest.raises(tables.TableLimitError) as refused:
        open_table(person, address=address)
    return str(refused.value)


def end(table: Table, state: str = Table.FINISHED) -> None:
    Table.objects.filter(pk=table.pk).update(state=state, finished=timezone.now())


def test_a_person_may_be_at_only_so_many_tables_of_any_kind():
    ann = tables.Person(make_user("ann"))
    first = open_table(ann)
    open_table(ann, ["me", "open"])  # an invitation counts as a table with bots does
    Table.objects.filter(pk=first.pk).update(state=Table.PLAYING)  # one being played counts
    open_table(ann, ["me", "builtin:strong"])
    assert refusal(ann) == (
        "you already have 3 tables open or being played, the most at once (3); finish one of "
        "them, or leave one still waiting for players, then open another (the lobby lists them "
        "under “Your tables”)"
    )
    end(first)  # a finished table frees its place
    open_table(ann)
    # a table joined counts as one opened: the person sits at it
    other = open_table(tables.Person(make_user("bob")), ["me", "open"])
    end(Table.objects.filter(seats__user=ann.user).order_by("created").last())
    tables.take_seat(other, 1, ann)
    assert refusal(ann).startswith("you already have 3 tables open or being played")
    # a guest's session is a person too
    for _ in range(3):
        open_table(guest(1))
    assert refusal(guest(1)).startswith("you already have 3 tables")


def test_the_guests_of_one_address_share_a_limit_a_new_session_does_not_help():
    for n in range(5):
        table = open_table(guest(n), address="203.0.113.7")
    assert table.guest_address and "203.0.113.7" not in table.guest_address  # a keyed hash
    assert refusal(guest(99), "203.0.113.7") == (
        "guests from your network already have 5 tables open or being played, the most at "
        "once (5); you can open another when one of them ends (finish or leave yours), or "
        "log in"
    )
    open_table(guest(100), address="198.51.100.1")  # another address has its own
    # a signed-in person there is counted as themselves
    open_table(tables.Person(make_user("ann")), address="203.0.113.7")
    end(table, Table.ABANDONED)
    open_table(guest(101), address="203.0.113.7")


def test_tables_are_opened_at_only_so_many_per_window_and_the_refusal_says_when():
    now = timezone.now()
    for n in range(8):
        table = open_table(guest(n), address="203.0.113.7")
        end(table)  # played to its end at once: only the rate holds them back
        # the first opened 9 minutes ago, the others since
        Table.objects.filter(pk=table.pk).update(created=now - timedelta(minutes=9 - n))
    assert refusal(guest(50), "203.0.113.7") == (
        "guests from your network opened 8 tables in the last 10 minutes, the most in that "
        "time (8); you can open another in 1 minute"
    )
    Table.objects.filter(created__lt=now - timedelta(minutes=8, seconds=30)).update(
        created=now - timedelta(minutes=11)
    )
    open_table(guest(51), address="203.0.113.7")  # the oldest left the window
    # a signed-in person's own tables are counted per person
    ann = tables.Person(make_user("ann"))
    for _ in range(8):
        end(open_table(ann))
    assert refusal(ann) == (
        "you opened 8 tables in the last 10 minutes, the most in that time (8); you can open "
        "another in 10 minutes"
    )
    open_table(tables.Person(make_user("bob")))


def test_a_table_that_waited_too_long_no_longer_counts_nor_starts():
    ann = tables.Person(make_user("ann"))
    old = open_table(ann)
    open_table(ann)
    open_table(ann)
    long_ago = timezone.now() - tables.TABLE_WAITS - timedelta(minutes=1)
    Table.objects.filter(pk=old.pk).update(created=long_ago)
    open_table(ann)  # the old one no longer counts...
    assert not tables.claim_start(Table.objects.get(pk=old.pk), "host-channel")  # ...nor starts
    old.refresh_from_db()
    assert (old.state, old.error) == (Table.ABANDONED, tables.TABLE_WAITED_TOO_LONG)


def test_leaving_a_waiting_table_opens_the_seat_and_the_last_to_leave_closes_it():
    ann, bob = tables.Person(make_user("ann")), tables.Person(make_user("bob"))
    table = open_table(ann, ["me", "open"])
    tables.take_seat(table, 1, bob)
    assert not tables.leave_table(table, ann)
    seat = TableSeat.objects.get(table=table, seat=0)
    assert (seat.kind, seat.user_id, seat.name) == (TableSeat.OPEN, None, "")
    assert tables.tables_of(ann).count() == 0 and tables.tables_of(bob).count() == 1
    with pytest.raises(tables.TableError, match="you have no seat at this table"):
        tables.leave_table(table, ann)
    assert tables.leave_table(table, bob)
    table.refresh_from_db()
    assert (table.state, table.error) == (Table.ABANDONED, tables.EVERYONE_LEFT)
    started = open_table(ann)
    Table.objects.filter(pk=started.pk).update(state=Table.PLAYING)
    with pytest.raises(tables.TableError, match="it can no longer be left"):
        tables.leave_table(started, ann)


# ---- the pages ---------------------------------------------------------------------------
def guest_client(address: str = "192.0.2.5") -> Client:
    return Client(REMOTE_ADDR=address)


def alert(html: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"><p>(.*?)</p>', html, re.S)
    assert found, f"no #{element_id}"
    return found.group(1)


def test_quick_play_refused_says_why_by_its_button_and_lists_your_tables(settings):
    settings.LIVE_TABLES_PER_PERSON = 2
    client = guest_client()
    for _ in range(2):
        assert client.post(f"/games/{GAME}/tables/quick/").status_code == 302
    response = client.post(f"/games/{GAME}/tables/quick/")
    assert response.status_code == 429
    html = response.content.decode()
    assert alert(html, "quick-error") == (
        "No table: you already have 2 tables open or being played, the most at once (2); "
        "finish one of them, or leave one still waiting for players, then open another (the "
        "lobby lists them under “Your tables”)."
    )
    assert Table.objects.count() == 2
    assert html.count('aria-label="Leave RPS Poker table') == 2  # under "Your tables"
    assert html.index('id="quick-error"') < html.index('id="yours-title"')


def test_the_create_form_says_which_limit_refused_the_table(settings):
    settings.LIVE_TABLES_PER_GUEST_ADDRESS = 1
    data = {"players": "2", "turn_timer": "30", "seat_0": "me", "seat_1": "open"}
    assert guest_client().post(f"/games/{GAME}/tables/", data).status_code == 302
    response = guest_client().post(f"/games/{GAME}/tables/", data)  # a new session
    assert response.status_code == 429
    assert (
        "guests from your network already have 1 table open or being played, the most at once "
        "(1); you can open another when one of them ends (finish or leave yours), or log in"
    ) in response.content.decode()
    assert guest_client("192.0.2.6").post(f"/games/{GAME}/tables/", data).status_code == 302


def test_a_refused_guest_stores_no_session_and_one_who_sits_down_keeps_theirs(settings):
    from django.contrib.sessions.models import Session

    settings.LIVE_TABLES_PER_GUEST_ADDRESS = 1
    first = guest_client()
    assert first.post(f"/games/{GAME}/tables/quick/").status_code == 302
    assert Session.objects.count() == 1  # the guest's token, kept: the table is theirs
    token = first.session["guest_token"]
    assert Table.objects.get().seats.get(kind=TableSeat.PERSON).guest == token
    # refused from fresh cookie jars (as a flood of them would be): no session stored
    data = {"players": "2", "turn_timer": "30", "seat_0": "me", "seat_1": "open"}
    for _ in range(3):
        assert guest_client().post(f"/games/{GAME}/tables/quick/").status_code == 429
        assert guest_client().post(f"/games/{GAME}/tables/", data).status_code == 429
    assert Session.objects.count() == 1
    # a join refused stores none either; one that seats the guest keeps their token
    table = Table.objects.create(game=GAME, seed=1)
    TableSeat.objects.create(table=table, seat=0, kind=TableSeat.PERSON, guest="x", name="x")
    TableSeat.objects.create(table=table, seat=1, kind=TableSeat.OPEN)
    assert guest_client().post(f"/tables/{table.token}/join/0/").status_code == 302
    assert Session.objects.count() == 1
    joiner = guest_client("192.0.2.9")
    assert joiner.post(f"/tables/{table.token}/join/1/").status_code == 302
    assert Session.objects.count() == 2
    assert table.seats.get(seat=1).guest == joiner.session["guest_token"]


def test_leave_from_the_lobby(settings):
    client = guest_client()
    client.post(f"/games/{GAME}/tables/", {"players": "2", "turn_timer": "30",
                                           "seat_0": "me", "seat_1": "open"})  # fmt: skip
    table = Table.objects.get()
    response = client.post(f"/tables/{table.token}/leave/", follow=True)
    assert f"You left table {table.token}; nobody is left at it, so it is closed." in (
        response.content.decode()
    )
    assert 'id="yours-title"' not in response.content.decode()
    table.refresh_from_db()
    assert table.state == Table.ABANDONED


def test_the_lobby_lists_a_few_waiting_tables_of_each_opener():
    flooder = [open_table(guest(n), ["me", "open"], "203.0.113.7") for n in range(5)]
    ann = tables.Person(make_user("ann"))
    ann_tables = [open_table(ann, ["me", "open"]) for _ in range(3)]
    Table.objects.filter(pk__in=[t.pk for t in ann_tables]).update(
        created=timezone.now() - timedelta(hours=1)
    )
    playing = [open_table(guest(10 + n), BOT, "203.0.113.8") for n in range(4)]
    Table.objects.filter(pk__in=[t.pk for t in playing]).update(
        state=Table.PLAYING, started=timezone.now(), host_heartbeat=timezone.now()
    )
    waiting, listed_playing = views._lobby_tables(GAME)
    shown = {t.pk for t in waiting}
    assert len(shown & {t.pk for t in flooder}) == views.LOBBY_PER_OPENER
    assert {t.pk for t in flooder[-3:]} <= shown  # the newest of theirs
    assert {t.pk for t in ann_tables} <= shown  # older, and still listed
    assert len(listed_playing) == views.LOBBY_PER_OPENER


def test_playing_again_and_again_and_a_couple_of_tables_at_once_still_work():
    client = Client()
    client.force_login(make_user("ann"))
    client.post(f"/games/{GAME}/tables/", {"players": "2", "turn_timer": "30",
                                           "seat_0": "me", "seat_1": "open"})  # fmt: skip
    assert client.post(f"/games/{GAME}/tables/quick/").status_code == 302
    table = Table.objects.order_by("-created").first()
    for _ in range(12):  # "Play again", each match played to its end
        end(table)
        response = client.post(f"/tables/{table.token}/again/")
        assert response.status_code == 302 and response.url.startswith("/tables/")
        table = Table.objects.order_by("-created").first()
        assert table.previous_id is not None
    for _ in range(12):  # "Play against a bot", again and again
        end(table)
        assert client.post(f"/games/{GAME}/tables/quick/").status_code == 302
        table = Table.objects.order_by("-created").first()
    assert Table.objects.filter(state=Table.OPEN).count() == 2
