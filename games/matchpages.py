"""Match pages: participants, result, faults, the replay viewer and the record download.

``/matches/<pk>/`` is public: it never shows what a bot wrote to stderr (that is for the
bot's owner, on the bot's page), nor what the game keeps secret after the match (the
game's ``public_record``: a folded poker hand's cards); the replay's frames hide the same.
The replay's frames come from :mod:`games.replays`.

A long match has thousands of steps (a 1000-round UTH session some 3,600), so the page holds
one window of them: the :data:`WINDOW` steps around the step asked for (``?step=N``, the
first by default), drawn in the log, that step's table drawn by the server (so the page
works without JavaScript), and the same frames as JSON for ``static/js/replay.js``, which
asks ``replay.json?from=N&count=M`` for the other windows as the viewer reaches them. A
"jump to" list names the replay's chapters (its rounds, hands, games or turns: the frames
say, see :func:`games.replays.chapters`).

A built replay is kept in the ``replays`` cache (cardsite/settings.py: shared by every web
process), as its head (names, step count, chapters) and its frames in pieces of
:data:`WINDOW`, so a window costs one piece, not a replay of the whole match. A piece that
is missing (expired, evicted) has the replay built again; the cache never decides what is
shown.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from django.db.models import F
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.html import escape, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.gzip import gzip_page

from bots.models import Match
from cardsite.errors import error_page
from cardsite.written import figure, minus_signs
from games import replays, reviews
from games.engine.game import faults_shown
from games.engine.played_for import events_played_for
from games.engine.table import shown_names
from games.engine.written import listed, sentence
from games.explorer import asker
from games.models import TableSeat
from games.registry import GameSpec, get_game
from games.replaycache import keep, kept
from games.solver.review import PLACES, amount, percent, shown_values

#: face-up cards shown of a pile (its last ones, overlapping)
PILE_SHOWN = 4
#: steps in a window: the page's log, a piece of a cached replay, what the viewer asks for
WINDOW = 100
#: how long browsers and proxies keep an answer of replay.json (a stored match never
#: changes; its ETag says when the site draws it otherwise)
REPLAY_MAX_AGE_S = 24 * 3600
#: a seat's number (``review``): a whole number, of at most this many digits
WHOLE = re.compile(r"[0-9]{1,9}")
#: ``from`` and ``count`` of replay.json: whole numbers (of fewer digits than Python's limit
#: on reading one: beyond it, more than any replay's steps anyway)
DIGITS = re.compile(r"[0-9]{1,100}")


def _match(pk: int) -> Match:
    return get_object_or_404(Match.objects.select_related("tournament"), pk=pk)


def _seats(match: Match) -> list[Any]:
    """The match's seats, each with ``person_hidden``: whether its person hides their profile
    (True), so the page names them without a link to it; in the seats' own query."""
    seats = match.participants.select_related("bot", "bot__owner", "version").order_by("seat")
    return list(seats.annotate(person_hidden=F("user__person_profile__hidden")))


# ---- the replay, built once and kept in pieces -------------------------------------------------
def _pack(frames: list[replays.Frame]) -> bytes:
    return zlib.compress(json.dumps(frames, separators=(",", ":")).encode(), 6)


def _unpack(piece: bytes) -> list[replays.Frame]:
    return json.loads(zlib.decompress(piece))


