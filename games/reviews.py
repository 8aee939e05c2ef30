"""The solver's review of a stored match: where the solved strategy comes from.

A game whose solver lists the decisions of a match record (``SolverSpec.review_moves``) is
reviewed with the solve of its *review settings* (:func:`review_settings`: CFR+, the game's
review iterations, each option's default: the same job as the strategy explorer's default
solve, so one stored result serves both, unless the game reviews with more iterations than
the explorer first offers, ``SolverSpec.review_iterations``: Leduc hold'em). A game whose
deals differ in what the solver must know (a decision's ``Move.options``: Blackjack++'s up
cards) has each decision reviewed with the solve of its own options: one solve per kind of
deal, stored once and shared by every review that needs it. A solve is a job of
:mod:`games.solves`: asked for once (:func:`games.solves.submit`; a review asks for all
those it needs that are not stored, as many as the queue takes less :data:`EXPLORER_ROOM`
and as many as the share of whoever views the page allows: each is charged to them, a
signed-in person or the guests of a client address, like a solve of the strategy explorer),
run on a worker, its result document kept in its row. Meanwhile the review says where each
solve is (queued with its place, or training with its progress) and reviews the decisions
whose solve is done; the web process never solves. With a result, the numbers are
:mod:`games.solver.review`'s, from the solver's own tree of the game (built here: for the
games reviewed, milliseconds; the values are kept in the cache).

Privacy: the review is made from the record as the asker may see it (the game's
``public_record``): a decision whose cards the game keeps secret (a folded poker hand, for
anyone but the seat that held them) is listed without numbers.

This module names no game (tests/engine/test_one_package.py checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from games import solves
from games.engine.written import listed
from games.models import SolveJob
from games.registry import GameSpec, get_game
from games.replaycache import keep, kept
from games.solver.export import strategy_array
from games.solver.review import (
    ActionValues,
    Options,
    Review,
    action_values,
    needs_values,
    review,
    said_of,
    sentence,
)
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


def seats_to_review(game: str, record: dict[str, Any]) -> list[int]:
    """The seats of a match of ``game`` (its stored ``record``) that made a decision its
    review judges: their own (not played for them when their time ran out), in a finished
    hand (not one a fault cut short), as their own seat sees it. None for a match the solver
    does not review (a game it does not, or settings it refuses: Blackjack++ of 2 hits)."""
    if not reviewable(game) or isinstance(review_settings(game, record), str):
        return []
    solver = get_game(game).solver
    assert solver is not None and solver.review_moves is not None
    moves = solver.review_moves(record)
    return sorted(
        {m.seat for m in moves if not m.played_for and not m.cut_short and m.key is not None}
    )


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
    iterations = solver.review_iterations or solver.default_iterations
    return SolveSettings(game=game, algorithm="cfr+", iterations=iterations, options=options)


#: the version of what :func:`values_of` keeps in the cache (a change of
#: :class:`~games.solver.review.ActionValues` changes it)
VALUES_FORMAT = 5


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
    found = kept([key], "review").get(key)
    if isinstance(found, ActionValues):
        return found
    values = values_of(settings, solves.document_of(job))  # reads the deferred result
    keep({key: values}, "review")
    return values


@dataclass
class Solve:
    """One solve a review needs (a game whose deals differ in what the solver must know,
    Blackjack++'s up cards, needs one per kind of deal), and where it is."""

    settings: SolveSettings
    #: "done", "waiting" (queued, or taken over: ``queue``), "running" (``percent``),
    #: "failed" (``error``), "busy" (the solve queue is full: asked for at the next view) or
    #: "held" (the viewer has as many solves waiting or running as one may: ``held`` says so;
    #: asked for at a view after one of them ends)
    state: str = "waiting"
    #: the reviewed seat's decisions that need it
    decisions: int = 0
    queue: dict[str, Any] = field(default_factory=dict)
    percent: int = 0
    error: str = ""
    #: its options in words ("up cards 6, 6, 2 (...), max hits 1"; "" for a game of none)
    options_words: str = ""
    #: the options the decisions it reviews carry (``Move.options``: none for a game whose
    #: decisions carry none, reviewed with its review solve's defaults)
    carried: Options = ()
    #: the hands (deals) of those decisions, as the replay names them ("Deal 3")
    chapters: list[str] = field(default_factory=list)
    #: while "held": the viewer's share in words ("you have 2 solves waiting or running, the
    #: most at once (2)")
    held: str = ""

    @property
    def solve_id(self) -> str:
        return self.settings.job_id

    def waiting_words(self) -> str:
        """Where the solve is, for the rows that wait for it."""
        of = f" ({self.options_words})" if self.options_words else ""
        if self.state == "waiting":
            return f"Being solved{of}: queued, number {self.queue.get('position', 1)}."
        if self.state == "running":
            return f"Being solved{of}: {self.percent}% done."
        if self.state == "failed":
            return f"The solve{of} failed: {self.error}"
        if self.state == "held":
            return f"Not solved yet{of}: {self.held}; asked for when one of them ends."
        return f"Not solved yet{of}: the solver's queue is full; asked for again on reload."


@dataclass
class MatchReview:
    """What the match page shows of a review: the review, or why there is none yet."""

    seat: int
    #: the game's review solve (None: the match cannot be reviewed, ``error`` says why)
    settings: SolveSettings | None
    #: "done" (every solve the review needs is there), "solving" (some are not: ``solves``
    #: say where each is; the rows they review say the same) or "refused" (the match cannot
    #: be reviewed: ``error``)
    state: str
    review: Review | None = None
    error: str = ""
    describe: Any = None
    #: ``SolverSpec.review_words``: a decision in words (None: codes)
    words: Any = None
    #: the solves the review needs, in the order of the decisions that need them
    solves: list[Solve] = field(default_factory=list)
    #: who made the decisions, as the sentences name them: "You" (the asker's own seat) or
    #: the seat's name
    subject: str = "You"
    #: the replay's chapters, label -> first step (the match page sets them), to link each
    #: decision to its hand in the replay
    chapter_steps: dict[str, int] = field(default_factory=dict)

    @property
    def threshold_text(self) -> str:
        return f"{self.review.threshold:.3g}" if self.review is not None else ""

    @property
    def subject_label(self) -> str:
        """Who is reviewed, for the page's sentences: "you" or the seat's name."""
        return "you" if self.subject == "You" else self.subject

    @property
    def solved(self) -> list[Solve]:
        return [solve for solve in self.solves if solve.state == "done"]

    @property
    def pending(self) -> list[Solve]:
        return [solve for solve in self.solves if solve.state != "done"]

    @property
    def held(self) -> str:
        """Why some solves are not asked for yet: the viewer's share in words ("" if none
        waits for it)."""
        return next((solve.held for solve in self.solves if solve.state == "held"), "")

    @property
    def none_shown(self) -> bool:
        """Whether every decision of the seat is in a hand whose cards the viewer may not
        see: hole cards are shown only at a showdown (games.chips.match), so each of the
        seat's hands ended in a fold, and it is not the viewer's own seat. Nothing of it can
        be reviewed here, and a total of none would read like a result."""
        return (
            self.review is not None
            and bool(self.review.rows)
            and all(row.move.key is None and not row.move.cut_short for row in self.review.rows)
        )

    @property
    def not_judged(self) -> str:
        """The listed decisions the total leaves out, by why ("" if none): "Not reviewed:
        61 decisions in hands that ended in a fold (...)." Hole cards are shown only at a
        showdown (games.chips.match), and only finished hands are listed, so a decision
        whose cards are hidden is one of a hand that ended in a fold."""
        if self.review is None:
            return ""
        folded = played_for = waiting = other = 0
        cut: dict[tuple[str, str], int] = {}  # (hand, how it ended) -> decisions
        for row in self.review.rows:
            if row.reviewed:
                continue
            if row.move.played_for:
                played_for += 1
            elif row.move.cut_short:
                where = (row.move.chapter, row.move.cut_short)
                cut[where] = cut.get(where, 0) + 1
            elif row.move.key is None:
                folded += 1
            elif any(solve.carried == row.move.options for solve in self.pending):
                waiting += 1
            else:
                other += 1

        def counted(n: int, one: str, many: str) -> str:
            return f"{n} {one if n == 1 else many}"

        parts = []
        if folded:
            parts.append(
                counted(folded, "decision in a hand", "decisions in hands")
                + " that ended in a fold (the cards of a folded hand are shown to its own"
                " player alone)"
            )
        if played_for:
            parts.append(
                counted(played_for, "move", "moves")
                + " the table played by default when time ran out"
            )
        for (chapter, ended), n in cut.items():
            parts.append(
                counted(n, "decision", "decisions")
                + f" in {chapter[:1].lower()}{chapter[1:]}, which ended when "
                + said_of(ended, self.subject)
            )
        if waiting:
            parts.append(counted(waiting, "decision", "decisions") + " whose solve is not done yet")
        if other:
            parts.append(counted(other, "decision", "decisions") + " the solved game does not know")
        if not parts:
            return ""
        return f"Not reviewed: {listed(parts)}."

    @property
    def any_solved(self) -> bool:
        """Whether any row has numbers to show (or none needs a solve)."""
        return bool(self.solved) or not self.solves

    @property
    def unit(self) -> str:
        if self.review is not None and self.words is not None:
            for row in self.review.reviewed:
                return self.words(row.move).unit
        return "chips"

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The review's rows for the template: the numbers and the decision in words."""
        if self.review is None:
            return []
        out = []
        for row in self.review.rows:
            infoset = row.infoset
            words = self.words(row.move) if self.words and row.move.key is not None else None
            said = ""
            verbs: dict[str, Any] = {}
            if infoset is not None and words is not None:
                said = sentence(row, words, self.subject)
                verbs = words.verbs
            elif row.move.key is not None:
                said = self.describe(row.move.key) if self.describe else row.move.key

            def named(action: str, verbs=verbs) -> str:
                verb = verbs.get(action)
                return verb.gerund if verb is not None else action

            out.append(
                {
                    "hand": row.move.hand + 1,
                    "step": self.chapter_steps.get(row.move.chapter),
                    "key": row.move.key,
                    "said": said,
                    # the words of a decision not reviewed: of the same person as
                    # the sentences of the reviewed ones
                    "situation": said_of(row.move.situation, self.subject),
                    "taken": row.move.taken,
                    "taken_words": named(row.move.taken),
                    "strategy": [(named(a), p) for a, p in infoset.strategy.items()]
                    if infoset
                    else [],
                    # the best actions to the places shown, as the sentence names them
                    "best": ", ".join(named(a) for a in row.best_actions),
                    "taken_value": row.taken_value,
                    "best_value": row.best_value,
                    "lost": row.lost,
                    "charged": row.charged,
                    "verdict": row.verdict,
                    "mistake": self.review.is_mistake(row),
                    "by_chance": infoset.by_chance if infoset else False,
                    "unsettled": infoset.unsettled if infoset else False,
                    # (how a hand cut short ended names the seat as the sentences do)
                    "reason": said_of(row.reason, self.subject)
                    if row.move.cut_short
                    else row.reason,
                }
            )
        return out


def match_review(
    game: str,
    record: dict[str, Any],
    seat: int,
    subject: str = "You",
    *,
    user: Any = None,
    guest_address: str = "",
) -> MatchReview:
    """The review of ``seat`` in a match of ``game`` whose record, as the asker may see it,
    is ``record``: each decision with the solve of its own options (the game's review
    solve's, or, for a game whose deals differ in what the solver must know, its deal's).
    Queues every solve it needs that is not stored (never solves here), each charged to the
    viewer (``user`` signed in, else the guests of ``guest_address``, the keyed hash of the
    client's address: ``games.explorer.asker``) within their share of the queue; the rows
    whose solve is not done yet say where it is. ``subject`` names the seat in the
    sentences."""
    solver = get_game(game).solver
    assert solver is not None and solver.review_moves is not None
    settings = review_settings(game, record)
    if isinstance(settings, str):
        return MatchReview(seat, None, "refused", error=settings)
    moves = [move for move in solver.review_moves(record) if move.seat == seat]
    result = MatchReview(seat, settings, "done", subject=subject)
    result.describe = solver.describe_infoset
    result.words = solver.review_words
    words = _words(settings)
    needed: dict[Options, Solve] = {}
    for move in moves:
        if not needs_values(move):
            continue
        if move.options not in needed:
            options = move.options or settings.options
            own = SolveSettings(game, settings.algorithm, settings.iterations, options)
            needed[move.options] = Solve(
                own, options_words=words(options) if options else "", carried=move.options
            )
        needed[move.options].decisions += 1
        if move.chapter not in needed[move.options].chapters:
            needed[move.options].chapters.append(move.chapter)
    result.solves = list(needed.values())
    values = _find_or_queue(result.solves, user=user, guest_address=guest_address)
    if result.pending:
        result.state = "solving"
    pending = {options: solve for options, solve in needed.items() if solve.state != "done"}
    result.review = review(
        moves, values, seat, waiting=lambda options: pending[options].waiting_words()
    )
    return result


#: places of the solve queue (``SOLVE_MAX_OPEN``) a review leaves to the strategy explorer:
#: a Blackjack++ match of fifty deals needs up to fifty solves, and people asking for a solve
#: in the explorer should not find the queue full of them (each viewer queues no more than
#: their share besides: ``SOLVE_MAX_OPEN_PER_PERSON``, ``SOLVE_MAX_OPEN_PER_GUEST_ADDRESS``)
EXPLORER_ROOM = 2


def _find_or_queue(
    needed: list[Solve], *, user: Any = None, guest_address: str = ""
) -> dict[Options, ActionValues]:
    """Where each of the ``needed`` solves is (one query for all of them), queueing those
    not stored, charged to the viewer (a failed one is not queued again from here: it would
    fail again at every view of every match; its rows say why, and the strategy explorer can
    ask for it again); the values of those done, by the options their decisions carry."""
    jobs = {
        job.digest: job
        for job in SolveJob.objects.defer("result").filter(
            digest__in=[solve.solve_id for solve in needed]
        )
    }
    values: dict[Options, ActionValues] = {}
    stopped: Solve | None = None  # the first refused: the rest wait as it does
    bounds = solves.Bounds.from_settings()
    bounds = replace(bounds, max_open=max(1, bounds.max_open - EXPLORER_ROOM))
    for solve in needed:
        job = jobs.get(solve.solve_id)
        if job is None:
            if stopped is not None:
                solve.state, solve.held = stopped.state, stopped.held
                continue
            try:
                job = solves.submit(
                    solve.settings,
                    bounds,
                    user=user,
                    guest_address=guest_address,
                    for_review=True,
                )
            except solves.OverShare as share:
                solve.state, solve.held, stopped = "held", share.held, solve
                continue
            except solves.Busy:
                solve.state, stopped = "busy", solve
                continue
        if job.status == SolveJob.DONE:
            solves.touch(job)
            solve.state = "done"
            stored = stored_values(solve.settings, job)
            values[solve.carried] = stored
        elif job.status == SolveJob.FAILED:
            solve.state, solve.error = "failed", job.error or "no reason was recorded."
        elif solves.is_waiting(job):
            solve.state, solve.queue = "waiting", solves.queue_state(job)
        else:
            solve.state = "running"
            solve.percent = int(100 * job.iteration / max(job.iterations, 1))
    return values


def _words(settings: SolveSettings):
    """Solver options in words (``up cards 6, 6, 2, max hits 1``), as a solve of the game
    with those options says them."""

    def words(options: tuple[tuple[str, Any], ...]) -> str:
        same = SolveSettings(settings.game, settings.algorithm, settings.iterations, options)
        text = same.options_text.rstrip(".")
        return text[:1].lower() + text[1:] or "no options"

    return words
