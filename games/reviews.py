"""The solver's review of a stored match: where the solved strategy comes from.

A game whose solver lists the decisions of a match record (``SolverSpec.review_moves``) is
reviewed with the solve of its *review settings* (:func:`review_settings`: CFR+, the game's
default iterations, each option's default: the same job as the strategy explorer's default
solve, so one stored result serves both). The solve is a job of :mod:`games.solves`: asked
for once (:func:`games.solves.submit`), run on a worker, its result document kept in its row.
Meanwhile the review says where the solve is (queued with its place, or training); the web
process never solves. With the result, the numbers are :mod:`games.solver.review`'s, from the
solver's own tree of the game (built here: for the games reviewed, milliseconds).

Privacy: the review is made from the record as the asker may see it (the game's
``public_record``): a decision whose cards the game keeps secret (a folded poker hand, for
anyone but the seat that held them) is listed without numbers.

This module names no game (tests/engine/test_one_package.py checks).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings as django_settings
from django.core.cache import caches

from games import solves
from games.models import SolveJob
from games.registry import GameSpec, get_game
from games.solver.export import strategy_array
from games.solver.review import ActionValues, Move, Review, action_values, needs_values, review
from games.solver.tree import build
from games.solves import SolveSettings

log = logging.getLogger(__name__)


def _spec(game: str) -> GameSpec | None:
    try:
        return get_game(game)
    except KeyError:
        return None


def reviewable(game: str) -> bool:
    """Whether the solver reviews matches of ``game``."""
    spec = _spec(game)
    return bool(spec and spec.solver and spec.solver.review_moves)


def review_settings(game: str, record: dict[str, Any]) -> SolveSettings | str:
    """The solve a match of ``game`` (a :func:`reviewable` one) whose record is ``record`` is
    reviewed with, or why it cannot be."""
    solver = get_game(game).solver
    assert solver is not None
    if solver.review_options is not None:
        options = solver.review_options(record)
        if isinstance(options, str):
            return options
    else:
        options = tuple((option.name, option.default) for option in solver.options)
    return SolveSettings(
        game=game, algorithm="cfr+", iterations=solver.default_iterations, options=options
    )


#: the version of what :func:`values_of` keeps in the cache (a change of
#: :class:`~games.solver.review.ActionValues` changes it)
VALUES_FORMAT = 2


def values_of(settings: SolveSettings, document: dict[str, Any]) -> ActionValues:
    """Every action's value under the solve's average strategy, on the solver's tree."""
    tree = build(settings.make_game())
    values = action_values(tree, strategy_array(tree, document["infosets"]))
    values.precision = float(document.get("exploitability") or 0.0)
    return values


def stored_values(settings: SolveSettings, job: SolveJob) -> ActionValues:
    """:func:`values_of` the done solve ``job``, from the ``replays`` cache (shared by the web
    processes; a match page's review costs no tree then: building one takes up to a tenth
    of a second) or computed and kept there. The cache never decides what is shown: a miss,
    or a cache that cannot be reached, computes the values again."""
    key = f"review-values:{VALUES_FORMAT}:{job.digest}:{job.finished.isoformat()}"
    cache = caches["replays"]
    try:
        kept = cache.get(key)
    except Exception:  # any failure of the cache backend is a miss
        log.warning("event=review_cache.unreachable op=get", exc_info=True)
        kept = None
    if isinstance(kept, ActionValues):
        return kept
    values = values_of(settings, solves.document_of(job))  # reads the deferred result
    try:
        cache.set(key, values, django_settings.REPLAY_CACHE_S)
    except Exception:  # any failure of the cache backend: nothing kept
        log.warning("event=review_cache.unreachable op=set", exc_info=True)
    return values


