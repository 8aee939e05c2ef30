"""Pages about bots: "My bots" (upload, versions, live validation, retire / reactivate) and
the public page of each bot (rating history, results, recent matches).

The web process only stores uploaded code: validation runs in the worker's sandbox
(``manage.py worker``), and these pages show its verdict, polling a small JSON endpoint while
a version waits. What only the owner may see (code, validation logs, the stderr and faults of
matches) is checked here on the server, never left to the template or the browser.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from html import escape
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db import connection, transaction
from django.db.models import Case, Count, DateTimeField, F, Prefetch, QuerySet, Value, When
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.http import content_disposition_header
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bots.clock import shared_now
from bots.competition import uploads
from bots.ladder import aggregates
from bots.ladder.ratings import format_of, ranking_measure
from bots.languages import (
    UnsupportedBot,
    default_language,
    get_language,
    language_title,
    spoken,
)
from bots.models import (
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
)
from bots.pages import upload_address
from bots.pages.compiler import refusal
from bots.pages.forms import UploadForm
from cardsite import keyset
from cardsite.accounts import client_ip
from cardsite.written import MINUS, figure, minus_signs, number, score_pair, when
from games.chips.tournament import ChipsRoundRobin
from games.engine import untrusted
from games.engine.table import FAULT_WORDS, hour_wait, minutes
from games.engine.tournament import Format
from games.models import profile_hidden
from games.registry import get_game

#: a request may be this much larger than the code limit (form fields, multipart framing)
REQUEST_OVERHEAD = 64 * 1024
#: how many recent matches the bot page lists
RECENT_MATCHES = 20
#: how many opponents a page of the bot's results by opponent lists
OPPONENTS_PER_PAGE = 50
#: how many versions the bot page and the API's bot list (the newest, and the active one
#: whatever its age): uploads go on for years, the full list is paged (VERSIONS_PER_PAGE)
VERSIONS_SHOWN = 20
#: how many versions a page of a bot's full list of versions holds
VERSIONS_PER_PAGE = 50
#: that list's order, newest first: the index of a bot's version numbers serves it
VERSION_ORDER = ["-number", "-pk"]
#: how many points the rating chart draws at most (a long history is thinned evenly)
CHART_POINTS = 300
#: how many rating updates the chart's data table lists (the newest)
CHART_TABLE_ROWS = 100


# ---- helpers --------------------------------------------------------------------------------
def uploads_per_hour() -> int:
    return int(getattr(settings, "BOT_UPLOADS_PER_HOUR", 10))


def request_limit() -> int:
    """The largest upload request read at all: twice the code limit (a browser sends a
    textarea's line ends as CR LF) plus room for the other fields."""
    return 2 * uploads.max_code_bytes() + REQUEST_OVERHEAD


def declared_size(request: HttpRequest) -> int:
    """The bytes a request says its body holds (``Content-Length``; 0 when it says none, or
    nothing a number), read before the body is: what :func:`request_limit` is held to."""
    length = request.META.get("CONTENT_LENGTH") or "0"
    return int(length) if length.isdigit() else 0


def game_title(slug: str) -> str:
    try:
        return get_game(slug).title
    except KeyError:
        return slug


def _one_to_one(bot: Bot, name: str) -> Any:
    """A reverse one-to-one (rating, leaderboard row) or None when the bot has none yet."""
    try:
        return getattr(bot, name)
    except (Rating.DoesNotExist, LeaderboardRow.DoesNotExist):
        return None


def _compiled(version: BotVersion) -> bool:
    """Whether the version's language is compiled before it runs (C++, Java)."""
    try:
        return get_language(version.bot.language).compiled
    except UnsupportedBot:  # a language this site no longer has
        return False


def status_of(version: BotVersion, now: datetime | None = None) -> dict[str, Any]:
    """What the pages and the status endpoint say about a version's state (``now``:
    :func:`bots.clock.shared_now`, the clock of its validation's lease)."""
    now = now or shared_now()
    text = version.status
    detail = ""
    if version.status == BotVersion.VALIDATING:
        if (
            version.validation_lease
            and version.validation_lease > now
            and (uploads.is_paused(version))
        ):
            # (its lease is the end of a pause after the site's trouble, not a worker's)
            left = max(1, math.ceil((version.validation_lease - now).total_seconds()))
            detail = (
                "waiting: the site had trouble validating it (not your bot's doing); a worker "
                f"tries again in {left} s"
            )
        elif version.validation_lease and version.validation_lease > now:
            # held by a worker or by the upload_bot command that stored it (a heartbeat
            # extends the lease while either runs; which one is not recorded); a compiled
            # language's validation starts with the compile, which may take longer than a
            # match (which of the two is running now is not recorded either)
            if _compiled(version):
                detail = (
                    "being validated: compiling it first (usually under 2 minutes), then "
                    "playing its validation matches"
                )
            else:
                detail = "being validated: playing its validation matches"
        elif version.validation_slow:
            detail = (
                "slower than the per-call time: waiting to be validated again, with the time "
                "bank, after the uploads behind it"
            )
        else:
            ahead = uploads.validations_ahead(version, now)
            if ahead:
                uploads_word = "upload" if ahead == 1 else "uploads"
                detail = f"waiting for a worker: {ahead} {uploads_word} ahead of it"
            else:
                detail = "waiting for a worker: next in line"
    elif version.status == BotVersion.ACTIVE:
        detail = "competing"
    elif version.is_taken_off:  # its reason (its owner's) says which faults
        text = "taken off the ladder"
        detail = "it faulted in its rated matches after validation; no longer competing"
    elif version.status == BotVersion.RETIRED:
        detail = "not competing; it can be made active again"
    return {"status": version.status, "text": text, "detail": detail}


def version_json(version: BotVersion) -> dict[str, Any]:
    state = status_of(version)
    # the versions My bots lists (the newest and the active one), oldest first
    siblings = newest_versions(
        version.bot.versions.only(
            "id", "bot_id", "number", "status", "validation_lease", "validation_slow", "taken_off"
        )
    ).listed
    siblings.sort(key=lambda v: v.number)
    return {
        "id": version.pk,
        "bot": version.bot_id,
        "number": version.number,
        "status": version.status,
        "text": state["text"],
        "detail": state["detail"],
        "final": version.status != BotVersion.VALIDATING,
        # a compiler's refusal as its one-line summary: its lines are in the log, whole
        "reason": reason_summary(version.reason),
        "log": version.validation_log,
        "log_note": log_note(version),
        "validated": version.validated.isoformat() if version.validated else None,
        "versions": [{"id": v.pk, "number": v.number, **status_of(v)} for v in siblings],
    }


def log_note(version: BotVersion) -> str:
    """Where a version's validation log (and a compiler's refusal, which is in it) names the
    bot's file by the name the version stores it under (``web-java.java:23: error``), the
    line that says so (:func:`uploads.stored_note`, the words ``upload_bot`` prints above the
    log), shown to its owner above them as a paragraph of its own (the log's box keeps its
    lines unwrapped: a line that long would be cut); else ""."""
    return uploads.stored_note(version, version.validation_log)


def reason_summary(reason: str) -> str:
    """A version's reason on one line: a compiler's refusal as its summary ("startup: C++
    compile error (2 errors)"), the compiler's lines being shown apart (in a monospace block,
    and in the validation log); any other reason as it is."""
    found = refusal(reason)
    return found.summary if found is not None else reason


def _reason_html(version: BotVersion) -> str:
    """A version's reason for its owner: a compiler's refusal as its summary and the
    compiler's lines, whole, in a box of their own (carets under the columns they mark)."""
    found = refusal(version.reason)
    said = found.summary if found is not None else version.reason
    html = f'<p class="reason"><span class="sr-only">Reason: </span>{escape(said)}</p>'
    if found is not None:
        html += (
            '<pre class="log" tabindex="0" role="region" aria-label="The compiler&#x27;s '
            f'messages for v{version.number}">{escape(found.lines)}</pre>'
        )
    return html


class RateLimited(uploads.UploadError):
    """Too many new versions in the last hour."""


def upload_within_limit(
    user: Any, game: str, name: str, filename: str, data: bytes, address: str = ""
) -> BotVersion:
    """:func:`bots.competition.uploads.upload`, unless the user already uploaded
    ``BOT_UPLOADS_PER_HOUR`` versions in the last hour, or the accounts of the client's
    ``address`` (``cardsite.accounts.client_ip``) uploaded ``BOT_UPLOADS_PER_ADDRESS_PER_HOUR``
    (:mod:`bots.pages.upload_address`). The user's row is locked so that parallel requests
    count each other. A file refused for itself (one for another game...) is refused
    first: nothing counted, and never a limit said instead of what is wrong with it."""
    uploads.checked_upload(game, filename, data)
    per_hour = uploads_per_hour()
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        now = timezone.now()
        recent = list(
            BotVersion.objects.filter(bot__owner=user, created__gt=now - timedelta(hours=1))
            .order_by("created")
            .values_list("created", flat=True)
        )
        if (wait := hour_wait(recent, per_hour, now)) is not None:
            raise RateLimited(
                f"You have uploaded {len(recent)} versions in the last hour, the most allowed "
                f"({per_hour} an hour); you can upload again in {minutes(wait)}."
            )
        counted, refused = upload_address.take(address)
        if refused:
            raise RateLimited(refused)
        try:
            return uploads.upload(user, game, name, filename, data)
        except BaseException:
            upload_address.give_back(counted)
            raise


# ---- My bots --------------------------------------------------------------------------------
def _initial(request: HttpRequest) -> dict[str, Any]:
    """A new version of one of the user's bots (``?bot=<id>``) starts from its game, name and
    language."""
    initial: dict[str, Any] = {"language": default_language().name}
    pk = untrusted.whole_number(request.GET.get("bot", ""))
    if pk is not None:
        bot = Bot.objects.filter(pk=pk, owner=request.user).first()
        if bot is not None:
            initial.update(game=bot.game, name=bot.name, language=bot.language)
    game = request.GET.get("game", "")
    if "game" not in initial and game:
        initial["game"] = game
    return initial


#: what the bot pages leave unread of a bot's leaderboard row: its running totals (rows
#: stored before the head-to-head moved to the results by opponent hold it there, growing
#: with the opponents; the results by opponent are read a page at a time)
ROW_UNREAD = ("leaderboard_row__standing",)


def _my_bots_context(user: Any, bot: int | None = None) -> list[dict[str, Any]]:
    """Each of the user's bots (or the one of id ``bot``) with its newest versions and its
    active one (two prefetch queries for all the bots: the newest of each bot are cut in the
    database, so years of uploads are not read), grouped by game."""
    versions = BotVersion.objects.defer("code")
    newest = versions.order_by("-number")[: VERSIONS_SHOWN + 1]
    chosen = {"owner": user} if bot is None else {"owner": user, "pk": bot}
    bots = (
        Bot.objects.filter(**chosen)
        .select_related("rating", "leaderboard_row")
        .defer(*ROW_UNREAD)
        .prefetch_related(
            Prefetch("versions", queryset=newest, to_attr="newest"),
            Prefetch(
                "versions", queryset=versions.filter(status=BotVersion.ACTIVE), to_attr="active"
            ),
        )
        .order_by("game", "name")
    )
    # each bot's matches played but not rated yet (one query for all), as its page counts
    # them: ratings are applied in job order, so they wait behind jobs queued earlier
    unrated = dict(
        unrated_seats()
        .filter(**{f"bot__{key}": value for key, value in chosen.items()})
        .order_by()
        .values_list("bot")
        .annotate(count=Count("id"))
    )
    now = shared_now()  # (for status_of)
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for bot in bots:
        listed = bot.newest[:VERSIONS_SHOWN]
        active = bot.active[0] if bot.active else None
        if active is not None and all(v.pk != active.pk for v in listed):
            listed.append(active)
        groups[bot.game].append(
            {
                "bot": bot,
                "language": language_title(bot.language),
                "versions": [
                    {
                        "version": v,
                        "refusal": refusal(v.reason),
                        "note": log_note(v),
                        **status_of(v, now),
                    }
                    for v in listed
                ],
                "more": len(bot.newest) > VERSIONS_SHOWN,
                "active": active,
                # the newest version that competed was taken off the ladder for its faults
                "taken_off": active is None and _last_competed_taken_off(listed),
                "validating": any(v.status == BotVersion.VALIDATING for v in listed),
                "rating": _one_to_one(bot, "rating"),
                "row": (row := _one_to_one(bot, "leaderboard_row")),
                "unrated": unrated.get(bot.pk, 0),
                "measure": ranking_measure(row) if row is not None else None,
                "plays_alone": _plays_alone(bot.game),
            }
        )
    return [{"slug": slug, "title": game_title(slug), "bots": groups[slug]} for slug in groups]


def unrated_seats() -> QuerySet[MatchSeat]:
    """The seats of the tournament matches played but not rated yet (those the ratings pass
    by for good say why instead, ``Match.unrated``). Found from the matches, not from a
    bot's seats: the few that wait for their rating are in an index of their own
    (``match_unrated``: a database at a million matches reads a handful of rows rather
    than every match, or every match of a bot)."""
    waiting = Match.objects.filter(rated=False, job__isnull=False, unrated="")
    return MatchSeat.objects.filter(match__in=waiting.values("pk"))


def _last_competed_taken_off(versions: Iterable[BotVersion]) -> bool:
    """Whether the newest of these versions that competed (retired, or taken off the ladder)
    was taken off for faulting in its rated matches."""
    competed = [v for v in versions if v.status == BotVersion.RETIRED or v.is_taken_off]
    return bool(competed) and max(competed, key=lambda v: v.number).is_taken_off


def _plays_alone(slug: str) -> bool:
    try:
        return get_game(slug).plays_alone
    except KeyError:
        return False


def _zero_sum(fmt: Format | None) -> bool:
    """Whether what one bot of a match wins the other loses, so that one signed figure says
    it: the two-player chip games (Kuhn, Leduc, Blackjack++)."""
    return isinstance(fmt, ChipsRoundRobin)


def signed(value: float) -> str:
    """Points as one signed figure: "+14", "\u221214", "0" (never a negative zero)."""
    value = round(value, 2) + 0.0
    text = number(abs(value))
    return f"+{text}" if value > 0 else f"{MINUS}{text}" if value < 0 else text


def _score_label(slug: str) -> str:
    try:
        return get_game(slug).score_label
    except KeyError:
        return "score"


def _render_my_bots(
    request: HttpRequest, form: UploadForm, *, error: str = "", status: int = 200
) -> HttpResponse:
    games = _my_bots_context(request.user)
    names = sorted({entry["bot"].name for game in games for entry in game["bots"]})
    return render(
        request,
        "bots/my_bots.html",
        {
            "games": games,
            "form": form,
            "request_error": error,
            "bot_names": names,
            "max_size": uploads.size_text(uploads.max_code_bytes()),
            "jar_games": spoken(uploads.jar_games(), "and") if uploads.jar_games() else "",
            "per_hour": uploads_per_hour(),
            "per_game": uploads.bots_per_person(),
            "any_validating": any(b["validating"] for g in games for b in g["bots"]),
        },
        status=status,
    )


@never_cache  # the owner's bots, their code's logs and output: kept by no cache
@login_required
@csrf_exempt  # the size of a POST is checked before its body is read; csrf_protect follows
def my_bots(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        size = declared_size(request)
        if size > request_limit():
            # Refused before the body is parsed: nothing of it is held in memory.
            error = uploads.too_big(size)
            form = UploadForm(initial=_initial(request))
            return _render_my_bots(request, form, error=error, status=413)
        return _upload(request)
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
    return _render_my_bots(request, UploadForm(initial=_initial(request)))


@csrf_protect
def _upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST, request.FILES)
    if form.is_valid():
        filename, data = form.filename_and_data()
        try:
            version = upload_within_limit(
                request.user,
                form.cleaned_data["game"],
                form.cleaned_data["name"],
                filename,
                data,
                address=client_ip(request),
            )
        except uploads.UploadError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Version {version.number} of {version.bot.name} is stored and waits for "
                "validation in the sandbox.",
                # My bots' script finds this banner to say the verdict once it comes
                extra_tags=f"upload-of-version-{version.pk}",
            )
            return redirect(reverse("my_bots") + f"#version-{version.pk}")
    return _render_my_bots(request, form)


