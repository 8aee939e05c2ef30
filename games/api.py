"""The read-only JSON API: games, leaderboards, bots, matches and tournaments.

Public data only: never a bot's code, its stderr, or its validation log. GET (and HEAD) only;
errors are JSON (``{"error": ...}``) with their status; long lists are paged from where the
last page stopped (``?after=``, ``cardsite.keyset``), the short list of games by ``?page=N``;
every answer carries an ETag (a hash of its body, so a client that sends ``If-None-Match``
gets ``304 Not Modified``), and a match, once nothing in it can change, a Last-Modified. See
docs/api.md.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import Any

from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.http import ConditionalGetMiddleware
from django.urls import path, re_path, reverse
from django.utils.cache import get_conditional_response, set_response_etag
from django.utils.decorators import decorator_from_middleware
from django.utils.http import http_date, parse_http_date_safe
from django.views.decorators.csrf import csrf_exempt

from bots.ladder import aggregates
from bots.ladder.ratings import ranked_by, ranked_rows, ranking_measure
from bots.models import (
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchSeat,
    OpponentResult,
    Tournament,
)
from bots.pages.views import VERSION_ORDER, newest_versions
from cardsite import keyset
from games import people_views
from games.engine import untrusted
from games.registry import GameSpec, game_slugs, get_game
from games.views import (
    ROW_UNSHOWN,
    chosen_bot,
    contract,
    cross_table,
    ranked_counts,
    score_shown,
    tournament_progress,
)

PAGE_SIZE = 50
BOT_RECENT_MATCHES = 20


class ConditionalGetOrHead(ConditionalGetMiddleware):
    """Django's conditional GET, for HEAD too: Django leaves HEAD alone because a HEAD
    answer's body is empty when it gets there, but an API view builds the whole answer for a
    HEAD (the server drops the body afterwards), so its ETag is the GET's, and an unchanged
    answer is a 304 to HEAD as to GET."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if request.method != "HEAD":
            return super().process_response(request, response)
        # the parent's steps for GET (get_conditional_response itself takes HEAD as GET)
        if self.needs_etag(response) and not response.has_header("ETag"):
            set_response_etag(response)
        etag = response.get("ETag")
        last_modified = parse_http_date_safe(response.get("Last-Modified") or "")
        if etag or last_modified:
            return get_conditional_response(
                request, etag=etag, last_modified=last_modified, response=response
            )
        return response


conditional = decorator_from_middleware(ConditionalGetOrHead)


class NotFound(Exception):
    """Answered as a JSON 404."""


class BadRequest(Exception):
    """Answered as a JSON 400."""


