"""The bot playground: a person's code tried against opponents of their choice, in the sandbox
on a worker, outside the competition (docs/playground.md).

The web only checks what was asked and queues a row (:func:`submit`: the limits of
:class:`Limits`, the person's worker time of the hour, the opponents, the code's size and
encoding, whether its text is clearly a bot of another game; the code never runs there, not
even to be checked). A worker (``bots.worker``) claims the next waiting run in turn by owner
(:func:`claim`, :func:`the_queue`; with a lease its heartbeat extends, as match jobs are),
plays its matches one by one in the sandbox (:func:`play_run`, each charged its bots' own time:
:func:`match_charge`) and writes each as soon as it is played (:func:`store_match`), only while
the run is still its own; a run whose worker died is taken by another when the lease runs out,
and goes on from the matches stored. A bot that cannot even load (a syntax error, no ``Bot``
class) ends the run as *failed* after its first match, with the loading error as the reason;
anything else a bot does is its fault in that match, and the run goes on.

Nothing here writes a :class:`~bots.models.Match`, a seat, a rating, a leaderboard row or a
result by opponent: a playground run has tables of its own
(:class:`~bots.models.PlaygroundRun`, :class:`~bots.models.PlaygroundMatch`).

This module names no game (tests/engine/test_one_package.py checks).
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import secrets
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import cache
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from bots.clock import shared_now
from bots.competition import leases, uploads
from bots.competition.leases import Caps, Claim
from bots.competition.uploads import LANGUAGE_SUFFIX, UploadError, check_code
from bots.languages import default_language, get_language, spoken
from bots.models import HOUSE, BotVersion, PlaygroundMatch, PlaygroundRun, builtin_label
from bots.running.contract import check_before_play
from bots.running.playing import (
    LAUNCH_ERRORS,
    CodeFolder,
    Entry,
    Played,
    ProcessCache,
    play,
    seat_agent,
    shutdown_faults,
)
from bots.running.process import PlatformError
from bots.running.timing import site_time_control
from bots.running.which_game import OtherGame, for_another_game
from bots.sandbox import compiling
from games.engine import untrusted
from games.engine.spec import GameSpec
from games.engine.table import hour_wait, minutes, plural
from games.engine.tournament import derive_seed
from games.records import refused
from games.registry import get_game

log = logging.getLogger("bots.playground")

T = TypeVar("T")

#: the largest seed a run takes (a PostgreSQL bigint holds it)
MAX_SEED = 2**62
#: how the person's bot is named in its matches
YOUR_BOT = "your bot"
#: the fault kind of a bot that could not start: the host's "fatal" hello (the file did not
#: load), a launch refused, or its constructor raised
LOAD_FAULT = "startup"


# ------------------------------------------------------------------------------------ limits
@dataclass(frozen=True)
class Limits:
    """One kind of person's limits (settings ``PLAYGROUND_*``; guests have their own)."""

    #: runs started in any hour
    runs_per_hour: int
    #: matches in one run
    max_matches: int
    #: runs queued or running at once
    max_open: int
    #: seconds of worker time one run may use (0: no bound): past it, its other matches are
    #: not played
    run_seconds: int = 0
    #: seconds of worker time the person's runs may use in any hour (0: no bound), counted
    #: from the runs' charged time (:func:`hour_budget`); a guest's is their address's,
    #: shared by every guest of it
    seconds_per_hour: int = 0

    @classmethod
    def for_person(cls, guest: bool) -> Limits:
        prefix = "PLAYGROUND_GUEST_" if guest else "PLAYGROUND_"
        defaults = (5, 10, 1, 60) if guest else (20, 50, 2, 300)
        names = ("RUNS_PER_HOUR", "MAX_MATCHES", "MAX_OPEN", "RUN_SECONDS")
        values = [
            int(getattr(settings, prefix + name, default))
            for name, default in zip(names, defaults, strict=True)
        ]
        hourly = (
            ("PLAYGROUND_GUEST_ADDRESS_SECONDS_PER_HOUR", 300)
            if guest
            else ("PLAYGROUND_SECONDS_PER_HOUR", 900)
        )
        return cls(*values, seconds_per_hour=max(0, int(getattr(settings, *hourly))))


@dataclass(frozen=True)
class AddressLimits:
    """What the guests of one client address may have together, whatever their sessions
    (a new session costs nothing): settings ``PLAYGROUND_GUEST_ADDRESS_*``."""

    #: runs started in any hour
    runs_per_hour: int
    #: runs queued or running at once
    max_open: int

    @classmethod
    def from_settings(cls) -> AddressLimits:
        return cls(
            int(getattr(settings, "PLAYGROUND_GUEST_ADDRESS_RUNS_PER_HOUR", 10)),
            int(getattr(settings, "PLAYGROUND_GUEST_ADDRESS_MAX_OPEN", 2)),
        )


def guests_open_limit() -> int:
    """Runs of all guests queued or running at once: a guest is only a session, which anyone
    can make afresh, so guests together get a bounded share of the workers."""
    return int(getattr(settings, "PLAYGROUND_GUESTS_OPEN", 20))


def open_limit() -> int:
    """Runs of everyone queued or running at once (0: no bound): what the queue holds, so
    that taking a run in turn (:func:`the_queue`) reads a bounded number of rows."""
    return int(getattr(settings, "PLAYGROUND_OPEN", 200))


def keep_days(guest: bool) -> int:
    """Days a finished run is kept (settings ``PLAYGROUND_KEEP_DAYS``, and
    ``PLAYGROUND_GUEST_KEEP_DAYS`` for a guest's: a guest cannot come back to it anyway once
    their session is gone)."""
    name, default = ("PLAYGROUND_GUEST_KEEP_DAYS", 7) if guest else ("PLAYGROUND_KEEP_DAYS", 30)
    return int(getattr(settings, name, default))


def max_claims() -> int:
    """Claims of a run whose worker stopped each time before it fails (few: a run that
    kills its worker will do it again)."""
    return int(getattr(settings, "PLAYGROUND_MAX_CLAIMS", 3))


class PlaygroundError(ValueError):
    """What was asked cannot be played (an unknown opponent, too many matches...): the
    message says what, in one sentence, for the form."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Refused(PlaygroundError):
    """A limit of the person's is reached; the message says which and when it frees up."""


class ForAnotherGame(PlaygroundError):
    """The code is clearly a bot of another game (:mod:`bots.running.which_game`, its text
    read, never run): the message says which, and to use that game's playground (``found``:
    the games, which the page links)."""

    def __init__(self, found: OtherGame) -> None:
        super().__init__(f"{found.why} {found.advice('playground')}", "code")
        self.found = found


# ---------------------------------------------------------------------------- what a game takes
def languages(spec: GameSpec) -> list[str]:
    """The languages a game's bots may be written in: those it offers a starter in (its
    spec's ``starters``), of the languages the site runs."""
    return [language for language in spec.starters if language in LANGUAGE_SUFFIX]


@dataclass(frozen=True)
class Opponent:
    """An opponent a person may pick: a built-in bot or an active uploaded one."""

    #: what the form sends: ``builtin:<name>`` or ``bot:<bot id>``
    value: str
    name: str
    builtin: str | None = None
    version: int | None = None
    #: a built-in's other value: ``bot:<id>`` of the house's uploaded copy it stands for
    #: (:func:`opponents_of`), which a link from that bot's page names it by
    also: str | None = None

    def stored(self) -> dict[str, Any]:
        if self.builtin is not None:
            return {"builtin": self.builtin, "name": self.name}
        return {"version": self.version, "name": self.name}


#: the uploaded bots the form lists besides the built-ins and the person's own: the best
#: ranked of the game's leaderboard (a game with a thousand bots is not a list of a thousand
#: boxes); any other active bot is picked from its page (``?opponent=bot:<id>``)
LISTED_BOTS = 20

#: a form's value for an uploaded bot
BOT_VALUE = re.compile(r"bot:([1-9][0-9]{0,17})")