@never_cache
@login_required
@require_GET
def version_status(request: HttpRequest, pk: int) -> JsonResponse:
    """A version's status for My bots' script; once its validation has ended, with what the
    page draws of it after a reload: its verdict (``verdict_html``) and its bot's line on
    its card (``meta_html``), rendered by the page's own templates."""
    version = get_object_or_404(
        BotVersion.objects.select_related("bot"), pk=pk, bot__owner=request.user
    )
    data = version_json(version)
    if data["final"]:
        (game,) = _my_bots_context(request.user, bot=version.bot_id)
        (entry,) = game["bots"]
        data["meta_html"] = render_to_string("bots/_bot_meta.html", {"entry": entry})
        data["verdict_html"] = render_to_string(
            "bots/_version_verdict.html",
            {
                "v": version,
                "refusal": refusal(version.reason),
                "bot": version.bot,
                "note": data["log_note"],
            },
        )
    return JsonResponse(data)


@never_cache  # the owner's code
@login_required
@require_GET
def version_download(request: HttpRequest, pk: int) -> HttpResponse:
    version = get_object_or_404(
        BotVersion.objects.select_related("bot"), pk=pk, bot__owner=request.user
    )
    stem, dot, suffix = version.filename.rpartition(".")
    kept = get_language(version.bot.language).kept_file(version.code)
    if kept is not None:  # a file kept wrapped (a built jar): given back as it came
        name = f"{stem}-v{version.number}{kept[0]}"
        return HttpResponse(
            kept[1],
            content_type="application/octet-stream",
            headers={"Content-Disposition": content_disposition_header(True, name)},
        )
    name = f"{stem}-v{version.number}{dot}{suffix}"
    return HttpResponse(
        version.code,
        content_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": content_disposition_header(True, name)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def bot_retire(request: HttpRequest, pk: int) -> HttpResponse:
    """Retiring asks first (GET: what it means, and a button); a POST retires only with the
    confirmation of that page (``confirm=yes``), else it shows the question again."""
    bot = get_object_or_404(Bot, pk=pk, owner=request.user)
    if request.method == "GET" or request.POST.get("confirm") != "yes":
        active = bot.active_version()
        row = LeaderboardRow.objects.filter(bot=bot).first()
        context = {"bot": bot, "active": active, "row": row, "game": game_title(bot.game)}
        return render(request, "bots/retire.html", context)
    version = uploads.retire(bot)
    if version is None:
        messages.error(request, f"{bot.name} has no active version to retire.")
    else:
        messages.success(
            request,
            f"{bot.name} is retired: version {version.number} no longer competes. "
            "Make a version active again to bring the bot back.",
        )
    return redirect(reverse("my_bots") + f"#bot-{bot.pk}")


@login_required
@require_POST
def version_activate(request: HttpRequest, pk: int) -> HttpResponse:
    version = get_object_or_404(
        BotVersion.objects.select_related("bot"), pk=pk, bot__owner=request.user
    )
    try:
        version = uploads.reactivate(version)
    except uploads.UploadError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Version {version.number} of {version.bot.name} is active again; its placement "
            "matches are queued.",
        )
    return redirect(reverse("my_bots") + f"#bot-{version.bot_id}")


