"""The bot playground: a person's code tried against opponents of their choice, in the sandbox
on a worker, outside the competition (docs/playground.md).

The web only checks what was asked and queues a row (:func:`submit`: the limits of :class:`Limits`,
the opponents, the code's size and encoding; the code never runs there, not even to be checked). A
worker (``bots.worker``) claims the oldest waiting run (:func:`claim`, with a lease its
heartbeat extends, as match jobs are), plays its matches one by one in the sandbox
(:func:`play_run`) and writes each as soon as it is played (:func:`store_match`), only while the run
is still its own; a run whose worker died is taken by another when the lease runs out, and goes on
from the matches stored. A bot that cannot even load (a syntax error, no ``Bot`` class) ends the run
as *failed* after its first match, with the loading error as the reason; anything else a bot does is
its fault in that match, and the run goes on.

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
from django.db.models import F, Q
from django.utils import timezone

from bots.competition import leases
from bots.competition.leases import Caps, Claim
from bots.competition.uploads import LANGUAGE_SUFFIX, UploadError, check_code
from bots.languages import default_language, get_language
from bots.models import HOUSE, BotVersion, PlaygroundMatch, PlaygroundRun, builtin_label
from bots.running.contract import check_before_play
from bots.running.playing import Entry, Played, ProcessCache, play, shutdown_faults
from bots.sandbox import compiling
from games.engine import untrusted
from games.engine.spec import GameSpec
from games.engine.table import plural
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

    @classmethod
    def for_person(cls, guest: bool) -> Limits:
        prefix = "PLAYGROUND_GUEST_" if guest else "PLAYGROUND_"
        defaults = (5, 10, 1, 60) if guest else (20, 50, 2, 300)
        names = ("RUNS_PER_HOUR", "MAX_MATCHES", "MAX_OPEN", "RUN_SECONDS")
        values = [
            int(getattr(settings, prefix + name, default))
            for name, default in zip(names, defaults, strict=True)
        ]
        return cls(*values)


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


def _minutes(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def _hour_wait(runs: Any, per_hour: int, now: Any) -> tuple[int, str] | None:
    """Of ``runs``: (how many started in the last hour, the wait until another may) if that
    is ``per_hour`` or more, else None."""
    recent = list(
        runs.filter(created__gt=now - timedelta(hours=1))
        .order_by("created")
        .values_list("created", flat=True)
    )
    if len(recent) < per_hour:
        return None
    free_at = recent[len(recent) - per_hour] + timedelta(hours=1)
    return len(recent), _minutes((free_at - now).total_seconds())


#: what a guest refused for their address's limit may do besides waiting
SIGN_IN = "or sign in (signed-in people have a limit of their own)"


def refusal(user: Any, guest: str, limits: Limits, guest_address: str = "") -> str:
    """Inside the person's lock: why a new run of theirs is refused now ("": it is not). A
    guest is counted by their session, then with every guest of their client address
    (``guest_address``, its keyed hash: :class:`AddressLimits`), then with all guests."""
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
    if user is None:
        guests = PlaygroundRun.objects.filter(user__isnull=True, status__in=PlaygroundRun.OPEN)
        if guests.count() >= guests_open_limit():
            return (
                f"Guests have {guests_open_limit()} runs queued or running, the most allowed "
                "at once; try again in a minute, or sign in (signed-in people have a limit "
                "of their own)."
            )
    return ""


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
    a file of ``filename``'s suffix that its language keeps wrapped, wrapped) and never run
    here."""
    if user is None and not guest:
        raise PlaygroundError("A run belongs to a signed-in person or a guest's session.")
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
        more = " (sign in for more)" if user is None else ""
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
            worker_seconds=max(0, limits.run_seconds),
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


def is_waiting(run: PlaygroundRun) -> bool:
    """Queued, or taken by a worker whose lease ran out (another will take it over)."""
    if run.status == PlaygroundRun.QUEUED:
        return True
    return run.status == PlaygroundRun.RUNNING and (
        run.lease_until is None or run.lease_until < timezone.now()
    )


def queue_position(run: PlaygroundRun) -> int:
    """A waiting run's place in the queue (1: the next one a worker takes)."""
    ahead = leases.claimable(timezone.now()) & Q(id__lt=run.id)
    return PlaygroundRun.objects.filter(ahead).count() + 1


def owns(run: PlaygroundRun, user: Any, guest: str) -> bool:
    """Whether the person asking started the run."""
    if run.user_id is not None:
        return user is not None and run.user_id == user.pk
    return bool(guest) and secrets.compare_digest(run.guest, guest)


# ---------------------------------------------------------------------------- the worker's side
def caps(errors: int) -> Caps:
    return Caps(errors=errors, claims=max_claims())


def _give_up(run: PlaygroundRun, verdict: str) -> None:
    rows = PlaygroundRun.objects.filter(pk=run.pk, attempts=run.attempts)
    leases.end(rows, PlaygroundRun.FAILED, reason=f"The run was given up: it {verdict}.")
    log.warning("event=playground.given_up run=%s reason=%r", run.pk, verdict)


def claim(worker: str, lease_s: float, caps: Caps) -> Claim[PlaygroundRun] | None:
    """Claim the oldest waiting run (queued, or running with an expired lease: its worker
    died): SKIP LOCKED on PostgreSQL, as match jobs are; a conditional update on SQLite. A
    run at one of its ``caps`` fails instead, and the next one is looked at. A run taken
    again keeps when it first started."""
    return leases.claim_oldest(
        PlaygroundRun.objects.defer("code"),
        worker,
        lease_s,
        caps,
        give_up=_give_up,
        fields=lambda run, now: {"started": run.started or now},
        skip_locked=True,
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


def out_of_time(seconds: int) -> str:
    """What a run's page says of a run stopped at its bound of worker time."""
    return f"stopped: the run used its {seconds} s of worker time"


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
    run: PlaygroundRun, number: int, seats: Seating, cache: ProcessCache | None = None
) -> tuple[Played, int]:
    """Play match ``number`` in the sandbox (outside any transaction): the result and the
    seat of the person's bot. Raises only for the platform's trouble (a PlatformError: no
    free sandbox slot, a sandbox that cannot start)."""
    entries, seat, seed = table(run, number, seats)
    return play(get_game(run.game), entries, seed=seed, cache=cache), seat


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
    counted in ``worker_s`` with every match's seating and play, and with the check of its
    bot before the first match, its compile included) is looked at: once used, the run ends
    :data:`DONE` with its other matches not played, its page saying so (a match under way
    is played to its end: its time control bounds it). Ends in :data:`DONE`,
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
                began = time.monotonic()
                reason = missing_contract(run, seats, cache)
                took = time.monotonic() - began
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
                    until_done(
                        "playground.release",
                        lambda: leases.release(held, "the worker was stopped"),
                    )
                    return STOPPED
                if run.worker_seconds and used >= run.worker_seconds:
                    # its bound of worker time is used: its other matches are not played
                    reason = out_of_time(run.worker_seconds)
                    log.info("event=playground.out_of_time run=%s used_s=%.1f", run.pk, used)
                    ended = until_done("playground.finish", lambda r=reason: finish(held, r))
                    return DONE if ended else LOST
                began = time.monotonic()
                played, seat = play_match(run, number, seats, cache)
                if stopping() and shutdown_faults(played):
                    # the worker's own shutdown may have killed the bots: played again later
                    reason = f"{leases.PLATFORM}the worker was stopped during match {number + 1}"
                    until_done("playground.release", lambda r=reason: leases.release(held, r))
                    return STOPPED
                took = time.monotonic() - began  # seating its bots included
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