def _uploaded(versions: Any, builtins: Sequence[str] = ()) -> list[Opponent]:
    """Uploaded bots as opponents; one named as a built-in is (the house's entry of a
    built-in whose code has changed since: its new version is being validated) is told
    apart by its version number."""
    return [
        Opponent(
            f"bot:{v.bot_id}",
            f"{v.bot.label} (version {v.number})" if v.bot.label in builtins else v.bot.label,
            version=v.pk,
        )
        for v in versions
    ]


def _active(game: str) -> Any:
    return (
        BotVersion.objects.filter(bot__game=game, status=BotVersion.ACTIVE)
        .select_related("bot", "bot__owner")
        .only("id", "number", "bot__id", "bot__name", "bot__owner__username")
    )


@cache
def _builtin_checksum(game: str, name: str) -> str:
    """The checksum of a built-in bot's code (as ``BotVersion.checksum_of`` makes it)."""
    return BotVersion.checksum_of(get_game(game).builtin_path(name).read_text())


def _house_copies(spec: GameSpec) -> dict[str, BotVersion]:
    """The active versions the house entered of the game's built-in bots (``seed_builtins``,
    so that they are ranked) whose code is the built-in's own, by built-in name: the same
    bots as the built-ins. A copy of older code (the built-in changed since) is another bot."""
    found = (
        BotVersion.objects.filter(
            bot__game=spec.slug,
            bot__owner__username=HOUSE,
            bot__name__in=spec.builtin_names,
            status=BotVersion.ACTIVE,
        )
        .select_related("bot", "bot__owner")
        .only("id", "checksum", "bot__id", "bot__name", "bot__owner__username")
    )
    return {v.bot.name: v for v in found if v.checksum == _builtin_checksum(spec.slug, v.bot.name)}


def opponents_of(game: str, *, user: Any = None, include: Sequence[str] = ()) -> list[Opponent]:
    """The opponents the form offers: the game's built-in bots, then the :data:`LISTED_BOTS`
    best ranked active bots, the person's own active bots, and the active bots ``include``
    names (``bot:<id>``: picked from a bot's page, or sent back by a form), each once. Three
    queries whatever the number of bots.

    The house's uploaded copy of a built-in (:func:`_house_copies`) is the built-in itself:
    it is listed once, as the built-in (played as the arena plays it), under the name every
    page gives it (``house/strong``: :func:`~bots.models.builtin_label`)."""
    spec = get_game(game)
    copies = _house_copies(spec)
    offered = []
    for name in spec.builtin_names:
        copy = copies.get(name)
        offered.append(
            Opponent(
                f"builtin:{name}",
                builtin_label(name),
                builtin=name,
                also=f"bot:{copy.bot_id}" if copy else None,
            )
        )
    ranked = _active(game).filter(bot__leaderboard_row__rank__gt=0)
    ranked = ranked.exclude(pk__in=[v.pk for v in copies.values()])
    builtins = [o.name for o in offered]
    offered += _uploaded(ranked.order_by("bot__leaderboard_row__rank")[:LISTED_BOTS], builtins)
    wanted = Q(bot_id__in=[int(m[1]) for v in include if (m := BOT_VALUE.fullmatch(str(v)))])
    if user is not None and getattr(user, "pk", None) is not None:
        wanted |= Q(bot__owner=user)
    shown = {o.value for o in offered} | {o.also for o in offered if o.also}
    more = _active(game).filter(wanted).order_by("bot__owner__username", "bot__name")
    offered += [o for o in _uploaded(more, builtins) if o.value not in shown]
    return offered


def table_size(spec: GameSpec, opponents: int) -> int:
    """Seats at each of the run's tables: one for a game played alone, two (one opponent
    each time, in turn) for a two-seat game, else the person's bot and all the opponents."""
    if spec.plays_alone:
        return 1
    if spec.state_class.max_seats == 2:
        return 2
    return 1 + opponents


def check_opponents(spec: GameSpec, chosen: Sequence[str]) -> list[Opponent]:
    """The opponents the form's values name, in order, each once; PlaygroundError if one is
    unknown (or not of this game, or no longer active) or if the game cannot seat them."""
    if spec.plays_alone:
        if chosen:
            raise PlaygroundError(
                f"{spec.title} is played alone against the dealer: it takes no opponents.",
                "opponents",
            )
        return []
    listed = opponents_of(spec.slug, include=chosen)
    # the house's copy of a built-in is the built-in, listed once (see opponents_of)
    aliases = {o.also: o.value for o in listed if o.also}
    chosen = list(dict.fromkeys(aliases.get(v, v) for v in chosen))
    offered = {o.value: o for o in listed}
    picked: list[Opponent] = []
    for value in chosen:
        if value not in offered:
            raise PlaygroundError(
                f"{untrusted.clean_text(str(value))[:60]!r} is not an opponent in {spec.title}: "
                "choose among its built-in bots and its active bots.",
                "opponents",
            )
        picked.append(offered[value])
    if not picked:
        raise PlaygroundError("Choose at least one opponent.", "opponents")
    least, most = spec.state_class.min_seats - 1, spec.state_class.max_seats - 1
    if spec.state_class.max_seats > 2 and not least <= len(picked) <= most:
        raise PlaygroundError(
            f"A table of {spec.title} seats {least} to {most} opponents besides your bot; "
            f"you chose {len(picked)}.",
            "opponents",
        )
    return picked


# ---------------------------------------------------------------------------- the web's side
def new_key() -> str:
    return secrets.token_urlsafe(16)


def _owned(user: Any, guest: str) -> Q:
    return Q(user=user) if user is not None else Q(user__isnull=True, guest=guest)


def _lock_person(user: Any, guest: str, guest_address: str = "") -> None:
    """Inside a transaction: hold the person's runs (a guest's, and those of their address)
    until it ends, so that two requests at once count each other (PostgreSQL; SQLite's
    transactions are one at a time anyway). Always the address first, then the session: no
    two requests wait for each other's."""
    if connection.vendor == "postgresql":
        if user is not None:
            whos = [f"user:{user.pk}"]
        else:
            whos = [f"address:{guest_address}"] if guest_address else []
            whos.append(f"guest:{guest}")
        with connection.cursor() as cursor:
            for who in whos:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(who.encode())])


def _hour_wait(runs: Any, per_hour: int, now: Any) -> tuple[int, str] | None:
    """Of ``runs``: (how many started in the last hour, the wait until another may) if that
    is ``per_hour`` or more, else None."""
    recent = list(
        runs.filter(created__gt=now - timedelta(hours=1))
        .order_by("created")
        .values_list("created", flat=True)
    )
    wait = hour_wait(recent, per_hour, now)
    return None if wait is None else (len(recent), minutes(wait))


#: what a guest refused for their address's limit may do besides waiting
SIGN_IN = "or log in (logged-in people have a limit of their own)"


# ---------------------------------------------------------------------- whose a run is
def owner_of(user_id: int | None, guest: str, guest_address: str) -> str:
    """Whose turn a run takes in the queue, and whose hour of worker time it uses: a
    signed-in person's, else the guests' of its client address (a new session costs
    nothing), else its guest's alone (no address known)."""
    if user_id is not None:
        return f"user:{user_id}"
    return f"address:{guest_address}" if guest_address else f"guest:{guest}"


def _owners_rows(owners: set[str]) -> Q:
    """The runs of these owners (:func:`owner_of`)."""
    found = Q(pk__in=[])
    kinds: dict[str, list[str]] = {"user": [], "address": [], "guest": []}
    for owner in owners:
        kind, _, value = owner.partition(":")
        kinds[kind].append(value)
    if kinds["user"]:
        found |= Q(user_id__in=[int(v) for v in kinds["user"]])
    if kinds["address"]:
        found |= Q(user__isnull=True, guest_address__in=kinds["address"])
    if kinds["guest"]:
        found |= Q(user__isnull=True, guest_address="", guest__in=kinds["guest"])
    return found


