"""Live tables with uploaded bots are a managed resource: each bot holds a sandbox slot while
its table plays, so a signed-in person, the guests of one address and the whole site may
each have only so many open or being played (counted in the database, as every web process
sees it); a table whose bot the site cannot start ends unrated, saying so; and a result
against an uploaded bot that could not start is no person's to keep."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from bots.models import Match
from bots.running.playing import Entry, play
from bots.running.process import PlatformError
from bots.running.stalls import held_up_words
from bots.running.starved import too_busy
from bots.sandbox import SandboxBusy
from games.engine.agents import InProcessAgent
from games.live import tables
from games.live.host import PROCESS_LOST, SITE_BUSY, Finish, SeatPlan, platform_trouble
from games.models import PersonRating, Table
from games.registry import get_game
from tests.live.test_host import Wire, builtin, host, join, run
from tests.people.helpers import GAME, make_user, ranked_bot

HOSTILE = Path(__file__).resolve().parent.parent / "sandbox" / "bots"
LIMITS = tables.BotTableLimits(per_person=2, per_guest_address=2, total=5)


@pytest.fixture
def uploaded(db) -> str:
    """The seat choice of an active uploaded bot."""
    bot = ranked_bot(make_user("alice"), "drafter", mu=25.0, sigma=3.0)
    return f"bot:{bot.versions.get().pk}"


def open_table(person: tables.Person, seats: list[str], **options) -> Table:
    return tables.create_table(GAME, person, seats, limits=LIMITS, **options)


def guest(address: str) -> tuple[tables.Person, str]:
    return tables.Person(None, f"token-{address}-{Table.objects.count()}"), address


def test_a_person_may_have_only_so_many_tables_with_uploaded_bots(uploaded):
    ann = tables.Person(make_user("ann"))
    first = open_table(ann, ["me", uploaded])
    open_table(ann, ["me", uploaded])
    assert first.bots == 1 and first.guest_address == ""
    with pytest.raises(tables.TableError) as refused:
        open_table(ann, ["me", uploaded])
    assert str(refused.value) == (
        "you already have 2 tables with uploaded bots open or being played, the most at once "
        "(2); finish one first"
    )
    open_table(ann, ["me", "builtin:strong"])  # built-in bots hold no sandbox
    # a table being played counts as one waiting does; one finished frees its place
    Table.objects.filter(pk=first.pk).update(state=Table.PLAYING)
    with pytest.raises(tables.TableError):
        open_table(ann, ["me", uploaded])
    Table.objects.filter(pk=first.pk).update(state=Table.FINISHED)
    assert open_table(ann, ["me", uploaded]).bots == 1
    # another person has places of their own
    open_table(tables.Person(make_user("bob")), ["me", uploaded])


def test_guests_are_counted_by_their_address_not_their_session(uploaded):
    for _ in range(2):
        person, address = guest("203.0.113.7")
        table = open_table(person, ["me", uploaded], address=address)
    assert table.guest_address and "203.0.113.7" not in table.guest_address  # a keyed hash
    person, address = guest("203.0.113.7")  # a fresh session from the same address
    with pytest.raises(tables.TableError, match="guests from your address already have 2"):
        open_table(person, ["me", uploaded], address=address)
    person, address = guest("198.51.100.1")
    open_table(person, ["me", uploaded], address=address)


def test_the_site_has_a_limit_of_its_own(uploaded):
    played = [open_table(tables.Person(make_user(f"p{n}")), ["me", uploaded]) for n in range(5)]
    Table.objects.filter(pk__in=[t.pk for t in played]).update(state=Table.PLAYING)
    with pytest.raises(tables.TableError) as refused:
        open_table(tables.Person(make_user("late")), ["me", uploaded])
    assert str(refused.value).startswith(
        "the site is busy: 5 tables with uploaded bots are being played, the most at once"
    )
    open_table(tables.Person(make_user("other")), ["me", "builtin:simple"])


def test_a_table_that_waited_too_long_no_longer_counts_nor_starts(uploaded):
    ann = tables.Person(make_user("ann"))
    old = open_table(ann, ["me", uploaded])
    open_table(ann, ["me", uploaded])
    long_ago = timezone.now() - tables.BOT_TABLE_WAITS - timedelta(minutes=1)
    Table.objects.filter(pk=old.pk).update(created=long_ago)
    open_table(ann, ["me", uploaded])  # the old one no longer counts...
    assert not tables.claim_start(Table.objects.get(pk=old.pk), "host-channel")  # ...nor starts
    old.refresh_from_db()
    assert (old.state, old.error) == (Table.ABANDONED, tables.WAITED_TOO_LONG)


def test_the_create_form_says_why_a_table_is_refused(uploaded, settings):
    settings.LIVE_BOT_TABLES_PER_GUEST_ADDRESS = 1
    data = {"players": "2", "turn_timer": "30", "seat_0": "me", "seat_1": uploaded}
    first = Client(REMOTE_ADDR="192.0.2.5")
    assert first.post(f"/games/{GAME}/tables/", data).status_code == 302
    second = Client(REMOTE_ADDR="192.0.2.5")  # another guest, the same address
    response = second.post(f"/games/{GAME}/tables/", data)
    assert response.status_code == 429  # a limit, as the limits on any table (docs)
    assert "guests from your address already have 1 table with uploaded bots" in (
        response.content.decode()
    )
    assert Client(REMOTE_ADDR="192.0.2.6").post(f"/games/{GAME}/tables/", data).status_code == 302


# ---- the site cannot start the bot ----------------------------------------------------------
def bot_plan() -> SeatPlan:
    code = get_game(GAME).builtin_path("simple").read_text()
    return SeatPlan("alice/drafter", "bot", Entry(name="drafter", code=code, filename="d.py"))


@pytest.mark.asyncio
async def test_a_table_whose_bot_gets_no_sandbox_ends_unrated_saying_the_site_is_busy(
    monkeypatch,
):
    launched = []

    def no_slot(path, **kwargs):
        launched.append(kwargs)
        raise SandboxBusy("no free sandbox slot for a live table")

    monkeypatch.setattr("bots.running.playing.bot_launch", no_slot)
    finished: list[Finish] = []

    async def store(finish: Finish) -> dict:
        finished.append(finish)
        return {}

    wire = Wire()
    table = host(GAME, [SeatPlan("ann", "human"), bot_plan()], wire, on_finish=store)
    run(table)
    assert await join(table, 10)
    over = await wire.wait("seat:0", "over")
    assert (
        over["error"]
        == SITE_BUSY
        == ("the bot could not start: the site is busy; this table is not rated")
    )
    assert finished[0].played is None  # no result, for anyone
    assert launched[0]["worker"] is False  # a table's sandbox: never the workers' reserve


class LostMidMatch(InProcessAgent):
    """A bot that starts and answers, whose process the site then loses (its sandbox killed
    from outside: ``ProcessAgent`` raises PlatformError)."""

    def __init__(self, answers: int) -> None:
        game = get_game(GAME)
        super().__init__(game.builtin_class("simple"), game.bot_call, "drafter")
        self.left = answers

    def receive(self, timeout: float):
        if self.left == 0:
            raise PlatformError("the bot's sandbox was killed from outside (SIGKILL)")
        self.left -= 1
        return super().receive(timeout)


@pytest.mark.asyncio
async def test_a_table_whose_bot_the_site_loses_mid_match_says_so_and_is_not_rated():
    finished: list[Finish] = []

    async def store(finish: Finish) -> dict:
        finished.append(finish)
        return {}

    wire = Wire()
    lost = SeatPlan("alice/drafter", "bot", Entry(name="drafter", agent=LostMidMatch(2)))
    table = host(GAME, [builtin(GAME, "simple"), lost], wire, on_finish=store, rated=True)
    run(table)
    assert await join(table, 10)
    over = await wire.wait("public", "over")
    assert (
        over["error"]
        == PROCESS_LOST
        == (
            "the site lost the bot's process (its trouble, not the bot's); this table is not rated."
        )
    )
    assert over["rated"] is False  # the page's header says "unrated"
    assert finished[0].played is None
    # a bot the site could not start at all is still told apart
    unstarted = PlatformError("cannot start bwrap: no such file")
    assert platform_trouble(unstarted).startswith("the bot could not start: the site cannot")
    busy = PlatformError(too_busy(2.5, "draft_pick", 1.0))
    assert platform_trouble(busy, started=True) == (
        "the site's machine was too busy to give the bot its time (its trouble, not the "
        "bot's); this table is not rated."
    )
    held = PlatformError(held_up_words(20.35, "main_play"))
    assert platform_trouble(held, started=True) == (
        "the site's server was held up for 20.4 s while the bot thought (its trouble, not the "
        "bot's); this table is not rated."
    )


def test_the_page_of_a_table_the_site_stopped_calls_it_unrated(client, uploaded):
    table = tables.create_table(GAME, tables.Person(make_user("ann")), ["me", uploaded])
    Table.objects.filter(pk=table.pk).update(rated=True)  # (opened before bots made it friendly)
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    tables.store_finish(facts, Finish(None, error=PROCESS_LOST))
    page = client.get(table.get_absolute_url()).content.decode()
    assert '<span id="table-rated">unrated</span>' in page
    assert f"The table stopped: {PROCESS_LOST}".replace("'", "&#x27;") in page
    table.refresh_from_db()
    assert tables.end_of(table, None) == [
        {"type": "over", "error": PROCESS_LOST, "rated": False, "started": True}
    ]
    assert '<h2 id="end-title">Match over</h2>' in page  # (its match had begun)


def test_a_table_the_site_could_not_start_is_stored_abandoned_and_rates_nobody(uploaded):
    table = tables.create_table(GAME, tables.Person(make_user("ann")), ["me", uploaded])
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    assert tables.store_finish(facts, Finish(None, error=SITE_BUSY)) == {}
    table.refresh_from_db()
    assert (table.state, table.error) == (Table.ABANDONED, SITE_BUSY)
    assert not Match.objects.exists() and not PersonRating.objects.exists()


def test_a_win_over_an_uploaded_bot_that_could_not_start_is_not_rated(uploaded):
    """...nor stored as the bot's fault: the machine most likely kept it from starting (an
    audit's table faults took a bot off the ladder). The table is friendly anyway (an
    uploaded bot sits at it); one opened rated before that rule says why it is not."""
    table = tables.create_table(GAME, tables.Person(make_user("ann")), ["me", uploaded])
    assert not table.rated
    Table.objects.filter(pk=table.pk).update(rated=True)  # (opened before bots made it friendly)
    _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host-channel")
    broken = (HOSTILE / "import_error.py").read_text()
    entries = [Entry(name="ann", builtin="strong"),
               Entry(name="alice/drafter", code=broken, filename="d.py")]  # fmt: skip
    played = play(get_game(GAME), entries, seed=3)
    assert played.seats[1].fault_kind == "startup"
    told = tables.store_finish(facts, Finish(played))
    assert told["note"] == "alice/drafter could not start, so this table is not rated."
    table.refresh_from_db()
    assert table.state == Table.FINISHED and not table.rated
    assert table.error == told["note"]
    assert not PersonRating.objects.exists()
    seats = list(Match.objects.get(pk=told["match"]).participants.order_by("seat"))
    assert len(seats) == 2
    assert (seats[1].fault_kind, seats[1].fault_reason) == ("", "")  # not the bot's fault
    # its end still says what happened (the match's record keeps the fault)
    assert "alice/drafter could not start." in tables.end_of(table, 0)[-1]["summary"]


def test_a_full_table_nobody_opened_stops_counting_after_ten_minutes(uploaded):
    """A table with uploaded bots whose seats were all taken when opened (its opener and bots)
    waits 10 minutes for its opener, not the hour of a table with a seat open for friends:
    then it no longer counts, nor starts, and says why to whoever opens it."""
    ann = tables.Person(make_user("ann"))
    full = open_table(ann, ["me", uploaded])
    inviting = open_table(ann, ["me", "open"])
    Table.objects.filter(pk=inviting.pk).update(bots=1)  # (as if a bot sat in a third seat)
    inviting.refresh_from_db()
    assert full.opened_full and not inviting.opened_full
    with pytest.raises(tables.TableLimitError):
        open_table(ann, ["me", uploaded])
    lately = timezone.now() - tables.FULL_BOT_TABLE_WAITS - timedelta(minutes=1)
    Table.objects.filter(pk__in=[full.pk, inviting.pk]).update(created=lately)
    third = open_table(ann, ["me", uploaded])  # the full one no longer counts...
    with pytest.raises(tables.TableLimitError):  # ...the one waiting for friends still does
        open_table(ann, ["me", uploaded])
    assert set(tables.bot_tables()) == {inviting, third}
    assert not tables.claim_start(Table.objects.get(pk=full.pk), "host-channel")  # nor starts
    full.refresh_from_db()
    assert (full.state, full.error) == (Table.ABANDONED, tables.FULL_WAITED_TOO_LONG)
    assert (
        full.error
        == "this table waited over 10 minutes for you and no longer starts; open a new one"
    )
    page = Client().get(f"/tables/{full.token}/").content.decode()
    assert "The table stopped: this table waited over 10 minutes for you" in page
    # one with an open seat, filled since, still starts within its hour
    tables.take_seat(inviting, 1, tables.Person(make_user("bob")))
    assert tables.claim_start(Table.objects.get(pk=inviting.pk), "host-channel")


# ---- the site's places: held by tables that play, not by tables that wait -------------------
def inviting(person: tables.Person) -> Table:
    """A table with an uploaded bot and a seat open for a friend (RPS Poker has two seats:
    as if the bot sat in a third)."""
    table = open_table(person, ["me", "open"])
    Table.objects.filter(pk=table.pk).update(bots=1)
    table.refresh_from_db()
    return table


def test_tables_nobody_came_to_hold_no_place_of_the_sites(uploaded):
    """Tables still waiting for players hold no sandbox, so they hold no place of the site's:
    a few addresses, each opening its tables with uploaded bots and never coming to them
    (renewed as each stopped counting), kept every place of the site's. The site's most
    counts the tables being played; the places of each address still bound the waiting ones."""
    for n in range(3):  # three addresses of guests fill their own places, never coming
        for _ in range(2):
            person, address = guest(f"203.0.113.{n}")
            open_table(person, ["me", uploaded], address=address)
        with pytest.raises(tables.TableLimitError) as refused:
            person, address = guest(f"203.0.113.{n}")
            open_table(person, ["me", uploaded], address=address)
        assert str(refused.value).startswith("guests from your address already have 2 tables")
    waiting = inviting(tables.Person(make_user("ann")))  # and one waiting for a friend
    assert tables.site_bot_tables().count() == 0
    # six tables wait (more than the site's 5): someone else still gets one
    assert Table.objects.filter(state=Table.OPEN, bots__gt=0).count() == 7
    opened = open_table(tables.Person(make_user("bob")), ["me", uploaded])
    # every place taken by tables being played: a place frees when one of their matches ends
    played = [opened, waiting, *Table.objects.filter(guest_address__gt="")[:3]]
    Table.objects.filter(pk__in=[t.pk for t in played]).update(state=Table.PLAYING)
    with pytest.raises(tables.TableLimitError) as refused:
        open_table(tables.Person(make_user("late")), ["me", uploaded])
    assert str(refused.value) == (
        "the site is busy: 5 tables with uploaded bots are being played, the most at once; a "
        "place frees as soon as one of their matches ends, or play against a built-in bot"
    )


def test_a_full_table_starts_its_match_only_while_the_site_has_a_place(uploaded):
    """A table waiting for its players, full now, starts only if fewer than the site's
    most tables with uploaded bots are being played; else it waits, open, and its
    people are told why (their pages ask again every little while)."""
    playing = [open_table(tables.Person(make_user(f"p{n}")), ["me", uploaded]) for n in range(5)]
    Table.objects.filter(pk__in=[t.pk for t in playing]).update(state=Table.PLAYING)
    ann = tables.Person(make_user("ann"))
    Table.objects.filter(pk=playing[0].pk).update(state=Table.FINISHED)
    waiting = inviting(ann)
    Table.objects.filter(pk=playing[0].pk).update(state=Table.PLAYING)  # (the place went)
    tables.take_seat(waiting, 1, tables.Person(make_user("bob")))
    waiting = tables.load(pk=waiting.pk)
    told = tables.start_refusal(waiting, LIMITS)
    assert told == (
        "The site is busy: 5 tables with uploaded bots are being played, the most at once. "
        "This table starts as soon as one of them ends: keep this page open."
    )
    assert not tables.claim_start(waiting, "host-channel", LIMITS)
    waiting.refresh_from_db()
    assert waiting.state == Table.OPEN and not waiting.error  # it waits on
    Table.objects.filter(pk=playing[0].pk).update(state=Table.FINISHED)
    assert tables.start_refusal(waiting, LIMITS) == ""
    assert tables.claim_start(waiting, "host-channel", LIMITS)
    # a table of built-in bots alone is never held back
    builtins = open_table(ann, ["me", "builtin:simple"])
    assert tables.start_refusal(builtins, tables.BotTableLimits(total=0)) == ""


def test_people_signed_in_from_one_address_share_its_places(uploaded, settings):
    """Accounts are cheap to make (ten an hour from one address): the tables with uploaded
    bots of everyone signed in from one address are counted together too
    (``LIVE_BOT_TABLES_PER_ADDRESS``)."""
    limits = tables.BotTableLimits(per_person=2, per_guest_address=2, total=24, per_address=3)
    address = "203.0.113.40"
    people = [tables.Person(make_user(f"acct{n}")) for n in range(3)]
    first = tables.create_table(GAME, people[0], ["me", uploaded], limits=limits, address=address)
    assert first.guest_address == tables.address_key(address)  # a keyed hash, as a guest's
    tables.create_table(GAME, people[0], ["me", uploaded], limits=limits, address=address)
    tables.create_table(GAME, people[1], ["me", uploaded], limits=limits, address=address)
    with pytest.raises(tables.TableLimitError) as refused:
        tables.create_table(GAME, people[2], ["me", uploaded], limits=limits, address=address)
    assert str(refused.value) == (
        "people logged in from your address already have 3 tables with uploaded bots open or "
        "being played, the most at once (3); finish one first"
    )
    # another address, a guest of this one, and a table of built-in bots are not held back
    tables.create_table(GAME, people[2], ["me", uploaded], limits=limits, address="198.51.100.2")
    person, _ = guest(address)
    tables.create_table(GAME, person, ["me", uploaded], limits=limits, address=address)
    plain = tables.create_table(GAME, people[2], ["me", "builtin:simple"], address=address)
    assert plain.guest_address == ""  # (only tables with uploaded bots keep it)
    settings.LIVE_BOT_TABLES_PER_ADDRESS = 7
    assert tables.BotTableLimits.from_settings().per_address == 7


def test_the_lobby_lists_a_few_tables_of_a_signed_in_person_whatever_their_address(uploaded):
    """A signed-in person's tables with uploaded bots keep the address they were opened from
    (counted by it): the lobby still lists at most LOBBY_PER_OPENER of the person's tables."""
    from games.live.views import LOBBY_PER_OPENER, _lobby_tables

    ann = tables.Person(make_user("ann"))
    opened = [open_table(ann, ["me", "open"]) for _ in range(LOBBY_PER_OPENER + 1)]
    Table.objects.filter(pk__in=[t.pk for t in opened[:2]]).update(
        bots=1, guest_address=tables.address_key("203.0.113.50")
    )
    waiting, _ = _lobby_tables(GAME)
    assert len(waiting) == LOBBY_PER_OPENER