def error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def api_view(view: Callable[..., dict[str, Any]]) -> Callable[..., HttpResponse]:
    """GET/HEAD only, JSON out, NotFound as a JSON 404, ETag and conditional answers."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            response = error(f"{request.method} is not allowed: this API is read-only", 405)
            response["Allow"] = "GET, HEAD"
            return response
        try:
            data = view(request, *args, **kwargs)
        except NotFound as missing:
            return error(str(missing), 404)
        except BadRequest as bad:
            return error(str(bad), 400)
        last_modified = data.pop("_last_modified", None)
        response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
        if last_modified is not None:
            response["Last-Modified"] = http_date(last_modified.timestamp())
        return response

    # No method that changes anything is served, so CSRF protection has nothing to guard;
    # without this, Django's HTML CSRF page answered POST before the JSON 405 could.
    return csrf_exempt(conditional(wrapped))


def paginate(
    request: HttpRequest, items: QuerySet | list, show: Callable, parameter: str = "page"
) -> dict[str, Any]:
    """One page of ``items`` (``?page=N``, or the ``parameter`` named) as the API lists."""
    paginator = Paginator(items, PAGE_SIZE)
    number = request.GET.get(parameter, "1")
    # a page is a whole number from 1 (a 400 otherwise, as a bad position of a list is); one
    # past the last (however large) is a page that is not there (404)
    if not (number.isascii() and number.isdigit()) or not number.strip("0"):
        raise BadRequest(f"{parameter} must be a whole number from 1, not {number[:40]!r}")
    try:
        page = paginator.page(untrusted.whole_number(number) or paginator.num_pages + 1)
    except (PageNotAnInteger, EmptyPage):
        raise NotFound(f"no page {number[:40]} (pages: 1 to {paginator.num_pages})") from None

    def link(n: int) -> str:
        query = request.GET.copy()
        query[parameter] = str(n)
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    return {
        "count": paginator.count,
        "page": page.number,
        "pages": paginator.num_pages,
        "next": link(page.next_page_number()) if page.has_next() else None,
        "previous": link(page.previous_page_number()) if page.has_previous() else None,
        "results": [show(item) for item in page.object_list],
    }


def keyset_list(
    request: HttpRequest,
    query: QuerySet,
    order: list[str],
    show: Callable,
    *,
    prefix: str = "",
    size: int = PAGE_SIZE,
) -> dict[str, Any]:
    """A page of a long list from where the last one stopped (``?after=`` / ``?before=``,
    see ``cardsite.keyset``): ``results``, and ``next`` and ``previous`` as full URLs or
    ``null``. No count and no page numbers, so every page costs the same; a position that
    is not one is a 400. A list inside another answer names its parameters with a
    ``prefix`` (``?opponents_after=``), so both can be paged in one address."""
    after, before = f"{prefix}after", f"{prefix}before"
    try:
        found = keyset.page(
            query,
            order,
            size,
            after=request.GET.get(after),
            before=request.GET.get(before),
        )
    except keyset.BadCursor as bad:
        where = f"{prefix.rstrip('_')}: " if prefix else ""
        raise BadRequest(f"{where}{bad}") from None

    def link(side: str, cursor: str | None) -> str | None:
        if cursor is None:
            return None
        query = request.GET.copy()
        query.pop(after, None)
        query.pop(before, None)
        query[side] = cursor
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    return {
        "next": link(after, found.after),
        "previous": link(before, found.before),
        "results": [show(item) for item in found.items],
    }


def _game(slug: str) -> GameSpec:
    try:
        return get_game(slug)
    except KeyError:
        raise NotFound(f"no game {slug!r} (games: {', '.join(game_slugs())})") from None


def _bot_ref(bot: Bot) -> dict[str, Any]:
    return {
        "id": bot.pk,
        "name": bot.name,
        "owner": bot.owner.get_username(),
        "label": bot.label,
        "url": f"/api/bots/{bot.pk}/",
        "page": f"/bots/{bot.pk}/",
    }


def _when(value: Any) -> str | None:
    return value.isoformat() if value else None


# ---- views ----------------------------------------------------------------------------------
ENDPOINTS = [
    ("/api/", "this index"),
    ("/api/docs/", "this API's documentation, as a page"),
    ("/api/games/", "the games: rules page, bot contract, time limits, built-in bots"),
    ("/api/games/<slug>/leaderboard/", "a game's leaderboard, best first (?after= pages)"),
    ("/api/bots/<id>/", "a bot: versions, rating, leaderboard numbers, recent matches"),
    ("/api/bots/<id>/versions/", "every version of a bot, newest first (?after= pages)"),
    ("/api/matches/<id>/", "a match: participants, scores, faults and the full record"),
    ("/api/tournaments/", "tournaments, newest first (?after=<id> pages; ?game=<slug> filters)"),
    ("/api/tournaments/<id>/", "a tournament: progress, recent results, the cross table"),
]


@api_view
def index(request: HttpRequest) -> dict[str, Any]:
    return {
        "name": "Card Arena API",
        "read_only": True,
        "docs": "/api/docs/",
        "endpoints": [{"path": p, "description": d} for p, d in ENDPOINTS],
    }


def _game_json(spec: GameSpec, ranked: dict[str, int] | None = None) -> dict[str, Any]:
    terms = contract(spec)
    ranked = ranked if ranked is not None else ranked_counts()
    return {
        "slug": spec.slug,
        "title": spec.title,
        "seats": {"min": spec.state_class.min_seats, "max": spec.state_class.max_seats},
        "methods": list(terms["methods"]),
        "time_control": spec.time_control.as_dict(),
        "builtin_bots": spec.builtin_names,
        "rules": reverse("game", args=[spec.slug]),
        "leaderboard": f"/api/games/{spec.slug}/leaderboard/",
        "bots": ranked[spec.slug],
    }


@api_view
def games(request: HttpRequest) -> dict[str, Any]:
    ranked = ranked_counts()  # every game's in one query
    return paginate(request, [get_game(s) for s in game_slugs()], lambda g: _game_json(g, ranked))


def _measure_json(row: LeaderboardRow) -> dict[str, Any]:
    """The number the row is ranked by: its name and value."""
    measure = ranking_measure(row)
    return {"name": measure["title"], "value": measure["value"]}


def _row_json(row: LeaderboardRow) -> dict[str, Any]:
    return {
        "rank": row.rank,
        "provisional": row.provisional,
        "measure": _measure_json(row),
        "bot": _bot_ref(row.bot),
        "rating": round(row.conservative, 4),
        "mu": round(row.mu, 4),
        "sigma": round(row.sigma, 4),
        "matches": row.matches,
        "faults": row.faults,
        "score": score_shown(row.score),
        # its results against each opponent, a page at a time (``opponents`` there)
        "opponents": f"/api/bots/{row.bot.pk}/",
        "last_played": _when(row.last_played),
    }


@api_view
def leaderboard(request: HttpRequest, slug: str) -> dict[str, Any]:
    spec = _game(slug)
    try:  # ?show=people|both: games.people_views; bots (the default) below
        show = people_views.shown(request, slug)
        if show != "bots":
            found = people_views.board_json(request, slug, show)
            return {"game": spec.slug, "title": spec.title} | found
    except (people_views.BadShow, keyset.BadCursor) as bad:
        raise BadRequest(str(bad)) from None
    rows = ranked_rows(slug).defer(*ROW_UNSHOWN)
    return {
        "game": spec.slug,
        "title": spec.title,
        "ranked_by": ranked_by(slug),
        "score_higher_is_better": spec.higher_is_better,
    } | keyset_list(request, rows, ["rank", "pk"], _row_json)


@api_view
def bot(request: HttpRequest, pk: int) -> dict[str, Any]:
    found = Bot.objects.select_related("owner").filter(pk=pk).first()
    if found is None:
        raise NotFound(f"no bot {pk}")
    versions = newest_versions(found.versions.only(*VERSION_FIELDS))
    row = LeaderboardRow.objects.filter(bot=found).defer(*ROW_UNSHOWN).first()
    # newest first by the order they were stored (an index of the bot's seats): flat however
    # many matches the bot has; ?before=<match id> pages back, one more row says if there is
    mine = MatchSeat.objects.filter(bot=found)
    before = request.GET.get("before", "")
    if before:
        before_id = untrusted.whole_number(before)
        if before_id is None and before.isascii() and before.isdigit():
            raise BadRequest(
                f"before must be a match id: {before[:40]} is larger than any match id"
            )
        if before_id is None:
            raise BadRequest(f"before must be a match id (a whole number), not {before[:40]!r}")
        mine = mine.filter(match_id__lt=before_id)
    fields = ("seat", "score", "fault_kind", "match__played", "match__game",
              "match__tournament", "version__number")  # fmt: skip
    seats = list(
        mine.select_related("match", "version")
        .only(*fields)
        .order_by("-match_id")[: BOT_RECENT_MATCHES + 1]
    )
    older = seats[BOT_RECENT_MATCHES - 1].match_id if len(seats) > BOT_RECENT_MATCHES else None
    seats = seats[:BOT_RECENT_MATCHES]
    return _bot_ref(found) | {
        "game": found.game,
        "language": found.language,
        "created": _when(found.created),
        "active_version": versions.active.number if versions.active is not None else None,
        # the newest, and the active one whatever its age; all of them, a page at a time,
        # at all_versions
        "versions": [_version_json(v) for v in versions.listed],
        "all_versions": request.build_absolute_uri(f"/api/bots/{found.pk}/versions/"),
        "leaderboard": None
        if row is None
        else {
            "rank": row.rank or None,
            "provisional": row.provisional,
            "measure": _measure_json(row),
            "rating": round(row.conservative, 4),
            "mu": round(row.mu, 4),
            "sigma": round(row.sigma, 4),
            "matches": row.matches,
            "faults": row.faults,
            "score": score_shown(row.score),
            "last_played": _when(row.last_played),
        },
        # its worker time in its latest tournaments, each with the tournament's bound
        "worker_time": aggregates.worker_time_of_bot(found.pk),
        "recent_matches": [
            {
                "id": s.match_id,
                "url": f"/api/matches/{s.match_id}/",
                "played": _when(s.match.played),
                "seat": s.seat,
                "version": s.version.number,
                "score": s.score,
                "fault": s.fault_kind or None,
                # friendly: not in its results by opponent (``opponents``)
                "live_table": s.match.tournament_id is None,
            }
            for s in seats
        ],
        "older_matches": None
        if older is None
        else request.build_absolute_uri(f"/api/bots/{found.pk}/?before={older}"),
        # kept as matches are stored (bots.ladder.aggregates): a page of rows from where the last
        # stopped (an index of the bot's rows by matches), however many opponents it met
        "opponents": keyset_list(
            request,
            aggregates.opponents_of(found.pk),
            aggregates.OPPONENT_ORDER,
            _opponent_json,
            prefix="opponents_",
        ),
    }


VERSION_FIELDS = ("number", "status", "created", "validated", "bot_id")


def _version_json(v: BotVersion) -> dict[str, Any]:
    return {
        "number": v.number,
        "status": v.status,
        "created": _when(v.created),
        "validated": _when(v.validated),
    }


@api_view
def bot_versions(request: HttpRequest, pk: int) -> dict[str, Any]:
    """Every version of a bot, newest first, 50 a page from where the last page stopped."""
    found = Bot.objects.filter(pk=pk).only("pk").first()
    if found is None:
        raise NotFound(f"no bot {pk}")
    query = BotVersion.objects.filter(bot=found).only(*VERSION_FIELDS)
    return {"bot": f"/api/bots/{found.pk}/"} | keyset_list(
        request, query, VERSION_ORDER, _version_json
    )


def _opponent_json(row: OpponentResult) -> dict[str, Any]:
    return {
        "opponent": _bot_ref(row.opponent) if row.opponent is not None else None,
        "player": row.label,
        "matches": row.matches,
        "won": row.wins,
        "drawn": row.draws,
        "lost": row.losses,
        "points_for": row.points_for,
        "points_against": row.points_against,
    }


def _match_modified(found: Match) -> datetime | None:
    """When the match's answer last changed, or None while it may still change (no
    Last-Modified then: the ETag still tells a changed answer). It is played once; a
    tournament's match changes once more when the ratings take it in (``rated``), and, in a
    game whose seeds are shown, when its tournament finishes and shows the seed and the
    shuffles (``Tournament.seeds_shown``)."""
    if found.tournament_id is None:
        return found.played  # a live table's: stored as it stays (its seed shown, or never)
    if not found.rated and not found.unrated:
        return None  # (rated later: a match the ratings passed by stays as it is)
    if found.deals_shown():
        finished = found.tournament.finished
        return None if finished is None else max(found.played, finished)
    try:
        seeds_public = get_game(found.game).state_class.seed_is_public
    except KeyError:  # a game this site no longer has: nothing shows its seed
        seeds_public = False
    return None if seeds_public else found.played


@api_view
def match(request: HttpRequest, pk: int) -> dict[str, Any]:
    found = Match.objects.select_related("tournament").filter(pk=pk).first()
    if found is None:
        raise NotFound(f"no match {pk}")
    seats = (
        found.participants.select_related("bot", "bot__owner", "version")
        .defer("stderr", "version__code", "version__validation_log", "version__reason")
        .order_by("seat")
    )
    public = found.public_record()
    return {
        "_last_modified": _match_modified(found),
        "id": found.pk,
        "game": found.game,
        "tournament": None
        if found.tournament_id is None
        else {"id": found.tournament_id, "url": f"/api/tournaments/{found.tournament_id}/"},
        "played": _when(found.played),
        "duration_s": found.duration_s,
        "seed": public.get("seed"),
        "rated": found.rated,
        "unrated": found.unrated or None,
        "participants": [
            {
                "seat": s.seat,
                "player": s.label,
                "bot": _bot_ref(s.bot) if s.bot is not None else None,
                "builtin": s.builtin or None,
                "version": s.version.number if s.version is not None else None,
                "score": s.score,
                "fault": {"kind": s.fault_kind, "reason": s.fault_shown} if s.fault_kind else None,
            }
            for s in seats
        ],
        "record": public,
    }


def _tournament_ref(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.pk,
        "name": str(t),
        "game": t.game,
        "format": t.format,
        "state": t.state,
        "created": _when(t.created),
        "finished": _when(t.finished),
        "url": f"/api/tournaments/{t.pk}/",
        "page": reverse("tournament", args=[t.pk]),
    }


@api_view
def tournaments(request: HttpRequest) -> dict[str, Any]:
    query = Tournament.objects.all()
    slug = request.GET.get("game")
    if slug:
        _game(slug)
        query = query.filter(game=slug)
    return keyset_list(request, query, ["-pk"], _tournament_ref)


@api_view
def tournament(request: HttpRequest, pk: int) -> dict[str, Any]:
    found = Tournament.objects.filter(pk=pk).first()
    if found is None:
        raise NotFound(f"no tournament {pk}")
    progress = tournament_progress(found)
    recent = [
        {
            "id": r["match"],
            "url": f"/api/matches/{r['match']}/",
            "played": r["played"],
            "seats": [
                {"bot": s["bot"], "bot_id": s["bot_id"], "score": s["score"], "fault": s["fault"]}
                for s in r["seats"]
            ],
        }
        for r in progress["recent"]
    ]
    settings = found.public_settings()
    cross = cross_table(found) if progress["finished"] else None
    try:
        one_bot = chosen_bot(found, cross, request.GET.get("bot"))
    except ValueError as bad:
        raise BadRequest(str(bad)) from None
    except LookupError as missing:
        raise NotFound(str(missing)) from None
    if cross is not None:
        # the grid's columns are the first bots of the standings, as many as its rows
        cross = {k: v for k, v in cross.items() if k != "columns"}
    answer = _tournament_ref(found) | {
        "settings": settings,
        # each bot's worker time here (the most first) and the bound it has
        "worker_time": aggregates.worker_time_in(found),
        "progress": {k: progress[k] for k in ("jobs", "total", "percent", "finished")},
        "recent": recent,
        "results": cross,
    }
    if one_bot is not None:
        answer["bot_results"] = one_bot
    return answer


def not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    return error(f"no such endpoint: {request.path} (see /api/)", 404)


urlpatterns = [
    path("", index, name="api-index"),
    path("games/", games, name="api-games"),
    path("games/<slug:slug>/leaderboard/", leaderboard, name="api-leaderboard"),
    path("bots/<int:pk>/", bot, name="api-bot"),
    path("bots/<int:pk>/versions/", bot_versions, name="api-bot-versions"),
    path("matches/<int:pk>/", match, name="api-match"),
    path("tournaments/", tournaments, name="api-tournaments"),
    path("tournaments/<int:pk>/", tournament, name="api-tournament"),
    re_path(r"^(?P<rest>.*)$", not_found),
]
