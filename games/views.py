"""The public game pages: home, rules and starter bots, leaderboards, tournaments.

The data these pages show is built by the plain functions below (``leaderboard_data``,
``tournament_progress``, ``cross_table``...), which the JSON API (``games.api``) and the
tournament websocket (``games.consumers``) share, so every view of a thing says the same.
"""

from __future__ import annotations

import html
import itertools
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import F, Max, OuterRef, Q, QuerySet, Subquery, Window
from django.db.models.functions import RowNumber
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from bots.competition.counts import jobs_by_status
from bots.ladder import aggregates
from bots.ladder.ratings import format_of, ranked_rows, ranking_measure
from bots.languages import get_language, title_list
from bots.models import (
    BotVersion,
    LeaderboardRow,
    Match,
    MatchSeat,
    OpponentResult,
    Tournament,
    TournamentResult,
    builtin_label,
)
from cardsite import keyset
from cardsite.written import figure, minus_signs, score_pair, when
from games import people_views
from games.engine import untrusted
from games.registry import GameSpec, game_slugs, get_game

LEADERS_ON_HOME = 3
RECENT_RESULTS = 10
TOURNAMENTS_PER_PAGE = 25
#: rows of a leaderboard page (pages go by rank)
LEADERBOARD_PAGE = 50
#: how many bots out of the ranking a leaderboard counts at most ("more than ..." beyond)
RETIRED_COUNTED = 100
#: why a bot is out of the ranking, by its version that last left the competition: one bot,
#: several (bots.competition.uploads.retire, bots.competition.faults, bots.admin)
WHY_OUT = {
    "retired": ("retired by its owner", "retired by their owners"),
    "taken off": (
        "taken off the ladder for faulting in its rated matches",
        "taken off the ladder for faulting in their rated matches",
    ),
    "moderator": ("rejected by a moderator", "rejected by a moderator"),
    None: ("out of the competition", "out of the competition"),
}
ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "games"


# ---- games and their starter bots -----------------------------------------------------------
@dataclass(frozen=True)
class Starter:
    game: str
    language: str  # a name of bots.languages
    path: Path

    @property
    def label(self) -> str:
        return get_language(self.language).title

    def contract_summary(self, plays_alone: bool) -> str:
        """The contract's shape in the starter's language, one line for the rules page."""
        language = get_language(self.language)
        summary = language.contract_summary.replace(
            "{match}", "session" if plays_alone else "match"
        )
        if "{methods}" in summary:  # JavaScript's: the game's own methods, as its bots name them
            summary = summary.replace(
                "{methods}", language.methods_text(get_game(self.game).methods)
            )
        if get_game(self.game).kits.get(self.language):
            # Last Card's Java: the original kit's classes too
            summary += "; or a class of the game's own kit for it, as its document shows"
            built = get_language(self.language).binary_suffixes
            if built:  # Java's: a jar built with the kit
                summary += f" (a <code>{'</code>, <code>'.join(built)}</code> built with it too)"
        return summary

    @property
    def filename(self) -> str:
        """The name the download gets (and the arena command on the rules page uses): its own
        for a language whose files are named after their class (``YourStrategy.java``)."""
        if get_language(self.language).named_by_class:
            return self.path.name
        return f"{self.game.replace('-', '_')}_starter{self.path.suffix}"

    @property
    def url(self) -> str:
        return reverse("starter", args=[self.game, self.language])


def starters(spec: GameSpec) -> list[Starter]:
    """The game's starter bots, by language (its spec names them)."""
    return [Starter(spec.slug, language, path) for language, path in spec.starters.items()]


def game_or_404(slug: str) -> GameSpec:
    try:
        return get_game(slug)
    except KeyError:
        raise Http404(f"no game {slug!r}") from None


#: sections of the game documents that are about the project, not about playing
DEVELOPER_SECTIONS = {"Measured", "How it is built and checked"}
#: a link to another Markdown file of the repository (not served by the site)
REPO_LINK = re.compile(r"\[([^\]]+)\]\((?![a-z]+:)([^)\s]*\.md)(?:#([^)]*))?\)")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _section_name(target: Path, anchor: str) -> str:
    """The name of the section ``anchor`` of the document ``target`` (its title without an
    anchor); "" if not found."""
    try:
        lines = target.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    headings = [line.lstrip("#").strip() for line in lines if line.startswith("#")]
    if not anchor:
        return headings[0] if headings else ""
    return next((h for h in headings if _slug(h) == anchor), "")


def _link_text(match: re.Match[str]) -> str:
    """A link to a repository file, as the page says it: its own words, or where those are
    the file's path (useless to a web reader), the name of the section it points at."""
    text, target, anchor = match[1], match[2], match[3] or ""
    if not text.strip().endswith(".md"):
        return text
    name = _section_name((DOCS / target).resolve(), anchor)
    return f"“{name}”" if name else "the project's documentation"


@cache
def rules_html(slug: str) -> str:
    """The game's document (docs/games/<slug>.md) as HTML: its title line and the
    developer sections dropped, headings one level down, links to repository files left as
    their text.

    The documents are the project's own files (never user content), rendered with raw HTML
    turned off."""
    path = DOCS / f"{slug}.md"
    if not path.exists():
        return ""
    kept: list[str] = []
    skipping = fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            if line.startswith("# "):
                continue  # the title: the page has its own
            if line.startswith("## "):
                skipping = line[3:].strip() in DEVELOPER_SECTIONS
            line = "#" + line  # one level down: the page's own h2 holds the document
        if not skipping:
            kept.append(line)
    text = REPO_LINK.sub(_link_text, "\n".join(kept))
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    return focusable_examples(markdown.render(text))


