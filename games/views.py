"""The public game pages: home, rules and starter bots, leaderboards, tournaments.

The data these pages show is built by the plain functions below (``leaderboard_data``,
``tournament_progress``, ``cross_table``...), which the JSON API (``games.api``) and the
tournament websocket (``games.consumers``) share, so every view of a thing says the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from itertools import permutations
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from bots import competition
from bots.models import LeaderboardRow, Match, MatchJob, MatchSeat, Tournament
from bots.ratings import format_of, ranked_rows, ranking_measure
from bots.ratings import leaderboard as leaderboard_table
from games.registry import GameSpec, game_slugs, get_game

LEADERS_ON_HOME = 3
RECENT_RESULTS = 10
TOURNAMENTS_PER_PAGE = 25
ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "games"


# ---- games and their starter bots -----------------------------------------------------------
@dataclass(frozen=True)
class Starter:
    game: str
    language: str  # "python" or "javascript"
    path: Path

    @property
    def label(self) -> str:
        return {"python": "Python", "javascript": "JavaScript"}[self.language]

    @property
    def filename(self) -> str:
        """The name the download gets (and the arena command on the rules page uses)."""
        return f"{self.game.replace('-', '_')}_starter{self.path.suffix}"

    @property
    def url(self) -> str:
        return reverse("starter", args=[self.game, self.language])


def starters(spec: GameSpec) -> list[Starter]:
    """The game's starter bots (its spec names them: Python for every game, JavaScript where
    the game's original contract is JavaScript)."""
    return [Starter(spec.slug, language, path) for language, path in spec.starters.items()]


def game_or_404(slug: str) -> GameSpec:
    try:
        return get_game(slug)
    except KeyError:
        raise Http404(f"no game {slug!r}") from None


#: sections of the game documents that are about the project, not about playing
DEVELOPER_SECTIONS = {"Measured", "How it is built and checked"}
#: a link to another Markdown file of the repository (not served by the site)
REPO_LINK = re.compile(r"\[([^\]]+)\]\((?![a-z]+:)[^)\s]*\.md(?:#[^)]*)?\)")


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
    text = REPO_LINK.sub(r"\1", "\n".join(kept))
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def contract(spec: GameSpec) -> dict[str, Any]:
    tc = spec.time_control
    return {
        "methods": spec.methods,
        "move": tc.move,
        "bank": tc.bank,
        "startup": tc.startup,
    }


def arena_command(spec: GameSpec, filename: str) -> str:
    """How to play a starter against the built-in bots with ``manage.py arena``."""
    return f"python manage.py arena --game {spec.slug} {filename} {spec.arena_args}"


def leaders_of(slug: str, count: int) -> list[dict[str, Any]]:
    """The game's best ``count`` bots, each with the number it is ranked by."""
    return [{"row": row, "measure": ranking_measure(row)} for row in ranked_rows(slug)[:count]]


def home(request: HttpRequest) -> HttpResponse:
    games = []
    for slug in game_slugs():
        games.append({"spec": get_game(slug), "leaders": leaders_of(slug, LEADERS_ON_HOME)})
    first = game_slugs()[0]
    return render(request, "home.html", {"games": games, "play_now": reverse("game", args=[first])})


def game(request: HttpRequest, slug: str) -> HttpResponse:
    spec = game_or_404(slug)
    offered = [{"starter": s, "command": arena_command(spec, s.filename)} for s in starters(spec)]
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
            "repository": settings.CARD_ARENA_REPOSITORY,
        },
    )


def starter(request: HttpRequest, slug: str, language: str) -> HttpResponse:
    spec = game_or_404(slug)
    found = next((s for s in starters(spec) if s.language == language), None)
    if found is None:
        raise Http404(f"no {language} starter bot for {slug}")
    content_type = "text/x-python" if language == "python" else "text/javascript"
    response = HttpResponse(found.path.read_bytes(), content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, found.filename)
    return response


