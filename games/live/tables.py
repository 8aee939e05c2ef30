"""Live tables in the database: creating them, taking seats, who a socket is, and storing the
finished match. Plain synchronous Django code: the consumers call it through
``database_sync_to_async``, the views directly, the host's thread at the end of a match.

Every table is limited (:func:`table_refusal`): a person (a signed-in user, or a guest's
session) may be at only so many tables open or being played at once, the guests of one client
address together too, and tables are opened at only so many per window, by a signed-in person
or by the guests of one address (``LIVE_TABLES_*``). Tables with uploaded bots are limited
further (:func:`bot_table_refusal`): each of their bots holds a sandbox slot of the machine for
as long as the table plays, so a signed-in person, the signed-in people of one address, a guest
address and the whole site may each have only so many of them open or being played at once
(``LIVE_BOT_TABLES_*``); the site's most counts the tables being played only (a table still
waiting for players holds no sandbox), and a full table starts its match only while the site
has a place for it (:func:`start_refusal`). Everything is counted in the database (Table
rows), so every web process counts the same tables.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import zlib
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.crypto import salted_hmac

from bots.clock import shared_now
from bots.ladder import people
from bots.models import BotVersion, Match, MatchSeat, builtin_label
from bots.running.playing import Entry
from games.engine import untrusted
from games.engine.options import check_options
from games.engine.table import minutes, plural
from games.live.host import (
    Finish,
    SeatPlan,
    TableLost,
    final_messages,
    result_message,
    thinks_for_long,
)
from games.models import Table, TableSeat, TableStep
from games.registry import get_game
from games.replaycache import keep, kept
from games.reviews import seats_to_review

log = logging.getLogger("games.live")

#: a seat's choice in the create form: "me", "open", "builtin:NAME" or "bot:VERSION_ID"
SEAT_CHOICES = ("me", "open", "builtin:", "bot:")
#: turn timers a table may choose (seconds)
TURN_TIMERS = (10.0, 20.0, 30.0, 60.0, 120.0)


class TableError(ValueError):
    """A table request that cannot be done; the message says why, for the person."""


#: a table with uploaded bots waits this long for its players (its creator's socket, the
#: people invited); then it no longer starts, nor counts against the limits below
BOT_TABLE_WAITS = timedelta(hours=1)
#: what a table with uploaded bots that waited longer says when someone comes to start it
WAITED_TOO_LONG = (
    "this table waited over an hour for its players, and a table with uploaded bots does not "
    "start that late; open a new one"
)
#: a table with uploaded bots whose seats were all taken when it was opened (its opener and
#: bots: nobody else to wait for) waits this long for its opener to open it; then it no longer
#: starts, nor counts against the limits (a few accounts could otherwise keep the site's places
#: for tables with uploaded bots full with tables nobody plays). One with an open seat keeps
#: :data:`BOT_TABLE_WAITS`: friends need time to come.
FULL_BOT_TABLE_WAITS = timedelta(minutes=10)
#: what such a table says when someone comes to start it later
FULL_WAITED_TOO_LONG = (
    "this table waited over 10 minutes for you and no longer starts; open a new one"
)
#: the key of the lock that makes counting the tables with uploaded bots and adding one a
#: single step on PostgreSQL (SQLite's transactions are one at a time anyway)
BOT_TABLES_LOCK = zlib.crc32(b"card-arena live tables with uploaded bots")
#: any table waits this long for its players (the lobby lists it as long); then it no longer
#: starts, nor counts against the limits below (:class:`TableLimits`)
TABLE_WAITS = timedelta(hours=12)
#: what a table that waited longer says when someone comes to start it
TABLE_WAITED_TOO_LONG = (
    "this table waited over 12 hours for its players and no longer starts; open a new one"
)
#: what a table says when the last person at it left before its match started
EVERYONE_LEFT = "everyone left this table before its match started"


class TableLimitError(TableError):
    """A table refused by a limit on how many tables one person or one address may open, or
    on the tables with uploaded bots (the page answers 429, and lists the person's open
    tables)."""


@dataclass(frozen=True)
class TableLimits:
    """Tables of every kind (built-in bots, uploaded bots, open seats): how many one person (a
    signed-in user, or a guest's session) may be at while they are open or being played, how
    many the guests of one address may be at together, and how many may be opened in each
    ``window`` by one signed-in person, or by the guests of one address together
    (docs/live-tables.md, "How many tables")."""

    per_person: int = 5
    per_guest_address: int = 20
    created_per_window: int = 60
    window: timedelta = timedelta(minutes=10)

    @classmethod
    def from_settings(cls) -> TableLimits:
        window_minutes = getattr(settings, "LIVE_TABLES_WINDOW_MINUTES", None)
        return cls(
            per_person=int(getattr(settings, "LIVE_TABLES_PER_PERSON", cls.per_person)),
            per_guest_address=int(
                getattr(settings, "LIVE_TABLES_PER_GUEST_ADDRESS", cls.per_guest_address)
            ),
            created_per_window=int(
                getattr(settings, "LIVE_TABLES_CREATED_PER_WINDOW", cls.created_per_window)
            ),
            window=cls.window if window_minutes is None else timedelta(minutes=int(window_minutes)),
        )


@dataclass(frozen=True)
class BotTableLimits:
    """Tables with uploaded bots open or being played at once: for one signed-in person, for
    the signed-in people of one address together (accounts are cheap to make: an address may
    make several), for the guests of one address, and on the whole site (docs/live-tables.md)."""

    per_person: int = 2
    per_guest_address: int = 2
    total: int = 24
    per_address: int = 4

    @classmethod
    def from_settings(cls) -> BotTableLimits:
        return cls(
            per_person=int(getattr(settings, "LIVE_BOT_TABLES_PER_PERSON", cls.per_person)),
            per_guest_address=int(
                getattr(settings, "LIVE_BOT_TABLES_PER_GUEST_ADDRESS", cls.per_guest_address)
            ),
            total=int(getattr(settings, "LIVE_BOT_TABLES_TOTAL", cls.total)),
            per_address=int(getattr(settings, "LIVE_BOT_TABLES_PER_ADDRESS", cls.per_address)),
        )


def address_key(address: str) -> str:
    """What a guest's table keeps of the address it was opened from: a keyed hash (the site's
    secret key), never the address."""
    if not address:
        return ""
    return salted_hmac("card-arena.tables.guest-address", address).hexdigest()[:32]


def bot_tables(now: Any = None) -> QuerySet[Table]:
    """The tables with uploaded bots that hold sandboxes or may soon: being played, or open
    for less than :data:`BOT_TABLE_WAITS` (an older one no longer starts)."""
    now = now or timezone.now()
    waiting = Q(state=Table.OPEN, created__gte=now - BOT_TABLE_WAITS) & ~late_full(now)
    return Table.objects.filter(Q(state=Table.PLAYING) | waiting, bots__gt=0)


def site_bot_tables() -> QuerySet[Table]:
    """The tables with uploaded bots that count against the whole site's limit: those being
    played, whose bots hold sandboxes. A table still waiting for its players holds none, and
    counts against its opener's places alone (:func:`bot_tables`): a few addresses kept every
    place of the site's with tables nobody came to, opened again as each stopped counting.
    A full table starts only while the site has a place for it (:func:`start_refusal`)."""
    return Table.objects.filter(state=Table.PLAYING, bots__gt=0)


def late_full(now: Any) -> Q:
    """Tables with uploaded bots, full when opened, that waited longer than
    :data:`FULL_BOT_TABLE_WAITS` (if still waiting, they no longer start)."""
    return Q(bots__gt=0, opened_full=True, created__lt=now - FULL_BOT_TABLE_WAITS)


def open_tables(now: Any = None) -> QuerySet[Table]:
    """The tables that count against :class:`TableLimits`: being played, or waiting for
    their players for less than :data:`TABLE_WAITS` (an older one no longer starts)."""
    now = now or timezone.now()
    waiting = Q(state=Table.OPEN, created__gte=now - TABLE_WAITS)
    return Table.objects.filter(Q(state=Table.PLAYING) | waiting)


def tables_of(person: Person | None, now: Any = None) -> QuerySet[Table]:
    """The tables open or being played where ``person`` has a seat (opened or joined)."""
    if person is None or (person.user is None and not person.guest):
        return Table.objects.none()
    seats = Q(seats__kind=TableSeat.PERSON)
    if person.user is not None and person.guest:  # (and the seats they took as a guest)
        seats &= Q(seats__user=person.user) | Q(seats__user__isnull=True, seats__guest=person.guest)
    elif person.user is not None:
        seats &= Q(seats__user=person.user)
    else:
        seats &= Q(seats__guest=person.guest)
    return open_tables(now).filter(seats)


def table_refusal(person: Person, guest_address: str, limits: TableLimits) -> str:
    """Inside the locks of :func:`create_table`: why ``person`` (a guest of the address whose
    keyed hash is ``guest_address``) may not open another table now ("" if they may)."""
    now = timezone.now()
    mine = tables_of(person, now).count()
    if mine >= limits.per_person:
        return (
            f"you already have {plural(mine, 'table')} open or being played, the most at once "
            f"({limits.per_person}); finish one of them, or leave one still waiting for "
            "players, then open another (the lobby lists them under “Your tables”)"
        )
    if person.user is None and guest_address:
        guests = open_tables(now).filter(created_by__isnull=True, guest_address=guest_address)
        count = guests.count()
        if count >= limits.per_guest_address:
            return (
                f"guests from your network already have {plural(count, 'table')} open or being "
                f"played, the most at once ({limits.per_guest_address}); you can open another "
                "when one of them ends (finish or leave yours), or log in"
            )
        opened = Table.objects.filter(created_by__isnull=True, guest_address=guest_address)
        who = "guests from your network"
    elif person.user is not None:
        opened = Table.objects.filter(created_by=person.user)
        who = "you"
    else:
        return ""  # a guest with no address known (load tools, tests): nothing to count by
    since = now - limits.window
    recent = opened.filter(created__gte=since).order_by("-created")
    created = list(recent.values_list("created", flat=True)[: limits.created_per_window])
    if len(created) >= limits.created_per_window:
        # the window frees a place when the oldest of the last `created_per_window` leaves it
        wait = created[-1] + limits.window - now
        return (
            f"{who} opened {plural(len(created), 'table')} in the last "
            f"{minutes(limits.window.total_seconds())}, the most in that time "
            f"({limits.created_per_window}); "
            f"you can open another in {minutes(wait.total_seconds())}"
        )
    return ""


def bot_table_refusal(
    person: Person, guest_address: str, limits: BotTableLimits, address: str = ""
) -> str:
    """Inside the lock of :func:`create_table`: why ``person`` may not open another table
    with uploaded bots now ("" if they may). ``guest_address``: a guest's address (its keyed
    hash); ``address``: a signed-in person's, whose tables with uploaded bots are counted
    with those of everyone signed in from it (``per_address``)."""
    now = timezone.now()
    live = bot_tables(now)
    if person.user is not None:
        mine = live.filter(created_by=person.user).count()
        if mine >= limits.per_person:
            return (
                f"you already have {plural(mine, 'table')} with uploaded bots open or being "
                f"played, the most at once ({limits.per_person}); finish one first"
            )
        if address:
            ours = live.filter(created_by__isnull=False, guest_address=address).count()
            if ours >= limits.per_address:
                return (
                    f"people logged in from your address already have {plural(ours, 'table')} "
                    f"with uploaded bots open or being played, the most at once "
                    f"({limits.per_address}); finish one first"
                )
    elif guest_address:
        mine = live.filter(created_by__isnull=True, guest_address=guest_address).count()
        if mine >= limits.per_guest_address:
            return (
                f"guests from your address already have {plural(mine, 'table')} with uploaded "
                f"bots open or being played, the most at once ({limits.per_guest_address}); "
                "finish one first, or log in"
            )
    total = site_bot_tables().count()
    if total < limits.total:
        return ""
    return (
        f"the site is busy: {plural(total, 'table')} with uploaded bots are being played, the "
        "most at once; a place frees as soon as one of their matches ends, or play against a "
        "built-in bot"
    )


def start_refusal(table: Table, limits: BotTableLimits | None = None) -> str:
    """Why ``table`` (its seats all taken) cannot start its match yet ("" if it can): a
    table with uploaded bots starts only while fewer than the site's most of them are being
    played (their bots hold sandboxes; one still waiting holds none). What its people are told
    meanwhile; their pages ask again every little while, and the match starts once a place
    frees."""
    if not table.bots:
        return ""
    most = (limits or BotTableLimits.from_settings()).total
    playing = site_bot_tables().exclude(pk=table.pk).count()
    if playing < most:
        return ""
    return (
        f"The site is busy: {plural(playing, 'table')} with uploaded bots are being played, the "
        "most at once. This table starts as soon as one of them ends: keep this page open."
    )


def _lock_bot_tables() -> None:
    """Inside a transaction: hold the count of tables with uploaded bots until it ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [BOT_TABLES_LOCK])