def focusable_examples(html: str) -> str:
    """A document's examples (its ``<pre>`` blocks, which may scroll sideways) reached by the
    keyboard and named for a screen reader, "Example 1", "Example 2"... (the documents are
    rendered with raw HTML off: each ``<pre>`` is one of theirs)."""
    numbers = itertools.count(1)
    return re.sub(
        "<pre>",
        lambda _: f'<pre tabindex="0" role="region" aria-label="Example {next(numbers)}">',
        html,
    )


def contract(spec: GameSpec) -> dict[str, Any]:
    tc = spec.time_control
    return {
        "methods": spec.methods,
        "move": tc.move,
        "bank": tc.bank,
        "startup": tc.startup,
    }


#: the arena as a person runs it in a clone that ``scripts/setup`` made ``.venv`` in (the
#: PATH's ``python`` may not be that one)
ARENA = ".venv/bin/python manage.py arena"


def arena_command(spec: GameSpec, filename: str) -> str:
    """How to play a starter against the built-in bots with ``manage.py arena``."""
    return f"{ARENA} --game {spec.slug} {filename} {spec.arena_args}"


def leaders_of(slug: str, count: int) -> list[dict[str, Any]]:
    """The game's best ``count`` bots, each with the number it is ranked by."""
    return leaders_by_game(count)[slug]


def leaders_by_game(count: int) -> dict[str, list[dict[str, Any]]]:
    """Every game's best ``count`` bots that have played a rated match, each with the number
    it is ranked by, in one query a game.

    A bot is ranked as soon as it has an active version, at the starting rating (0.00), so
    a bot that has not played yet can be ranked above bots that have (a rating below 0 is
    common after a few losses): it is no leader, so the rows ranked ``count`` or better are
    not the leaders. Each game's query walks the index on (game, rank) from the top past
    such rows, which are few (bots waiting for their placement matches), however many bots
    and matches there are."""
    found: dict[str, list[dict[str, Any]]] = {}
    for slug in game_slugs():
        rows = (
            LeaderboardRow.objects.filter(game=slug, rank__gt=0, matches__gt=0)
            .select_related("bot", "bot__owner")
            .only(*LEADER_FIELDS)
            .order_by("rank", "pk")[:count]
        )
        found[slug] = [{"row": row, "measure": ranking_measure(row)} for row in rows]
    return found


#: what a list of leaders reads of a row (never the head-to-head, which grows with the bots)
LEADER_FIELDS = (
    "game", "rank", "provisional", "conservative", "score", "bot__name",
    "bot__owner__username",
)  # fmt: skip


def home(request: HttpRequest) -> HttpResponse:
    leaders = leaders_by_game(LEADERS_ON_HOME)
    games = [
        {
            "spec": spec,
            "leaders": leaders[spec.slug],
            # as every page names them (the arena command's builtin:NAME is the rules page's)
            "builtins": [builtin_label(name) for name in spec.builtin_names],
        }
        for spec in map(get_game, game_slugs())
    ]
    first = game_slugs()[0]
    return render(
        request,
        "home.html",
        # (every language the site runs, as the upload form offers them)
        {
            "games": games,
            "play_now": reverse("game", args=[first]),
            "bot_languages": title_list(),
            "arena": ARENA,
        },
    )


def game(request: HttpRequest, slug: str) -> HttpResponse:
    spec = game_or_404(slug)
    offered = [
        {
            "starter": s,
            "command": arena_command(spec, s.filename),
            "contract": s.contract_summary(spec.plays_alone),
        }
        for s in starters(spec)
    ]
    return render(
        request,
        "games/rules.html",
        {
            "game": spec,
            # the project's own document, rendered with raw HTML off: no user content
            "rules": mark_safe(rules_html(slug)),
            "contract": contract(spec),
            "starters": offered,
            "toolkit": sorted(spec.toolkit_files()),
            # the first toolkit module, as a bot imports it
            "toolkit_import": min((Path(n).stem for n in spec.toolkit_files()), default=""),
            "repository": settings.CARD_ARENA_REPOSITORY,
        },
    )


def starter(request: HttpRequest, slug: str, language: str) -> HttpResponse:
    spec = game_or_404(slug)
    found = next((s for s in starters(spec) if s.language == language), None)
    if found is None:
        raise Http404(f"no {language} starter bot for {slug}")
    content_type = get_language(language).content_type
    response = HttpResponse(found.path.read_bytes(), content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, found.filename)
    return response


# ---- leaderboards ---------------------------------------------------------------------------
def board_headers(slug: str) -> list[str]:
    """A leaderboard's column headings: rank, bot, owner, the rating and mu +/- sigma where
    the game ranks by rating, matches, the game's own columns (``Format.board_columns``),
    last played."""
    fmt = format_of(slug)
    rated = fmt is None or fmt.ranked_by_rating
    own = [column.title for column in fmt.board_columns()] if fmt is not None else []
    return [
        "rank", "bot", "owner", *(["rating", "mu +/- sigma"] if rated else []), "matches",
        *own, "last played",
    ]  # fmt: skip