# ---- leaderboards ---------------------------------------------------------------------------
def leaderboard_data(slug: str) -> dict[str, Any]:
    """The game's leaderboard (``bots.ratings.leaderboard``: each cell its text and the
    value it shows, which a table sorts by), each row's bot, head-to-head and statistics."""
    table = leaderboard_table(slug)
    headers = table["headers"]
    shown = [n for n, h in enumerate(headers) if h != "head-to-head"]
    rows = [entry["row"] for entry in table["rows"]]
    labels = {row.bot.label: row for row in rows}
    higher_is_better = get_game(slug).higher_is_better
    out = []
    for entry in table["rows"]:
        row = entry["row"]
        out.append(
            {
                "row": row,
                "cells": [
                    {
                        "header": headers[n],
                        "text": entry["cells"][n]["text"],
                        "sort": entry["cells"][n]["value"],
                    }
                    for n in shown
                ],
                "head_to_head": [
                    {
                        "label": other,
                        "bot": labels.get(other),
                        "for": mine,
                        "against": theirs,
                        "outcome": _outcome(mine, theirs, higher_is_better),
                    }
                    for other, (mine, theirs) in sorted(row.head_to_head.items())
                ],
            }
        )
    return {
        "headers": [headers[n] for n in shown],
        "rows": out,
        "statistics": statistics(slug, rows),
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
                    {"text": cell["text"], "sort": cell["value"]}
                    for cell in (column.cell(row.score) for column in table.columns)
                ],
            }
            for row in rows
            if row.score
        ],
    }


def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    spec = game_or_404(slug)
    return render(
        request,
        "leaderboard.html",
        {
            "game": spec,
            "board": leaderboard_data(slug),
            "lower_is_better": not spec.higher_is_better,
            "by_rating": (fmt := format_of(slug)) is None or fmt.ranked_by_rating,
            "measure": fmt.score_label if fmt is not None else "",
            "retired": LeaderboardRow.objects.filter(game=slug, rank=0).count(),
        },
    )


# ---- tournaments ----------------------------------------------------------------------------
def tournament_progress(tournament: Tournament) -> dict[str, Any]:
    """Jobs by status, the share done, and the most recent results: what the page shows,
    ``progress.json`` returns and the websocket sends on connect."""
    jobs = competition.progress(tournament.pk)
    total = sum(jobs.values())
    finished_jobs = jobs["done"] + jobs["failed"]
    return {
        "tournament": tournament.pk,
        "state": tournament.state,
        "finished": tournament.state == Tournament.DONE,
        "jobs": jobs,
        "total": total,
        "percent": round(100 * finished_jobs / total, 1) if total else 0.0,
        "recent": recent_results(tournament),
    }


def recent_results(tournament: Tournament, limit: int = RECENT_RESULTS) -> list[dict[str, Any]]:
    # newest first by the order they were stored: an index of the tournament's matches
    # serves it, without sorting them all
    matches = list(Match.objects.filter(tournament=tournament).order_by("-pk")[:limit])
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
                    "fault": s.fault_kind or None,
                }
                for s in seats.get(m.pk, [])
            ],
        }
        for m in matches
    ]


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


def cross_table(tournament: Tournament) -> dict[str, Any]:
    """Results summed over the tournament's matches.

    Games with opponents: rows and columns are the bots, and a cell holds the row bot's
    points and the column bot's points over every match both played (at a Last Card table
    each pair of players at the table counts). One-seat games (UTH): each bot's totals."""
    spec = get_game(tournament.game)
    higher_is_better = spec.higher_is_better
    seats = MatchSeat.objects.filter(
        match__tournament=tournament, bot__isnull=False
    ).select_related("bot", "bot__owner")
    by_match: dict[int, list[MatchSeat]] = {}
    bots: dict[int, Any] = {}
    for seat in seats.only(
        "match_id", "seat", "score", "fault_kind", "bot__name", "bot__owner__username"
    ):
        by_match.setdefault(seat.match_id, []).append(seat)
        bots[seat.bot_id] = seat.bot
    totals: dict[int, dict[str, float]] = {
        pk: {"matches": 0, "points": 0.0, "faults": 0} for pk in bots
    }
    pairs: dict[tuple[int, int], list[float]] = {}
    for match_seats in by_match.values():
        for seat in match_seats:
            t = totals[seat.bot_id]
            t["matches"] += 1
            t["points"] += seat.score
            t["faults"] += bool(seat.fault_kind)
        for a, b in permutations(match_seats, 2):
            if a.bot_id == b.bot_id:
                continue
            cell = pairs.setdefault((a.bot_id, b.bot_id), [0.0, 0.0, 0])
            cell[0] += a.score
            cell[1] += b.score
            cell[2] += 1
    order = sorted(
        bots,
        key=lambda pk: (
            -totals[pk]["points"] if higher_is_better else totals[pk]["points"],
            bots[pk].label,
        ),
    )
    entries = [
        {
            "id": pk,
            "label": bots[pk].label,
            "matches": int(totals[pk]["matches"]),
            "points": totals[pk]["points"],
            "mean": totals[pk]["points"] / totals[pk]["matches"] if totals[pk]["matches"] else 0,
            "faults": int(totals[pk]["faults"]),
        }
        for pk in order
    ]
    if spec.plays_alone:
        return {"kind": "totals", "bots": entries, "higher_is_better": higher_is_better}
    grid = []
    for row_pk in order:
        cells = []
        for col_pk in order:
            found = pairs.get((row_pk, col_pk))
            if row_pk == col_pk or found is None:
                cells.append(None)
                continue
            mine, theirs, n = found
            better = mine > theirs if higher_is_better else mine < theirs
            worse = mine < theirs if higher_is_better else mine > theirs
            cells.append(
                {
                    "for": mine,
                    "against": theirs,
                    "matches": int(n),
                    "outcome": "won" if better else "lost" if worse else "even",
                    "opponent": bots[col_pk].label,
                }
            )
        grid.append({"bot": next(e for e in entries if e["id"] == row_pk), "cells": cells})
    return {
        "kind": "pairs",
        "bots": entries,
        "grid": grid,
        "higher_is_better": higher_is_better,
    }