def _recent_use(owners: set[str], now: Any) -> dict[str, list[tuple[Any, float]]]:
    """The runs of these owners that ended in the last hour: (when, seconds of worker time
    charged), by owner (one query, by the index of finished runs)."""
    rows = PlaygroundRun.objects.filter(
        _owners_rows(owners),
        finished__gt=now - timedelta(hours=1),
    ).exclude(status__in=PlaygroundRun.OPEN)
    found: dict[str, list[tuple[Any, float]]] = {owner: [] for owner in owners}
    fields = ("user_id", "guest", "guest_address", "finished", "worker_s")
    for user_id, guest, address, finished, used in rows.values_list(*fields):
        found.setdefault(owner_of(user_id, guest, address), []).append((finished, used))
    return found


def held_s(bound: int, used: float) -> float:
    """Seconds of worker time an open run holds of its person's hour: its whole bound until
    it ends (what it used, if that is more, or if it has no bound)."""
    return max(float(bound), used) if bound else used


@dataclass(frozen=True)
class HourBudget:
    """Where an owner stands with their worker time of the hour (``Limits.seconds_per_hour``),
    counted in the database: the runs that ended in the last hour (their charged
    ``worker_s``) and those queued or running (each holds its whole bound until it ends)."""

    #: seconds allowed an hour
    allowed: int
    #: seconds used: by the runs that ended in the last hour, and so far by the open ones
    used: float
    #: seconds the open runs may still use (their bounds, less what they used)
    held: float
    #: when enough of the runs that ended have left the hour for a new run to have a
    #: second, None if the open runs alone hold too much for that
    frees_at: Any

    @property
    def left(self) -> int:
        """Whole seconds a new run may have of the hour now."""
        return max(0, math.floor(self.allowed - self.used - self.held))


def hour_budget(owner: str, allowed: int, now: Any) -> HourBudget:
    """:class:`HourBudget` of an owner (:func:`owner_of`) allowed ``allowed`` seconds an hour."""
    rows = PlaygroundRun.objects.filter(_owners_rows({owner}), status__in=PlaygroundRun.OPEN)
    used = held = 0.0
    for bound, spent in rows.values_list("worker_seconds", "worker_s"):
        used += spent
        held += held_s(bound, spent) - spent
    ended = sorted(_recent_use({owner}, now).get(owner, []), key=lambda row: row[0])
    used += sum(spent for _, spent in ended)
    # the runs that ended leave the hour oldest first; the open ones hold theirs meanwhile
    over = used + held - (allowed - 1)
    frees_at = now
    for finished, spent in ended:
        if over <= 0:
            break
        over -= spent
        frees_at = finished + timedelta(hours=1)
    return HourBudget(allowed, used, held, frees_at if over <= 0 else None)


def _budget_owner(user: Any, guest: str, guest_address: str) -> str:
    return owner_of(user.pk if user is not None else None, guest, guest_address)


def budget_refusal(budget: HourBudget, owner: str, now: Any) -> str:
    """Why a new run is refused by its owner's hour of worker time ("": it is not), and when
    it may start."""
    if budget.left >= 1:
        return ""
    address = owner.startswith("address:")
    who = "Guests from your address have" if address else "Your runs have"
    their = "their" if address else "your"
    held = round(budget.held)
    if round(budget.used) or not held:
        said = f"{who} used {round(budget.used)} s of worker time in the last hour"
        if held:
            said += f", and {their} runs queued or running may use {held} s more"
    else:
        whose = "The runs of guests from your address" if address else "Your runs"
        said = f"{whose} queued or running may use {held} s of worker time"
    said += f" ({budget.allowed} s allowed an hour); you can start another "
    if budget.frees_at is not None:
        said += f"in {minutes((budget.frees_at - now).total_seconds())}"
    else:
        said += f"at the latest an hour after {their} runs queued or running end"
    return said + (f", {SIGN_IN}." if address else ".")


def refusal(user: Any, guest: str, limits: Limits, guest_address: str = "") -> str:
    """Inside the person's lock: why a new run of theirs is refused now ("": it is not). A
    guest is counted by their session, then with every guest of their client address
    (``guest_address``, its keyed hash: :class:`AddressLimits`), then with all guests; the
    worker time of the hour is a signed-in person's own, and a guest's address's
    (:func:`hour_budget`); last, the runs of everyone (:func:`open_limit`)."""
    mine = PlaygroundRun.objects.filter(_owned(user, guest))
    open_runs = mine.filter(status__in=PlaygroundRun.OPEN).count()
    if open_runs >= limits.max_open:
        return (
            f"You have {plural(open_runs, 'run')} queued or running, the "
            f"most allowed ({limits.max_open}); you can start another when one of them ends."
        )
    now = timezone.now()
    if waits := _hour_wait(mine, limits.runs_per_hour, now):
        return (
            f"You have started {waits[0]} runs in the last hour, the most allowed "
            f"({limits.runs_per_hour} an hour); you can start another in {waits[1]}."
        )
    if user is None and guest_address:
        shared = AddressLimits.from_settings()
        address = PlaygroundRun.objects.filter(user__isnull=True, guest_address=guest_address)
        open_runs = address.filter(status__in=PlaygroundRun.OPEN).count()
        if open_runs >= shared.max_open:
            return (
                f"Guests from your address have {plural(open_runs, 'run')} queued or running, the "
                f"most allowed ({shared.max_open}); you can start another when one of them "
                f"ends, {SIGN_IN}."
            )
        if waits := _hour_wait(address, shared.runs_per_hour, now):
            return (
                f"Guests from your address have started {waits[0]} runs in the last hour, the "
                f"most allowed ({shared.runs_per_hour} an hour); you can start another in "
                f"{waits[1]}, {SIGN_IN}."
            )
    if limits.seconds_per_hour:
        owner = _budget_owner(user, guest, guest_address)
        budget = hour_budget(owner, limits.seconds_per_hour, now)
        if said := budget_refusal(budget, owner, now):
            return said
    if user is None:
        guests = PlaygroundRun.objects.filter(user__isnull=True, status__in=PlaygroundRun.OPEN)
        if guests.count() >= guests_open_limit():
            return (
                f"Guests have {guests_open_limit()} runs queued or running, the most allowed "
                f"at once; you can start another when one of them ends, {SIGN_IN}."
            )
    everyone = open_limit()
    if everyone and PlaygroundRun.objects.filter(status__in=PlaygroundRun.OPEN).count() >= everyone:
        return (
            f"The playground has {everyone} runs queued or running, the most it takes at "
            "once; you can start another when one of them ends."
        )
    return ""


def run_bound(user: Any, guest: str, limits: Limits, guest_address: str = "") -> int:
    """Inside the person's lock, once :func:`refusal` let the run in: the seconds of worker
    time a new run may use (0: no bound): the person's bound of a run, or what their hour
    has left if that is less."""
    bound = max(0, limits.run_seconds)
    if not limits.seconds_per_hour:
        return bound
    owner = _budget_owner(user, guest, guest_address)
    left = max(1, hour_budget(owner, limits.seconds_per_hour, timezone.now()).left)
    return min(bound, left) if bound else left