def board_cells(slug: str, row: LeaderboardRow, fmt: Any = None) -> list[dict[str, Any]]:
    """One row's cells under :func:`board_headers`: each its text and the value it shows
    (which the table sorts by). ``fmt`` is the game's format when the caller has it (making
    one costs a tenth of a millisecond: a page of rows makes it once)."""
    fmt = fmt if fmt is not None else format_of(slug)
    rated = fmt is None or fmt.ranked_by_rating
    owner = row.bot.owner.get_username()
    cells = [
        (f"{row.rank} (provisional)" if row.provisional else str(row.rank), row.rank),
        (row.bot.name, row.bot.name.lower()),
        (owner, owner.lower()),
    ]
    if rated:
        cells += [
            (minus_signs(f"{row.conservative:.2f}"), row.conservative),
            (f"{row.mu:.2f} +/- {row.sigma:.2f}", row.mu),
        ]
    cells.append((str(row.matches), row.matches))
    own = fmt.board_columns() if fmt is not None else []
    for column in own:
        cell = column.cell(row.score) if row.score else {"text": "-", "value": None}
        # (the format's text, as the arena prints it: a negative with the minus sign here)
        cells.append((minus_signs(cell["text"]), cell["value"]))
    last = row.last_played
    cells.append((when(last) or "-", last.timestamp() if last else None))
    return [{"text": text, "sort": _sort_key(value)} for text, value in cells]


#: how many of its opponents the leaderboard shows under each bot (the most met): all of
#: them, however many, are on the bot's page, a page at a time
MOST_MET = 3


def leaderboard_data(slug: str, rows: list[LeaderboardRow]) -> dict[str, Any]:
    """A page of the game's leaderboard: each row's cells (text and the value to sort by),
    its results against the opponents it met most (:data:`MOST_MET`; the bot's page lists
    every one), and the game's statistics table for the same rows. Everything shown is
    written out here, the template only places it."""
    headers = board_headers(slug)
    fmt = format_of(slug)
    higher_is_better = get_game(slug).higher_is_better
    most_met = _most_met([row.bot_id for row in rows])
    out = []
    for row in rows:
        out.append(
            {
                "row": row,
                "cells": [
                    {"header": header, **cell}
                    for header, cell in zip(headers, board_cells(slug, row, fmt), strict=True)
                ],
                "head_to_head": [
                    {
                        "label": found["label"],
                        "bot": found["bot"],
                        "matches": found["matches"],
                        "for": figure(found["for"]),
                        "against": figure(found["against"]),
                        "outcome": _outcome(found["for"], found["against"], higher_is_better),
                    }
                    for found in most_met.get(row.bot_id, [])
                ],
            }
        )
    return {"headers": headers, "rows": out, "statistics": statistics(slug, rows)}


#: what :func:`_most_met` reads of a result
MOST_MET_FIELDS = ("bot_id", "opponent_id", "name", "opponent__name", "opponent__owner__username",
                   "matches", "points_for", "points_against")  # fmt: skip


