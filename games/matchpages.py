"""Match pages: participants, result, faults, the replay viewer and the record download.

``/matches/<pk>/`` is public: it never shows what a bot wrote to stderr (that is for the
bot's owner, on the bot's page), nor what the game keeps secret after the match (the
game's ``public_record``: a folded poker hand's cards); the replay's frames hide the same.
The replay's frames come from :mod:`games.replays`; the
page draws the frame asked for (``?step=N``, the first by default) on the server, so the
table and the whole log are there without JavaScript, and ``static/js/replay.js`` steps
through ``replay.json`` in the browser.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path
from django.views.decorators.gzip import gzip_page

from bots.models import Match
from games import replays
from games.registry import GameSpec, get_game

#: face-up cards shown of a pile (its last ones, overlapping)
PILE_SHOWN = 4
#: how long a built replay stays in the cache
REPLAY_CACHE_S = 3600


def _match(pk: int) -> Match:
    return get_object_or_404(Match.objects.select_related("tournament"), pk=pk)


def _seats(match: Match) -> list[Any]:
    return list(match.participants.select_related("bot", "bot__owner", "version").order_by("seat"))


def _replay(match: Match, seats: list[Any]) -> replays.Replay:
    """The match's frames, its seats named by their bots' labels. A stored match never
    changes, so its replay is kept in the cache (a long UTH session takes a moment)."""
    names = [seat.label for seat in seats]
    same = len(names) == len(match.record.get("seats", []))
    key = hashlib.sha256(
        json.dumps([replays.FORMAT_VERSION, match.pk, match.played.isoformat(), names]).encode()
    ).hexdigest()
    return cache.get_or_set(
        f"replay:{key}",
        lambda: replays.build(match.record, names if same else None),
        REPLAY_CACHE_S,
    )


def public_record(match: Match) -> dict[str, Any]:
    """What anyone may see of the match's record: the game decides (a folded poker hand's
    cards, and the seed that would deal them again, stay secret)."""
    try:
        state_class = get_game(match.game).state_class
    except KeyError:
        return match.record
    return state_class.public_record(match.record)


def _drawn_zone(part: dict[str, Any]) -> dict[str, Any]:
    """A zone of a frame with its cards described for ``includes/card.html``."""
    cards = part["cards"]
    down = part["down"]
    shown = cards[-PILE_SHOWN:] if part["fan"] == "pile" else cards
    return {
        "label": part["label"],
        "fan": part["fan"],
        "cards": [replays.card_view(c) for c in shown],
        # a pile shows one face-down card for all of them; a row shows each
        "down": range(min(down, 1) if part["fan"] == "pile" else down),
        "count": len(cards) + down,
    }


def _drawn_frame(frame: dict[str, Any], names: list[str]) -> dict[str, Any]:
    seats = [
        {
            "seat": number,
            "name": names[number] if number < len(names) else f"seat {number}",
            "zones": [_drawn_zone(z) for z in seat["zones"]],
            "notes": seat["notes"],
            "turn": seat["turn"],
            "actor": frame["actor"] == number,
            "score": frame["scores"][number] if number < len(frame["scores"]) else None,
        }
        for number, seat in enumerate(frame["seats"])
    ]
    return frame | {
        "seats": seats,
        "shared": [_drawn_zone(z) for z in frame["shared"]],
        "notes": frame.get("notes", []),
    }


def _spec(game: str) -> GameSpec | None:
    try:
        return get_game(game)
    except KeyError:  # a record of a game this site no longer has
        return None


def _higher_is_better(game: str) -> bool:
    spec = _spec(game)
    return spec.higher_is_better if spec else True


def _outcome(match: Match, seats: list[Any]) -> str:
    """One sentence: who won, or how the session ended."""
    result = match.record.get("result", {})
    if len(seats) == 1:
        return str(result.get("reason") or "")
    higher = _higher_is_better(match.game)
    scores = [s.score for s in seats]
    if not scores:
        return ""
    best = max(scores) if higher else min(scores)
    leaders = [s for s in seats if s.score == best]
    if len(leaders) > 1:
        return "A draw between " + ", ".join(s.label for s in leaders)
    return f"{leaders[0].label} wins"


def _step(request: HttpRequest, count: int) -> int:
    """The frame asked for: ``?step=N`` counts from 1, as the page does."""
    try:
        step = int(request.GET.get("step", 1)) - 1
    except ValueError:
        step = 0
    return max(0, min(step, count - 1)) if count else 0


@gzip_page
def match_page(request: HttpRequest, pk: int) -> HttpResponse:
    match = _match(pk)
    seats = _seats(match)
    replay = _replay(match, seats)
    step = _step(request, len(replay.frames))
    frame = _drawn_frame(replay.frames[step], replay.names) if replay.frames else None
    try:
        title = get_game(match.game).title
    except KeyError:
        title = match.game
    faults = [s for s in seats if s.fault_kind]
    public = public_record(match)
    context = {
        "match": match,
        "title": title,
        "seats": seats,
        "outcome": _outcome(match, seats),
        "faults": faults,
        "score_label": spec.score_label if (spec := _spec(match.game)) else "score",
        "lower_is_better": not _higher_is_better(match.game),
        "replay": replay,
        "frame": frame,
        "step": step,
        "last_step": max(len(replay.frames) - 1, 0),
        "previous_step": max(step - 1, 0),
        "next_step": min(step + 1, max(len(replay.frames) - 1, 0)),
        "seed": public.get("seed"),
        "replayable": public.get("events") == match.record.get("events"),
        "events": [json.dumps(e) for e in public.get("events", [])] if not replay.supported else [],
    }
    return render(request, "matches/match.html", context)


def match_record(request: HttpRequest, pk: int) -> HttpResponse:
    """The match record as a file: config, seed, events, result (``GameState.replay``
    rebuilds the match from it), less what the game keeps secret (:func:`public_record`)."""
    match = _match(pk)
    response = HttpResponse(
        json.dumps(public_record(match), indent=1) + "\n", content_type="application/json"
    )
    filename = f"card-arena-{match.game}-match-{match.pk}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@gzip_page
def match_replay(request: HttpRequest, pk: int) -> JsonResponse:
    """The replay frames the viewer steps through (see games.replays for the format)."""
    match = _match(pk)
    return JsonResponse(_replay(match, _seats(match)).as_json())


urlpatterns = [
    path("matches/<int:pk>/", match_page, name="match"),
    path("matches/<int:pk>/record.json", match_record, name="match_record"),
    path("matches/<int:pk>/replay.json", match_replay, name="match_replay"),
]
