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

from dataclasses import dataclass, field
from typing import Any

from games import solves
from games.models import SolveJob
from games.registry import GameSpec, get_game
from games.solver.export import strategy_array
from games.solver.review import ActionValues, Review, action_values, review
from games.solver.tree import build
from games.solves import SolveSettings


def _spec(game: str) -> GameSpec | None:
    try:
        return get_game(game)
    except KeyError:
        return None


def reviewable(game: str) -> bool:
    """Whether the solver reviews matches of ``game``."""
    spec = _spec(game)
    return bool(spec and spec.solver and spec.solver.review_moves)


def review_settings(game: str) -> SolveSettings:
    """The solve a match of ``game`` is reviewed with (the game must be :func:`reviewable`)."""
    solver = get_game(game).solver
    assert solver is not None
    return SolveSettings(
        game=game,
        algorithm="cfr+",
        iterations=solver.default_iterations,
        options=tuple((option.name, option.default) for option in solver.options),
    )


def values_of(settings: SolveSettings, document: dict[str, Any]) -> ActionValues:
    """Every action's value under the solve's average strategy, on the solver's tree."""
    tree = build(settings.make_game())
    return action_values(tree, strategy_array(tree, document["infosets"]))


@dataclass
class MatchReview:
    """What the match page shows of a review: the review, or why there is none yet."""

    seat: int
    settings: SolveSettings
    #: "done" (``review`` is there), "waiting" (queued or taken over: ``queue``), "running"
    #: (a worker trains it: ``percent``), "failed" (``error``) or "busy" (the solve queue is
    #: full: asked again at the next view)
    state: str
    review: Review | None = None
    queue: dict[str, Any] = field(default_factory=dict)
    percent: int = 0
    error: str = ""
    describe: Any = None
    #: solve's page, to follow it
    solve_id: str = ""

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
                    "by_chance": infoset.by_chance if infoset else False,
                    "reason": row.reason,
                }
            )
        return out


def match_review(game: str, record: dict[str, Any], seat: int) -> MatchReview:
    """The review of ``seat`` in a match of ``game`` whose record, as the asker may see it,
    is ``record``. Queues the review solve if none is stored (never solves here)."""
    solver = get_game(game).solver
    assert solver is not None and solver.review_moves is not None
    settings = review_settings(game)
    result = MatchReview(seat, settings, "waiting", solve_id=settings.job_id)
    job = solves.find(settings.job_id, document=True)
    if job is None or job.status == SolveJob.FAILED:
        try:
            job = solves.submit(settings)
        except solves.Busy:
            result.state = "busy"
            return result
    if job.status == SolveJob.DONE:
        solves.touch(job)
        document = solves.document_of(job) if job.result else None
        if document is None:  # submit() reads the row without its result
            document = solves.document_of(solves.find(settings.job_id, document=True))
        values = values_of(settings, document)
        moves = solver.review_moves(record)
        result.state = "done"
        result.describe = solver.describe_infoset
        result.review = review(moves, values, seat, settings.options, _words(settings))
        return result
    if job.status == SolveJob.FAILED:
        result.state, result.error = "failed", job.error
    elif solves.is_waiting(job):
        result.queue = solves.queue_state(job)
    else:
        result.state = "running"
        result.percent = int(100 * job.iteration / max(job.iterations, 1))
    return result


def _words(settings: SolveSettings):
    """Solver options in words, as a solve with ``settings`` but those options says them."""

    def words(options: tuple[tuple[str, Any], ...]) -> str:
        return SolveSettings(
            settings.game, settings.algorithm, settings.iterations, options
        ).describe()

    return words