def submit(
    *,
    user: Any,
    guest: str,
    game: str,
    language: str,
    code: bytes,
    opponents: Sequence[str],
    seed: int,
    matches: int,
    filename: str = "",
    guest_address: str = "",
) -> PlaygroundRun:
    """Queue a run for a user (``user``) or a guest (``guest``: their session's token;
    ``guest_address``: the keyed hash of their client's address, ``address_key``).
    Raises :class:`PlaygroundError` for what cannot be played, :class:`Refused` when a limit
    of the person's is reached. The code is checked as an upload's is (size, UTF-8, no NUL;
    a file of ``filename``'s suffix that its language keeps wrapped, wrapped; one clearly for
    another game refused: :class:`ForAnotherGame`, before the person's limits, so that it
    costs no run) and never run here."""
    if user is None and not guest:
        raise PlaygroundError("A run belongs to a logged-in person or a guest's session.")
    try:
        spec = get_game(game)
    except KeyError:
        raise PlaygroundError(f"There is no game {untrusted.clean_text(game)[:40]!r}.") from None
    taken = languages(spec)
    if language not in taken:
        raise PlaygroundError(
            f"{spec.title} bots are written in {' or '.join(taken)}, not "
            f"{untrusted.clean_text(str(language))[:20]!r}.",
            "language",
        )
    limits = Limits.for_person(guest=user is None)
    if not 1 <= matches <= limits.max_matches:
        who = "a guest's run" if user is None else "a run"
        more = " (log in for more)" if user is None else ""
        raise PlaygroundError(
            f"Choose 1 to {limits.max_matches} matches: the most {who} plays{more}.", "matches"
        )
    if not 0 <= seed < MAX_SEED:
        raise PlaygroundError(f"The seed is a whole number from 0 to {MAX_SEED - 1}.", "seed")
    try:
        text = check_code(code, filename, language)
    except UploadError as exc:
        said = str(exc)  # a sentence of its own ("Your file is 326 KiB; ..."), or a phrase
        raise PlaygroundError(
            said if said[:1].isupper() else f"The code: {said}.", "code"
        ) from None
    if found := for_another_game(text, language, spec):
        raise ForAnotherGame(found)  # (before the person's limits: no run is counted)
    picked = check_opponents(spec, opponents)
    with transaction.atomic():
        guest_address = "" if user is not None else guest_address
        _lock_person(user, guest, guest_address)
        if reason := refusal(user, guest, limits, guest_address):
            raise Refused(reason)
        run = PlaygroundRun.objects.create(
            key=new_key(),
            user=user,
            guest="" if user is not None else guest,
            guest_address=guest_address,
            worker_seconds=run_bound(user, guest, limits, guest_address),
            game=game,
            language=language,
            code=text,
            opponents=[o.stored() for o in picked],
            seed=seed,
            matches=matches,
        )
    log.info("event=playground.queued run=%s game=%s matches=%d", run.pk, game, matches)
    return run


def find(key: str) -> PlaygroundRun | None:
    return PlaygroundRun.objects.filter(key=key).first()


def form_values(run: PlaygroundRun) -> list[str]:
    """The form's values (:attr:`Opponent.value`) of a run's opponents, in order, to start
    another run against them: a built-in by its name, an uploaded bot by the bot (the form
    offers its active version; one no longer active is offered no more, and left out)."""
    versions = [o["version"] for o in run.opponents if o.get("version") is not None]
    bots = dict(BotVersion.objects.filter(pk__in=versions).values_list("pk", "bot_id"))
    values = []
    for stored in run.opponents:
        if stored.get("builtin") is not None:
            values.append(f"builtin:{stored['builtin']}")
        elif stored.get("version") in bots:
            values.append(f"bot:{bots[stored['version']]}")
    return values


def is_waiting(run: PlaygroundRun) -> bool:
    """Queued, or taken by a worker whose lease ran out (another will take it over)."""
    if run.status == PlaygroundRun.QUEUED:
        return True
    return run.status == PlaygroundRun.RUNNING and (
        run.lease_until is None or run.lease_until < shared_now()
    )


# ------------------------------------------------------------------------------- the queue
@dataclass(frozen=True)
class Queued:
    """An open run as the queue sees it."""

    pk: int
    owner: str
    #: seconds of worker time it may still use (None: no bound)
    left: float | None


@dataclass(frozen=True)
class Queue:
    """The open runs: those waiting, in the order the workers take them, and those being
    played now."""

    waiting: list[Queued]
    playing: list[Queued]

    def place(self, pk: int) -> int | None:
        """A waiting run's index in :attr:`waiting` (0: the next one taken), None if it is
        not waiting."""
        return next((n for n, queued in enumerate(self.waiting) if queued.pk == pk), None)


def the_queue(now: Any = None) -> Queue:
    """The open runs (two queries; no more than :func:`open_limit` of them). The waiting are
    taken in turn by owner (:func:`owner_of`: a person, or the guests of an address), not
    oldest first: each owner's runs are numbered from its runs being played (0: none), and
    the lowest number goes first, then the owner who used the least worker time in the last
    hour (:func:`_recent_use`, the open runs' too), then the oldest run. So a person who
    queued many runs, or used much of the workers lately, waits behind everyone's next run.
    Every worker on every machine reads the same rows, so it sees the same order (``now``:
    :func:`bots.clock.shared_now`, the clock of the leases)."""
    now = now or shared_now()
    fields = (
        "id", "user_id", "guest", "guest_address", "worker_seconds", "worker_s", "status",
        "lease_until",
    )  # fmt: skip
    rows = PlaygroundRun.objects.filter(status__in=PlaygroundRun.OPEN).order_by("id")
    waiting: list[Queued] = []
    playing: list[Queued] = []
    used: dict[str, float] = {}
    for pk, user_id, guest, address, bound, spent, status, lease in rows.values_list(*fields):
        owner = owner_of(user_id, guest, address)
        queued = Queued(pk, owner, max(bound - spent, 0.0) if bound else None)
        # waiting (is_waiting): queued, or running with a lease that ran out
        taken = status == PlaygroundRun.RUNNING and lease is not None and lease >= now
        (playing if taken else waiting).append(queued)
        used[owner] = used.get(owner, 0.0) + spent
    if not waiting:
        return Queue([], playing)
    owners = {queued.owner for queued in waiting}
    for owner, ended in _recent_use(owners, now).items():
        used[owner] = used.get(owner, 0.0) + sum(spent for _, spent in ended)
    turns: dict[str, int] = {}
    for queued in playing:
        turns[queued.owner] = turns.get(queued.owner, 0) + 1
    keys = {}
    for queued in waiting:  # oldest first: each owner's runs numbered in their order
        turn = turns.get(queued.owner, 0)
        turns[queued.owner] = turn + 1
        keys[queued.pk] = (turn, used.get(queued.owner, 0.0), queued.pk)
    waiting.sort(key=lambda queued: keys[queued.pk])
    return Queue(waiting, playing)


def queue_position(run: PlaygroundRun) -> int:
    """A waiting run's place in the queue (1: the next one a worker takes)."""
    place = the_queue().place(run.pk)
    return 1 if place is None else place + 1


@dataclass(frozen=True)
class OtherWork:
    """What the workers do besides playground runs, now and waiting (:func:`other_work`)."""

    #: uploads being validated now, and waiting for a worker
    checking: int = 0
    uploads: int = 0
    #: tournament matches: being played now, waiting for a worker
    matches_now: bool = False
    matches: bool = False
    #: solves of the strategy explorer: being run now, waiting for a worker
    solving: int = 0
    solves: int = 0


@dataclass(frozen=True)
class Wait:
    """What a waiting run waits for: the runs ahead of it, and the other work the workers
    do first (:func:`wait_of`)."""

    #: its place in the queue (1: the next one a worker takes)
    position: int
    #: runs ahead of it: the waiting runs a worker takes first, and those being played
    ahead: int
    #: of those, the runs being played
    playing: int
    #: the most worker time any of them may still use, seconds (None: one has no bound)
    longest: float | None
    #: the workers' other work: being done now, and what of the waiting work (uploads to
    #: check, whether tournament matches, solves) they may take before it
    before: OtherWork = OtherWork()
    #: seconds until a worker may take it again (given back for the site's trouble:
    #: :func:`give_back`), None if it may be taken now
    retry_in: float | None = None


def other_work(now: Any) -> OtherWork:
    """The workers' other work (a few short counts, each through an index)."""
    from bots import competition
    from games import solves
    from games.models import SolveJob

    waiting_solves = SolveJob.objects.filter(leases.claimable(now))
    return OtherWork(
        checking=uploads.validations_running(now),
        uploads=uploads.validations_waiting(now),
        matches_now=competition.jobs_playing(now),
        matches=competition.jobs_waiting(now),
        solving=SolveJob.objects.filter(solves.live_running()).count(),
        solves=waiting_solves.count(),
    )