@dataclass
class StoredReplay:
    """A match's replay: its head (:meth:`games.replays.Replay.head`) and chapters at hand,
    its frames read from the cache a window at a time (:meth:`frames`)."""

    match: Match
    #: the seats' labels (the bots' owner/name), which the replay is built with
    labels: list[str]
    key: str
    head: dict[str, Any]
    chapters: list[dict[str, Any]]
    #: every frame, when this request built the replay
    built: list[replays.Frame] | None = field(default=None, repr=False)

    @property
    def names(self) -> list[str]:
        """The seats as the frames name them (seats of one name say which seat they are)."""
        return self.head["names"]

    @property
    def total(self) -> int:
        return self.head["total"]

    @property
    def supported(self) -> bool:
        return self.head["supported"]

    @property
    def error(self) -> str:
        return self.head["error"]

    def piece_key(self, number: int) -> str:
        return f"replay:{self.key}:{number}"

    def frames(self, start: int, stop: int) -> list[replays.Frame]:
        """The frames of steps ``start`` to ``stop`` (not included), as far as there are."""
        stop = min(stop, self.total)
        if start >= stop:
            return []
        if self.built is None:
            first, last = start // WINDOW, (stop - 1) // WINDOW
            keys = [self.piece_key(n) for n in range(first, last + 1)]
            found = kept(keys, "replay")
            if len(found) == len(keys):
                frames = [frame for key in keys for frame in _unpack(found[key])]
                return frames[start - first * WINDOW : stop - first * WINDOW]
            self.build()  # a piece expired or was evicted
        assert self.built is not None
        return self.built[start:stop]

    def build(self) -> None:
        """Replays the match and keeps the result: the pieces first, the head last (a head
        found in the cache says its pieces were written)."""
        same = len(self.labels) == len(self.match.record.get("seats", []))
        replay = replays.build(self.match.record, self.labels if same else None)
        self.built, self.head, self.chapters = replay.frames, replay.head(), replay.chapters()
        pieces = {
            self.piece_key(n // WINDOW): _pack(replay.frames[n : n + WINDOW])
            for n in range(0, len(replay.frames), WINDOW)
        }
        keep(pieces, "replay")
        keep({f"replay:{self.key}": {"head": self.head, "chapters": self.chapters}}, "replay")

    def chapter_at(self, step: int) -> int:
        """The index of the chapter that holds ``step``."""
        starts = [chapter["step"] for chapter in self.chapters]
        return max(bisect_right(starts, step) - 1, 0)

    def answer(self, start: int, count: int | None) -> dict[str, Any]:
        """The JSON of the frames from step ``start`` on: ``count`` of them, or all the rest."""
        stop = self.total if count is None else start + count
        frames = self.frames(start, stop)  # first: the replay may have to be built for them
        return replays.answer(self.head, frames, start, self.chapters)


def replay_key(match: Match, names: list[str]) -> str:
    """What a match's replay depends on: the frame format, the match, its seats' names."""
    return hashlib.sha256(
        json.dumps(
            [replays.FORMAT_VERSION, match.pk, match.game, match.played.isoformat(), names]
        ).encode()
    ).hexdigest()


def _replay(match: Match, seats: list[Any]) -> StoredReplay:
    """The match's replay, its seats named by their bots' labels: from the cache, or built
    (and kept there)."""
    names = [seat.label for seat in seats]
    key = replay_key(match, names)
    found = kept([f"replay:{key}"], "replay").get(f"replay:{key}")
    stored = StoredReplay(match, names, key, {}, [])
    if found is None:
        stored.build()
    else:
        stored.head, stored.chapters = found["head"], found["chapters"]
    return stored


def public_record(match: Match) -> dict[str, Any]:
    """What anyone may see of the match's record (:meth:`Match.public_record`): the game
    decides (a folded poker hand's cards, and the seed that would deal them again, stay
    secret), and a seed that may still deal another match stays secret with its shuffles."""
    return match.public_record()


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
    scores = frame["scores"]
    seats = [
        {
            "seat": number,
            "name": names[number] if number < len(names) else f"seat {number + 1}",
            "zones": [_drawn_zone(z) for z in seat["zones"]],
            "notes": seat["notes"],
            "turn": seat["turn"],
            "actor": frame["actor"] == number,
            "score": score,
            # (as the pages write points: a negative with the minus sign)
            "score_text": figure(score) if isinstance(score, int | float) else str(score),
        }
        for number, seat in enumerate(frame["seats"])
        for score in [scores[number] if number < len(scores) else None]
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


def _seed_is_public(game: str) -> bool:
    spec = _spec(game)
    return bool(spec and spec.state_class.seed_is_public)


def _higher_is_better(game: str) -> bool:
    spec = _spec(game)
    return spec.higher_is_better if spec else True


def _outcome(match: Match, seats: list[Any]) -> str:
    """One sentence: who won (two seats: by how much), and what a fault did ("bob/sleepy
    wins 6 to 4 (it ran out of time: the 2 unplayed games went to alice/firstcard)": a
    fault stops a bot playing, but what it had won still counts), or how the session
    ended."""
    result = match.record.get("result", {})
    if len(seats) == 1:  # (the engine's words, which a sentence of its own begins)
        return sentence(str(result.get("reason") or ""))
    higher = _higher_is_better(match.game)
    scores = [s.score for s in seats]
    if not scores:
        return ""
    best = max(scores) if higher else min(scores)
    # (seats of the same name say which seat they are: "house/heuristic (seat 2) wins")
    names = shown_names([s.label for s in seats])
    leaders = [i for i, s in enumerate(seats) if s.score == best]
    spec = _spec(match.game)
    winner = seats[leaders[0]].seat if len(leaders) == 1 else None
    faults = (
        replays.faults_said(spec.state_class if spec else None, result, names, winner)
        if isinstance(result, dict)
        else ""
    )
    if len(leaders) > 1:
        return "A draw between " + listed([names[i] for i in leaders]) + faults
    said = f"{names[leaders[0]]} wins"
    if len(seats) == 2:
        said += f" {figure(seats[leaders[0]].score)} to {figure(seats[1 - leaders[0]].score)}"
    return said + faults


def timer_moves(match: Match, names: list[str]) -> str:
    """How many moves of whose a live table played because their turn timer ran out (the
    record's ``played_for``): "played 4 moves for bob, whose time ran out", "played 4 moves
    for bob and 1 for ann, as their time ran out"; "" if none."""
    counted = Counter(events_played_for(match.record).values())
    if not counted:
        return ""
    said = []
    for seat, count in sorted(counted.items()):
        name = names[seat] if seat < len(names) else f"seat {seat + 1}"
        moves = "1 move" if count == 1 else f"{count} moves"
        said.append(f"{moves if not said else moves.split()[0]} for {name}")
    whose = "whose" if len(said) == 1 else "as their"
    return f"played {listed(said)}, {whose} time ran out"


def _step(request: HttpRequest, count: int) -> int:
    """The frame asked for: ``?step=N`` counts from 1, as the page does."""
    try:
        step = int(request.GET.get("step", 1)) - 1
    except ValueError:
        step = 0
    return max(0, min(step, count - 1)) if count else 0


def chapter_options(chapters: list[dict[str, Any]], current: int) -> str:
    """The options of the "jump to" list: each chapter's label, its first step as the value
    (counted from 1, as ``?step=N``), chapter number ``current`` selected; "" for fewer than
    two chapters (nothing to jump between). Joined here, not in the template: a long match
    has a thousand of them."""
    if len(chapters) < 2:
        return ""
    return format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        (
            (chapter["step"] + 1, " selected" if number == current else "", chapter["label"])
            for number, chapter in enumerate(chapters)
        ),
    )


def viewer_context(
    step: int,
    total: int,
    frames: Callable[[int, int], list[replays.Frame]],
    names: list[str],
    head: Callable[[], Any],
    chapters: str,
) -> dict[str, Any]:
    """What the replay viewer (templates/matches/_replay_viewer.html) needs to show ``step``
    of ``total``: the frame drawn, the buttons' steps and the window of steps the page holds
    (``frames(start, end)`` gives them; ``head()`` the replay's head for the script)."""
    start = step // WINDOW * WINDOW
    window = frames(start, start + WINDOW)
    last = max(total - 1, 0)
    return {
        "frame": _drawn_frame(window[step - start], names) if window else None,
        "step": step,
        "total": total,
        "last_step": last,
        "previous_step": max(step - 1, 0),
        "next_step": min(step + 1, last),
        "window": window,
        "window_size": WINDOW,
        "window_first": start,
        "window_last": start + len(window) - 1,
        # the log's page links, counted from 1: the last step of the window before, the
        # first of the next (None: there is none)
        "earlier": start or None,
        "later": start + WINDOW + 1 if start + WINDOW < total else None,
        "chapters": chapters,
        "frames_json": replays.answer(head(), window, start, None) if window else None,
    }


class BadRequest(ValueError):
    """Answered as a 400 with its message (JSON for replay.json, text for the page)."""


def _own_seat(request: HttpRequest, match: Match, seats: list[Any]) -> int | None:
    """The seat the asker played in, if any: a signed-in person's, or at a live table a
    guest's, known by the token in their session (as the table knew them)."""
    if request.user.is_authenticated:
        mine = next((s.seat for s in seats if s.user_id == request.user.pk), None)
        if mine is not None:
            return mine
    # (a person who signed in during the table keeps the seat they held as a guest)
    token = request.session.get("guest_token") if match.tournament_id is None else None
    if not token:
        return None
    held = TableSeat.objects.filter(table__match=match, kind=TableSeat.PERSON, guest=token)
    return held.values_list("seat", flat=True).first()


def review_seat(
    request: HttpRequest, match: Match, seats: list[Any], own: int | None
) -> int | None:
    """The seat to review (``?review=<seat>``): by default the asker's own (``own``), else
    the first person's, else seat 0; None for a game the solver does not review. A value
    that is not one of the match's seats is a :class:`BadRequest`."""
    raw = request.GET.get("review")
    if not reviews.reviewable(match.game):
        if raw is not None:
            raise BadRequest(f"The solver does not review {match.game} matches.")
        return None
    numbers = [s.seat for s in seats]
    if raw is None:
        people = [s.seat for s in seats if not s.is_bot and not s.builtin]
        return own if own is not None else (people or numbers or [0])[0]
    if not WHOLE.fullmatch(raw) or int(raw) not in numbers:
        # the page numbers seats from 1, the address from 0 (as the records do)
        choices = [f"seat {n + 1} (review={n})" for n in numbers]
        seated = " or ".join([", ".join(choices[:-1]), choices[-1]] if choices[1:] else choices)
        raise BadRequest(f"review must be {seated} of this match, not {raw[:40]!r}.")
    return int(raw)


def match_review(
    request: HttpRequest, match: Match, seats: list[Any], seat: int, own: int | None
) -> reviews.MatchReview | None:
    """The review of ``seat``, from the record as the asker (who played seat ``own``, if
    any) may see it; its sentences say "you" to the asker about their own seat, and name
    any other seat's player. The solves it queues are charged to the asker's share of the
    solve queue, as the strategy explorer's are."""
    record = match.public_record(own)
    label = next((s.label for s in seats if s.seat == seat), f"seat {seat + 1}")
    subject = "You" if seat == own else label
    return reviews.match_review(match.game, record, seat, subject, **asker(request))


#: a row of the review whose equilibrium the opponent never leads to (its values weighed by
#: the cards alone), or hardly ever, or the player's own hardly ever: the solved strategy has
#: no practised play there, and the row is judged on the values alone
BY_CHANCE = ' <span class="muted">(never reached: weighed by the cards alone)</span>'
RARE = ' <span class="muted">(a spot the solver avoids: judged on values only)</span>'

#: the review's verdicts as the table shows them
VERDICTS = {"fine": "fine", "small": "close", "mistake": "mistake"}


def round_word(review: reviews.MatchReview) -> str:
    """What the game calls a round of its matches, as its replay's chapters and its review's
    decisions name them ("Hand 3", Blackjack++'s "Deal 3"): "hand" or "deal"."""
    named = [row.move.chapter for row in review.review.rows] if review.review else []
    for label in [*named, *review.chapter_steps]:
        if label.split():
            return label.split()[0].lower()
    return "hand"


def review_rows_html(review: reviews.MatchReview) -> SafeString:
    """The review's rows (``MatchReview.rows``) as the table's HTML, made in one pass with
    every text escaped: a hundred decisions through the template engine cost the page three
    times what the page costs without them."""
    out = []
    word = escape(round_word(review))
    for row in review.rows:
        hand = str(row["hand"])
        if row["step"] is not None:
            hand = (
                f'<a href="?step={int(row["step"]) + 1}&amp;review={review.seat}#replay"'
                f' title="this {word} in the replay">{hand}</a>'
            )
        cells = [f'<td class="num" data-label="{word}">{hand}</td>']
        if row["reason"]:
            where = escape(row["situation"])
            cells.append(f'<td data-label="decision">{where}</td>')
            cells.append(f'<td colspan="4" class="muted" data-reason>{escape(row["reason"])}</td>')
        else:
            said = escape(row["said"])
            strategy = ", ".join(
                f'<span class="review__prob">{escape(action)} {percent(p)}</span>'
                for action, p in row["strategy"]
            )
            verdict = row["verdict"]
            charged = row["charged"]
            # (negative ones with the minus sign, as every figure of the page)
            taken_value, best_value = (
                minus_signs(value)
                for value in shown_values(row["taken_value"], row["best_value"], charged)
            )
            # (the sentence's and the totals' words for it: a loss too small for the places
            # shown is "no measurable loss (under 0.0001)", never "0.0000")
            lost = amount(charged) if charged else "0"
            if row["mistake"]:
                lost = f"<strong>{lost}</strong>"
            cells += [
                f'<td data-label="decision" data-said>{said}</td>',
                f'<td data-label="solved strategy">{strategy}'
                f"{BY_CHANCE if row['by_chance'] else RARE if row['unsettled'] else ''}</td>",
                f'<td class="num" data-label="value of the action taken" data-taken-value>'
                f"{taken_value}</td>",
                f'<td class="num" data-label="best ({escape(row["best"])})" data-best-value>'
                f"{best_value}</td>",
                f'<td class="num" data-label="lost" data-lost>{lost}'
                f' <span class="review__verdict review__verdict--{verdict}" data-verdict>'
                f"{VERDICTS[verdict]}</span></td>",
            ]
        key = escape(row["key"] or "")
        out.append(f'<tr data-key="{key}">\n        ' + "\n        ".join(cells) + "\n      </tr>")
    return mark_safe("\n      ".join(out))


def review_context(review: reviews.MatchReview) -> dict[str, Any]:
    """What matches/_review.html shows of ``review`` besides it: its rows, the game's word
    for a round, and the totals in the words of the rows' losses
    (``games.solver.review.amount``)."""
    context: dict[str, Any] = {
        "review_rows": review_rows_html(review),
        "review_round": round_word(review),
        # the places a fine decision is worth as much as the best to (its verdict's rule)
        "review_places": PLACES,
    }
    if review.review is not None:
        context["review_total_lost"] = amount(review.review.total_lost)
        context["review_small_lost"] = amount(review.review.small_lost, review.unit)
    return context


@gzip_page
def match_page(request: HttpRequest, pk: int) -> HttpResponse:
    match = _match(pk)
    seats = _seats(match)
    own = _own_seat(request, match, seats) if reviews.reviewable(match.game) else None
    try:
        reviewed = review_seat(request, match, seats, own)
        review = (
            match_review(request, match, seats, reviewed, own) if reviewed is not None else None
        )
    except BadRequest as bad:
        return error_page(request, 400, str(bad))
    replay = _replay(match, seats)
    total = replay.total
    step = _step(request, total)
    try:
        title = get_game(match.game).title
    except KeyError:
        title = match.game
    faults = [s for s in seats if s.fault_kind]
    for seat, shown in zip(seats, shown_names([s.label for s in seats]), strict=True):
        seat.score_text = figure(seat.score)  # (a negative with the minus sign)
        # seats of one name (three copies of a bot) say which seat they are, as at the table
        seat.twin_note = shown.removeprefix(seat.label)
    public = public_record(match)
    chapters = chapter_options(replay.chapters, replay.chapter_at(step))
    context = {
        "match": match,
        "title": title,
        "seats": seats,
        "outcome": _outcome(match, seats),
        "timer_moves": timer_moves(match, replay.names),
        "faults": faults,
        "score_label": spec.score_label if (spec := _spec(match.game)) else "score",
        "lower_is_better": not _higher_is_better(match.game),
        "replay": replay,
        **viewer_context(step, total, replay.frames, replay.names, lambda: replay.head, chapters),
        "seed": public.get("seed"),
        # (the reasons of faults are shown on one line in both: they replay the same)
        "replayable": public.get("events") == faults_shown(match.record).get("events"),
        # the game's seeds are public, but this one may still deal another match
        "sealed_for_now": not match.deals_shown() and _seed_is_public(match.game),
        "events": [json.dumps(e) for e in public.get("events", [])] if not replay.supported else [],
    }
    # the replay's step links keep the review asked for (both validated by then)
    asked = ("review",) if review is not None else ()
    kept = [(name, quote(request.GET[name])) for name in asked if name in request.GET]
    context["keep_params"] = kept
    context["keep_query"] = "".join(f"{name}={value}&" for name, value in kept)
    if review is not None:
        review.chapter_steps = {c["label"]: c["step"] for c in replay.chapters}
        context.update(review_context(review))
    if reviewed is not None:
        context["review"] = review
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


def _whole(request: HttpRequest, name: str, least: int) -> int | None:
    """The parameter ``name``, a whole number of ``least`` or more (any size: more steps than
    a replay has is a window to its end, or past it), or None if it is not given."""
    raw = request.GET.get(name)
    if raw is None:
        return None
    if not DIGITS.fullmatch(raw) or int(raw) < least:
        raise BadRequest(f"{name} must be a whole number, {least} or more, not {raw[:40]!r}")
    return int(raw)


def _window(request: HttpRequest) -> tuple[int, int | None]:
    """``from`` (a step, counted from 0 as the frames count them) and ``count`` (steps, 1 or
    more; None: to the end)."""
    start, count = _whole(request, "from", 0), _whole(request, "count", 1)
    return start or 0, count


def _json_error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@gzip_page
def match_replay(request: HttpRequest, pk: int) -> HttpResponse:
    """The replay frames the viewer steps through (see games.replays for the format): all of
    them, or ``?from=N&count=M``. A stored match never changes, so the answer can be kept
    (Cache-Control), and asked again with its ETag (304)."""
    try:
        start, count = _window(request)
    except BadRequest as bad:
        return _json_error(str(bad), 400)
    # the record (large for a long match) is read only if the replay has to be built
    match = Match.objects.filter(pk=pk).defer("record").first()
    if match is None:
        return _json_error(f"no match {pk}", 404)
    seats = _seats(match)
    names = [seat.label for seat in seats]
    asked = f"{replay_key(match, names)}:{start}:{count}"
    etag = f'"{hashlib.sha256(asked.encode()).hexdigest()[:40]}"'
    # no Last-Modified: the answer changes though the match does not (the frames' format,
    # the seats' names), and only the ETag, made of what it is drawn from, says when
    response = get_conditional_response(request, etag=etag)
    if response is None:
        replay = _replay(match, seats)
        if start and start >= replay.total:
            steps = (
                f"{replay.total} steps, from 0 to {replay.total - 1}"
                if replay.total
                else "no steps"
            )
            return _json_error(f"from {start} is past the last step: this replay has {steps}", 400)
        answer = replay.answer(start, count)
        response = JsonResponse(answer, json_dumps_params={"ensure_ascii": False})
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=REPLAY_MAX_AGE_S)
    return response


urlpatterns = [
    path("matches/<int:pk>/", match_page, name="match"),
    path("matches/<int:pk>/record.json", match_record, name="match_record"),
    path("matches/<int:pk>/replay.json", match_replay, name="match_replay"),
]