def _lock_counts(person: Person, guest_address: str) -> None:
    """Inside a transaction: hold the counts of ``person``'s tables (and of their address's,
    for a guest) until it ends, so that two requests at once cannot both take the last place.
    One lock per person and per address, always in the same order (no deadlock), and always
    before :func:`_lock_bot_tables`."""
    if connection.vendor != "postgresql":
        return
    whos = [f"user:{person.user.pk}" if person.user is not None else f"guest:{person.guest}"]
    if person.user is None and guest_address:
        whos.append(f"address:{guest_address}")
    with connection.cursor() as cursor:
        for who in whos:
            key = zlib.crc32(f"card-arena live tables of {who}".encode())
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def host_stale_after() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "TABLE_HOST_STALE_S", 20)))


def resume_window() -> timedelta:
    """How long after its host's last beat a table is still resumed; later it is abandoned
    (its people have long gone)."""
    return timedelta(seconds=float(getattr(settings, "TABLE_RESUME_WINDOW_S", 600)))


# ---- who is asking --------------------------------------------------------------------------
@dataclass(frozen=True)
class Person:
    """A logged-in user, or a guest known by the token in their session. A guest who signs
    in (or up) keeps their token beside the user: the seats they took and the runs they
    started as a guest stay theirs (:func:`seat_of`)."""

    user: AbstractBaseUser | None
    guest: str = ""

    @property
    def name(self) -> str:
        if self.user is not None:
            return self.user.get_username()
        # a name that says nothing of the secret token it comes from
        return "guest-" + hashlib.sha256(self.guest.encode()).hexdigest()[:5]