def wait_of(run: PlaygroundRun) -> Wait:
    """What a waiting run waits for: the runs ahead of it (:func:`the_queue`), and the other
    work a worker does first. A worker takes turns (``bots.worker.Worker.other_work``): after
    an upload's check it takes a run, after a run a batch of tournament matches, after
    matches the next check; a kind with nothing waiting passes its turn on; and it may run a
    solve of the strategy explorer before any of them (never two in a row). So between now
    and this run's turn (after the runs ahead of it), a worker checks at most one upload and
    plays at most one batch of matches before each of those runs and before this one (none
    before the first run if what it does now is an upload's check, after which a run comes;
    no batch if it plays matches now), and runs at most one solve before each piece of that
    work: the most of each that may come first, none of them certain."""
    now = shared_now()
    queue = the_queue(now)
    place = queue.place(run.pk)
    place = len(queue.waiting) if place is None else place
    ahead = queue.waiting[:place] + queue.playing
    lefts = [queued.left for queued in ahead]
    longest = None if None in lefts else max((left or 0.0 for left in lefts), default=0.0)
    retry_in = None
    if run.status == PlaygroundRun.QUEUED and run.lease_until is not None:
        left = (run.lease_until - now).total_seconds()
        retry_in = left if left > 0 else None
    work = other_work(now)
    checking_only = work.checking and not queue.playing and not work.matches_now
    matches_only = work.matches_now and not queue.playing and not work.checking
    # turns of each kind a worker gives before this run's (one per run ahead, and one more)
    checks = place if checking_only else place + 1
    batches = place if checking_only or matches_only else place + 1
    checked = min(work.uploads, checks)
    played = batches if work.matches else 0
    pieces = place + checked + played  # other work begun from now before this run
    return Wait(
        place + 1,
        len(ahead),
        len(queue.playing),
        longest,
        before=replace(
            work, uploads=checked, matches=bool(played), solves=min(work.solves, pieces + 1)
        ),
        retry_in=retry_in,
    )


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def wait_text(wait: Wait) -> str:
    """A waiting run's wait in words: how many runs are ahead of it and how long each may
    take (the most worker time any of them may still use), what else the workers are doing
    now, and what they may do before it (:func:`wait_of`); "yours is next" only when
    nothing may come first."""
    if wait.retry_in is not None:
        return (
            "the site had trouble playing it (not your bot's doing), so it is tried again in "
            f"{max(1, math.ceil(wait.retry_in))} s at the earliest"
        )
    parts = []
    if wait.ahead:
        said = f"{plural(wait.ahead, 'run')} ahead of yours"
        if wait.playing:
            said += (
                ", being played"
                if wait.ahead == 1
                else f", {wait.playing} of them being played"
                if wait.playing < wait.ahead
                else ", all being played"
            )
        if wait.longest is not None:
            each = "it" if wait.ahead == 1 else "each"
            said += f"; {each} may take up to {minutes(wait.longest)} of a worker's time"
        parts.append(said)
    work = wait.before
    now = []
    if work.checking:
        now.append(f"{plural(work.checking, 'upload')} {_are(work.checking)} being checked")
    if work.matches_now:
        now.append("tournament matches are being played")
    if work.solving:
        solves = plural(work.solving, "solve")
        now.append(f"{solves} of the strategy explorer {_are(work.solving)} being run")
    may = []
    if work.uploads:
        more = " more" if work.checking else ""
        may.append(f"check {work.uploads}{more} upload{'s' if work.uploads != 1 else ''}")
    if work.matches:
        may.append("play some tournament matches")
    if work.solves:
        may.append(f"run {plural(work.solves, 'solve')} of the strategy explorer")
    if now:
        parts.append(spoken(now, "and"))
    if may:
        if parts:
            parts.append(f"a worker may also {spoken(may, 'and')} before yours")
        else:
            parts.append(f"a worker may first {spoken(may, 'and')}, then take yours")
        return "; ".join(parts)
    if not parts:
        return "yours is next"
    if now and not wait.ahead:
        return f"{parts[0]} first, then yours"
    return "; ".join(parts)


def owns(run: PlaygroundRun, user: Any, guest: str) -> bool:
    """Whether the person asking started the run."""
    if run.user_id is not None:
        return user is not None and run.user_id == user.pk
    return bool(guest) and secrets.compare_digest(run.guest, guest)


# ---------------------------------------------------------------------------- the worker's side
def caps(errors: int) -> Caps:
    return Caps(errors=errors, claims=max_claims())


def _give_up(run: PlaygroundRun, verdict: str, reached: str) -> None:
    rows = PlaygroundRun.objects.filter(pk=run.pk, attempts=run.attempts)
    leases.end(rows, PlaygroundRun.FAILED, reason=given_up_text(run, reached))
    log.warning("event=playground.given_up run=%s reason=%r", run.pk, verdict)


#: the site's trouble a run's tries were stopped by, in words for people, by how the
#: platform's reason begins (its details, the operator's, are logged)
TROUBLE_WORDS = (
    (("no free sandbox slot",), "every place the site runs bots in was taken"),
    (
        ("the bot's process was killed by SIGKILL from outside",),
        "a bot's process was stopped from outside the bot (the machine ran short of memory, "
        "or an operator stopped it)",
    ),
    (
        (
            "the bot's process was sent",
            "the bot's process was killed by SIGTERM",
            "the bot's process was killed by SIGINT",
            "the bot's process was killed by SIGHUP",
        ),
        "a bot's process was stopped from outside the bot (an operator, or the site's "
        "service manager)",
    ),
    (
        ("the machine is too busy", "the process playing the match was held up"),
        "the site's machine was too busy to give the bots their time",
    ),
    (("the sandbox did not start within",), "the site's machine was too busy to start the bots"),
    (
        ("the sandbox", "the compiler's sandbox", "cannot start", "bwrap", "user namespaces"),
        "the site could not start the sandbox the bots run in",
    ),
    (("the worker was stopped",), "the site's worker was stopped while it played"),
)


def trouble_text(error: str) -> str:
    """The platform's trouble of a run's last try (its ``error``: ``leases.PLATFORM`` and the
    reason, then the worker's name) in words for people: what happened, never the
    platform's own terms."""
    trouble = re.sub(r" \(on [^()]*\)$", "", error.removeprefix(leases.PLATFORM))
    for starts, words in TROUBLE_WORDS:
        if trouble.startswith(starts):
            return words
    return "the site had trouble running the bots"


#: what the page of a run given up for the site's trouble asks of the person
START_AGAIN = "That is the site's trouble, not your bot's; start the run again later."


def given_up_text(run: PlaygroundRun, reached: str) -> str:
    """What the page of a run given up at one of its caps (``reached``: ``leases.Caps.reached``)
    says, in whole sentences. Each cap is the site's trouble, said so, and never the
    person's or their bot's (its matches played before are kept, each charged only its bots'
    own time): tries that the platform's trouble stopped (the last one's, in plain words:
    :func:`trouble_text`; the clock stopping its bot's compile: :func:`_compile_stopped_text`),
    workers killed while they played it (a worker's stop for a deploy is no try:
    :func:`stopped`), or errors of the site's own."""
    tries = plural(run.attempts, "time")
    if reached == leases.VOIDED:
        trouble = re.sub(r" \(on [^()]*\)$", "", run.error.removeprefix(leases.PLATFORM))
        if trouble.startswith(compiling.BUSY):
            return _compile_stopped_text(run, trouble)
        return (
            f"The site could not play this run: a worker tried {tries}, and the last time "
            f"{trouble_text(run.error)}. {START_AGAIN}"
        )
    if reached == leases.ERRORS:
        return (
            f"The site ran into an error of its own {plural(run.errors, 'time')} while playing "
            f"this run, so it was given up. {START_AGAIN}"
        )
    return (
        f"The site's workers stopped {tries} while playing this run, so it was given up. "
        f"{START_AGAIN}"
    )


def _compile_stopped_text(run: PlaygroundRun, trouble: str) -> str:
    """What the page of a run given up says when the clock stopped its bot's compile each
    time a worker tried (``trouble``: ``compiling.CompileBusy``'s words): the CPU each stop
    had, which the run was charged; that the code may need more than its CPU limit, or the
    site was busy."""
    last = re.search(r"having had ([\d.]+) s of CPU of its (\d+) s", trouble)
    stops = re.search(r"compile \d+ times in a day, with (.+) of CPU$", trouble)
    cpu = stops.group(1) if stops else f"{float(last.group(1)):.0f} s" if last else ""
    limit = f"{last.group(2)} s" if last else "its limit"
    had = f" (with {cpu} of CPU of its {limit})" if cpu else ""
    # as many times as the CPU figures it says (the day's stops of this code), else the tries
    times = len(re.findall(r"[\d.]+ s", cpu)) if stops else run.attempts
    return (
        f"Compiling your bot was stopped by the clock {times} times before it finished{had}; "
        f"the CPU of this run's tries was charged to it. It may need more than {limit} of "
        "CPU: try a lighter version; if not, the site was busy: start the run again later."
    )