def _most_met(bots: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Each bot's results against the :data:`MOST_MET` bots it met most in its tournament
    matches (never at a live table), in one query of the results kept as matches are stored
    (``bots.ladder.aggregates``). On PostgreSQL the query walks each bot's index of results
    by matches for its first few (a bot may have met thousands), the same at 3 opponents and
    at 100,000; elsewhere (SQLite, a site of one process) it numbers every result of the
    page's bots."""
    if not bots:
        return {}
    if connection.vendor == "postgresql":
        found: Any = _most_met_postgresql(bots)
    else:
        order = [F("matches").desc(), "pk"]
        place = Window(RowNumber(), partition_by=[F("bot_id")], order_by=order)
        found = (
            OpponentResult.objects.filter(bot_id__in=bots)
            .annotate(place=place)
            .filter(place__lte=MOST_MET)
            .values(*MOST_MET_FIELDS)
            .order_by("bot_id", "place")
        )
    out: dict[int, list[dict[str, Any]]] = {}
    for row in found:
        opponent = row["opponent_id"]
        out.setdefault(row["bot_id"], []).append(
            {
                "bot": opponent,
                "label": f"{row['opponent__owner__username']}/{row['opponent__name']}"
                if opponent is not None
                else row["name"] or "a player",
                "matches": row["matches"],
                "for": row["points_for"],
                "against": row["points_against"],
            }
        )
    return out


def _most_met_postgresql(bots: list[int]) -> list[dict[str, Any]]:
    """:func:`_most_met`'s rows, each bot's first few by a walk of its index of results
    (``opponent_results_order``: bot, most matches first, id)."""
    opponent = OpponentResult._meta.get_field("opponent").related_model
    owner = opponent._meta.get_field("owner").related_model
    # the tables' names are the models' own; the values are parameters
    sql = f"""
        SELECT r.bot_id, r.opponent_id, r.name, o.name, u.username,
               r.matches, r.points_for, r.points_against
        FROM unnest(%s::bigint[]) AS b(id)
        CROSS JOIN LATERAL (
            SELECT * FROM {OpponentResult._meta.db_table} WHERE bot_id = b.id
            ORDER BY matches DESC, id LIMIT %s
        ) AS r
        LEFT JOIN {opponent._meta.db_table} AS o ON o.id = r.opponent_id
        LEFT JOIN {owner._meta.db_table} AS u ON u.id = o.owner_id
        ORDER BY r.bot_id, r.matches DESC, r.id
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [list(bots), MOST_MET])
        return [dict(zip(MOST_MET_FIELDS, row, strict=True)) for row in cursor.fetchall()]


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


#: where a cell of numbers may go on a second line when its table is short of room: before
#: an interval or a note in brackets ("+1.000 (+0.219 to +1.000)", "2 (provisional)"), before
#: a spread ("34.37 +/- 7.15"), and between a date and its time ("2026-11-30 23:35")
SPLIT_AT = re.compile(r" (?=\()| (?=\+/- )|(?<=^\d{4}-\d{2}-\d{2}) (?=\d{2}:\d{2}$)")


def _parts(text: str) -> str:
    """A cell's text, escaped, in the pieces it may break between (:data:`SPLIT_AT`), each
    kept on one line."""
    pieces = SPLIT_AT.split(text)
    if len(pieces) == 1:
        return _e(text)
    return " ".join(f'<span class="keep">{_e(piece)}</span>' for piece in pieces)


def _number_class(text: str) -> str:
    """The class of a cell of numbers: one that may break (:func:`_parts`) says so."""
    return ' class="num split"' if SPLIT_AT.search(text) else ' class="num"'


def board_html(board: dict[str, Any]) -> dict[str, SafeString]:
    """The leaderboard page's three tables (ranking, statistics, head-to-head) as HTML, made
    here in one pass with every value escaped: a page of rows with a few thousand cells and
    links through the template engine (a lookup, an escape and a localisation each) cost
    the page several times its queries."""
    ranking = []
    for entry in board["rows"]:
        pk = entry["row"].bot.pk
        cells = []
        for cell in entry["cells"]:
            text, sort = _e(cell["text"]), _e(cell["sort"])
            if cell["header"] == "bot":
                cells.append(
                    f'<th scope="row" data-sort="{sort}"><a href="/bots/{pk}/">{text}</a></th>'
                )
            elif cell["header"] == "owner":  # a name: wrapped past a width (site.css, .name)
                cells.append(f'<td data-sort="{sort}"><span class="name">{text}</span></td>')
            else:
                number_class = _number_class(cell["text"])
                cells.append(f'<td data-sort="{sort}"{number_class}>{_parts(cell["text"])}</td>')
        ranking.append(f"<tr>{''.join(cells)}</tr>")
    stats = []
    for line in board["statistics"]["rows"]:
        bot = line["row"].bot
        label = _e(bot.label)
        cells = "".join(
            f'<td{_number_class(cell["text"])} data-sort="{_e(cell["sort"])}">'
            f"{_parts(cell['text'])}</td>"
            for cell in line["cells"]
        )
        stats.append(
            f'<tr><th scope="row" data-sort="{_e(bot.label.lower())}"><a href="/bots/{bot.pk}/">'
            f"{label}</a></th>{cells}</tr>"
        )
    h2h = []
    for entry in board["rows"]:
        if not entry["head_to_head"]:
            continue
        bot = entry["row"].bot
        items = []
        for h in entry["head_to_head"]:
            label = _e(h["label"])
            who = f'<a href="/bots/{h["bot"]}/">{label}</a>' if h["bot"] else label
            played = f"{h['matches']} match{'' if h['matches'] == 1 else 'es'}"
            items.append(
                f"<li>against {who}: <strong>{h['for']}</strong> to {h['against']} "
                f'<span class="badge {h["outcome"]}">{h["outcome"]}</span> '
                f'<span class="muted">in {played}</span></li>'
            )
        h2h.append(
            f'<div class="h2h-bot"><h3><a href="/bots/{bot.pk}/">{_e(bot.label)}</a></h3>'
            f"<ul>{''.join(items)}</ul>"
            f'<p><a href="/bots/{bot.pk}/#opponents-title">Every opponent it met</a></p></div>'
        )
    return {
        # every value in them went through _e (or is a number written here)
        "ranking": mark_safe("\n".join(ranking)),
        "statistics": mark_safe("\n".join(stats)),
        "head_to_head": mark_safe("\n".join(h2h)),
    }


def _outcome(mine: float, theirs: float, higher_is_better: bool) -> str:
    if mine == theirs:
        return "even"
    return "won" if (mine > theirs) == higher_is_better else "lost"


def statistics(slug: str, rows: list[LeaderboardRow]) -> dict[str, Any]:
    """The game's own statistics table, as its tournament format lays it out (Last Card's
    kit statistics per game, RPS Poker's games won and win rate, UTH's net chips per
    round...): each cell its text and the value it shows."""
    fmt = format_of(slug)
    if fmt is None:
        return {"headers": [], "note": "", "rows": []}
    table = fmt.statistics()
    return {
        "headers": [column.title for column in table.columns],
        "note": table.note,
        "rows": [
            {
                "row": row,
                "cells": [
                    {"text": minus_signs(cell["text"]), "sort": _sort_key(cell["value"])}
                    for cell in (column.cell(row.score) for column in table.columns)
                ],
            }
            for row in rows
            if row.score
        ],
    }


def _sort_key(value: Any) -> str:
    """What a sortable table's ``data-sort`` holds: the value as text, empty for none."""
    return "" if value is None else str(value)


#: what no page nor the API shows of a leaderboard row: its running totals (which held
#: every opponent's head-to-head in rows stored before it moved to the results by opponent)
ROW_UNSHOWN = ("standing",)


def score_shown(score: dict[str, Any]) -> dict[str, Any]:
    """A row's ``score`` as the API gives it: without the head-to-head that rows stored
    before it moved to each bot's results by opponent still hold (it grew with the bots)."""
    return {key: value for key, value in score.items() if key != "head_to_head"}


def leaderboard_page(
    slug: str, after: str | None, before: str | None, size: int = LEADERBOARD_PAGE
) -> keyset.KeysetPage:
    """A page of the game's ranked rows, by rank (stored on the rows: an index walk from
    where the last page stopped, the same at rank 1 and rank 10,000). Raises
    ``keyset.BadCursor`` for a position that is not one."""
    # not the rows' running totals (``standing``): in rows stored before the head-to-head
    # moved to each bot's page, they grow with the opponents
    rows = ranked_rows(slug).defer(*ROW_UNSHOWN)
    return keyset.page(rows, ["rank", "pk"], size, after=after, before=before)


