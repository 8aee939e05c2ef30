"""New bot versions: limits at upload, then validation matches in the sandbox.

:func:`upload` stores a version as *validating*; :func:`validate` plays it against a built-in
bot of its game in both seats (the uploaded code inside the sandbox, the built-in bot
in-process). Any fault of the new version rejects it, with the reason and a log; otherwise it
becomes the bot's active version (the previous one is retired in the same transaction) and
gets its placement matches.

Workers validate in a fair order (:func:`claim_validation`): each owner's oldest waiting
version first, owners in turn, and a version in two passes when it is slow. Its first pass
is *quick*: every call is held to the per-call time, with no time bank, so a bot that runs
over it costs a worker at most that long before it steps aside (``validation_slow``); the
versions waiting behind it and the placements of those that pass go first, then it is
validated again *in full*: the game's time control, with at most ``BOT_VALIDATION_SLOW_CALLS``
calls in a row over the per-call time, so a bot that is slow on every call is rejected after a
few of them instead of after its whole time bank.

Platform trouble is never a verdict. A validation the platform cannot run now (no free
sandbox slot, a sandbox that does not start: a :class:`~bots.running.process.PlatformError`) is
deferred (:func:`validation_deferred`), nothing counted, and tried again. The site's own
built-in bots (the ``house`` account's, :func:`is_builtin`) are never rejected: one that
fails its validation can only be the platform's fault; it is logged as an error and tried
again after :data:`BUILTIN_RETRY_S`, whatever its counts.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from bots.clock import shared_now
from bots.competition import schedule_placement, worker_bound
from bots.competition.leases import ERRORS, Caps
from bots.competition.leaving import WITHDRAWN, is_builtin, withdraw_queued_jobs
from bots.ladder.ratings import lock_ledger, on_new_version, rerank
from bots.languages import by_suffix, get_language, language_title, languages, looks_foreign
from bots.models import HOUSE, Bot, BotVersion, Tournament, builtin_label
from bots.running.contract import check_before_play
from bots.running.playing import Entry, ProcessCache, play
from bots.running.timing import site_time_control
from bots.running.which_game import OtherGame, for_another_game
from bots.sandbox import compiling
from games.engine import untrusted
from games.engine.runner import TimeControl
from games.engine.spec import GameSpec
from games.engine.table import a_title, hour_wait, minutes, plural
from games.engine.tournament import derive_seed
from games.engine.written import MINUS, listed, number
from games.records import refused, refused_text
from games.registry import games, get_game

log = logging.getLogger("bots.competition.uploads")

#: a language's name -> the suffix its stored files get
LANGUAGE_SUFFIX = {language.name: language.suffix for language in languages()}

#: seconds before a built-in bot whose validation failed is tried again
BUILTIN_RETRY_S = 60.0
#: seconds before a validation the platform could not run (no free slot...) is tried again
PLATFORM_RETRY_S = 30.0
#: how the log of a version begins while its validation waits out a pause after the
#: platform's trouble (:func:`validation_deferred`), or after an error of ours
#: (:func:`validation_failed`), and what it holds while a built-in bot's does
#: (:func:`_builtin_failed`): with a lease in the future, no worker is validating it
DEFERRED_NOTE = "validation waits: "
ERROR_NOTE = "validation error on try "
BUILTIN_NOTE = "the site's own built-in bot failed: a platform error, not a verdict"
#: stops of a code's compile by the clock (``compiling.CompileBusy``: under a quarter of a
#: core for four times its CPU limit) after which its validation ends, rejected with words
#: that say so: each stop held a worker for minutes, so they are few (the CPU they had is
#: said in the reason)
BUSY_STOPS = 3


class UploadError(ValueError):
    """An upload refused before validation; the message says why in one line."""


class ForAnotherGame(UploadError):
    """A file refused as a bot of another game (:mod:`bots.running.which_game`): the
    message tells the form's way to enter it there; ``found.advice("upload")`` the
    command's."""

    def __init__(self, found: OtherGame) -> None:
        self.found = found
        super().__init__(f"{found.why} {found.advice('form')}")


#: the longest a bot may take to start in a quick pass (the full pass allows the game's own
#: start-up time): a sandboxed Python or Node bot starts in well under a second
QUICK_STARTUP_S = 3.0


@dataclass(frozen=True)
class ValidationResult:
    ok: bool
    reason: str
    log: str
    #: a quick pass the bot ran over the per-call time in: no verdict yet, it is validated
    #: again in full after the others waiting
    slow: bool = False
    #: the kind of the fault that failed it ("" if it passed)
    fault_kind: str = ""


def max_code_bytes() -> int:
    return int(getattr(settings, "BOT_MAX_CODE_BYTES", 256 * 1024))


def size_text(size: int) -> str:
    """A code's size as the site says it, in KiB: "256 KiB" (bytes below one)."""
    return f"{size / 1024:.0f} KiB" if size >= 1024 else f"{size} bytes"