def person_of(user: Any, session: Any, *, create: bool = False) -> Person | None:
    """The person behind a request or a socket. A guest without a token is given a new one
    (``create``) the first time they sit down, kept in their session only once something is
    made for them (:func:`keep_guest`): a request refused by a limit writes no session. A
    signed-in person whose session still holds the token they had as a guest (signing in
    keeps the session's data) keeps it: the seat they took as a guest is still theirs,
    played as the guest's."""
    signed_in = user is not None and not isinstance(user, AnonymousUser) and user.is_authenticated
    token = session.get("guest_token", "") if session is not None else ""
    if signed_in:
        return Person(user, token or "")
    if session is None:
        return None
    if not token and create:
        token = secrets.token_urlsafe(18)
    return Person(None, token) if token else None


def keep_guest(session: Any, person: Person) -> None:
    """Something was made for ``person`` (a table, a seat, a playground run): a guest's
    token, new with :func:`person_of`'s ``create``, goes into their session now (and the
    session is saved with the response). Until then a guest's refused request stores
    nothing: one session row per refused request, from clients without cookies, would
    pile up."""
    if person.user is None and person.guest and session.get("guest_token") != person.guest:
        session["guest_token"] = person.guest


def seat_of(table: Table, person: Person | None) -> int | None:
    """The seat ``person`` holds at ``table`` (None: a spectator): the one of their user,
    else the one of their guest token (a guest's seat, also once that guest signed in)."""
    if person is None:
        return None
    seats = [seat for seat in seats_of(table) if seat.kind == TableSeat.PERSON]
    if person.user is not None:
        for seat in seats:
            if seat.user_id == person.user.pk:
                return seat.seat
    if person.guest:
        for seat in seats:
            if seat.user_id is None and seat.guest == person.guest:
                return seat.seat
    return None


# ---- creating and joining -------------------------------------------------------------------
#: why a table with an uploaded bot at it is not rated (the form, the lobby and the table's
#: page say it before it is opened): its owner, or anyone with a second account, could make
#: it lose to a person on purpose (it can tell a person from a bot by the time they take),
#: and the person would be rated against its ladder rating
BOT_UNRATED = (
    "Tables with uploaded bots are friendly: people are rated against other people and the "
    "site's built-in bots only."
)


def pair_note(game: str, names: tuple[str, str], count: int, viewer: str = "") -> str:
    """Why a table is friendly: the two people named played ``count`` rated tables of
    ``game`` together in the window of ``bots.ladder.people.rated_per_pair`` (for ``viewer``,
    one of the two: "You have played ... with bob")."""
    title = get_game(game).title
    hours = plural(people.pair_window_hours(), "hour")
    tables = plural(count, "rated table")
    if viewer in names:
        other = names[1] if names[0] == viewer else names[0]
        return f"You have played {tables} with {other} in {title} in the last {hours}: " \
            "this one is friendly."  # fmt: skip
    return f"{names[0]} and {names[1]} have played {tables} together in {title} in the " \
        f"last {hours}: this one is friendly."  # fmt: skip


