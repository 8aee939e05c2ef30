"""People on the ladder, on the site: a person's public profile (``/people/<username>/``) and
the leaderboards of people, or of bots and people together (``?show=people|both`` on a
game's leaderboard page and in the API). Ratings themselves come from ``bots.ladder.people``.

Every list here is paged by where the last page stopped (``cardsite.keyset``), never by an
offset or a count, so a person with ten thousand rated matches, or a game with ten thousand
people, costs a page what ten do. The bots' leaderboard (``?show=bots``, the default) stays
in ``games.views``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape
from typing import Any
from urllib.parse import quote

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from bots.ladder.people import game_rates_people, ranked_people
from bots.ladder.ratings import ranked_rows, ranking_measure
from bots.models import HOUSE, Bot, BotVersion, LeaderboardRow, MatchSeat
from bots.pages.views import PlacedHistory, Point, chart_positions, rating_chart
from cardsite import keyset
from cardsite.errors import error_page
from cardsite.written import figure, minus_signs, when
from games.models import PersonProfile, PersonRating, PersonRatingHistory, profile_hidden
from games.registry import GameSpec, game_slugs, get_game

#: what a leaderboard shows: ``?show=`` (bots, the default, is ``games.views``' page)
SHOWS = ("bots", "people", "both")
#: rows a page of a leaderboard of people (or both) lists
BOARD_PAGE = 50
#: rated matches a page of a profile lists
PROFILE_MATCHES = 20
#: a person who hides their profile, as the leaderboards of people name them
PRIVATE_NAME = "a private player"


class BadShow(ValueError):
    """A ``?show=`` that is not one of SHOWS, or people asked of a game that does not rate
    them; the message says why."""


def shown(request: HttpRequest, slug: str) -> str:
    """What ``?show=`` asks for: one of SHOWS (bots when absent). Raises :class:`BadShow`."""
    show = request.GET.get("show", "bots")
    if show not in SHOWS:
        raise BadShow(f"show must be one of {', '.join(SHOWS)}, not {show[:40]!r}")
    if show != "bots" and not game_rates_people(slug):
        title = get_game(slug).title
        raise BadShow(
            f"{title} ranks its bots by their score on the same deals against the dealer; "
            "people are not rated in it, so its leaderboard shows bots only"
        )
    return show


def person_url(username: str) -> str:
    return f"/people/{escape(quote(username, safe=''))}/"


# ---- one ranking of bots and people ---------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """A row of a leaderboard of people or of both: a bot's or a person's, with the place it
    has in the ranking shown."""

    place: int
    kind: str  # "bot" | "person"
    rank: int  # among its kind
    name: str
    url: str
    owner: str
    conservative: float
    mu: float
    sigma: float
    matches: int
    record: str  # won-drawn-lost (people)
    last_played: Any


def _bot_entry(place: int, row: LeaderboardRow) -> Entry:
    return Entry(
        place, "bot", row.rank, row.bot.name, f"/bots/{row.bot_id}/",
        row.bot.owner.get_username(), row.conservative, row.mu, row.sigma, row.matches, "",
        row.last_played,
    )  # fmt: skip


def _person_entry(place: int, row: PersonRating) -> Entry:
    """A person's row: named and linked, or, for a hidden profile, "a private player" at
    the same place with the same numbers (the ranking stays whole), but without the time
    they last played: the public match pages name the players and say when they played, so
    that time would name the private player."""
    username = row.user.get_username()
    hidden = profile_hidden(row.user)
    name, url = (PRIVATE_NAME, "") if hidden else (username, person_url(username))
    return Entry(
        place, "person", row.rank, name, url, "", row.conservative,
        row.mu, row.sigma, row.matches, f"{row.wins}-{row.draws}-{row.losses}",
        None if hidden else row.last_played,
    )  # fmt: skip


@dataclass(frozen=True)
class Board:
    """A page of a leaderboard of people or of both, with the cursors of its neighbours."""

    entries: list[Entry]
    after: str | None
    before: str | None
    first: bool


def people_page(slug: str, after: str | None, before: str | None, size: int | None = None) -> Board:
    """A page of the game's people by rank (stored on their rows, as the bots' is): one
    query. Raises ``keyset.BadCursor``."""
    size = size or BOARD_PAGE
    found = keyset.page(ranked_people(slug), ["rank", "pk"], size, after=after, before=before)
    entries = [_person_entry(row.rank, row) for row in found.items]
    return Board(entries, found.after, found.before, found.first)


def _ahead(entry: tuple[float, int]) -> tuple[float, int]:
    """The merged order's key: higher conservative rating first, a bot before a person on
    the same rating (kind 0 before 1)."""
    return (-round(entry[0], 9), entry[1])


def both_page(slug: str, after: str | None, before: str | None, size: int | None = None) -> Board:
    """A page of one ranking of the game's bots and people, by conservative rating.

    A position in it is a pair ``bots_people``: the ranks of the last bot and the last person
    above it (each kind's ranks are 1, 2, ... by that same rating), so a page is the next
    ``size`` of two lists merged: one query per kind, of at most ``size + 1`` rows each, and
    the place shown is ``bots + people`` above plus the row's place on the page. Raises
    ``keyset.BadCursor``."""
    size = size or BOARD_PAGE
    bots_q: QuerySet = ranked_rows(slug)
    people_q: QuerySet = ranked_people(slug)
    if before:
        b, p = keyset.parse(before, 2)
        bots = list(bots_q.filter(rank__lte=b).order_by("-rank", "-pk")[: size + 1])
        people = list(people_q.filter(rank__lte=p).order_by("-rank", "-pk")[: size + 1])
        if len(bots) + len(people) <= size:
            return both_page(slug, None, None, size)
        taken = _merge_from_the_end(bots, people, size)
        start_b = min((r.rank for r in taken if isinstance(r, LeaderboardRow)), default=b + 1) - 1
        start_p = min((r.rank for r in taken if isinstance(r, PersonRating)), default=p + 1) - 1
        return Board(_entries(taken, start_b + start_p), f"{b}_{p}", f"{start_b}_{start_p}",
                     False)  # fmt: skip
    b, p = keyset.parse(after, 2) if after else (0, 0)
    bots = list(bots_q.filter(rank__gt=b).order_by("rank", "pk")[: size + 1])
    people = list(people_q.filter(rank__gt=p).order_by("rank", "pk")[: size + 1])
    taken = _merge_from_the_start(bots, people, size)
    end_b = max((r.rank for r in taken if isinstance(r, LeaderboardRow)), default=b)
    end_p = max((r.rank for r in taken if isinstance(r, PersonRating)), default=p)
    more = len(bots) + len(people) > len(taken)
    first = b == 0 and p == 0
    return Board(
        _entries(taken, b + p),
        f"{end_b}_{end_p}" if more and taken else None,
        f"{b}_{p}" if not first and taken else None,
        first,
    )


Row = LeaderboardRow | PersonRating


def _key(row: Row) -> tuple[float, int]:
    return _ahead((row.conservative, 0 if isinstance(row, LeaderboardRow) else 1))


def _merge_from_the_start(bots: list[Row], people: list[Row], size: int) -> list[Row]:
    """The first ``size`` of two lists, each already in the merged order, merged (each
    list's own order kept: what is taken of each is a prefix of it)."""
    out: list[Row] = []
    i = j = 0
    while len(out) < size and (i < len(bots) or j < len(people)):
        if j >= len(people) or (i < len(bots) and _key(bots[i]) <= _key(people[j])):
            out.append(bots[i])
            i += 1
        else:
            out.append(people[j])
            j += 1
    return out


def _merge_from_the_end(bots: list[Row], people: list[Row], size: int) -> list[Row]:
    """The last ``size`` of the merge of two lists given from their ends (worst first), in
    the merged order."""
    out: list[Row] = []
    i = j = 0
    while len(out) < size and (i < len(bots) or j < len(people)):
        if j >= len(people) or (i < len(bots) and _key(bots[i]) > _key(people[j])):
            out.append(bots[i])
            i += 1
        else:
            out.append(people[j])
            j += 1
    return out[::-1]


def _entries(rows: Iterable[Row], above: int) -> list[Entry]:
    return [
        _bot_entry(above + n, row)
        if isinstance(row, LeaderboardRow)
        else _person_entry(above + n, row)
        for n, row in enumerate(rows, start=1)
    ]


def board_page(slug: str, show: str, after: str | None, before: str | None) -> Board:
    return (people_page if show == "people" else both_page)(slug, after, before)


HEADERS = {
    "people": ["rank", "person", "rating", "mu +/- sigma", "matches", "won-drawn-lost",
               "last played"],
    "both": ["place", "player", "rank among bots / people", "rating", "mu +/- sigma",
             "matches", "last played"],
}  # fmt: skip


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 101st, 111th."""
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{({1: 'st', 2: 'nd', 3: 'rd'}).get(n % 10, 'th')}"


def board_rows_html(board: Board, show: str) -> str:
    """The ranking's rows as HTML, every value escaped (as ``games.views.board_html``)."""
    out = []
    for e in board.entries:
        name = escape(e.name if e.kind == "person" else f"{e.owner}/{e.name}")
        if e.url:
            who = f'<th scope="row"><a href="{escape(e.url)}">{name}</a></th>'
        else:  # a hidden profile: no name, no link
            who = f'<th scope="row" class="muted">{name}</th>'
        # (a negative with the minus sign, as the bots' leaderboard writes it)
        shown = minus_signs(f"{e.conservative:.2f}")
        rating = f'<td class="num" data-rating="{e.conservative!r}">{shown}</td>'
        spread = f'<td class="num">{e.mu:.2f} +/- {e.sigma:.2f}</td>'
        matches = f'<td class="num">{e.matches}</td>'
        last = f"<td>{escape(when(e.last_played) or '-')}</td>"
        if show == "people":
            record = f'<td class="num">{escape(e.record)}</td>'
            cells = f'<td class="num">{e.place}</td>{who}{rating}{spread}{matches}{record}{last}'
        else:
            kind = f"{ordinal(e.rank)} of the {'people' if e.kind == 'person' else 'bots'}"
            cells = (
                f'<td class="num">{e.place}</td>{who}<td>{kind}</td>{rating}{spread}{matches}{last}'
            )
        out.append(f'<tr data-kind="{e.kind}">{cells}</tr>')
    return "\n".join(out)


def leaderboard(request: HttpRequest, spec: GameSpec, show: str) -> HttpResponse:
    """The game's leaderboard of people, or of bots and people together (``show``)."""
    try:
        board = board_page(spec.slug, show, request.GET.get("after"), request.GET.get("before"))
    except keyset.BadCursor as bad:
        return keyset.bad_request(request, bad)
    return render(
        request,
        "people/leaderboard.html",
        {
            "game": spec,
            "show": show,
            "headers": HEADERS[show],
            # every value in it went through escape (or is a number written here)
            "rows": mark_safe(board_rows_html(board, show)),
            "window": board,
            "extra": f"show={show}",
        },
    )


def board_json(request: HttpRequest, slug: str, show: str) -> dict[str, Any]:
    """The API's page of a leaderboard of people or both: ``results``, ``next`` and
    ``previous`` (full URLs or null). Raises ``keyset.BadCursor``."""
    board = board_page(slug, show, request.GET.get("after"), request.GET.get("before"))

    def link(side: str, cursor: str | None) -> str | None:
        if cursor is None:
            return None
        query = request.GET.copy()
        query.pop("after", None)
        query.pop("before", None)
        query[side] = cursor
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    return {
        "show": show,
        "ranked_by": "rating = mu - 3 sigma",
        "next": link("after", board.after),
        "previous": link("before", board.before),
        "results": [
            {
                "place": e.place,
                "kind": e.kind,
                "rank": e.rank,
                "name": e.name if e.kind == "person" else f"{e.owner}/{e.name}",
                "page": e.url or None,
                "rating": round(e.conservative, 4),
                "mu": round(e.mu, 4),
                "sigma": round(e.sigma, 4),
                "matches": e.matches,
                "last_played": e.last_played.isoformat() if e.last_played else None,
            }
            | (
                {
                    "won_drawn_lost": [int(n) for n in e.record.split("-")],
                    "private": not e.url,
                }
                if e.kind == "person"
                else {}
            )
            for e in board.entries
        ],
    }


# ---- a person's profile ---------------------------------------------------------------------
class PersonHistory(PlacedHistory):
    """A person's rating history in one game by position, oldest first, reading only the
    rows asked for (as ``bots.pages.views.HistoryRows`` reads a bot's): its length is the rating
    row's count of matches, the rows come by their place (one query over the unique index
    of rating and place)."""

    def __init__(self, rating: PersonRating) -> None:
        self.rating = rating
        super().__init__(rating.matches)

    def load(self, positions: Iterable[int]) -> None:
        wanted = {p + 1 for p in positions if 0 <= p < self.count} - set(self.rows)
        if not wanted:
            return
        found = PersonRatingHistory.objects.filter(rating=self.rating, number__in=wanted)
        self.rows |= {row[0]: Point(*row) for row in found.order_by().values_list(*Point._fields)}


def person_history(rating: PersonRating) -> PersonHistory:
    """The history with the points its chart draws, read in one query."""
    history = PersonHistory(rating)
    history.load([n - 1 for n in chart_positions(len(history)) if n] + [0])
    return history


def recent_rated(
    rating: PersonRating, after: str | None, before: str | None, size: int = PROFILE_MATCHES
) -> keyset.KeysetPage:
    """A page of the person's rated matches in the game, newest first (by their place in
    the history: an index walk), each with the others at the table: two queries whatever
    the number of matches. Raises ``keyset.BadCursor``."""
    rows = PersonRatingHistory.objects.filter(rating=rating).values(
        "id", "number", "match_id", "mu", "sigma", "mu_before", "sigma_before", "outcome",
        "created",
    )  # fmt: skip
    found = keyset.page(rows, ["-number", "-pk"], size, after=after, before=before)
    others: dict[int, list[str]] = defaultdict(list)
    seats = (
        MatchSeat.objects.filter(match_id__in=[r["match_id"] for r in found.items])
        .exclude(user_id=rating.user_id)
        .order_by("match_id", "seat")
        .values_list("match_id", "name", "user_id", "bot_id", "bot__name",
                     "bot__owner__username", "score")
    )  # fmt: skip
    # a score as the table's end wrote it: "+1" where scores are gains and losses (chips)
    rules = get_game(rating.game).table
    written = rules().score_text if rules is not None and rules.signed_scores else figure
    for match_id, name, user_id, bot_id, bot_name, owner, score in seats:
        if bot_id is not None:
            label = escape(f"{owner}/{bot_name}")
            who = f'<a href="/bots/{bot_id}/">{label}</a>'
        elif user_id is not None:
            who = f'<a href="{person_url(name)}">{escape(name)}</a>'
        else:
            who = escape(name or "a player")
        others[match_id].append(f'{who} <span class="muted">({escape(written(score))})</span>')
    for row in found.items:
        after_c = row["mu"] - 3 * row["sigma"]
        before_c = row["mu_before"] - 3 * row["sigma_before"]
        # (negatives with the minus sign, as every figure of the pages)
        row["rating"] = minus_signs(f"{after_c:.2f}")
        row["change"] = minus_signs(f"{after_c - before_c:+.2f}")
        row["played"] = when(row["created"])
        row["others"] = ", ".join(others[row["match_id"]])
    return found


def competing_bots(user: Any) -> list[dict[str, Any]]:
    """The person's bots that compete now (an active version), by game and rank, each with
    its leaderboard row (None: not ranked yet) and the number it is ranked by: one query,
    however many bots."""
    slugs = game_slugs()
    bots = (
        Bot.objects.filter(owner=user, game__in=slugs, versions__status=BotVersion.ACTIVE)
        .select_related("leaderboard_row")
        .order_by()
    )
    listed = []
    for bot in bots:
        try:
            row = bot.leaderboard_row
        except LeaderboardRow.DoesNotExist:
            row = None
        spec = get_game(bot.game)
        listed.append(
            {
                "bot": bot,
                "title": spec.title,
                "row": row if row is not None and row.rank else None,
                "measure": ranking_measure(row) if row is not None and row.rank else None,
                "plays_alone": spec.plays_alone,
            }
        )
    order = {slug: n for n, slug in enumerate(slugs)}
    return sorted(
        listed,
        key=lambda item: (
            order[item["bot"].game],
            item["row"].rank if item["row"] else float("inf"),
            item["bot"].name.lower(),
        ),
    )


def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A person's public page: per game their rating, rank among people and record; for
    the game chosen (``?game=``, else the one they played most) the rating chart and their
    rated matches, paged. A bounded number of queries, whatever the number of matches."""
    user = (
        get_user_model().objects.select_related("person_profile").filter(username=username).first()
    )
    if user is None:
        raise Http404(f"nobody is called {username!r}")
    own = request.user.is_authenticated and request.user.pk == user.pk
    hidden = profile_hidden(user)
    if hidden and not own:
        context = {"username": user.get_username(), "private": True}
        return render(request, "people/profile.html", context, status=404)
    ratings = list(PersonRating.objects.filter(user=user).order_by("-matches", "game"))
    chosen = request.GET.get("game")
    if chosen is not None and chosen not in game_slugs():
        return keyset.bad_request(request, ValueError(f"there is no game {chosen[:40]!r}"))
    rating = next((r for r in ratings if r.game == chosen), None) if chosen else None
    if rating is None and chosen is None and ratings:
        rating = ratings[0]
    context: dict[str, Any] = {
        "person": user,
        "username": user.get_username(),
        # the account of the site's built-in bots, not a person
        "house": user.get_username() == HOUSE,
        "games": [
            {
                "rating": r,
                "title": get_game(r.game).title if r.game in game_slugs() else r.game,
                "chosen": r is rating,
                "link": f"?game={r.game}",
            }
            for r in ratings
        ],
        "rating": rating,
        "chosen_title": get_game(chosen).title if chosen else "",
        "own": own,
        "hidden": hidden,
        "bots": (bots := competing_bots(user)),
        # a game that ranks by score (UTH): the column says so
        "bots_scored": any(item["plays_alone"] for item in bots),
    }
    if rating is not None:
        try:
            recent = recent_rated(rating, request.GET.get("after"), request.GET.get("before"))
        except keyset.BadCursor as bad:
            return keyset.bad_request(request, bad)
        context |= {
            "title": get_game(rating.game).title,
            # the number after each of the others at the table is their score in the match
            "score_label": get_game(rating.game).score_label,
            "chart": rating_chart(person_history(rating)),
            "recent": recent,
            "extra": f"game={rating.game}",
        }
    return render(request, "people/profile.html", context)


@require_POST
def profile_visibility(request: HttpRequest, username: str) -> HttpResponse:
    """Hide one's profile or show it again (``hidden=1`` or ``0``): its owner only."""
    if not request.user.is_authenticated or request.user.get_username() != username:
        return error_page(
            request, 403, "Only the person whose profile it is may hide it or show it, logged in."
        )
    wanted = request.POST.get("hidden")
    if wanted not in ("0", "1"):
        return keyset.bad_request(
            request, ValueError("hidden must be 1 (hide the profile) or 0 (show it)")
        )
    PersonProfile.objects.update_or_create(user=request.user, defaults={"hidden": wanted == "1"})
    return redirect("person", username=username)


urlpatterns = [
    path("people/<str:username>/", profile, name="person"),
    path("people/<str:username>/visibility/", profile_visibility, name="person_visibility"),
]