# ---- the public bot page --------------------------------------------------------------------
def _nice_step(span: float, parts: int) -> float:
    raw = span / parts if span > 0 else 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= raw:
            return factor * magnitude
    return 10 * magnitude


def _ticks(low: float, high: float, parts: int) -> list[float]:
    step = _nice_step(high - low, parts)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def axis_ticks(low: float, high: float, fewest: int = 4, most: int = 6) -> list[float]:
    """Round values for a chart's value axis that cover ``low`` to ``high``: the first at or
    below ``low``, the last at or above ``high``, ``fewest`` to ``most`` of them, a step of
    1, 2, 2.5, 4 or 5 times a power of ten, the one whose axis is the shortest (the most
    room for the lines). The axis runs from the first to the last, so every line is between
    two labelled values (the ticks inside the range alone were often two: "0" and "20")."""
    if not high - low > 0:
        low, high = low - 0.5, high + 0.5
    magnitude = 10 ** math.floor(math.log10((high - low) / most))
    best: tuple[float, int, int, float] | None = None
    for power in (1, 10, 100):
        for factor in (1, 2, 2.5, 4, 5):
            step = factor * magnitude * power
            first = math.floor(low / step + 1e-9)
            last = math.ceil(high / step - 1e-9)
            length = (last - first) * step
            if fewest <= last - first + 1 <= most and (best is None or length < best[0] - 1e-9):
                best = (length, first, last, step)
    if best is None:  # a range too narrow for the steps above: never met by a rating chart
        return [low, high]
    _, first, last, step = best
    return [round(k * step, 10) for k in range(first, last + 1)]