def live_updates() -> bool:
    """Whether the worker's progress messages can reach this process (a shared layer)."""
    return bool(getattr(settings, "REDIS_URL", ""))


#: leaders shown for each game on the leaderboards page
LEADERS_ON_INDEX = 5


def leaderboards(request: HttpRequest) -> HttpResponse:
    """Every game's leaders in one page, each with what it is ranked by."""
    boards = []
    for slug in game_slugs():
        fmt = format_of(slug)
        boards.append(
            {
                "spec": get_game(slug),
                "leaders": leaders_of(slug, LEADERS_ON_INDEX),
                "count": ranked_rows(slug).count(),
                "by_rating": fmt is None or fmt.ranked_by_rating,
            }
        )
    return render(request, "games/leaderboards.html", {"boards": boards})


def api_docs(request: HttpRequest) -> HttpResponse:
    """The JSON API's documentation (docs/api.md) as a page of the site."""
    text = (settings.BASE_DIR / "docs" / "api.md").read_text()
    lines = text.splitlines()
    title = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("# ") else "JSON API"
    body = "\n".join(lines[1:] if lines and lines[0].startswith("# ") else lines)
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    html = markdown.render(REPO_LINK.sub(r"\1", body))
    return render(request, "games/api_docs.html", {"title": title, "html": html})


def tournaments(request: HttpRequest) -> HttpResponse:
    query = Tournament.objects.order_by("-created", "-pk")
    game_filter = request.GET.get("game", "")
    if game_filter in game_slugs():
        query = query.filter(game=game_filter)
    else:
        game_filter = ""
    page = Paginator(query, TOURNAMENTS_PER_PAGE).get_page(request.GET.get("page"))
    counts: dict[int, dict[str, int]] = {
        t.pk: dict.fromkeys(("queued", "running", "done", "failed"), 0) for t in page.object_list
    }
    jobs = MatchJob.objects.filter(tournament_id__in=list(counts)).values("tournament_id", "status")
    for row in jobs.annotate(n=Count("id")).order_by():
        counts[row["tournament_id"]][row["status"]] = row["n"]
    listed = [
        {"tournament": t, "game": get_game(t.game), "progress": counts[t.pk]}
        for t in page.object_list
    ]
    return render(
        request,
        "games/tournaments.html",
        {
            "page": page,
            "listed": listed,
            "games": [get_game(s) for s in game_slugs()],
            "game_filter": game_filter,
        },
    )


def tournament(request: HttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Tournament, pk=pk)
    progress = tournament_progress(found)
    tc = found.settings.get("time_control") or {}
    return render(
        request,
        "games/tournament.html",
        {
            "tournament": found,
            "game": get_game(found.game),
            "progress": progress,
            "settings_shown": {
                "rounds": found.settings.get("rounds"),
                # the matches' seeds come from it: secret where it would deal hidden cards
                "seed": found.settings.get("seed")
                if get_game(found.game).state_class.seed_is_public
                else None,
                "bots": len(found.settings.get("versions", [])) or None,
                "time per call": f"{tc['move']:g} s" if "move" in tc else None,
                "time bank": f"{tc['bank']:g} s" if "bank" in tc else None,
            },
            "cross": cross_table(found) if progress["finished"] else None,
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