def out_of_ranking(slug: str, limit: int = RETIRED_COUNTED) -> dict[str, Any]:
    """The game's bots out of the ranking (no active version), counted by why (``WHY_OUT``):
    ``{"kinds": "2 retired by their owners, 1 taken off ...", "count": 3, "more": False}``,
    counting no further than ``limit + 1`` (``more``: beyond it, and no kinds)."""
    left = BotVersion.objects.filter(bot=OuterRef("bot")).filter(
        Q(status=BotVersion.RETIRED)
        | Q(status=BotVersion.REJECTED, taken_off__isnull=False)
        | Q(status=BotVersion.REJECTED, reason__startswith="rejected by moderator")
    )
    newest = left.order_by("-number")
    rows = (
        LeaderboardRow.objects.filter(game=slug, rank=0)
        .order_by()
        .annotate(
            last=Subquery(newest.values("status")[:1]),
            off=Subquery(newest.values("taken_off")[:1]),
        )
        .values_list("last", "off")[: limit + 1]
    )
    named = {BotVersion.RETIRED: "retired", BotVersion.REJECTED: "moderator"}
    kinds: dict[str | None, int] = {}
    for status, off in rows:
        kind = "taken off" if off is not None else named.get(status)
        kinds[kind] = kinds.get(kind, 0) + 1
    count = sum(kinds.values())
    order = sorted(kinds, key=lambda kind: (-kinds[kind], list(WHY_OUT).index(kind)))
    words = [f"{kinds[kind]} {WHY_OUT[kind][kinds[kind] != 1]}" for kind in order]
    return {"kinds": ", ".join(words), "count": count, "more": count > limit}


def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    spec = game_or_404(slug)
    try:  # ?show=people|both: games.people_views; bots (the default) below
        show = people_views.shown(request, slug)
    except people_views.BadShow as bad:
        return keyset.bad_request(request, bad)
    if show != "bots":
        return people_views.leaderboard(request, spec, show)
    try:
        window = leaderboard_page(slug, request.GET.get("after"), request.GET.get("before"))
    except keyset.BadCursor as bad:
        return keyset.bad_request(request, bad)
    fmt = format_of(slug)
    return render(
        request,
        "leaderboard.html",
        {
            "game": spec,
            "board": (board := leaderboard_data(slug, window.items)),
            "html": board_html(board),
            "window": window,
            "lower_is_better": not spec.higher_is_better,
            "by_rating": fmt is None or fmt.ranked_by_rating,
            "measure": fmt.score_label if fmt is not None else "",
            "out": out_of_ranking(slug),
            "people_shown": people_views.game_rates_people(slug),
            "show": "bots",
            "most_met": MOST_MET,
        },
    )


# ---- tournaments ----------------------------------------------------------------------------
def tournament_progress(tournament: Tournament, *, recent: bool = True) -> dict[str, Any]:
    """Jobs by status (:func:`jobs_by_status`: a count at most a few seconds old), the share
    done, and the most recent results (unless ``recent`` is false: the page reads its own
    page of them): what the page shows, ``progress.json`` returns and the websocket sends
    on connect."""
    jobs = jobs_by_status([tournament])[tournament.pk]
    total = sum(jobs.values())
    finished_jobs = jobs["done"] + jobs["failed"]
    return {
        "tournament": tournament.pk,
        "state": tournament.state,
        "finished": tournament.state == Tournament.DONE,
        "jobs": jobs,
        "total": total,
        "percent": round(100 * finished_jobs / total, 1) if total else 0.0,
        "recent": recent_results(tournament) if recent else [],
    }


def matches_of(tournament: Tournament) -> QuerySet[Match]:
    """The tournament's matches, with only what a list of results shows of each (its id and
    time: never its record), to be read newest first in :data:`LATEST_FIRST` order.

    Asked as a range of one tournament, not ``tournament_id = t``: for an equality PostgreSQL
    leaves the tournament out of the order (it is the same in every row), and where the
    tournament holds a large share of all matches it guesses that walking every match
    backwards (the primary key) meets this one's at once. When newer matches of other
    tournaments and tables were stored after this one's (a big ladder round of one game
    beside the others' rounds), that walk passed each of them: 0.5-2.3 s at 500,000 matches,
    for 11. A range keeps the tournament in the order, which only the index of a
    tournament's latest matches (``match_tournament_latest``) gives without a sort."""
    one = {"tournament_id__gte": tournament.pk, "tournament_id__lte": tournament.pk}
    return Match.objects.filter(**one).only("pk", "played")


#: a tournament's matches newest first (the order they were stored in), as the index of a
#: tournament's latest matches holds them: ``tournament_id`` is the same in every row of
#: :func:`matches_of`, so the cursor is the id alone
LATEST_FIRST = ("tournament_id", "-pk")


def recent_results(tournament: Tournament, limit: int = RECENT_RESULTS) -> list[dict[str, Any]]:
    matches = list(matches_of(tournament).order_by(*LATEST_FIRST)[:limit])
    return results_of(matches)


def results_of(matches: list[Match]) -> list[dict[str, Any]]:
    """Each match's id, page, time and seats (bot, score, fault), in one more query."""
    seats = _seats_of([m.pk for m in matches])
    return [
        {
            "match": m.pk,
            "url": f"/matches/{m.pk}/",
            "played": m.played.isoformat(),
            "seats": [
                {
                    "bot": s.label,
                    "bot_id": s.bot_id,
                    "score": s.score,
                    # (as the page writes it: a negative with the minus sign)
                    "score_text": figure(s.score),
                    "fault": s.fault_kind or None,
                }
                for s in seats.get(m.pk, [])
            ],
        }
        for m in matches
    ]