def chart_positions(count: int) -> list[int]:
    """The points a chart of ``count`` rating updates draws: 0 (before the first) to
    ``count`` (after the last), thinned to CHART_POINTS evenly spread ones."""
    if count + 1 <= CHART_POINTS:
        return list(range(count + 1))
    return sorted({round(k * count / (CHART_POINTS - 1)) for k in range(CHART_POINTS)})


class Point(NamedTuple):
    """One rating update as the bot page reads it: plain values, not a model instance (the
    page reads a few hundred of them, and building models cost it more than the query)."""

    number: int
    mu: float
    sigma: float
    mu_before: float
    sigma_before: float
    match_id: int | None
    created: datetime | None  # None where the page needs no time (see HistoryRows.load)


class PlacedHistory(Sequence[Point]):
    """A rating history by position, oldest first, that reads only the rows asked for: a
    subclass knows its length (``count``) and reads the rows at some positions into
    ``rows`` (by their place, ``number``: position + 1) in :meth:`load`."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.rows: dict[int, Point] = {}

    def load(self, positions: Iterable[int]) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, position):  # type: ignore[override]
        if isinstance(position, slice):
            return [self[p] for p in range(*position.indices(len(self)))]
        if position < 0:
            position += self.count
        if not 0 <= position < self.count:
            raise IndexError(position)
        if position + 1 not in self.rows:
            self.load([position])
        return self.rows[position + 1]


class HistoryRows(PlacedHistory):
    """A bot's rating history by position, oldest first, reading only the rows a page asks
    for: its length from the last row (one index probe), then the rows of :meth:`load`'s
    positions by their place in the history (``number``, one more query over an index). A
    bot with a million rated matches costs the page a few hundred rows, as one with a
    thousand does."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        last = RatingHistory.objects.filter(bot=bot).order_by("-number").values("number")
        super().__init__(next(iter(last[:1]), {"number": 0})["number"])

    def load(self, positions: Iterable[int], timed_from: int = 0) -> None:
        """Read the rows at ``positions``; those before position ``timed_from`` without
        their time (``created`` is None: the chart draws none, and turning a few hundred
        times into the site's zone cost the page more than reading them)."""
        wanted = {p + 1 for p in positions if 0 <= p < self.count} - set(self.rows)
        if not wanted:
            return
        found = RatingHistory.objects.filter(bot=self.bot).order_by()
        if timed_from > 0:
            timed = When(number__gt=timed_from, then=F("created"))
            found = found.annotate(
                time=Case(timed, default=Value(None), output_field=DateTimeField())
            )
        if connection.vendor == "postgresql":
            # one array parameter rather than an IN list of a few hundred: half the time
            # of composing, sending and planning the query (bench/bench_pages.py)
            found = found.extra(where=['"number" = ANY(%s)'], params=[sorted(wanted)])
        else:
            found = found.filter(number__in=wanted)
        fields = [*Point._fields[:-1], "time" if timed_from > 0 else "created"]
        self.rows |= {row[0]: Point(*row) for row in found.values_list(*fields)}


def page_history(bot: Bot) -> HistoryRows:
    """The bot's rating history with the rows its page draws (the chart's points and the
    table's latest rows, and the one before them, whose after the first's before is
    compared with: :func:`widened`) read in one query."""
    history = HistoryRows(bot)
    chart = [n - 1 for n in chart_positions(len(history)) if n] + [0]
    table = max(0, len(history) - CHART_TABLE_ROWS)
    history.load([*chart, *range(max(0, table - 1), len(history))], timed_from=table)
    return history