def pair_capped(
    game: str, seats: list[TableSeat] | list[SeatFacts]
) -> tuple[tuple[str, str], int] | None:
    """The first two signed-in people among ``seats`` who already played the most rated
    tables of ``game`` together in the window (``bots.ladder.people.pair_over_cap``): their
    names and how many; None if there are none."""
    names = {seat.user_id: seat.name for seat in seats if seat.user_id is not None}
    found = people.pair_over_cap(game, list(names))
    if found is None:
        return None
    a, b, count = found
    return (names[a], names[b]), count


def unrated_reason(game: str, person: Person | None) -> str:
    """Why a table of ``game`` opened by ``person`` cannot be rated ("" when it can): the
    game rates no people (``bots.ladder.people.game_rates_people``), or the person is a guest."""
    if not people.game_rates_people(game):
        return f"People are not rated in {get_game(game).title}: its tables are never rated."
    if person is None or person.user is None:
        return "A guest's table is not rated: log in to play rated tables."
    return ""


@transaction.atomic
def create_table(
    game: str,
    person: Person,
    seats: list[str],
    *,
    turn_timer: float = 30.0,
    config: dict[str, Any] | None = None,
    previous: Table | None = None,
    rated: bool = True,
    address: str = "",
    limits: BotTableLimits | None = None,
    table_limits: TableLimits | None = None,
) -> Table:
    """A new table with ``seats`` (one choice per seat, see SEAT_CHOICES). ``rated``: its
    match moves the ratings of the signed-in people at it (``bots.ladder.people``; a guest's
    table, or one of a game that rates no people, is opened unrated whatever is asked:
    :func:`unrated_reason`, and so is a table with an uploaded bot: :data:`BOT_UNRATED`); a
    table that could be rated and is not asked to be is a friendly game by choice
    (``unrated_chosen``, which its rematch repeats). A table with uploaded bots is refused
    over the limits (``limits``, else the settings'), a guest's counted by
    ``address`` (the client's, see ``cardsite.accounts.client_ip``); any table over
    ``table_limits`` (else the settings'), with :class:`TableLimitError`."""
    try:
        spec = get_game(game)
    except KeyError:
        raise TableError(f"there is no game {game!r}") from None
    if spec.table is None:
        raise TableError(f"{spec.title} cannot be played at a live table")
    low, high = spec.state_class.min_seats, spec.state_class.max_seats
    if not low <= len(seats) <= high:
        players = f"{low} to {high}" if high > low else f"{low}"
        raise TableError(f"{spec.title} is played by {players} players, not {len(seats)}")
    if turn_timer not in TURN_TIMERS:
        timers = ", ".join(f"{t:g}" for t in TURN_TIMERS)
        raise TableError(f"the turn timer must be one of {timers} seconds")
    if seats.count("me") != 1:
        raise TableError("choose exactly one seat for yourself")
    try:
        match_config = spec.table().config(config or {})
        # the game's options as the arena's and a tournament's are checked (named in errors)
        named = {option.name for option in spec.options}
        check_options(spec, {k: v for k, v in match_config.items() if k in named})
    except ValueError as exc:
        raise TableError(str(exc)) from None
    rows = [_seat(game, choice, person) for choice in seats]
    bots = sum(1 for row in rows if row["kind"] == TableSeat.BOT)
    heavy = any(
        row["kind"] == TableSeat.BUILTIN and thinks_for_long(spec, row["builtin"]) for row in rows
    )
    guest = address_key(address) if person.user is None else ""
    # a signed-in person's table with uploaded bots keeps their address's keyed hash too: the
    # people signed in from one address are counted together for those (per_address); and so
    # does one with a built-in bot that thinks for long: its turns to think are its address's
    # (thinking_share)
    opened_from = guest if person.user is None else address_key(address) if bots or heavy else ""
    _lock_counts(person, guest)
    refusal = table_refusal(person, guest, table_limits or TableLimits.from_settings())
    if refusal:
        raise TableLimitError(refusal)
    if bots:
        _lock_bot_tables()
        refusal = bot_table_refusal(
            person, guest, limits or BotTableLimits.from_settings(), address=opened_from
        )
        if refusal:
            raise TableLimitError(refusal)
    table = Table.objects.create(
        game=game,
        config=match_config,
        seed=secrets.randbits(62),
        turn_timer=turn_timer,
        created_by=person.user,
        previous=previous,
        # people are rated against people and the site's built-in bots only (BOT_UNRATED)
        rated=rated and not unrated_reason(game, person) and not bots,
        unrated_chosen=not rated and not unrated_reason(game, person),
        bots=bots,
        guest_address=opened_from,
        opened_full=all(row["kind"] != TableSeat.OPEN for row in rows),
    )
    for n, row in enumerate(rows):
        TableSeat.objects.create(table=table, seat=n, **row)
    return table