#: waiting runs a claim looks at, in the queue's order (the others wait their turn)
CLAIM_WINDOW = 20


def claim(worker: str, lease_s: float, caps: Caps) -> Claim[PlaygroundRun] | None:
    """Claim the next waiting run in the queue's order (:func:`the_queue`: in turn by owner;
    queued, or running with an expired lease: its worker died), one short transaction a
    try: SKIP LOCKED on PostgreSQL, as match jobs are (a run another claim holds is passed
    over for the next); a conditional update on every database. A run at one of its ``caps``
    fails instead, and the next one is looked at. A run taken again keeps when it first
    started."""
    skip_locked = connection.features.has_select_for_update_skip_locked
    for _ in range(leases.CLAIM_TRIES):
        with transaction.atomic():
            now = shared_now()
            order = [queued.pk for queued in the_queue(now).waiting[:CLAIM_WINDOW]]
            if not order:
                return None
            rows = PlaygroundRun.objects.defer("code").filter(leases.claimable(now), pk__in=order)
            rows = rows.exclude(pausing(now))  # (given back for the site's trouble: give_back)
            if skip_locked:
                rows = rows.select_for_update(skip_locked=True)
            found = {row.pk: row for row in rows}
            row = next((found[pk] for pk in order if pk in found), None)
            if row is None:
                return None
            if verdict := caps.given_up(row):
                _give_up(row, verdict, caps.reached(row.errors, row.attempts, row.error))
                continue
            taken = leases.taking(row, worker, lease_s, now) | {"started": row.started or now}
            if not leases.take(row, taken):
                continue
        for name, value in taken.items():
            setattr(row, name, value)
        return Claim(row, worker, row.attempts)
    return None


#: seconds before a run given back for the platform's trouble is taken again, as a
#: validation's (``uploads.PLATFORM_RETRY_S``): a brief shortage (of memory, of sandbox
#: slots) passes meanwhile instead of using up the run's tries within seconds
PLATFORM_RETRY_S = uploads.PLATFORM_RETRY_S


def pausing(now: Any) -> Q:
    """Runs given back for the platform's trouble whose pause has not ended: queued with a
    ``lease_until`` still to come (:func:`give_back`), which no worker takes before it."""
    return Q(status=PlaygroundRun.QUEUED, lease_until__gt=now)


def give_back(held: Claim, reason: str, retry_s: float = PLATFORM_RETRY_S) -> bool:
    """The platform could not play the held run now (no free sandbox slot, a sandbox that
    would not start, a bot's process killed from outside it): back to the queue, its claim
    counted (at :func:`max_claims` such tries it is voided, :func:`given_up_text`), and
    taken again no sooner than ``retry_s`` from now (:func:`pausing`). False if it was no
    longer ours."""
    until = shared_now() + timedelta(seconds=retry_s)
    return bool(
        held.rows().update(
            status=PlaygroundRun.QUEUED, lease_until=until, error=untrusted.clean_text(reason)
        )
    )


def stopped(held: Claim, reason: str = "the worker was stopped") -> bool:
    """The worker is stopping (a deploy, a restart: SIGTERM) and gives the held run back:
    to the queue, taken again at once, and its claim undone, as a validation's is
    (``uploads.validation_deferred``): a stop is no try of the run's, so a few deploys do
    not use up its :func:`max_claims`. A worker killed outright (its lease runs out) still
    counts. False if it was no longer ours."""
    return bool(
        held.rows().update(
            status=PlaygroundRun.QUEUED,
            lease_until=None,
            error=untrusted.clean_text(reason),
            attempts=Greatest(F("attempts") - 1, Value(0)),
        )
    )


def fail(held: Claim, reason: str) -> bool:
    """The run ends without its matches (it would fail on any worker): ``reason`` is what
    its page says. False if it was no longer ours."""
    ended = leases.end_held(held, PlaygroundRun.FAILED, reason=untrusted.clean_text(reason))
    log.info("event=playground.failed run=%s reason=%r", held.job.pk, reason)
    return ended


def finish(held: Claim, reason: str = "") -> bool:
    """Every match was played, or the run used its worker time (``reason`` says so): the
    run is done. False if it was no longer ours."""
    return leases.end_held(held, PlaygroundRun.DONE, reason=reason)


def out_of_time(seconds: int, cut: int | None = None) -> str:
    """What a run's page says of a run stopped at its bound of worker time: before a match,
    or during match ``cut`` (counted from 0), which was cut off there."""
    said = f"stopped: the run used its {seconds} s of worker time"
    if cut is None:
        return said
    return (
        f"{said} during match {cut + 1}, which was cut off there (not an error of the bot; "
        "what was played of it is kept)"
    )


def run_time_left(run: PlaygroundRun, used: float) -> float | None:
    """The worker time the run has left once it has used ``used`` seconds (None: it has no
    bound)."""
    return max(run.worker_seconds - used, 0.0) if run.worker_seconds else None


def cut_off(played: Played) -> bool:
    """Whether the match was cut off where its run's worker time ran out (a seat used the
    whole of the budget :func:`play_match` gave the match)."""
    return any(seat.budget_spent for seat in played.outcome.stats)


def charge(held: Claim, seconds: float) -> bool:
    """Add ``seconds`` of worker time spent outside a match (its bot's compile and start
    before the first match) to the held run's, only if the run is still ours; False if not."""
    with transaction.atomic():
        if not leases.lock_held(held):
            return False
        PlaygroundRun.objects.filter(pk=held.job.pk).update(
            worker_s=F("worker_s") + max(0.0, seconds)
        )
    return True


def compile_limits(run: PlaygroundRun) -> compiling.CompileLimits:
    """What compiling the run's own code may take: the compile's limits
    (``compiling.LIMITS``), its CPU and wall time no more than the whole seconds of worker
    time the run has left (at least 1), so that a compile cannot hold the worker past the
    run's bound. A run with 120 s or more left (a signed-in person's) compiles as an upload
    does."""
    standard = compiling.LIMITS
    if not run.worker_seconds:
        return standard
    left = max(1, int(run.worker_seconds - run.worker_s))
    return replace(
        standard, cpu_s=min(standard.cpu_s, left), wall_s=min(standard.wall_s, float(left))
    )


def compile_stopped(run: PlaygroundRun, scope: compiling.OneUse | None) -> str:
    """The reason a run ends before its first match because compiling its code took all
    the worker time the run had left (its compile's wall-clock limit was the run's time
    left, not every bot's: :func:`compile_limits`), "" if it did not. A refusal of the same
    code kept from an earlier run is said to be one (nothing was compiled this time)."""
    refusal = scope.refusal if scope is not None else None
    limits = scope.limits if scope is not None else None
    if refusal is None or refusal.took_s is None or limits is None:
        return ""
    if limits.wall_s >= compiling.LIMITS.wall_s or refusal.took_s < limits.wall_s:
        return ""  # stopped at a limit of every bot's: the compiler's words, as for any bot
    seconds = int(limits.wall_s)
    if refusal.cached:
        return (
            f"Your bot could not start: compiling it took all of a run's {seconds} seconds of "
            "worker time when this same code was run before, so it was not compiled again and "
            "no match was played."
        )
    whose = (
        f"this run's {seconds} seconds"
        if seconds >= run.worker_seconds
        else f"the {seconds} seconds this run had left"
    )
    return (
        f"Your bot could not start: compiling it took all of {whose} of worker time, so no "
        "match was played."
    )


class RunFailed(Exception):
    """The run cannot be played, and would not be on another worker either."""


@dataclass(frozen=True)
class Seating:
    """A run's entries: the person's bot and the opponents, in the order chosen."""

    me: Entry
    opponents: list[Entry]

    @property
    def sandboxed(self) -> int:
        return 1 + sum(1 for entry in self.opponents if entry.builtin is None)