#: what the bot page says where a rating's uncertainty went back up between two rated matches
WIDENED = "new version: uncertainty widened"


def widened(after: tuple[float, float], before: tuple[float, float]) -> bool:
    """Whether a rating moved between one update's ``after`` (mu, sigma) and the next one's
    ``before``, or the rating now: only a version made active moves it there (its sigma goes
    back up, ``ratings.on_new_version``), which writes no history row of its own, so that the
    rows stay one per rated match (``number``)."""
    return any(abs(a - b) > 1e-9 for a, b in zip(after, before, strict=True))


def rating_chart(
    history: Sequence[RatingHistory], now: tuple[float, float] | None = None
) -> dict[str, Any] | None:
    """An SVG line chart of a rating history: the conservative rating (mu - 3 sigma) after
    each rated match, mu dashed, and the band mu +/- sigma; numbers only, drawn here.

    ``now``: the rating (mu, sigma) as it stands, which may have moved since the last update
    (a bot's new version widens sigma): the chart then ends with that step, as the page's
    rating does. A step between two updates drawn side by side (a history short enough to
    draw whole, or the latest updates) is drawn as one too; ``widened`` holds each one's
    x, which the chart marks."""
    if not history:
        return None
    count = len(history)
    first = history[0]
    points = [(0, first.mu_before, first.sigma_before)]  # before the first update
    steps: list[int] = []  # after how many rated matches the rating moved between updates
    for n in chart_positions(count):
        if not n:
            continue
        entry = history[n - 1]
        before = (entry.mu_before, entry.sigma_before)
        if points[-1][0] == n - 1 and widened(points[-1][1:], before):
            points.append((n - 1, *before))
            steps.append(n - 1)
        points.append((n, entry.mu, entry.sigma))
    if now is not None and widened(points[-1][1:], now):
        points.append((count, *now))
        steps.append(count)
    # room under the plot for the ticks' numbers and, a line lower, "rated matches", kept
    # apart also at the larger type of a phone's shrunk chart (static/css/bots.css)
    width, height = 640, 268
    left, right, top, bottom = 52, 14, 14, 44
    lows = [mu - 3 * sigma for _, mu, sigma in points]
    highs = [mu + sigma for _, mu, sigma in points]
    # the axis from the round value at or below the lowest line to the one at or above the
    # highest, with 4 to 6 labelled values
    ticks = axis_ticks(min(lows), max(highs))
    low, high = ticks[0], ticks[-1]

    def x(n: float) -> float:
        return left + (width - left - right) * (n / count if count else 0)

    def y(value: float) -> float:
        return top + (height - top - bottom) * (high - value) / (high - low)

    # each point's x written once, and each path as one join: the four paths of 300 points
    # through x(), y() and a format per coordinate cost the page more than reading them
    xs = [f"{x(n):.1f}" for n, _, _ in points]

    def path(values: list[float], at: list[str], move: str = "M") -> str:
        steps = [f"L{px},{y(v):.1f}" for px, v in zip(at, values, strict=True)]
        steps[0] = move + steps[0][1:]
        return " ".join(steps)

    upper = [mu + sigma for _, mu, sigma in points]
    lower = [mu - sigma for _, mu, sigma in points]
    band = path(upper, xs) + " " + path(lower[::-1], xs[::-1], "L") + " Z"
    y_ticks = [{"y": f"{y(v):.1f}", "label": minus_signs(f"{v:g}")} for v in ticks]
    # the first match's number (0, at the corner) starts at the axis rather than centred on
    # it: centred, it met the value axis's lowest number there, and on a phone's shrunk chart
    # "-10" and "0" read as one number, "-100"
    x_ticks = [
        {"x": f"{x(v) + (6 if v == 0 else 0):.1f}", "label": f"{int(v)}",
         "anchor": "start" if v == 0 else "middle"}
        for v in _ticks(0, count, min(5, count))
        if v == int(v)
    ]  # fmt: skip
    start = first.mu_before - 3 * first.sigma_before
    last = history[-1]
    end = last.mu - 3 * last.sigma
    within = [n for n in steps if n < count]
    said = [
        f"Over {count} rated match{'es' if count != 1 else ''} the rating (mu - 3 sigma) went "
        f"from {start:.2f} to {end:.2f}"
    ]
    if within:
        matches = ", ".join(str(n) for n in within)
        said.append(
            f"a new version widened its uncertainty after rated "
            f"match{'es' if len(within) != 1 else ''} {matches}"
        )
    mu_now, sigma_now = now if now is not None else (last.mu, last.sigma)
    if count in steps:  # since the last rated match
        said.append(
            f"then a new version widened its uncertainty: the rating is now "
            f"{mu_now - 3 * sigma_now:.2f}, mu {mu_now:.2f} with sigma {sigma_now:.2f}"
        )
    else:
        said.append(f"mu is now {mu_now:.2f} with sigma {sigma_now:.2f}")
    return {
        "width": width,
        "height": height,
        "plot": {"left": left, "right": width - right, "top": top, "bottom": height - bottom},
        "band": band,
        "mu": path([mu for _, mu, _ in points], xs),
        "conservative": path([mu - 3 * sigma for _, mu, sigma in points], xs),
        "y_ticks": y_ticks,
        "x_ticks": x_ticks,
        "axis_label_y": height - 4,
        "widened": [f"{x(n):.1f}" for n in steps],
        "desc": minus_signs("; ".join(said) + "."),
    }