def too_big(size: int) -> str:
    """The refusal of code of ``size`` bytes, over the limit: "Your file is 326 KiB; uploads
    take at most 256 KiB." (its bytes where its KiB would look within the limit)."""
    limit = max_code_bytes()
    said = size_text(size)
    if said == size_text(limit):
        return (
            f"Your file is {size} bytes; uploads take at most {limit} bytes ({size_text(limit)})."
        )
    return f"Your file is {said}; uploads take at most {size_text(limit)}."


def built_languages(spec: GameSpec) -> list[str]:
    """The languages whose built file (``Language.binary_suffixes``: a jar) ``spec`` takes:
    those of its kits (the original Last Card kit's)."""
    return [lang.name for lang in languages() if lang.binary_suffixes and spec.kits.get(lang.name)]


def jar_games() -> list[str]:
    """The titles of the games that take a built file (a kit's jar: Last Card)."""
    return [spec.title for spec in games() if built_languages(spec)]


def _suffix(filename: str) -> str:
    return "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""


def language_for(filename: str) -> str:
    suffix = _suffix(filename)
    suffixes = by_suffix()
    try:
        return suffixes[suffix]
    except KeyError:
        known = ", ".join(sorted(suffixes))
        raise UploadError(f"{filename}: unsupported file type (expected {known})") from None