def results_page(tournament: Tournament, request: HttpRequest) -> keyset.KeysetPage:
    """A page of the tournament's results, newest first, from where the last page stopped
    (``?after=<match id>`` for older ones, ``?before=`` for newer): a walk of an index of the
    tournament's matches, the same cost at its first match and its millionth. Raises
    ``keyset.BadCursor``."""
    found = keyset.page(
        matches_of(tournament),
        ["-pk"],
        RECENT_RESULTS,
        after=request.GET.get("after"),
        before=request.GET.get("before"),
        leading=LATEST_FIRST[:1],
    )
    return keyset.KeysetPage(results_of(found.items), found.after, found.before, found.first)


def _seats_of(match_ids: list[int]) -> dict[int, list[MatchSeat]]:
    found: dict[int, list[MatchSeat]] = {}
    query = (
        MatchSeat.objects.filter(match_id__in=match_ids)
        .select_related("bot", "bot__owner")
        .only(
            "match_id", "seat", "score", "fault_kind", "name", "bot__name", "bot__owner__username"
        )
        .order_by("match_id", "seat")
    )
    for seat in query:
        found.setdefault(seat.match_id, []).append(seat)
    return found


#: how many of a tournament's best bots its cross table shows, as rows and as columns: a
#: 100-bot round robin's 10,000 cells are no table to read (nor to send). Every bot is in
#: the standings under it, and each bot's results against every other are its own view
#: (``?bot=<id>``), which is what the author of a bot in such a tournament looks for.
CROSS_TOP = 20


def cross_table(tournament: Tournament, top: int = CROSS_TOP) -> dict[str, Any]:
    """Results summed over the tournament's matches.

    Every bot's totals (matches, points, mean, faults), best first (``ranked_by``: by its
    total points where every bot played as many matches, else by its mean per match, as in
    a placement; ``matches_range``: the fewest and the most a bot played): the standings. Games
    with opponents add a grid of the ``top`` best: a cell holds the row bot's points and
    the column bot's points over every match both played (at a Last Card table each pair
    of players at the table counts). One-seat games (UTH) have the totals alone.

    The sums are kept as matches are stored (``TournamentResult``, ``bots.ladder.aggregates``):
    two queries read the bots' totals and the pairs among the best, whatever the number of
    matches, and no more than ``top`` squared cells however many bots took part."""
    spec = get_game(tournament.game)
    higher_is_better = spec.higher_is_better
    kept = TournamentResult.objects.filter(tournament=tournament)
    totals = kept.filter(opponent=0).values_list(
        "bot_id", "matches", "points_for", "faults", "bot__name", "bot__owner__username"
    )
    entries = [
        {
            "id": bot_id,
            "label": f"{owner}/{name}",
            "matches": int(matches),
            "points": float(points),
            "mean": points / matches if matches else 0,
            "faults": int(faults),
        }
        for bot_id, matches, points, faults, name, owner in totals
    ]
    # bots that played different numbers of matches are ranked by their mean per match,
    # which compares, not by totals over different numbers: a placement's new bot plays
    # every opponent, each of them the new bot alone; in a round robin a bot that left
    # part-way had its matches withdrawn, and only some opponents got to play it
    counts = [e["matches"] for e in entries]
    fewest, most = min(counts, default=0), max(counts, default=0)
    placement = tournament.format == Tournament.PLACEMENT
    by = "mean" if placement or fewest != most else "points"
    entries.sort(key=lambda e: (-e[by] if higher_is_better else e[by], e["label"]))
    for place, entry in enumerate(entries, 1):
        entry["place"] = place
    order = {
        "ranked_by": by,
        "higher_is_better": higher_is_better,
        # the fewest and the most matches a bot played here (they differ: ranked by mean)
        "matches_range": [fewest, most],
    }
    if spec.plays_alone:
        return {"kind": "totals", "bots": entries} | order
    columns = entries[:top]
    shown = [e["id"] for e in columns]
    pairs = {
        (bot, opponent): (mine, theirs, n)
        for bot, opponent, mine, theirs, n in kept.filter(
            bot_id__in=shown, opponent__in=shown
        ).values_list("bot_id", "opponent", "points_for", "points_against", "matches")
    }
    grid = [
        {
            "bot": row,
            "cells": [
                None
                if row is col or (row["id"], col["id"]) not in pairs
                else _cell(*pairs[row["id"], col["id"]], col["label"], higher_is_better)
                for col in columns
            ],
        }
        for row in columns
    ]
    return {
        "kind": "pairs",
        "bots": entries,
        "columns": columns,
        "grid": grid,
        "more": len(entries) > len(columns),
    } | order


def _cell(mine: float, theirs: float, n: int, opponent: str, higher: bool) -> dict[str, Any]:
    better = mine > theirs if higher else mine < theirs
    worse = mine < theirs if higher else mine > theirs
    return {
        "for": mine,
        "against": theirs,
        "matches": int(n),
        "outcome": "won" if better else "lost" if worse else "even",
        "opponent": opponent,
    }


def chosen_bot(
    tournament: Tournament, cross: dict[str, Any] | None, value: str | None
) -> dict[str, Any] | None:
    """The row of the bot ``?bot=`` names, if any: ``ValueError`` for a value that is not a
    bot's id, ``LookupError`` for a bot that did not play (or a tournament not finished)."""
    if value is None:
        return None
    bot_id = untrusted.whole_number(value)
    if bot_id is None:
        raise ValueError(f"?bot={value[:40]!r} is not a bot's id (a number)")
    if cross is None or cross["kind"] != "pairs":
        raise LookupError("this tournament has no results against each opponent")
    return bot_results(tournament, cross, bot_id)