def seating(run: PlaygroundRun) -> Seating:
    """The run's entries (the opponents' code read now). RunFailed if an uploaded opponent
    is gone (its owner deleted it)."""
    suffix = LANGUAGE_SUFFIX.get(run.language, default_language().suffix)
    me = Entry(name=YOUR_BOT, code=run.code, filename=f"bot{suffix}", key=("run", run.pk))
    wanted = [o["version"] for o in run.opponents if o.get("version") is not None]
    versions = BotVersion.objects.select_related("bot").in_bulk(wanted)
    opponents = []
    for stored in run.opponents:
        name = str(stored.get("name", "?"))
        if stored.get("builtin") is not None:
            opponents.append(Entry(name=name, builtin=str(stored["builtin"])))
            continue
        version = versions.get(stored.get("version"))
        if version is None:
            raise RunFailed(f"The opponent {name} is gone: its owner deleted it.")
        opponents.append(
            Entry(name=name, code=version.code, filename=version.filename, key=("v", version.pk))
        )
    return Seating(me, opponents)


def two_seat_slot(number: int, opponents: int) -> tuple[int, int, int]:
    """Match ``number`` of a two-seat game's run against ``opponents`` opponents: its deal,
    the seat of the person's bot and the opponent's index. Rounds of ``2 * opponents``
    matches: each opponent in turn on a deal of its own with the person's bot in seat 0, then
    the same deals again with the seats swapped; so every opponent is met once the run has
    as many matches as opponents, and each deal is played both ways by the round's end."""
    rounds, within = divmod(number, 2 * opponents)
    rotation, opponent = divmod(within, opponents)
    return rounds * opponents + opponent, rotation, opponent


def meetings(spec: GameSpec, opponents: int, matches: int) -> list[int]:
    """How many of ``matches`` matches each of ``opponents`` opponents plays, in their order
    (a bigger table seats them all in every match; a game played alone has none)."""
    if spec.plays_alone or opponents == 0:
        return []
    if table_size(spec, opponents) != 2:
        return [matches] * opponents
    counts = [0] * opponents
    for number in range(matches):
        counts[two_seat_slot(number, opponents)[2]] += 1
    return counts


def schedule_text(spec: GameSpec, names: Sequence[str], matches: int) -> str:
    """What a run's matches play, in words: against whom, how many times each, and any
    opponent that gets no match (fewer matches than opponents)."""
    many = f"{matches} match{'' if matches == 1 else 'es'}"
    if spec.plays_alone:  # (UTH: a match is a session of many rounds against the dealer)
        if matches == 1:
            return "1 session against the dealer"
        return f"{matches} sessions against the dealer, each dealt from its own seed"
    if not names:
        return f"{many}, each a deal of its own against the dealer"
    if table_size(spec, len(names)) != 2:
        return f"{many}, each with all of {', '.join(names)} at the table"
    counts = meetings(spec, len(names), matches)
    met = [f"{n} against {name}" for name, n in zip(names, counts, strict=True) if n]
    text = f"{many}: {', '.join(met)}"
    left = [name for name, n in zip(names, counts, strict=True) if not n]
    if left:
        text += f"; {' and '.join(left)} {'get' if len(left) > 1 else 'gets'} none with {many}"
    return text


def table(run: PlaygroundRun, number: int, seats: Seating) -> tuple[list[Entry], int, int]:
    """Match ``number`` of the run: its entries in seat order, the seat of the person's bot
    and the seed. Each deal is played once in every rotation of its table's seats (two
    players: twice, seats swapped), so luck evens out; a two-seat game meets the opponents in
    turn (:func:`two_seat_slot`)."""
    spec = get_game(run.game)
    size = table_size(spec, len(seats.opponents))
    if size == 2:
        deal, rotation, opponent = two_seat_slot(number, len(seats.opponents))
    else:
        deal, rotation = divmod(number, size)
    seed = derive_seed(run.seed, "playground", deal)
    if size == 1:
        return [seats.me], 0, seed
    # a two-seat game: one opponent at a time; a bigger table: all of them
    group = [seats.opponents[opponent]] if size == 2 else seats.opponents
    at_table = [seats.me, *group]
    order = at_table[-rotation:] + at_table[:-rotation] if rotation else at_table
    return order, rotation, seed


def play_match(
    run: PlaygroundRun,
    number: int,
    seats: Seating,
    cache: ProcessCache | None = None,
    left: float | None = None,
) -> tuple[Played, int]:
    """Play match ``number`` in the sandbox (outside any transaction): the result and the
    seat of the person's bot. Raises only for the platform's trouble (a PlatformError: no
    free sandbox slot, a sandbox that cannot start).

    The person's bot is timed as the upload's validation times it (the site's time rules,
    ``bots.running.timing``: the game's time control and at most so many calls in a row
    over the per-call time), so that a bot the playground passes is not rejected at upload
    for its time; the opponents by the game's time control, as in the competition. ``left``,
    the worker time the run has left (:func:`run_time_left`), is the budget its bots share
    in the match, as the run is charged all their time (:func:`match_charge`): a call still
    unanswered when it runs out is cut off there, and its seat faults ``time``
    (:func:`cut_off`), as in a validation or a tournament."""
    entries, seat, seed = table(run, number, seats)
    spec = get_game(run.game)
    timed = {seat: site_time_control(spec)}
    if left is not None:
        whose = f"the run's {run.worker_seconds} s of worker time"
        every = {n: spec.time_control for n in range(len(entries))} | timed
        timed = {n: replace(tc, budget=left, shared_by=whose) for n, tc in every.items()}
    return play(spec, entries, seed=seed, cache=cache, seat_time_controls=timed), seat


def store_match(
    held: Claim, number: int, played: Played, seat: int, names: list[str], worker_s: float = 0.0
) -> bool:
    """Keep match ``number`` of the held run and count it, and the ``worker_s`` seconds of
    worker time it took, only if the run is still ours (one short transaction); False if it
    is not (another worker took it over)."""
    record = untrusted.storable(played.outcome.record)
    seats = []
    for n, report in enumerate(played.seats):
        # illegal answers the rules refused without a fault (Last Card: played as passes)
        refusals = refused(played.outcome.record, n)
        seats.append(
            {
                "name": names[n],
                "score": report.score,
                "fault_kind": untrusted.clean_text(report.fault_kind)[:20],
                "fault_reason": untrusted.clean_text(report.fault_reason),
                "illegal": len(refusals),
                "illegal_first": untrusted.clean_text(refusals[0]) if refusals else "",
            }
        )
    with transaction.atomic():
        if not leases.lock_held(held):
            return False
        PlaygroundMatch.objects.filter(run_id=held.job.pk, number=number).delete()
        PlaygroundMatch.objects.create(
            run_id=held.job.pk,
            number=number,
            seed=int(played.outcome.record.get("seed", 0)),
            seat=seat,
            seats=seats,
            stderr=untrusted.clean_text(played.seats[seat].stderr),
            record=record,
            duration_s=played.duration_s,
        )
        PlaygroundRun.objects.filter(pk=held.job.pk).update(
            played=number + 1, worker_s=F("worker_s") + max(0.0, worker_s)
        )
    return True


def load_failure(number: int, played: Played, seat: int) -> str:
    """The reason a run ends after its first match because the person's bot could not even
    load ("" if it loaded): every other match would end the same way."""
    mine = played.seats[seat]
    if number != 0 or mine.fault_kind != LOAD_FAULT:
        return ""
    return f"Your bot could not start: {mine.fault_reason}"


def match_charge(played: Played) -> float:
    """The worker time a match is charged to its run: its bots' own time (every seat's
    ``own_s``: its start, its answers and the calls it faulted on, less what the machine
    kept it waiting for a CPU, as the ladder charges its bots: ``competition.charges``), at
    most the match's wall time (seats that think side by side). Never the site's waits: a
    sandbox slot waited for, a sandbox launched (all before the match's clock starts:
    ``Played.duration_s``), nor the rules' own work between the bots' answers."""
    wall = max(played.duration_s, 0.0)
    stats = played.outcome.stats
    return min(sum(seat.own_s for seat in stats), wall) if stats else wall