@dataclass
class MatchReview:
    """What the match page shows of a review: the review, or why there is none yet."""

    seat: int
    #: the solve reviewed with (None: the match cannot be reviewed, ``error`` says why)
    settings: SolveSettings | None
    #: "done" (``review`` is there), "waiting" (queued or taken over: ``queue``), "running"
    #: (a worker trains it: ``percent``), "failed" (``error``), "busy" (the solve queue is
    #: full: asked again at the next view) or "refused" (the match cannot be reviewed:
    #: ``error``)
    state: str
    review: Review | None = None
    queue: dict[str, Any] = field(default_factory=dict)
    percent: int = 0
    error: str = ""
    describe: Any = None
    #: the solve's id, for its page (the explorer's)
    solve_id: str = ""
    #: whether the review read the solve (no decision of the seat needed it otherwise)
    solved: bool = False
    #: the replay's chapters, label -> first step (the match page sets them), to link each
    #: decision to its hand in the replay
    chapter_steps: dict[str, int] = field(default_factory=dict)
    #: :func:`solve_choices` of the seat's decisions -> its number (``?solve=<n>``): a
    #: decision made with other options than the solve's links to the review with its own
    choices: dict[tuple[tuple[str, Any], ...], int] = field(default_factory=dict)
    #: the solve asked for (``?solve=<n>``), None for the game's review solve
    solve_number: int | None = None

    def _choice(self, move: Move) -> int | None:
        """The number of the solve that reviews ``move``, if not this review's."""
        if self.settings is None or move.key is None or move.options == self.settings.options:
            return None
        return self.choices.get(move.options)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The review's rows for the template: the numbers and the infoset in words."""
        if self.review is None:
            return []
        out = []
        for row in self.review.rows:
            infoset = row.infoset
            words = ""
            if row.move.key is not None:
                words = self.describe(row.move.key) if self.describe else row.move.key
            out.append(
                {
                    "hand": row.move.hand + 1,
                    "step": self.chapter_steps.get(row.move.chapter),
                    "key": row.move.key,
                    "words": words,
                    "situation": row.move.situation,
                    "taken": row.move.taken,
                    "strategy": list(infoset.strategy.items()) if infoset else [],
                    "values": list(infoset.values.items()) if infoset else [],
                    "best": ", ".join(infoset.best_actions) if infoset else "",
                    "taken_value": row.taken_value,
                    "best_value": row.best_value,
                    "lost": row.lost,
                    "mistake": self.review.is_mistake(row),
                    "by_chance": infoset.by_chance if infoset else False,
                    "reason": row.reason,
                    "choice": self._choice(row.move),
                }
            )
        return out


class NoSuchSolve(ValueError):
    """``?solve=<n>`` names no solve of the reviewed seat's decisions."""


def solve_choices(moves: list[Move]) -> list[tuple[tuple[str, Any], ...]]:
    """The solver options the decisions among ``moves`` whose cards are shown were made
    with, in the order of their first decision: a game whose deals differ in what the solver
    must know (Blackjack++'s up cards) has several, each its own solve. ``?solve=<n>``
    reviews with the n-th (counted from 1)."""
    seen: dict[tuple[tuple[str, Any], ...], None] = {}
    for move in moves:
        if move.key is not None:
            seen.setdefault(move.options, None)
    return list(seen)


def match_review(
    game: str, record: dict[str, Any], seat: int, choice: int | None = None
) -> MatchReview:
    """The review of ``seat`` in a match of ``game`` whose record, as the asker may see it,
    is ``record``, with the game's review solve or, given ``choice``, with the solve of the
    ``choice``-th of :func:`solve_choices` (:class:`NoSuchSolve` if there is none). Queues
    the solve if none is stored and a decision needs it (never solves here)."""
    solver = get_game(game).solver
    assert solver is not None and solver.review_moves is not None
    settings = review_settings(game, record)
    if isinstance(settings, str):
        return MatchReview(seat, None, "refused", error=settings)
    moves = [move for move in solver.review_moves(record) if move.seat == seat]
    choices = solve_choices(moves)
    if choice is not None:
        if not 1 <= choice <= len(choices):
            count = f"1 to {len(choices)}" if choices else "none: no decision of it is shown"
            raise NoSuchSolve(
                f"solve must name one of the solves of seat {seat}'s decisions ({count}), "
                f"not {choice}."
            )
        settings = SolveSettings(game, settings.algorithm, settings.iterations, choices[choice - 1])
    result = MatchReview(seat, settings, "waiting", solve_id=settings.job_id)
    result.describe = solver.describe_infoset
    result.choices = {options: n for n, options in enumerate(choices, 1)}
    result.solve_number = choice
    words = _words(settings)
    if not any(needs_values(move, settings.options) for move in moves):
        result.state = "done"
        result.review = review(moves, None, seat, settings.options, words)
        return result
    job = solves.find(settings.job_id)
    # a failed solve is not queued again from here (it would fail again at every view of
    # every match): the page says why, and the strategy explorer can ask for it again
    if job is None:
        try:
            job = solves.submit(settings)
        except solves.Busy:
            result.state = "busy"
            return result
    if job.status == SolveJob.DONE:
        solves.touch(job)
        values = stored_values(settings, job)
        result.state, result.solved = "done", True
        result.review = review(moves, values, seat, settings.options, words)
        return result
    if job.status == SolveJob.FAILED:
        result.state, result.error = "failed", job.error or "no reason was recorded."
    elif solves.is_waiting(job):
        result.queue = solves.queue_state(job)
    else:
        result.state = "running"
        result.percent = int(100 * job.iteration / max(job.iterations, 1))
    return result


def _words(settings: SolveSettings):
    """Solver options in words (``up cards 6, 6, 2, max hits 1``), as a solve of the game
    with those options says them."""

    def words(options: tuple[tuple[str, Any], ...]) -> str:
        same = SolveSettings(settings.game, settings.algorithm, settings.iterations, options)
        text = same.options_text.rstrip(".")
        return text[:1].lower() + text[1:] or "no options"

    return words