def bot_results(tournament: Tournament, cross: dict[str, Any], bot_id: int) -> dict[str, Any]:
    """One bot's row of the whole cross table: its results against every other bot it met
    in the tournament, in the order of the standings (one query, a row per opponent).
    Raises ``LookupError`` for a bot that did not take part."""
    entry = next((e for e in cross["bots"] if e["id"] == bot_id), None)
    if entry is None:
        raise LookupError(f"bot {bot_id} did not play in this tournament")
    met = {
        opponent: (mine, theirs, n)
        for opponent, mine, theirs, n in TournamentResult.objects.filter(
            tournament=tournament, bot_id=bot_id
        )
        .exclude(opponent=0)
        .values_list("opponent", "points_for", "points_against", "matches")
    }
    higher = cross["higher_is_better"]
    return {
        "bot": entry,
        "cells": [
            {"opponent_id": e["id"], "place": e["place"]} | _cell(*met[e["id"]], e["label"], higher)
            for e in cross["bots"]
            if e["id"] in met
        ],
    }


def cross_table_html(cross: dict[str, Any]) -> SafeString:
    """The rows of :func:`cross_table`'s table as the page shows them, made here in one
    pass with every label escaped: a grid of a few hundred cells through the template engine
    cost the page more than summing the tournament."""
    rows = []
    by_mean = cross.get("ranked_by") == "mean"  # (what its rows are ordered by)
    if cross["kind"] == "pairs":
        for line in cross["grid"]:
            bot = line["bot"]
            cells = []
            for cell in line["cells"]:
                if cell is None:
                    cells.append('<td class="num self" aria-label="no matches">&middot;</td>')
                    continue
                title = _e(f"{bot['label']} against {cell['opponent']}, {cell['matches']} matches")
                cells.append(
                    f'<td class="num {cell["outcome"]}" title="{title}">'
                    f"{score_pair(cell['for'], cell['against'])}</td>"
                )
            if by_mean:  # (over how many matches each total is)
                cells.append(f'<td class="num">{bot["matches"]}</td>')
            cells.append(f'<td class="num">{figure(bot["points"])}</td>')
            if by_mean:
                cells.append(f'<td class="num">{_mean(bot)}</td>')
            rows.append(
                f'<tr><th scope="row"><a href="/bots/{bot["id"]}/">{_e(bot["label"])}</a></th>'
                f"{''.join(cells)}</tr>"
            )
    else:
        for bot in cross["bots"]:
            mean = _mean(bot)
            rows.append(
                f'<tr><th scope="row"><a href="/bots/{bot["id"]}/">{_e(bot["label"])}</a></th>'
                f'<td class="num">{bot["matches"]}</td><td class="num">{figure(bot["points"])}</td>'
                f'<td class="num">{mean}</td><td class="num">{bot["faults"]}</td></tr>'
            )
    return mark_safe("\n".join(rows))  # every label went through _e


def _mean(bot: dict[str, Any]) -> str:
    """A bot's mean per match in a tournament, as its tables write it."""
    return minus_signs(f"{bot['mean']:.2f}")


def standings_html(cross: dict[str, Any]) -> SafeString:
    """Every bot of the tournament, best first, with a link to its row of the whole cross
    table (``?bot=<id>``), made here in one pass with every label escaped."""
    rows = []
    for bot in cross["bots"]:
        label = _e(bot["label"])
        mean = _mean(bot)
        rows.append(
            f'<tr><td class="num">{bot["place"]}</td>'
            f'<th scope="row"><a href="/bots/{bot["id"]}/">{label}</a></th>'
            f'<td class="num">{bot["matches"]}</td><td class="num">{figure(bot["points"])}</td>'
            f'<td class="num">{mean}</td><td class="num">{bot["faults"]}</td>'
            f'<td><a href="?bot={bot["id"]}#bot-results">against each</a></td></tr>'
        )
    return mark_safe("\n".join(rows))  # every label went through _e


def bot_results_html(found: dict[str, Any]) -> SafeString:
    """:func:`bot_results`' rows: each opponent (its place), the matches and both sides'
    points, every label escaped."""
    rows = []
    for cell in found["cells"]:
        rows.append(
            f'<tr><td class="num">{cell["place"]}</td>'
            f'<th scope="row"><a href="/bots/{cell["opponent_id"]}/">{_e(cell["opponent"])}</a>'
            f'</th><td class="num">{cell["matches"]}</td>'
            f'<td class="num {cell["outcome"]}">{score_pair(cell["for"], cell["against"])}</td>'
            f"<td>{cell['outcome']}</td></tr>"
        )
    return mark_safe("\n".join(rows))  # every label went through _e


def live_updates() -> bool:
    """Whether the worker's progress messages can reach this process (a shared layer)."""
    return bool(getattr(settings, "REDIS_URL", ""))


#: leaders shown for each game on the leaderboards page
LEADERS_ON_INDEX = 5


def leaderboards(request: HttpRequest) -> HttpResponse:
    """Every game's leaders in one page, each with what it is ranked by and how many bots
    its ranking holds: one query a game and one for all the counts, whatever their sizes."""
    leaders = leaders_by_game(LEADERS_ON_INDEX)
    boards = []
    for slug, ranked in ranked_counts().items():
        fmt = format_of(slug)
        boards.append(
            {
                "spec": get_game(slug),
                "leaders": leaders[slug],
                "count": ranked,
                "by_rating": fmt is None or fmt.ranked_by_rating,
            }
        )
    return render(request, "games/leaderboards.html", {"boards": boards})