@transaction.atomic
def rematch(table: Table, person: Person, seats: list[str], **options: Any) -> tuple[Table, str]:
    """``person``'s rematch of the finished ``table`` (``seats``: the new table's choices, as
    :func:`create_table` takes them): the rematch another person of ``table`` already opened,
    if it still waits with ``person``'s old seat open (they take it, as joining would), else a
    new one. Returns the table and what was done: "opened", "joined" or "seated" (they
    sat at it already: asked twice). The finished table's row is
    locked meanwhile, so two people asking at once make one rematch, not two."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    mine = seat_of(table, person)
    for waiting in waiting_rematches(table):
        if seat_of(waiting, person) is not None:
            return waiting, "seated"  # asked twice: the rematch they already sit at
        if mine is not None and any(
            s.seat == mine and s.kind == TableSeat.OPEN for s in seats_of(waiting)
        ):
            take_seat(waiting, mine, person)
            return waiting, "joined"
    return create_table(table.game, person, seats, previous=table, **options), "opened"


def waiting_rematches(table: Table) -> list[Table]:
    """The rematches of ``table`` still waiting for players, the oldest first."""
    now = timezone.now()
    rows = open_tables(now).filter(previous=table, state=Table.OPEN)
    rows = rows.exclude(bots__gt=0, created__lt=now - BOT_TABLE_WAITS)
    return list(rows.order_by("created"))


def rematch_offer(table: Table, seat: int | None) -> dict[str, Any] | None:
    """What the finished ``table``'s page tells the person of ``seat`` of a rematch waiting
    with that seat open: who opened it and where (None: there is none). One query."""
    if seat is None or table.state not in (Table.FINISHED, Table.ABANDONED):
        return None
    now = timezone.now()
    found = (
        TableSeat.objects.filter(
            seat=seat,
            kind=TableSeat.OPEN,
            table__previous=table,
            table__state=Table.OPEN,
            table__created__gte=now - TABLE_WAITS,
        )
        .exclude(table__bots__gt=0, table__created__lt=now - BOT_TABLE_WAITS)
        .select_related("table__created_by")
        .order_by("table__created")
        .first()
    )
    if found is None:
        return None
    opener = found.table.created_by
    return rematch_message(found.table, opener.get_username() if opener is not None else "")


def rematch_message(rematch: Table, opener: str) -> dict[str, Any]:
    """The ``rematch`` message (and the finished page's line): "alice opened a rematch"."""
    who = f"{opener} opened a rematch" if opener else "A rematch was opened"
    return {"type": "rematch", "text": f"{who}:", "url": rematch.get_absolute_url()}


def guest_table(game: str, seats: list[str], **options: Any) -> tuple[Table, str]:
    """A new guest (with a session of their own, saved) at a new table in the seat ``me``:
    the table and the guest's session key. How load tools and tests come in as strangers."""
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    person = person_of(None, session, create=True)
    assert person is not None
    keep_guest(session, person)
    session.save()
    return create_table(game, person, seats, **options), str(session.session_key)


def _seat(game: str, choice: str, person: Person) -> dict[str, Any]:
    spec = get_game(game)
    if choice == "me":
        # a signed-in person sits as themselves (not as the guest they were)
        guest = person.guest if person.user is None else ""
        return {"kind": TableSeat.PERSON, "user": person.user, "guest": guest,
                "name": person.name}  # fmt: skip
    if choice == "open":
        return {"kind": TableSeat.OPEN}
    if choice.startswith("builtin:"):
        name = choice.removeprefix("builtin:")
        if name not in spec.builtin_bots:
            raise TableError(f"{spec.title} has no built-in bot {name!r}")
        return {"kind": TableSeat.BUILTIN, "builtin": name, "name": builtin_label(name)}
    if choice.startswith("bot:"):
        try:
            version = BotVersion.objects.select_related("bot", "bot__owner").get(
                pk=int(choice.removeprefix("bot:")), status=BotVersion.ACTIVE, bot__game=game
            )
        except (ValueError, BotVersion.DoesNotExist):
            raise TableError(f"no active {spec.title} bot {choice!r}") from None
        return {"kind": TableSeat.BOT, "version": version, "name": version.bot.label}
    raise TableError(f"unknown seat choice {choice!r}")


@transaction.atomic
def take_seat(table: Table, seat_no: int, person: Person) -> TableSeat:
    """``person`` takes an open seat (one seat per person per table)."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    if table.state != Table.OPEN:
        raise TableError("this table is no longer waiting for players")
    if seat_of(table, person) is not None:
        raise TableError("you already have a seat at this table")
    seat = table.seats.filter(seat=seat_no).first()
    if seat is None or seat.kind != TableSeat.OPEN:
        raise TableError(f"seat {seat_no + 1} is not open")
    seat.kind = TableSeat.PERSON
    seat.user = person.user
    seat.guest = person.guest if person.user is None else ""
    seat.name = person.name
    seat.save()
    seat.pair_note = ""  # type: ignore[attr-defined]
    if table.rated and person.user is None:
        # a guest at the table makes it a friendly game for everyone: say so from now on
        Table.objects.filter(pk=table.pk).update(rated=False)
    elif table.rated and (capped := pair_capped(table.game, _seat_rows(table.pk))):
        # two people at it played the most rated tables together today: friendly, said now
        # (and checked again as the match is stored: store_finish)
        names, count = capped
        note = pair_note(table.game, names, count)
        Table.objects.filter(pk=table.pk).update(rated=False, error=note)
        seat.pair_note = pair_note(table.game, names, count, person.name)  # type: ignore[attr-defined]
    return seat


@transaction.atomic
def leave_table(table: Table, person: Person | None) -> bool:
    """``person`` gives up their seat at a table still waiting for players: it is open again
    for anyone. The last person to leave closes the table (abandoned, :data:`EVERYONE_LEFT`).
    Returns whether the table was closed."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    if table.state != Table.OPEN:
        raise TableError("this table's match has started: it can no longer be left")
    seat_no = seat_of(table, person)
    if seat_no is None:
        raise TableError("you have no seat at this table")
    table.seats.filter(seat=seat_no).update(kind=TableSeat.OPEN, user=None, guest="", name="")
    if table.seats.filter(kind=TableSeat.PERSON).exists():
        return False
    Table.objects.filter(pk=table.pk).update(
        state=Table.ABANDONED, finished=timezone.now(), error=EVERYONE_LEFT
    )
    return True


def is_full(table: Table) -> bool:
    return all(seat.kind != TableSeat.OPEN for seat in seats_of(table))


def claim_start(table: Table, host_channel: str, limits: BotTableLimits | None = None) -> bool:
    """The one process that wins this starts the table's host. A table with uploaded bots
    that waited longer than :data:`BOT_TABLE_WAITS` (:data:`FULL_BOT_TABLE_WAITS` if it was
    full when opened), or any table that waited longer than
    :data:`TABLE_WAITS`, is abandoned instead (it no longer counts against the limits, so it
    may not start a match now). One with uploaded bots while the site plays its most of them
    (``limits``, else the settings') does not start yet, and waits on (:func:`start_refusal`)."""
    now = timezone.now()
    late_bots = Q(bots__gt=0, created__lt=now - BOT_TABLE_WAITS)
    late = Q(created__lt=now - TABLE_WAITS)
    rows = Table.objects.filter(pk=table.pk, state=Table.OPEN)
    if table.bots:
        _lock_bot_tables()  # (the count and the start one step, as create_table's)
    if table.bots and start_refusal(table, limits):
        won = 0  # no place on the site for it yet: it waits for one, open
    else:
        beat = shared_now()  # (its host's beats are on the database's clock: is_stale)
        won = rows.exclude(late_bots | late | late_full(now)).update(
            state=Table.PLAYING, host_channel=host_channel, started=beat, host_heartbeat=beat
        )
    if not won:
        rows.filter(late_bots).update(state=Table.ABANDONED, finished=now, error=WAITED_TOO_LONG)
        rows.filter(late).update(state=Table.ABANDONED, finished=now, error=TABLE_WAITED_TOO_LONG)
        rows.filter(late_full(now)).update(
            state=Table.ABANDONED, finished=now, error=FULL_WAITED_TOO_LONG
        )
    return bool(won)


def is_stale(table: Table) -> bool:
    """A playing table whose host has not said it is alive for a while: its process died.
    (Its host's beats, and the takeovers, are on the database's clock: :mod:`bots.clock`.)"""
    beat = table.host_heartbeat or table.started
    return table.state == Table.PLAYING and (
        beat is None or shared_now() - beat > host_stale_after()
    )


def too_old_to_resume(table: Table) -> bool:
    beat = table.host_heartbeat or table.started
    return beat is None or shared_now() - beat > resume_window()


def abandon(table: Table, reason: str) -> None:
    Table.objects.filter(pk=table.pk, state=Table.PLAYING).update(
        state=Table.ABANDONED, finished=timezone.now(), error=reason
    )


# ---- the host's plan and its end ------------------------------------------------------------
def thinking_share(table: Table) -> str:
    """Whose turns to think the table's built-in bots that think for long take
    (``host.turn_of``): those of the address it was opened from (all its guests, and the
    people signed in from it), else of the person who opened it, else its own."""
    if table.guest_address:
        return f"address:{table.guest_address}"
    if table.created_by_id is not None:
        return f"user:{table.created_by_id}"
    return f"table:{table.pk}"


def seat_plans(table: Table) -> list[SeatPlan]:
    """Who sits where, for the host (from the seats :func:`load` fetched, if it did)."""
    plans = []
    for seat in seats_of(table):
        if seat.kind == TableSeat.PERSON:
            plans.append(SeatPlan(seat.name, "human"))
        elif seat.kind == TableSeat.BUILTIN:
            plans.append(SeatPlan(seat.name, "bot", Entry(name=seat.name, builtin=seat.builtin)))
        elif seat.kind == TableSeat.BOT and seat.version is not None:
            version = seat.version
            entry = Entry(name=seat.name, code=version.code, filename=version.filename)
            plans.append(SeatPlan(seat.name, "bot", entry))
        else:
            raise TableError(f"seat {seat.seat + 1} is not taken")
    return plans


def load(**lookup: Any) -> Table | None:
    """A table with its seats (and their bots' versions) in two queries: what a socket
    needs to see and start it, without a query per question.

    The seats are a plain list on the table (:func:`seats_of`), not Django's prefetch cache:
    that cache and each seat in it point back at the table, a cycle that reference counting
    cannot free, so every table loaded would wait for the collector's next full pass."""
    table = Table.objects.filter(**lookup).first()
    if table is not None:
        table.seat_rows = _seat_rows(table.pk)  # type: ignore[attr-defined]
    return table


def seats_of(table: Table) -> list[TableSeat]:
    """``table``'s seats in order: the ones :func:`load` fetched, else fetched now."""
    rows = getattr(table, "seat_rows", None)
    return _seat_rows(table.pk) if rows is None else rows


def _seat_rows(table_id: int) -> list[TableSeat]:
    seats = TableSeat.objects.filter(table_id=table_id).select_related("version__bot")
    return list(seats.order_by("seat"))


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """What storing a finished table needs of one of its seats."""

    name: str
    user_id: int | None
    version_id: int | None
    bot_id: int | None
    builtin: str = ""


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What storing a finished table needs of it, kept by its host for the match's life in
    place of the rows (fewer objects alive per table, no query to store it)."""

    table_id: int
    game: str
    seed: int
    seats: tuple[SeatFacts, ...]
    #: the table was opened rated (whether its match is rated is decided at its end)
    rated: bool = False
    #: whose turns to think its bots take (:func:`thinking_share`)
    share: str = ""


def facts_of(table: Table) -> TableFacts:
    seats = tuple(
        SeatFacts(
            name=seat.name,
            user_id=seat.user_id if seat.kind == TableSeat.PERSON else None,
            version_id=seat.version_id if seat.kind == TableSeat.BOT else None,
            bot_id=seat.version.bot_id if seat.kind == TableSeat.BOT and seat.version else None,
            builtin=seat.builtin if seat.kind == TableSeat.BUILTIN else "",
        )
        for seat in seats_of(table)
    )
    return TableFacts(table.pk, table.game, table.seed, seats, table.rated, thinking_share(table))


def claim_and_plan(table: Table, host_channel: str) -> tuple[list[SeatPlan], TableFacts] | None:
    """Claim the start of ``table`` for this process; if this one won, its seat plans and
    what storing its end will need. The seats are read again with the table's row locked (as
    taking or leaving one does): a table whose seats changed since ``table`` was read (someone
    left, or sat down, from another page) is not started from what was read (None; the news of
    that change starts it if it is full), so the match seats who its sockets were told sit."""
    with transaction.atomic():
        Table.objects.select_for_update().values_list("pk", flat=True).get(pk=table.pk)
        read, now = getattr(table, "seat_rows", None), _seat_rows(table.pk)
        if read is not None and _sitters(read) != _sitters(now):
            return None
        table.seat_rows = now  # type: ignore[attr-defined]
        if not claim_start(table, host_channel):
            return None
    try:
        return seat_plans(table), facts_of(table)
    except TableError as exc:
        abandon(table, str(exc))
        raise


def _sitters(seats: list[TableSeat]) -> list[tuple[Any, ...]]:
    return [(s.seat, s.kind, s.user_id, s.guest, s.version_id, s.builtin) for s in seats]


# ---- resuming a table whose host died (docs/live-tables.md) ---------------------------------
def claim_resume(table: Table, host_channel: str, *, unreachable: bool = False) -> bool:
    """Take over ``table`` from the host ``table.host_channel`` names, if that host stopped
    beating (or, ``unreachable``, cannot be reached from here at all: an in-memory channel
    layer serves one process). One statement: of two processes trying, one wins."""
    now = shared_now()
    rows = Table.objects.filter(pk=table.pk, state=Table.PLAYING, host_channel=table.host_channel)
    if not unreachable:
        stale = now - host_stale_after()
        rows = rows.filter(Q(host_heartbeat__lt=stale) | Q(host_heartbeat__isnull=True))
    return bool(rows.update(host_channel=host_channel, host_heartbeat=now))


def claim_and_resume(
    table: Table, host_channel: str, *, unreachable: bool = False
) -> tuple[list[SeatPlan], TableFacts, list[tuple[int, dict[str, Any]]]] | None:
    """Claim a table in play whose host died; if this process won, its seat plans, what
    storing its end needs, and the steps of its match so far."""
    if not claim_resume(table, host_channel, unreachable=unreachable):
        return None
    try:
        return seat_plans(table), facts_of(table), steps_of(table.pk)
    except TableError as exc:
        abandon(table, str(exc))
        raise


def steps_of(table_id: int) -> list[tuple[int, dict[str, Any]]]:
    rows = TableStep.objects.filter(table_id=table_id).order_by("index")
    return list(rows.values_list("index", "step"))


def orphans(host_channel: str | None, *, unreachable: bool = False, limit: int = 20) -> list[Table]:
    """Tables in play whose host stopped beating (``unreachable``: hosted by any other
    process), the longest silent first: what a hub's sweep resumes."""
    rows = Table.objects.filter(state=Table.PLAYING)
    if unreachable:
        rows = rows.exclude(host_channel=host_channel or "")
    else:
        rows = rows.filter(host_heartbeat__lt=shared_now() - host_stale_after())
    return list(rows.order_by("host_heartbeat")[:limit])