def _history_table(
    history: Sequence[RatingHistory | Point], now: tuple[float, float] | None = None
) -> list[dict[str, Any]]:
    """The latest CHART_TABLE_ROWS updates, newest first, every cell written out here as
    text: a hundred rows through the template's ``floatformat``, ``date`` and number
    localisation cost the page more than all its queries.

    Where the rating moved between two updates, or since the last one to ``now`` (the
    rating as it stands), a row of its own says so (:data:`WIDENED`, with the rating and
    the change it made), so that each update's change is its match's alone and the rows
    still add up."""
    rows = []
    start = max(0, len(history) - CHART_TABLE_ROWS)
    if history and now is not None:
        last = history[-1]
        if widened((last.mu, last.sigma), now):
            rows.append(_widened_row((last.mu, last.sigma), now))
    for n in range(len(history) - 1, start - 1, -1):
        h = history[n]
        before = h.mu_before - 3 * h.sigma_before
        after = h.mu - 3 * h.sigma
        rows.append(
            {
                "n": str(n + 1),
                "match_id": h.match_id,
                "created": when(h.created),
                # (a negative with the minus sign, as every figure of the pages)
                "conservative": minus_signs(f"{after:.2f}"),
                "change": minus_signs(f"{after - before:+.2f}"),
                "mu_sigma": f"{h.mu:.2f} ± {h.sigma:.2f}",
            }
        )
        if n > 0:
            earlier = history[n - 1]
            if widened((earlier.mu, earlier.sigma), (h.mu_before, h.sigma_before)):
                rows.append(
                    _widened_row((earlier.mu, earlier.sigma), (h.mu_before, h.sigma_before))
                )
    return rows


def _widened_row(after: tuple[float, float], then: tuple[float, float]) -> dict[str, Any]:
    """A history table's row for the rating's move from one update's ``after`` to ``then``
    (a new version's wider sigma), written as an update's row is."""
    change = (then[0] - 3 * then[1]) - (after[0] - 3 * after[1])
    return {
        "n": "",
        "match_id": None,
        "created": WIDENED,
        "conservative": minus_signs(f"{then[0] - 3 * then[1]:.2f}"),
        "change": minus_signs(f"{change:+.2f}"),
        "mu_sigma": f"{then[0]:.2f} ± {then[1]:.2f}",
        "widened": True,
    }


def history_rows_html(rows: list[dict[str, Any]]) -> SafeString:
    """:func:`_history_table`'s rows as the table's HTML, made in one pass (numbers and
    times written here, escaped all the same): a hundred rows of six cells through the
    template engine cost the page a third of its time."""
    out = []
    for r in rows:
        n, created, value, change, spread = (
            escape(r[k]) for k in ("n", "created", "conservative", "change", "mu_sigma")
        )
        when_cell = (
            f'<a href="/matches/{int(r["match_id"])}/">{created}</a>' if r["match_id"] else created
        )
        row = '<tr class="widened">' if r.get("widened") else "<tr>"
        out.append(
            f"{row}<td>{n}</td><td>{when_cell}</td><td>{value}</td><td>{change}</td>"
            f"<td>{spread}</td></tr>"
        )
    return mark_safe("\n".join(out))


def _higher_is_better(game: str) -> bool:
    try:
        fmt = format_of(game)
    except KeyError:
        return True
    return fmt is None or fmt.higher_is_better


def opponent_results(
    bot: Bot, after: str | None = None, before: str | None = None, *, net: bool = False
) -> keyset.KeysetPage:
    """One page of the bot's results per other bot met in its tournament matches (rated or
    not; never a live table's: ``bots.ladder.aggregates``): matches, wins, draws, losses (who
    scored better in the match, by the game's own direction) and each side's points, the
    most met first; with ``net`` (a zero-sum game: what one side won the other lost) the
    bot's own points alone, signed ("+14"). They are kept as matches are stored: the page
    reads a few rows, not the bot's matches, from where the last page stopped
    (``?opponents_after=``): a bot may meet thousands of bots, so the list has no end a
    count or an offset could afford. Raises ``keyset.BadCursor``."""
    fields = ("id", "opponent_id", "name", "opponent__name", "opponent__owner__username",
              "matches", "wins", "draws", "losses", "points_for", "points_against")  # fmt: skip
    found = keyset.page(
        aggregates.opponents_of(bot.pk).values(*fields),
        aggregates.OPPONENT_ORDER,
        OPPONENTS_PER_PAGE,
        after=after,
        before=before,
    )
    items = []
    for row in found.items:
        opponent = row["opponent_id"]
        item = {
            "url": f"/bots/{opponent}/" if opponent is not None else "",
            "label": f"{row['opponent__owner__username']}/{row['opponent__name']}"
            if opponent is not None
            else row["name"] or "a player",
            "points": signed(row["points_for"])
            if net
            else score_pair(row["points_for"], row["points_against"]),
        } | {k: str(row[k]) for k in ("matches", "wins", "draws", "losses")}
        item["html"] = _opponent_row_html(item)
        items.append(item)
    return keyset.KeysetPage(items, found.after, found.before, found.first)


def _opponent_row_html(item: dict[str, Any]) -> SafeString:
    """One row of the results by opponent, made here with every value escaped (a template
    row of eight lookups, escapes and localisations cost more than reading it)."""
    label = escape(item["label"])
    who = f'<a href="{escape(item["url"])}">{label}</a>' if item["url"] else label
    counts = "".join(f"<td>{escape(item[k])}</td>" for k in ("matches", "wins", "draws", "losses"))
    points = f"<td>{escape(item['points'])}</td>"
    return mark_safe(
        f'<tr>\n        <th scope="row">{who}</th>\n        {counts}\n        {points}\n      </tr>'
    )


def _others_html(others: list[dict[str, Any]]) -> SafeString:
    """The others at one of the bot's tables, linked, each with its score."""
    parts = []
    for other in others:
        label = escape(other["label"])
        who = f'<a href="{escape(other["url"])}">{label}</a>' if other["url"] else label
        parts.append(f'{who} <span class="muted">({escape(other["score"])})</span>')
    return mark_safe(", ".join(parts))


def _time_html(value: datetime) -> str:
    return f'<time datetime="{timezone.localtime(value).isoformat()}">{when(value)}</time>'