def ranked_counts() -> dict[str, int]:
    """How many bots each game ranks: its last rank (ranks are 1, 2, ... with no gap), which
    the index on (game, rank) gives without counting the rows."""
    found = dict.fromkeys(game_slugs(), 0)
    last = LeaderboardRow.objects.filter(game__in=list(found)).values("game")
    for entry in last.annotate(last=Max("rank")).order_by():
        found[entry["game"]] = entry["last"] or 0
    return found


#: the site docs/api.md's examples ask and quote (scripts/run-site's default address): the
#: page puts its own site's in its place, so that its examples can be pasted as they are
API_DOCS_ORIGIN = "http://127.0.0.1:8000"


def api_docs(request: HttpRequest) -> HttpResponse:
    """The JSON API's documentation (docs/api.md) as a page of the site, its examples on the
    address the page was asked on (as the API's own links are: ``next``, ``url``)."""
    here = request.build_absolute_uri("/").rstrip("/")
    text = (settings.BASE_DIR / "docs" / "api.md").read_text().replace(API_DOCS_ORIGIN, here)
    lines = text.splitlines()
    title = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("# ") else "JSON API"
    body = "\n".join(lines[1:] if lines and lines[0].startswith("# ") else lines)
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    html = focusable_examples(markdown.render(REPO_LINK.sub(r"\1", body)))
    return render(request, "games/api_docs.html", {"title": title, "html": html})


def tournaments_page(
    request: HttpRequest, size: int = TOURNAMENTS_PER_PAGE
) -> tuple[keyset.KeysetPage, str]:
    """A page of tournaments, newest first (the order they were made: their id), from where
    the last page stopped (``?after=<id>`` for older ones, ``?before=<id>`` for newer), with
    the game filter (``?game=<slug>``; an unknown game is no filter). No page numbers and no
    count: the thousandth page costs what the first does. Raises ``keyset.BadCursor``."""
    query = Tournament.objects.all()
    game_filter = request.GET.get("game", "")
    if game_filter in game_slugs():
        query = query.filter(game=game_filter)
    else:
        game_filter = ""
    found = keyset.page(
        query, ["-pk"], size, after=request.GET.get("after"), before=request.GET.get("before")
    )
    return found, game_filter


def tournaments(request: HttpRequest) -> HttpResponse:
    try:
        page, game_filter = tournaments_page(request)
    except keyset.BadCursor as bad:
        return keyset.bad_request(request, bad)
    counts = jobs_by_status(page.items)
    listed = []
    for t in page.items:
        p = counts[t.pk]
        total = p["done"] + p["failed"] + p["queued"] + p["running"]
        # (a failed match was not played: withdrawn, or the site could not play it)
        unplayed = f", {p['failed']} not played" if p["failed"] else ""
        listed.append(
            {
                "tournament": t,
                "game": get_game(t.game),
                "progress": f"{p['done']} / {total} matches played{unplayed}",
                "created": when(t.created),
            }
        )
    return render(
        request,
        "games/tournaments.html",
        {
            "page": page,
            "listed": listed,
            "games": [get_game(s) for s in game_slugs()],
            "game_filter": game_filter,
            "extra": f"game={game_filter}" if game_filter else "",
        },
    )


def tournament(request: HttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Tournament, pk=pk)
    try:
        results = results_page(found, request)
    except keyset.BadCursor as bad:
        return keyset.bad_request(request, bad)
    progress = tournament_progress(found, recent=False)
    cross = cross_table(found) if progress["finished"] else None
    try:
        one_bot = chosen_bot(found, cross, request.GET.get("bot"))
    except ValueError as bad:
        return keyset.bad_request(request, bad)
    except LookupError as missing:
        raise Http404(str(missing)) from None
    tc = found.settings.get("time_control") or {}
    spec = get_game(found.game)
    return render(
        request,
        "games/tournament.html",
        {
            "tournament": found,
            "game": spec,
            "progress": progress,
            "results": results,
            "settings_shown": {
                "rounds": found.settings.get("rounds"),
                # the matches' seeds come from it: secret where it would deal hidden cards
                "seed": found.public_settings().get("seed"),
                "bots": len(found.settings.get("versions", [])) or None,
                "time per call": f"{tc['move']:g} s" if "move" in tc else None,
                "time bank": f"{tc['bank']:g} s" if "bank" in tc else None,
            },
            "worker": aggregates.worker_time_in(found),
            "cross": cross,
            # what the rows (and the places) are in order of
            "cross_order": (
                ""
                if cross is None
                else f"{spec.score_label} per match"
                if cross["ranked_by"] == "mean"
                else f"total {spec.score_label}"
            ),
            "cross_rows": cross_table_html(cross) if cross else "",
            "standings": standings_html(cross) if cross and cross.get("more") else "",
            "top": CROSS_TOP,
            "one_bot": one_bot,
            "one_bot_rows": bot_results_html(one_bot) if one_bot else "",
            "live": live_updates(),
        },
    )


def tournament_progress_json(request: HttpRequest, pk: int) -> JsonResponse:
    found = Tournament.objects.filter(pk=pk).first()
    if found is None:
        return JsonResponse({"error": f"no tournament {pk}"}, status=404)
    response = JsonResponse(tournament_progress(found))
    response["Cache-Control"] = "no-cache"
    return response


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers and the start script: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})