#: a write of the steps of tables in play: ("add", table, index, step), ("cut", table,
#: index): forget the steps from index on, ("forget", table): all of them
StepWrite = tuple[Any, ...]


def write_steps(writes: list[StepWrite], hosted_by: str | None = None) -> None:
    """Carry out step writes in order; consecutive additions go in one INSERT, so a
    process holding many tables writes what they did meanwhile in one statement.

    ``hosted_by`` (a hub's channel): only the writes of tables whose row names that host are
    carried out, their rows locked meanwhile. A process that was stuck for longer than the
    stale limit, whose table another process has taken over and plays on, writes nothing
    more of it: its steps would be mixed into the new host's, and a table resumed again
    would replay moves that the new host never made."""
    if hosted_by is None:
        _write_steps(writes)
        return
    with transaction.atomic():
        ids = {write[1] for write in writes}
        kept = _still_hosted(ids, hosted_by)
        if len(kept) < len(ids):
            log.warning("event=table.steps_not_kept tables=%s: another process hosts them now",
                        ",".join(str(i) for i in sorted(ids - kept)))  # fmt: skip
        _write_steps([write for write in writes if write[1] in kept])


def _still_hosted(ids: set[int], hosted_by: str, state: str | None = None) -> set[int]:
    """Of the tables ``ids`` (in ``state``, if given), those whose row still names
    ``hosted_by`` as their host, their rows locked until the transaction ends (a claim of one
    by another process waits for it)."""
    rows = Table.objects.select_for_update().filter(pk__in=ids, host_channel=hosted_by)
    if state is not None:
        rows = rows.filter(state=state)
    return set(rows.values_list("pk", flat=True))