def check_bot(run: PlaygroundRun, seats: Seating, cache: ProcessCache) -> tuple[str, float]:
    """Before the run's first match: launch its bot (kept in ``cache`` for that match), then
    start it and check it has the game's contract (:func:`missing_contract`). Returns the
    reason the run ends ("" if none) and the worker time charged for it: the bot's start,
    and for a compiled language its launch, which compiles it (see "Compiled bots",
    docs/playground.md); never an interpreted bot's launch, which is the site's work (a
    sandbox slot waited for, the sandbox made). Raises PlatformError (the site's trouble,
    nothing charged)."""
    compiled = get_language(run.language).compiled
    folder = CodeFolder()
    began = time.monotonic()
    try:
        seat_agent(get_game(run.game), seats.me, folder=folder, cache=cache)
    except PlatformError:
        raise
    except LAUNCH_ERRORS:
        # it cannot be launched (its compile refused): its first match says why
        return "", (time.monotonic() - began) if compiled else 0.0
    finally:
        folder.close()  # (the sandbox read the code as it was launched)
    launched = time.monotonic()
    reason = missing_contract(run, seats, cache)
    return reason, time.monotonic() - launched + ((launched - began) if compiled else 0.0)


def missing_contract(run: PlaygroundRun, seats: Seating, cache: ProcessCache) -> str:
    """The reason a run ends before its first match because the person's bot lacks a method
    of the game's contract (a bot for another game: every match would fault at every call),
    "" if it has them all; its process, started, is kept in ``cache`` for the first match."""
    spec = get_game(run.game)
    missing = check_before_play(spec, seats.me, timeout=spec.time_control.startup, cache=cache)
    return f"Your bot could not start: {missing}" if missing else ""


#: what :func:`play_run` ends in
DONE, FAILED, LOST, STOPPED = "done", "failed", "lost", "stopped"


def play_run(
    held: Claim,
    *,
    until_done: Callable[[str, Callable[[], T]], T],
    stopping: Callable[[], bool],
    lost: Callable[[], bool],
) -> str:
    """Play the held run's matches not stored yet, one by one, each stored as soon as it is
    played (``until_done(during, action)`` does the database's part, tried again while the
    database is away). Before each match, the run's bound of worker time (``worker_seconds``,
    counted in ``worker_s`` with every match's bots' own time, :func:`match_charge`, and with
    the check of its bot before the first match, :func:`check_bot`, its compile included;
    never the site's waits for a sandbox) is looked at: once used, the run ends
    :data:`DONE` with its other matches not played, its page saying so. A match is given
    what is left of it (:func:`play_match`): one that uses it all is cut off there, kept
    as played so far, and the run ends so too, charged its whole bound. Ends in :data:`DONE`,
    :data:`FAILED` (the bot could not load, its compile took all of the run's time, or an
    opponent is gone), :data:`LOST` (the run is no longer ours) or :data:`STOPPED` (the
    worker is stopping, or was stopped during a match whose bots its shutdown may have
    killed: the run is given back). Raises PlatformError, and whatever
    error of ours happens, for the worker to give the run back."""
    run: PlaygroundRun = held.job  # type: ignore[assignment]
    try:
        seats = until_done("playground.read", lambda: seating(run))
    except RunFailed as exc:
        reason = str(exc)
        until_done("playground.fail", lambda: fail(held, reason))
        return FAILED
    cache = ProcessCache(seats.sandboxed)
    used = run.worker_s
    try:
        with until_done("playground.read", lambda: _one_off(run)) as scope:
            if run.played == 0 and not (run.worker_seconds and used >= run.worker_seconds):
                # its bot compiled (within the run's time left) and started: worker time too
                try:
                    reason, took = check_bot(run, seats, cache)
                except compiling.CompileBusy as exc:
                    # the clock stopped its compile: the site's load, so the run is tried
                    # again (up to its claims), but the CPU the compile had is the run's
                    if not until_done("playground.charge", lambda c=exc.cpu_s: charge(held, c)):
                        return LOST
                    raise
                used += took
                if not until_done("playground.charge", lambda t=took: charge(held, t)):
                    return LOST
                if reason := reason or compile_stopped(run, scope):
                    until_done("playground.fail", lambda r=reason: fail(held, r))
                    return FAILED
            for number in range(run.played, run.matches):
                if lost():
                    return LOST
                if stopping():
                    until_done("playground.release", lambda: stopped(held))
                    return STOPPED
                if run.worker_seconds and used >= run.worker_seconds:
                    # its bound of worker time is used: its other matches are not played
                    reason = out_of_time(run.worker_seconds)
                    log.info("event=playground.out_of_time run=%s used_s=%.1f", run.pk, used)
                    ended = until_done("playground.finish", lambda r=reason: finish(held, r))
                    return DONE if ended else LOST
                left = run_time_left(run, used)
                played, seat = play_match(run, number, seats, cache, left)
                if stopping() and shutdown_faults(played):
                    # the worker's own shutdown may have killed the bots: played again later
                    reason = f"the worker was stopped during match {number + 1}"
                    until_done("playground.release", lambda r=reason: stopped(held, r))
                    return STOPPED
                took = match_charge(played)  # its bots' own time: not the site's waits
                cut = cut_off(played)
                if cut and left is not None:
                    took = max(took, left)  # it used all the run had left
                used += took
                names = [entry.name for entry in table(run, number, seats)[0]]
                stored = until_done(
                    "playground.store",
                    lambda n=number, p=played, s=seat, w=names, t=took: store_match(
                        held, n, p, s, w, t
                    ),
                )
                if not stored:
                    return LOST
                if reason := load_failure(number, played, seat):
                    until_done("playground.fail", lambda r=reason: fail(held, r))
                    return FAILED
                if cut:
                    # cut off at its bound of worker time: its other matches are not played
                    reason = out_of_time(run.worker_seconds, number)
                    log.info("event=playground.out_of_time run=%s used_s=%.1f", run.pk, used)
                    ended = until_done("playground.finish", lambda r=reason: finish(held, r))
                    return DONE if ended else LOST
        return DONE if until_done("playground.finish", lambda: finish(held)) else LOST
    finally:
        cache.close()


def _one_off(
    run: PlaygroundRun,
) -> contextlib.AbstractContextManager[compiling.OneUse | None]:
    """While the run plays: its code, if of a compiled language and not an uploaded
    version's (which the machine's cache keeps), is compiled for this run only, within the
    worker time the run has left (:func:`compile_limits`), its program never kept in the
    cache (each run's code may differ: kept, it would fill the disk); a refusal is kept a
    day, so that the same code is not compiled again (``compiling.transient``)."""
    if not get_language(run.language).compiled:
        return contextlib.nullcontext()
    checksum = BotVersion.checksum_of(run.code)
    if BotVersion.objects.filter(bot__game=run.game, checksum=checksum).exists():
        return contextlib.nullcontext()
    return compiling.transient(run.code.encode("utf-8"), compile_limits(run))


# ------------------------------------------------------------------------------- forgetting
#: finished runs deleted at most at once (a worker forgets after each run it plays: a few
#: short statements, never one long one)
FORGET_BATCH = 200


def forget_old(now: Any = None, batch: int = FORGET_BATCH) -> int:
    """Delete, with their matches, up to ``batch`` finished runs older than they are kept
    (:func:`keep_days`: a guest's first); how many went. A run is finished when it is done
    or failed: one queued or running is never deleted, however old."""
    now = now or timezone.now()
    finished = PlaygroundRun.objects.exclude(status__in=PlaygroundRun.OPEN)
    old: list[int] = []
    for guest in (True, False):
        only = {"user__isnull": guest}  # each run in one of the two: never counted twice
        cutoff = now - timedelta(days=keep_days(guest))
        rows = finished.filter(finished__lt=cutoff, **only).order_by("finished", "id")
        old += rows.values_list("pk", flat=True)[: batch - len(old)]
        if len(old) >= batch:
            break
    if old:
        PlaygroundRun.objects.filter(pk__in=old).delete()
        log.info("event=playground.forgotten runs=%d", len(old))
    return len(old)