def version_items_html(
    items: list[dict[str, Any]], is_owner: bool, csrf_token: str = ""
) -> SafeString:
    """A bot's versions as the items (``<li>``) of its list, made here with every value
    escaped: twenty versions through the template's tags, ``date`` filters and ``url`` cost
    the bot page a fifth of its time. The owner also gets each version's reason, code,
    validation log and download link, and with a ``csrf_token`` a button that makes a
    retired version active again (the page of all versions: My bots lists the newest)."""
    out = []
    for item in items:
        v = item["version"]
        n = v.number
        done = ""
        if v.validated:
            # (a version taken off the ladder was rejected after it passed validation)
            rejected = v.status == BotVersion.REJECTED and not v.is_taken_off
            word = "rejected" if rejected else "validated"
            done = f" · {word} {_time_html(v.validated)}"
        if v.is_taken_off:
            done += f" · taken off the ladder {_time_html(v.taken_off)}"
        lines = [
            f'<li id="version-{v.pk}">',
            f'<h3>v{n} <span class="status status-{escape(v.status)}">{escape(item["text"])}'
            "</span></h3>",
            f'<p class="muted">uploaded {_time_html(v.created)}{done}</p>',
        ]
        if is_owner:
            if v.reason:
                lines.append(_reason_html(v))
            if note := log_note(v):
                lines.append(f'<p class="muted small-print">{escape(note)}</p>')
            lines.append(
                f"<details><summary>Code of v{n}</summary>"
                f'<pre class="code-view">{escape(v.code)}</pre></details>'
            )
            if v.validation_log:
                lines.append(
                    f"<details><summary>Validation log of v{n}</summary>"
                    f'<pre class="log">{escape(v.validation_log)}</pre></details>'
                )
            download = reverse("version_download", args=[v.pk])
            lines.append(f'<p><a href="{download}" download>Download the code of v{n}</a></p>')
            if csrf_token and v.status == BotVersion.RETIRED:
                lines.append(
                    f'<form method="post" action="{reverse("version_activate", args=[v.pk])}">'
                    f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token)}">'
                    f'<button type="submit" class="small">Make v{n} active</button></form>'
                )
        lines.append("</li>")
        out.append("\n".join(lines))
    return mark_safe("\n".join(out))  # every value went through escape