def _write_steps(writes: list[StepWrite]) -> None:
    added: list[TableStep] = []
    for write in writes:
        if write[0] == "add":
            _, table_id, index, step = write
            added.append(TableStep(table_id=table_id, index=index, step=untrusted.storable(step)))
            continue
        if added:
            TableStep.objects.bulk_create(added, ignore_conflicts=True)
            added = []
        steps = TableStep.objects.filter(table_id=write[1])
        if write[0] == "cut":
            steps = steps.filter(index__gte=write[2])
        steps.delete()
    if added:
        TableStep.objects.bulk_create(added, ignore_conflicts=True)


@transaction.atomic
def store_finish(facts: TableFacts, finish: Finish, hosted_by: str | None = None) -> dict[str, Any]:
    """The match of a finished table, stored like a tournament's, so that it gets a replay
    page, and rated for its people in the same transaction when it is rated (``bots.ladder.people``;
    no bot's rating moves); returns what the players are told (its link).

    ``hosted_by`` (a hub's channel): the table must be in play and hosted by it (its row is
    locked meanwhile), else nothing is stored and :class:`TableLost` is raised: a process
    stuck past the stale limit, whose table another process plays on, must not end the
    match nor rate anyone. A table this very host has stored already (the database went away
    as it committed, and the answer was lost) is not stored again: what its players are told
    is read back."""
    if hosted_by is not None and not _still_hosted({facts.table_id}, hosted_by, Table.PLAYING):
        done = (
            Table.objects.filter(
                pk=facts.table_id, host_channel=hosted_by, state=Table.FINISHED, match__isnull=False
            )
            .select_related("match")
            .first()
        )
        if done is not None:
            return told_of(done)
        raise TableLost(f"table {facts.table_id} is no longer hosted by {hosted_by}")
    if finish.played is None:
        Table.objects.filter(pk=facts.table_id).update(
            state=Table.ABANDONED, finished=timezone.now(), error=untrusted.clean_text(finish.error)
        )
        return {}
    outcome = finish.played.outcome
    match = Match.objects.create(
        game=facts.game,
        seed=facts.seed,
        record=untrusted.storable(outcome.record),
        duration_s=finish.played.duration_s,
        worker="table",
        # no bot's rating moves at a table (bots are rated from match jobs alone; people are
        # rated below, now): ``rated`` is set below to whether its people were rated
        rated=False,
    )
    reports = finish.played.seats
    # An uploaded bot (validated: it did start then) that could not start at the table was
    # most likely kept from it by the machine (its load, the sandbox's start): a result
    # against it is no person's to keep, and the fault is not stored as the bot's own (the
    # match's record keeps what happened; its end says the bot could not start).
    unstarted = {
        n
        for n, (seat, report) in enumerate(zip(facts.seats, reports, strict=True))
        if seat.version_id is not None and report.fault_kind == "startup"
    }
    rows = [
        MatchSeat(
            match=match,
            seat=n,
            bot_id=seat.bot_id,
            version_id=seat.version_id,
            user_id=seat.user_id,
            name=seat.name,
            builtin=seat.builtin,
            score=report.score,
            fault_kind="" if n in unstarted else report.fault_kind,
            fault_reason="" if n in unstarted else untrusted.clean_text(report.fault_reason),
            stderr=untrusted.clean_text(report.stderr) if seat.version_id is not None else "",
        )
        for n, (seat, report) in enumerate(zip(facts.seats, reports, strict=True))
    ]
    # (nothing of it goes into its bots' results by opponent, which count their tournament
    # matches: bots.ladder.aggregates)
    MatchSeat.objects.bulk_create(rows)
    results = [
        people.TableSeatResult(seat.user_id, seat.bot_id, seat.builtin, row.score)
        for seat, row in zip(facts.seats, rows, strict=True)
    ]
    # a resumed table some of whose people never came back (games/live/host.py): the site's
    # trouble played their turns, so no one's rating moves
    resumed_away = str(finish.extra.get("unrated", ""))
    rated = people.is_rated(facts.game, facts.rated and not unstarted and not resumed_away, results)
    capped = None
    if rated and sum(seat.user_id is not None for seat in facts.seats) >= 2:
        # the most rated tables a pair of people may play each other in a window, counted
        # with the game's people ledger held (as rating holds it): two tables of one pair
        # ending at once in two processes are counted one after the other
        people.lock_people(facts.game)
        capped = pair_capped(facts.game, list(facts.seats))
        rated = capped is None
    if rated:
        people.rate_table(facts.game, match.pk, results)
        Match.objects.filter(pk=match.pk).update(rated=True)
        match.rated = True
    # the pages at the table say whether the match was rated, as the table's page does now
    told = {"match": match.pk, "url": f"/matches/{match.pk}/", "rated": rated}
    # the seats whose end offers the solver's review: those with a decision it judges
    told["review"] = seats_to_review(facts.game, match.record)
    # the table says what its match was: rated only when its people were
    finished = {"state": Table.FINISHED, "finished": timezone.now(), "match": match, "rated": rated}
    if unstarted and facts.rated:
        names = [facts.seats[n].name for n in sorted(unstarted)]
        note = f"{' and '.join(names)} could not start, so this table is not rated."
        finished |= {"error": untrusted.clean_text(note)}
        told["note"] = note
    elif resumed_away and facts.rated:
        finished |= {"error": untrusted.clean_text(resumed_away)}
        told["note"] = resumed_away
    elif capped is not None:
        note = pair_note(facts.game, *capped)
        finished |= {"error": untrusted.clean_text(note)}
        told["note"] = note
    Table.objects.filter(pk=facts.table_id).update(**finished)
    return told