def check_code(data: bytes, filename: str = "", language: str = "") -> str:
    """An upload's bytes as the text a version keeps: within the size limit, UTF-8, no NUL;
    a file its language keeps wrapped (``Language.binary_suffixes``: a built jar) is
    wrapped first, by its name's suffix. Text of ``language`` (else of the name's suffix's)
    that shows marks of another language only is refused, naming both
    (:func:`bots.languages.looks_foreign`: read, never run). Raises UploadError."""
    limit = max_code_bytes()
    if not data.strip():
        raise UploadError("the file is empty")
    if len(data) > limit:
        raise UploadError(too_big(len(data)))
    suffix = _suffix(filename)
    language = language or by_suffix().get(suffix, "")
    wrapped = bool(language) and suffix in get_language(language).binary_suffixes
    if wrapped:
        try:
            data = get_language(language).stored_code(suffix, data)
        except ValueError as exc:
            raise UploadError(str(exc)) from None
    try:
        code = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadError(
            f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    if "\x00" in code:
        line = code.count("\n", 0, code.index("\x00")) + 1
        raise UploadError(f"the file holds a NUL byte (line {line}): a bot is a text file")
    if language and not wrapped and (foreign := looks_foreign(code, language)):
        raise UploadError(foreign)
    return code


def checked_upload(game: str, filename: str, data: bytes) -> tuple[str, str]:
    """An upload's language and text (:func:`language_for`, :func:`check_code`), read and
    never run, for ``game``: a file clearly for another game is refused
    (:class:`ForAnotherGame`), before anything is stored or counted. Raises UploadError."""
    try:
        spec = get_game(game)
    except KeyError as exc:
        raise UploadError(str(exc.args[0])) from None
    language = language_for(filename)
    code = check_code(data, filename)
    if found := for_another_game(code, language, spec):
        raise ForAnotherGame(found)
    return language, code


def bots_per_person() -> int:
    """The most bots one person may have competing in one game (0: no limit)."""
    return int(getattr(settings, "BOTS_PER_PERSON_PER_GAME", 1))


def competing(bots: QuerySet[Bot]) -> QuerySet[Bot]:
    """Those of ``bots`` in the competition: with a version active or being validated."""
    live = BotVersion.objects.filter(
        bot=OuterRef("pk"), status__in=[BotVersion.ACTIVE, BotVersion.VALIDATING]
    )
    return bots.filter(Exists(live))


#: where and roughly when a version being validated gets its verdict
VERDICT_WHEN = "My bots shows it, usually within a few minutes"


@dataclass(frozen=True)
class _Held:
    """One of an owner's bots that counts in :func:`check_room`: its name, its language, and
    which of its versions make it count (an active one, one being validated, or both)."""

    name: str
    language: str
    active: bool
    #: the number of its newest version being validated (None: none is)
    validating: int | None

    @classmethod
    def of(cls, bot: Bot) -> _Held:
        live = bot.versions.filter(status__in=[BotVersion.ACTIVE, BotVersion.VALIDATING])
        statuses = dict(live.order_by("number").values_list("status", "number"))
        return cls(
            bot.name,
            bot.language,
            BotVersion.ACTIVE in statuses,
            statuses.get(BotVersion.VALIDATING),
        )

    def making_room(self) -> str:
        """What takes this bot out of the count: retiring its active version (My bots has a
        Retire button only for a bot with one), after the verdict on the version being
        validated, which counts until then and cannot be retired."""
        if self.validating is None:
            return f"retire {self.name} on My bots first"
        waiting = f"wait for the verdict on {self.name} v{self.validating}"
        if self.active:  # (whether it passes or not, an active version is left to retire)
            return (
                f"{waiting}, which is being validated ({VERDICT_WHEN}), and retire {self.name} "
                "on My bots after it"
            )
        # (the refusal's first sentence said that it is being validated)
        return f"{waiting} ({VERDICT_WHEN}), and retire {self.name} on My bots if it passes"


def check_room(owner: AbstractBaseUser, bot: Bot, language: str = "") -> None:
    """Raise UploadError if putting ``bot`` into the competition (a version uploaded, or a
    retired one made active again) would give its owner more bots competing in its game than
    :func:`bots_per_person` allows. Two bots of one person at one table could play into each
    other's hands (one losing on purpose to lift the other's rating), and each bot is in
    every round, so a person's many bots would take the workers from everyone else's. A bot
    already competing is always free to take a new version; the site's own built-in bots
    (the house's) are not counted. Call it inside a transaction that holds the owner's row
    (:func:`lock_owner`), so that two uploads at once count each other. ``language``: the
    uploaded code's, so that "a new version" is offered only of a bot in that language (a bot
    keeps its language). The refusal says what makes room (:meth:`_Held.making_room`: a bot
    only being validated is waited for, not retired) and, where the code cannot be a new
    version of a bot in the way, how to upload it after: as a new version of ``bot`` where
    it has versions, else as a new bot."""
    most = bots_per_person()
    if not most or owner.get_username() == HOUSE:
        return
    bots = Bot.objects.filter(owner=owner, game=bot.game)
    if competing(bots.filter(pk=bot.pk)).exists():
        return
    held = [_Held.of(other) for other in competing(bots.exclude(pk=bot.pk)).order_by("name")]
    if len(held) < most:
        return
    title = get_game(bot.game).title
    names = listed([one.name for one in held])
    if len(held) > 1:
        where = "competing in" if all(one.active for one in held) else "entered in"
        said = f"You already have {plural(len(held), 'bot')} {where} {title}: {names}"
    elif held[0].active:
        said = f"You already have a bot competing in {title}: {names}"
    else:
        said = (
            f"You already have a bot entered in {title}: {names}, whose v{held[0].validating} "
            "is being validated"
        )
    if len(held) == 1:
        room = held[0].making_room()
        if held[0].validating is None:
            room = "retire it on My bots first"  # (its name was just said)
    else:
        waiting = [f"{one.name} v{one.validating}" for one in held if one.validating is not None]
        room = "retire one on My bots first"
        if waiting:
            room += (
                f" (a version being validated, {listed(waiting)}, counts until its verdict: "
                f"{VERDICT_WHEN})"
            )
    instead = (
        f"upload your code as a new version of {names}, or {room}"
        if len(held) == 1
        else f"upload your code as a new version of one of them, or {room}"
    )
    if language and all(one.language != language for one in held):
        # a bot keeps its language: no new version of any of them can be code of another;
        # the code goes in once there is room, as its own bot's new version or a new bot
        again = (
            f"then upload it again as a new version of {bot.name}"
            if bot.versions.exists()
            else f"then upload it again as the new bot {bot.name}"
        )
        mine = a_title(language_title(language))
        if len(held) == 1:
            instead = (
                f"{names} is {a_title(language_title(held[0].language))} bot; to enter {mine} "
                f"bot, {held[0].making_room()}, {again}"
            )
        else:
            instead = f"none of them is {mine} bot; to enter one, {room}, {again}"
    raise UploadError(
        f"{said}. A person may enter {plural(most, 'bot')} in a game, so that no one's bots "
        f"can play into each other's hands; {instead}."
    )


def lock_owner(owner: AbstractBaseUser) -> None:
    """Hold the owner's row until the transaction ends (see :func:`check_room`)."""
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()


def upload(
    owner: AbstractBaseUser,
    game: str,
    name: str,
    filename: str,
    data: bytes,
    *,
    claimed_for: float | None = None,
) -> BotVersion:
    """Store a new version (status validating) of the owner's bot ``name``, creating the bot
    on its first upload. Raises UploadError: for the file (:func:`checked_upload`: one for
    another game among them), then where the owner has as many other bots competing in the
    game as a person may (:func:`check_room`). ``claimed_for``: the version is stored with
    its validation claimed for that many seconds, as :func:`claim_validation` claims one
    (its lease and one claim), for a caller that validates it itself (``manage.py
    upload_bot``): no worker takes it while the lease is held (renewed like a worker's:
    ``worker.ValidationHeartbeat``), and one takes it once the lease has run out."""
    language, code = checked_upload(game, filename, data)
    name = name.strip()
    if not name or len(name) > 60:
        raise UploadError("a bot name has 1 to 60 characters")
    problem = untrusted.name_problem(name, "bot name")
    if problem is not None:
        raise UploadError(problem)
    checksum = BotVersion.checksum_of(code)
    with transaction.atomic():
        lock_owner(owner)
        bot, _ = Bot.objects.get_or_create(
            owner=owner, game=game, name=name, defaults={"language": language}
        )
        if bot.language != language:
            raise UploadError(
                f"{bot.name} is {a_title(language_title(bot.language))} bot and keeps its "
                "language: "
                f"upload {language_title(language)} code as a new bot (retire {bot.name} first)."
            )
        bot = Bot.objects.select_for_update().get(pk=bot.pk)
        check_room(owner, bot, language)
        same = bot.versions.filter(checksum=checksum).exclude(status=BotVersion.REJECTED).first()
        if same is not None:
            raise UploadError(_already(same))
        number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        claim = {} if claimed_for is None else claiming(shared_now(), claimed_for, claims=0)
        return BotVersion.objects.create(
            bot=bot, number=number, code=code, checksum=checksum, **claim
        )


def _already(same: BotVersion) -> str:
    """Why code identical to version ``same`` of its bot is refused, and what to do."""
    already = f"This code is already version {same.number} of {same.bot.name}"
    if same.status == BotVersion.RETIRED:
        return f"{already} (retired): make it active again on My bots (Make v{same.number} active)."
    if same.status == BotVersion.ACTIVE:
        return f"{already}, the one that competes."
    return f"{already}, being validated."


def stored_note(version: BotVersion, log: str, given: str = "") -> str:
    """The line that goes before a version's validation log (``log``) where its lines name
    the bot's file by the name the version stores it under (the bot's: ``starter.py``, which
    the sandbox compiles and runs), not by the name it was uploaded as (``given``; "" where
    that is not known: the site keeps no upload's file name); "" where none is needed. Where
    the runtime's stack traces give the file yet another name (Java: its public class's),
    the note says so, so that it is true of those lines too."""
    if not log:  # (nothing to read of the version then: a list of versions asks for each)
        return ""
    stored = version.filename
    if given == stored or stored not in log:
        return ""
    language = get_language(version.bot.language)
    note = f"(your {given or 'file'} is stored as {stored}, the name in the lines below"
    # (the code only where the language's traces have a name of their own: a list of
    # versions reads it for those alone)
    traced = language.traced_file(version.code) if language.traced_after else None
    if traced is not None and traced != stored and f"({traced}:" in log:
        note += (
            f" but for its stack traces, which name it {traced}, after "
            f"{language.traced_after}: the same file, the same line numbers"
        )
    return note + ")"


def validation_opponent(game: str) -> str:
    spec = get_game(game)
    return "simple" if "simple" in spec.builtin_bots else spec.builtin_names[0]


def validation_time_control(game: str, quick: bool) -> TimeControl:
    """The time control of the validated seat: the site's (bots.running.timing: the game's, with a
    limit on slow calls in a row; ``manage.py arena`` applies the same) for a full pass, or
    every call within the per-call time and a short start (a quick pass)."""
    spec = get_game(game)
    if quick:
        base = spec.time_control
        return TimeControl(move=base.move, bank=0.0, startup=min(base.startup, QUICK_STARTUP_S))
    return site_time_control(spec)


def run_validation(version: BotVersion, quick: bool | None = None) -> ValidationResult:
    """Validation matches in the sandbox: no database writes. ``quick`` (by default: unless
    the version was found slow already): the first pass, whose time-outs defer the version
    rather than reject it (see the module's doc)."""
    quick = not version.validation_slow if quick is None else quick
    spec = get_game(version.bot.game)
    tc = validation_time_control(spec.slug, quick)
    opponent = validation_opponent(spec.slug)
    me = Entry(name=version.bot.label, code=version.code, filename=version.filename, key=version.pk)
    matches = int(getattr(settings, "BOT_VALIDATION_MATCHES", 2))
    alone = spec.plays_alone  # UTH: one seat against the dealer
    against = "" if alone else f" against the built-in bot {builtin_label(opponent)}"
    if quick:
        timing = f"quick pass: every call within the {tc.move:g} s per call, no time bank"
    else:
        timing = (
            f"{tc.move:g} s per call, a {tc.bank:g} s time bank, at most {tc.streak} calls "
            f"in a row over {tc.move:g} s"
        )
    # (the bot and version alone: the status it had when the log was begun goes stale)
    lines = [
        f"validation of {version.bot.label} v{version.number}{against}, {matches} matches "
        f"({timing})"
    ]
    # one process of the bot for the check of its methods and its matches (each a deal of
    # its own), as a worker keeps one: a start costs a JVM about a second
    cache = ProcessCache(1)
    try:
        return _validation_matches(spec, tc, me, lines, quick, cache)
    except compiling.CompileBusy as exc:
        if len(exc.stops) < BUSY_STOPS:
            raise  # the site's load: the version waits, and is tried again
        reason = f"startup: {compile_stopped_text(exc)}"
        lines.append(f"fault: {reason}")
        return ValidationResult(False, reason, "\n".join(lines), fault_kind="startup")
    finally:
        cache.close()


def compile_stopped_text(busy: compiling.CompileBusy) -> str:
    """Why a version whose compile the clock stopped :data:`BUSY_STOPS` times is rejected:
    the CPU each stop had, and that either the code or the site's load may be why."""
    limit = busy.cpu_limit
    return (
        f"compiling was stopped by the clock {len(busy.stops)} times before it finished, "
        f"with {compiling.seconds_text(busy.stops)} of CPU of its {limit} s: the code may need "
        f"more than {limit} s of CPU (upload a lighter version), or the site was too busy "
        "(upload the same file again tomorrow)"
    )


def _validation_matches(
    spec: GameSpec,
    tc: TimeControl,
    me: Entry,
    lines: list[str],
    quick: bool,
    cache: ProcessCache,
) -> ValidationResult:
    """The check of the bot's methods, then its validation matches (:func:`run_validation`),
    each line of the log added to ``lines``."""
    opponent = validation_opponent(spec.slug)
    them = Entry(name=builtin_label(opponent), builtin=opponent)
    matches = int(getattr(settings, "BOT_VALIDATION_MATCHES", 2))
    alone = spec.plays_alone
    # a bot lacking a method of the contract (one for another game) is told so before any
    # match, not by a fault at every call
    if missing := check_before_play(spec, me, timeout=tc.startup, cache=cache):
        reason = f"startup: {missing}"
        lines.append(f"fault: {reason}")
        return ValidationResult(False, reason, "\n".join(lines), fault_kind="startup")
    # the deals are new to every validation: seeded by the code's checksum, they were
    # ones a bot could work out (its own file is in its sandbox) and play apart
    base = secrets.randbits(62)
    # The bot's worker time in all its validation matches is bounded as in a tournament's
    # (a bot slow within the rules on each of 1,450 calls held the only worker 21 minutes).
    bound = worker_bound()
    used = 0.0
    for n in range(matches):
        seed = derive_seed(base, "validation", n)
        my_seat = 0 if alone else n % 2
        entries = [me] if alone else [me, them] if my_seat == 0 else [them, me]
        mine_tc = dataclasses.replace(tc, budget=max(bound - used, 0.0)) if bound else tc
        played = play(spec, entries, seed=seed, seat_time_controls={my_seat: mine_tc}, cache=cache)
        used += played.outcome.stats[my_seat].own_s
        mine = played.seats[my_seat]
        scores = played.outcome.result["scores"]
        # seats counted from 1, as every page counts them
        seat = "" if alone else f" in seat {my_seat + 1}"
        if mine.fault_kind == "startup":  # (a compile error, a failure at import...)
            line = f"match {n + 1}: your bot{seat} did not start, so the match was not played"
        else:
            line = f"match {n + 1}: {_scores_text(spec, scores, my_seat, them.name, seat)} "
            line += f"({played.duration_s:.2f} s)"
        # illegal answers the rules refused without a fault (Last Card: played as passes)
        if refusals := refused(played.outcome.record, my_seat):
            line += f"; {refused_text(spec, len(refusals), refusals[0])}"
        lines.append(line)
        if mine.stderr:
            lines.append(f"stderr of the bot:\n{mine.stderr}")
        if mine.fault_kind:
            reason = f"{mine.fault_kind}: {mine.fault_reason}"
            if mine.fault_kind == "time":  # (its worker time: said for a validation)
                reason = (
                    f"time: the validation matches took over {bound:g} s of the bot's own "
                    f"time, the worker time a bot may use in a tournament (match {n + 1} was "
                    "cut off there): a bot this slow would forfeit its tournament matches"
                )
            if quick and mine.fault_kind == "timeout":
                bank = spec.time_control.bank
                lines.append(
                    f"over the per-call time: {mine.fault_reason}\n"
                    f"slow: validated again in full, with the game's {bank:g} s time bank, "
                    "after the uploads waiting behind it"
                )
                return ValidationResult(
                    False, reason, "\n".join(lines), slow=True, fault_kind=mine.fault_kind
                )
            lines.append(f"fault: {reason}")
            return ValidationResult(False, reason, "\n".join(lines), fault_kind=mine.fault_kind)
    lines.append("passed")
    return ValidationResult(True, "", "\n".join(lines))


def _scores_text(spec: GameSpec, scores: list[float], mine: int, opponent: str, seat: str) -> str:
    """What each side scored in a validation match, in the game's words ("your bot in seat
    1: chips won -117, house/simple +117", with the minus sign); where a score is below zero,
    each one is signed."""
    sign = any(score < 0 for score in scores)

    def shown(score: float) -> str:
        value = round(score, 2) + 0.0  # (never a negative zero)
        text = number(abs(value))
        if value < 0:
            return f"{MINUS}{text}"
        return f"+{text}" if sign and value > 0 else text

    said = f"your bot{seat}: {spec.score_label} {shown(scores[mine])}"
    if len(scores) > 1:
        said += f", {opponent} {shown(scores[1 - mine])}"
    return said


def validate(version: BotVersion) -> BotVersion:
    """Validate a version at once (one full pass: there is nobody to step aside for) and
    record the verdict; an accepted version becomes active and is scheduled for placement
    matches. Raises PlatformError when the platform cannot validate it now (the version
    stays waiting, for a worker)."""
    return record_validation(version, run_validation(version, quick=False))


def record_validation(version: BotVersion, result: ValidationResult) -> BotVersion:
    """Record a validation's verdict (one transaction; nothing if someone else decided); a
    quick pass that found the version slow only marks it so and frees it. A built-in bot of
    the site is never rejected: its failure is logged as an error and it is tried again
    after :data:`BUILTIN_RETRY_S` (the version stays validating)."""
    with transaction.atomic():
        version = (
            BotVersion.objects.select_for_update(of=("self",))
            .select_related("bot", "bot__owner")
            .get(pk=version.pk)
        )
        if version.status != BotVersion.VALIDATING:
            return version  # someone else decided meanwhile
        version.validation_log = untrusted.clean_text(result.log)
        version.validation_lease = None
        if result.slow:
            version.validation_slow = True
            version.save(update_fields=["validation_log", "validation_lease", "validation_slow"])
            return version
        if not result.ok and is_builtin(version):
            _builtin_failed(version, result)
            return version
        version.validated = timezone.now()
        if not result.ok:
            _reject(version, result.reason)
            return version
        activate(version)
        schedule_placement(version)
    return version


def _builtin_failed(version: BotVersion, result: ValidationResult) -> None:
    """A built-in bot failed its validation: the platform's fault (the site's own code
    passes its own checks), never a rejection. Said loudly, kept waiting, tried again."""
    log.error(
        "event=builtin.validation_failed version=%s bot=%s game=%s reason=%r "
        "next=retry_in_%gs (a built-in bot of the site failed its validation: the platform's "
        "fault, never a rejection)",
        version.pk,
        version.bot.name,
        version.bot.game,
        result.reason,
        BUILTIN_RETRY_S,
    )
    version.validation_log = untrusted.clean_text(
        f"{result.log}\n{BUILTIN_NOTE}; tried again in {BUILTIN_RETRY_S:g} s"
    )
    version.validation_lease = shared_now() + timedelta(seconds=BUILTIN_RETRY_S)
    version.save(update_fields=["validation_log", "validation_lease"])


def validation_deferred(
    version: BotVersion,
    reason: str,
    retry_s: float = PLATFORM_RETRY_S,
    *,
    claims: int | None = None,
) -> bool:
    """The platform could not validate ``version`` now (no free sandbox slot, a sandbox that
    does not start, a worker stopped mid-validation): no verdict and nothing counted (the
    claim is given back); it is tried again after ``retry_s``, and its log says why. False
    if the version is no longer being validated (``claims``: by the claim that made its
    count of claims that, not by one taken since)."""
    reason = untrusted.clean_text(reason)
    held = BotVersion.objects.filter(pk=version.pk, status=BotVersion.VALIDATING)
    if claims is not None:
        held = held.filter(validation_claims=claims)
    return bool(
        held.update(
            validation_claims=Greatest(F("validation_claims") - 1, Value(0)),
            validation_lease=shared_now() + timedelta(seconds=retry_s),
            validation_log=f"{DEFERRED_NOTE}{reason}; it is tried again "
            f"{f'in {retry_s:g} s' if retry_s > 0 else 'by the next worker free'} "
            "(the platform's trouble, never the bot's)",
        )
    )


def _reject(version: BotVersion, reason: str) -> None:
    version.status = BotVersion.REJECTED
    version.reason = untrusted.clean_text(reason)
    version.save()


def validation_failed(version: BotVersion, error: str) -> bool:
    """A validation ended in an error of the platform's own (not a fault of the bot: that
    is a verdict): count it, keep the error in the log and free the version for the next
    try. False if the version is no longer being validated."""
    error = untrusted.clean_text(error)
    # a built-in bot is tried again for ever (never rejected), so not at once
    again = shared_now() + timedelta(seconds=BUILTIN_RETRY_S) if is_builtin(version) else None
    return bool(
        BotVersion.objects.filter(pk=version.pk, status=BotVersion.VALIDATING).update(
            validation_errors=F("validation_errors") + 1,
            validation_lease=again,
            validation_log=f"{ERROR_NOTE}{version.validation_claims}: {error}",
        )
    )


def activate(version: BotVersion) -> None:
    """Make ``version`` its bot's active version (inside the caller's transaction). The
    version it replaces is retired as its owner would retire it: its queued matches are
    withdrawn (but for the other seatings of deals it has played), so that no number of
    versions made active in turn leaves more than one placement of the bot in the queue."""
    replaced = list(version.bot.versions.filter(status=BotVersion.ACTIVE).exclude(pk=version.pk))
    if replaced:
        BotVersion.objects.filter(pk__in=[v.pk for v in replaced]).update(status=BotVersion.RETIRED)
        lock_ledger(version.bot.game)
        for old in replaced:
            withdraw_queued_jobs(
                old, f"{WITHDRAWN}version {version.number} of the bot took its place"
            )
    version.status = BotVersion.ACTIVE
    version.reason = ""
    version.save()
    on_new_version(version)


def validation_queue(now: datetime, slow: bool | None = None) -> QuerySet[BotVersion]:
    """Versions waiting for validation whose lease is free, in the order workers take them:
    quick passes before slow versions' full ones; among them each owner's oldest version
    first, owners in turn (``ahead``: the owner's versions validating that were uploaded
    earlier, those being validated right now included); then oldest first. All in the
    query, so every worker on every machine follows the same order."""
    earlier = (
        BotVersion.objects.filter(
            status=BotVersion.VALIDATING, bot__owner=OuterRef("bot__owner"), id__lt=OuterRef("id")
        )
        .order_by()
        .values("bot__owner")
        .annotate(n=Count("id"))
        .values("n")
    )
    free = Q(validation_lease__isnull=True) | Q(validation_lease__lte=now)
    waiting = BotVersion.objects.filter(free, status=BotVersion.VALIDATING)
    if slow is not None:
        waiting = waiting.filter(validation_slow=slow)
    ahead = Coalesce(Subquery(earlier, output_field=IntegerField()), Value(0))
    return waiting.annotate(ahead=ahead).order_by("validation_slow", "ahead", "id")


def is_paused(version: BotVersion) -> bool:
    """Whether ``version``'s validation waits out a pause (:func:`paused`, for one row)."""
    log = version.validation_log or ""
    return log.startswith((DEFERRED_NOTE, ERROR_NOTE)) or BUILTIN_NOTE in log


def paused() -> Q:
    """The versions whose log says their validation waits out a pause (their lease, in the
    future, is that pause's end, not a worker's): :data:`DEFERRED_NOTE`, :data:`ERROR_NOTE`,
    :data:`BUILTIN_NOTE`. A claim clears such a note (:func:`claim_validation`)."""
    return (
        Q(validation_log__startswith=DEFERRED_NOTE)
        | Q(validation_log__startswith=ERROR_NOTE)
        | Q(validation_log__contains=BUILTIN_NOTE)
    )


def validations_running(now: datetime) -> int:
    """How many versions workers are validating now (held with a lease, not paused)."""
    held = BotVersion.objects.filter(status=BotVersion.VALIDATING, validation_lease__gt=now)
    return held.exclude(paused()).count()


def validations_waiting(now: datetime) -> int:
    """How many versions wait for a worker to validate them (:func:`validation_queue`)."""
    return validation_queue(now).count()


def validations_ahead(version: BotVersion, now: datetime) -> int:
    """How many waiting versions the workers take before ``version``: those that come
    before it in :func:`validation_queue` (the order workers follow), counted in one query.
    Its place can change while it waits: another owner's first upload comes before an
    owner's second."""
    owner = Bot.objects.filter(pk=version.bot_id).values("owner")[:1]
    earlier = (
        BotVersion.objects.filter(
            status=BotVersion.VALIDATING, bot__owner=Subquery(owner), id__lt=version.pk
        )
        .order_by()
        .values("bot__owner")
        .annotate(n=Count("id"))
        .values("n")
    )
    mine = Coalesce(Subquery(earlier, output_field=IntegerField()), Value(0))
    same_pass = Q(ahead__lt=F("mine")) | Q(ahead=F("mine"), id__lt=version.pk)
    before = Q(validation_slow=version.validation_slow) & same_pass
    if version.validation_slow:
        before |= Q(validation_slow=False)  # quick passes come before slow versions' full ones
    queue = validation_queue(now).exclude(pk=version.pk).alias(mine=mine)
    return queue.filter(before).count()


def given_up_reason(version: BotVersion, verdict: str, caps: Caps) -> str:
    """The reason of a version whose validation is given up at one of its ``caps``, for its
    owner: errors of ours say the last one (``verdict``); claims that each ended without a
    verdict (the workers that took it were killed: a deploy's stop is no claim, see
    :func:`validation_deferred`) are the site's trouble, said so."""
    last_error = version.validation_log.partition(": ")[2]
    claims = version.validation_claims
    if caps.reached(version.validation_errors, claims, last_error) == ERRORS:
        return f"validation {verdict}"
    return (
        f"validation given up: the site's workers stopped {claims} times while validating it "
        "(the site's trouble, not your bot's); upload the same file again later"
    )


def claiming(now: datetime, lease_s: float, claims: Any) -> dict[str, Any]:
    """The fields that claim a version's validation (``claims``: its count of claims so
    far, a value or an expression): a lease of ``lease_s`` from ``now`` (the database's
    clock) and one claim more, which a heartbeat's renewals then check
    (``worker.ValidationHeartbeat``)."""
    return {
        "validation_lease": now + timedelta(seconds=lease_s),
        "validation_claims": claims + 1,
    }


def claim_validation(
    worker: str, lease_s: float, caps: Caps | None = None, *, slow: bool | None = None
) -> BotVersion | None:
    """The next version waiting for validation (:func:`validation_queue`; ``slow``: only
    versions that were, or were not, found slow), claimed with a conditional update (safe on
    every database). One at a cap of ``caps`` (errors of ours, or claims by workers that
    stopped before a verdict) is rejected instead, with the reason."""
    caps = caps or Caps.from_settings()
    now = shared_now()
    for candidate in validation_queue(now, slow)[:5]:
        mine = BotVersion.objects.filter(
            pk=candidate.pk,
            status=BotVersion.VALIDATING,
            validation_lease=candidate.validation_lease,
            validation_claims=candidate.validation_claims,
        )
        last_error = candidate.validation_log.partition(": ")[2]
        verdict = caps.verdict(
            candidate.validation_errors, candidate.validation_claims, last_error, ""
        )
        if verdict and is_builtin(candidate):
            # never rejected: tried again for as long as it takes, and said loudly
            log.error(
                "event=builtin.validation_stuck version=%s %s (a built-in bot of the site: "
                "tried again, never rejected)",
                candidate.pk,
                verdict,
            )
            verdict = ""
        if verdict:
            log.warning("event=validation.given_up version=%s verdict=%r", candidate.pk, verdict)
            with transaction.atomic():
                if mine.select_for_update().exists():
                    _reject(candidate, given_up_reason(candidate, verdict, caps))
            continue
        won = mine.update(
            **claiming(now, lease_s, claims=F("validation_claims")),
            # a pause's note no longer holds: a worker validates it now (validations_running)
            validation_log=Case(
                When(paused(), then=Value("")),
                default=F("validation_log"),
                output_field=TextField(),
            ),
        )
        if won:
            return BotVersion.objects.select_related("bot", "bot__owner").get(pk=candidate.pk)
    return None


def retire(bot: Bot) -> BotVersion | None:
    """The owner withdraws ``bot``: its active version becomes retired, so it is left out of
    new rounds and placements, and its matches still waiting in the queue are withdrawn
    (marked failed); a match being played finishes and counts. Returns the retired version,
    or None when the bot had no active version."""
    with transaction.atomic():
        version = (
            BotVersion.objects.select_for_update()
            .filter(bot=bot, status=BotVersion.ACTIVE)
            .select_related("bot")
            .first()
        )
        if version is None:
            return None
        version.status = BotVersion.RETIRED
        version.save(update_fields=["status"])
        lock_ledger(bot.game)
        withdraw_queued_jobs(version, f"{WITHDRAWN}the bot was retired by its owner")
        rerank(bot.game)  # it leaves the ranking; its row and history stay
    return version


def reactivate(version: BotVersion) -> BotVersion:
    """Make a retired version (one that passed validation and was active before) the bot's
    active version again; like a newly validated version it gets its sigma widened and
    placement matches. Raises UploadError when the version is not retired, or where its
    owner has as many other bots competing in the game as a person may (:func:`check_room`)."""
    with transaction.atomic():
        lock_owner(version.bot.owner)  # first, as an upload takes it (see check_room)
        version = BotVersion.objects.select_for_update().select_related("bot").get(pk=version.pk)
        if version.status != BotVersion.RETIRED:
            raise UploadError(
                f"version {version.number} of {version.bot.name} is {version.status}: "
                "only a retired version can be made active again"
            )
        check_room(version.bot.owner, version.bot)
        check_reactivations(version.bot)
        activate(version)
        schedule_placement(version)
    return version


#: versions made active again per bot in an hour (setting ``BOT_REACTIVATIONS_PER_HOUR``)
REACTIVATIONS_PER_HOUR = 3


def check_reactivations(bot: Bot) -> None:
    """Raise UploadError when ``bot`` has had ``BOT_REACTIVATIONS_PER_HOUR`` versions made
    active again in the last hour: each queues a placement ahead of every regular round (and
    a worker-time cap of its own), so making versions active in turn, unlimited, kept the
    workers on one bot's placements and got round the upload limit."""
    limit = int(getattr(settings, "BOT_REACTIVATIONS_PER_HOUR", REACTIVATIONS_PER_HOUR))
    if limit <= 0:
        return
    since = timezone.now() - timedelta(hours=1)
    versions = list(bot.versions.values_list("pk", flat=True))
    placements = Tournament.objects.filter(
        game=bot.game,
        format=Tournament.PLACEMENT,
        created__gte=since,
        settings__version__in=versions,
    ).order_by("created")
    made = [t.created for t in placements.only("created")]
    # (each version's first placement, after its validation, is not a reactivation)
    validated = bot.versions.filter(
        validated__gte=since, status__in=[BotVersion.ACTIVE, BotVersion.RETIRED]
    )
    reactivated = len(made) - validated.count()
    if reactivated >= limit:
        wait = hour_wait(made, limit, timezone.now()) or 0.0
        raise UploadError(
            f"{bot.name} has had {plural(reactivated, 'version')} made active again in the "
            f"last hour, the most allowed ({limit} an hour: each queues placement matches "
            "ahead of everyone's rounds); you can make one active again in "
            f"{minutes(wait)}."
        )