def recent_rows_html(
    rows: list[dict[str, Any]], *, plays_alone: bool, is_owner: bool
) -> SafeString:
    """:func:`recent_matches`' rows as the table's rows, every value escaped (the owner's
    faults and stderr too), made in one pass rather than through the template."""
    out = []
    for r in rows:
        # a live table's match (friendly: not in the results by opponent) says so
        table = '<br><span class="muted">live table</span>' if r["live_table"] else ""
        link = f'<a href="/matches/{int(r["match_id"])}/">{escape(r["played"])}</a>'
        cells = [f"<td>{link}{table}</td>", f"<td>{escape(r['version'])}</td>"]
        if not plays_alone:
            cells.append(f"<td>{r['others_html']}</td>")
        cells.append(f"<td>{escape(r['score_text'])}</td>")
        if not plays_alone:
            cells.append(f"<td>{escape(r['outcome'])}</td>")
        if is_owner:
            private = []
            if r.get("fault_kind"):
                private.append(
                    f'<p class="fault"><strong>{escape(r["fault_kind"])}</strong>: '
                    f"{escape(r['fault_reason'] or '')}</p>"
                )
            if r.get("stderr"):
                private.append(
                    "<details><summary>stderr</summary>"
                    f'<pre class="log">{escape(r["stderr"])}</pre></details>'
                )
            nothing = '<span class="muted">none</span>'
            cells.append(f"<td>{''.join(private) or nothing}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return mark_safe("\n".join(out))  # every value went through escape


def before_match(request: HttpRequest) -> int | None:
    """The ``?before=<match id>`` of a page of older matches, if it is a number."""
    return untrusted.whole_number(request.GET.get("before", ""))


class Other(NamedTuple):
    """Another seat at one of the bot's tables, as its page lists it."""

    seat: int
    score: float
    bot_id: int | None
    label: str


def recent_matches(
    bot: Bot, *, with_private: bool, before: int | None = None, count: int = RECENT_MATCHES
) -> list[dict[str, Any]]:
    """The bot's latest matches (stored before match ``before``, if given), newest first:
    its score, the others at the table, where it finished and whether it was a live
    table's (``live_table``: no tournament). A fault's reason and stderr are
    included only ``with_private`` (for the owner); its kind is public, as on the match page,
    and the outcome says it ("won (it ran out of time)"). Matches go by the order they were
    stored (their id), which an index of the bot's seats keeps: the first page and the
    thousandth cost the same. Asks for ``count`` rows; one more says whether there are
    older ones."""
    better = 1 if _higher_is_better(bot.game) else -1
    fields = ["match_id", "seat", "score", "version__number", "match__played",
              "match__tournament_id", "fault_kind"]  # fmt: skip
    if with_private:
        fields += ["fault_reason", "stderr"]
    mine = MatchSeat.objects.filter(bot=bot)
    if before is not None:
        mine = mine.filter(match_id__lt=before)
    seats = list(mine.order_by("-match_id").values(*fields)[:count])
    # the others at each table as plain values (a seat, its score, a link and a name):
    # twenty tables of model instances cost the page more than the query
    others: dict[int, list[Other]] = defaultdict(list)
    table = (
        MatchSeat.objects.filter(match_id__in=[s["match_id"] for s in seats])
        .exclude(bot=bot)
        .values_list(
            "match_id", "seat", "score", "name", "bot_id", "bot__name", "bot__owner__username"
        )
    )
    for match_id, place, score, name, bot_id, bot_name, owner in table:
        label = f"{owner}/{bot_name}" if bot_id is not None else name
        others[match_id].append(Other(place, score, bot_id, label))
    rows = []
    for seat in seats:
        around = sorted(others[seat["match_id"]], key=lambda s: s.seat)
        ahead = sum(1 for s in around if better * (s.score - seat["score"]) > 0)
        level = sum(1 for s in around if s.score == seat["score"])
        if not around:
            outcome = ""
        elif len(around) == 1:
            outcome = "won" if ahead == 0 and not level else "drew" if level else "lost"
        else:
            outcome = f"place {ahead + 1} of {len(around) + 1}" + (" (shared)" if level else "")
        if outcome and seat["fault_kind"]:
            # (a fault stops a bot playing, but what it had won before still counts: its
            # match page says what the fault gave the others; the kind is public there too)
            kind = seat["fault_kind"]
            outcome += f" (it {FAULT_WORDS.get(kind, f'faulted: {kind}')})"
        rows.append(
            {
                **seat,
                "played": when(seat["match__played"]),
                "version": f"v{seat['version__number']}",
                "score_text": figure(seat["score"]),
                "live_table": seat["match__tournament_id"] is None,
                "others": [
                    {
                        "url": f"/bots/{s.bot_id}/" if s.bot_id is not None else "",
                        "label": s.label or "a player",
                        "score": figure(s.score),
                    }
                    for s in around
                ],
                "outcome": outcome,
            }
        )
        rows[-1]["others_html"] = _others_html(rows[-1]["others"])
    return rows


class Versions(NamedTuple):
    """What the bot page and the API list of a bot's versions: the newest ones (newest first,
    the active one after them when it is older), the active one, and whether there are
    more than that (then the full list, paged, is linked)."""

    listed: list[BotVersion]
    active: BotVersion | None
    more: bool
    #: the active version is older than the newest ones (listed after them)
    active_older: bool


def newest_versions(versions: QuerySet[BotVersion], count: int = VERSIONS_SHOWN) -> Versions:
    """The ``count`` newest of a bot's ``versions`` and its active one: two queries, one over
    the index of the bot's version numbers and one over the index of its one active version,
    whether the bot has three versions or thirty thousand."""
    newest = list(versions.order_by("-number")[: count + 1])
    more, newest = len(newest) > count, newest[:count]
    active = next(iter(versions.filter(status=BotVersion.ACTIVE).order_by()[:1]), None)
    older = active is not None and all(v.pk != active.pk for v in newest)
    if older:
        newest.append(active)
    return Versions(newest, active, more, older)


def bot_versions(request: HttpRequest, pk: int) -> HttpResponse:
    """Every version of a bot, newest first, a page at a time from where the last page
    stopped (``?after=<number>_<id>``): the bot page lists the newest few."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    is_owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    versions = bot.versions.all()
    if not is_owner:
        versions = versions.defer("code", "validation_log", "reason")
    try:
        window = keyset.page(
            versions,
            VERSION_ORDER,
            VERSIONS_PER_PAGE,
            after=request.GET.get("after"),
            before=request.GET.get("before"),
        )
    except keyset.BadCursor as bad:
        return keyset.bad_request(request, bad)
    response = render(
        request,
        "bots/versions.html",
        {
            "bot": bot,
            "is_owner": is_owner,
            "game": game_title(bot.game),
            "versions": (listed := [{"version": v, **status_of(v)} for v in window.items]),
            "versions_html": version_items_html(
                listed, is_owner, get_token(request) if is_owner else ""
            ),
            "window": window,
            "per_page": VERSIONS_PER_PAGE,
        },
    )
    return _owners(response) if is_owner else response


def bot_page(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(
        Bot.objects.select_related("owner__person_profile", "rating", "leaderboard_row").defer(
            *ROW_UNREAD
        ),
        pk=pk,
    )
    is_owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    versions = bot.versions.all()
    if not is_owner:
        versions = versions.defer("code", "validation_log", "reason")
    shown = newest_versions(versions)
    row = _one_to_one(bot, "leaderboard_row")
    rating = _one_to_one(bot, "rating")
    columns = []
    try:
        fmt = format_of(bot.game)
    except KeyError:
        fmt = None
    if fmt is not None and row is not None and row.score:
        columns = [(column.title, column.show(row.score)) for column in fmt.columns()]
    try:
        opponents = opponent_results(
            bot,
            request.GET.get("opponents_after"),
            request.GET.get("opponents_before"),
            net=_zero_sum(fmt),
        )
    except keyset.BadCursor as bad:
        return keyset.bad_request(request, bad)
    history = page_history(bot)
    # the rating as it stands, which a new version's wider sigma moved since its last rated
    # match: the chart and the history table end there, as the rating shown above does
    now = (rating.mu, rating.sigma) if rating is not None else None
    before = before_match(request)
    # one more than shown says whether there are older ones
    recent = recent_matches(bot, with_private=is_owner, before=before, count=RECENT_MATCHES + 1)
    context = {
        "bot": bot,
        "is_owner": is_owner,
        "game": game_title(bot.game),
        "plays_alone": _plays_alone(bot.game),
        # what a match's score counts, for the results against each opponent
        "score_label": _score_label(bot.game),
        "net_score": _zero_sum(fmt),
        "language": language_title(bot.language),
        "active": shown.active,
        # why there is no active version: the newest version's status says it
        "newest": shown.listed[0] if shown.listed else None,
        # the owner's person page, unless they hide it from others (it would be a 404)
        "owner_linked": is_owner or not profile_hidden(bot.owner),
        "versions": (listed := [{"version": v, **status_of(v)} for v in shown.listed]),
        "versions_html": version_items_html(listed, is_owner),
        "versions_more": shown.more,
        "versions_shown": VERSIONS_SHOWN,
        "active_older": shown.active_older,
        "rating": rating,
        "row": row,
        # its matches played but not rated yet: ratings are applied in job order, so they
        # wait behind jobs queued earlier still playing (row.matches counts rated ones)
        "unrated": unrated_seats().filter(bot=bot).count(),
        "measure": ranking_measure(row) if row is not None else None,
        "columns": columns,
        "chart": rating_chart(history, now),
        "history_rows": history_rows_html(_history_table(history, now)),
        "history_shown": min(len(history), CHART_TABLE_ROWS),
        "history_total": len(history),
        "opponents": opponents,
        "worker_time": aggregates.worker_time_of_bot(bot.pk),
        "recent": recent[:RECENT_MATCHES],
        "recent_rows": recent_rows_html(
            recent[:RECENT_MATCHES], plays_alone=_plays_alone(bot.game), is_owner=is_owner
        ),
        "before": before,
        "older": recent[RECENT_MATCHES - 1]["match_id"] if len(recent) > RECENT_MATCHES else None,
    }
    response = render(request, "bots/bot.html", context)
    return _owners(response) if is_owner else response


def _owners(response: HttpResponse) -> HttpResponse:
    """A page as its owner sees it (their code's logs, why a version failed, private matches):
    kept by no cache, as status.json is (``private, no-store``: neither a shared proxy nor the
    browser keeps it), since the same address shows others less."""
    add_never_cache_headers(response)
    return response