# ---- a finished table, seen again ----------------------------------------------------------
def told_of(table: Table) -> dict[str, Any]:
    """What :func:`store_finish` told the players of ``table``, a finished table with its
    match (costs the query of ``table.match`` if it did not come with the table)."""
    extra: dict[str, Any] = {
        "match": table.match_id, "url": f"/matches/{table.match_id}/", "rated": table.rated,
        "review": seats_to_review(table.game, table.match.record),
    }  # fmt: skip
    if table.error:  # why a finished table is not rated (a bot could not start)
        extra["note"] = table.error
    return extra


#: the version of the ends kept in the cache: bump it when what they hold changes
END_CACHE_VERSION = 4


def end_of(table: Table, seat: int | None) -> list[dict[str, Any]]:
    """What the page of ``seat`` (None: a spectator) was told at the end of ``table``: for a
    match played to its end, its last view of the table with the log it showed, then the
    ``over`` message (:func:`games.live.host.final_messages`, from the stored match: no
    process needs to remember it); for an abandoned table, its ``over`` with the reason, and
    ``started``: whether its match had begun (if not, the page says the table closed, not
    that a match is over).

    Costs the query of ``table.match`` at most (none if it came with the table) and of its
    seats if they did not; the end built is kept in the replay cache, per match and seat."""
    if table.state != Table.FINISHED or table.match_id is None:
        error = table.error or "this table was abandoned"
        # no match stored, none rated
        return [{"type": "over", "error": error, "rated": False, "started": bool(table.started)}]
    # the token too: a match's number may come again in another database, a token not
    audience = "public" if seat is None else seat
    key = f"table-end:{END_CACHE_VERSION}:{table.token}:{table.match_id}:{audience}"
    found = kept([key], "table_end").get(key)
    if found is not None:
        return found
    extra = told_of(table)
    names = [s.name for s in seats_of(table)]
    try:
        messages = final_messages(get_game(table.game), table.match.record, seat, names, extra)
    except Exception:  # a record the game's code no longer replays: the end without the table
        log.exception("event=table_end.replay_failed table=%s match=%s", table.pk, table.match_id)
        # the result as the seat saw it at the table: the game keeps secret what it must
        result = table.match.public_record(seat).get("result", {})
        return [result_message(get_game(table.game).table(), result, seat, names, extra)]
    keep({key: messages}, "table_end")
    return messages
