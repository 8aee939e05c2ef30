"""The strategy explorer's solves as jobs in the database, run by the tournament workers.

A solve is defined by its settings (:class:`SolveSettings`: the game, the algorithm, the iterations
and the game's own options, each written into the key by its ``SolverOption``), so the settings are
the job's identity: one :class:`~games.models.SolveJob` row per key. The web (``games.explorer``)
only reads and queues rows (:func:`submit`): a solve asked again, or by two people at once, is the
same row, and any web process answers any poll, since nothing is kept in a process's memory. A
worker (``bots.worker``) claims a queued solve (:func:`claim`), runs it outside any
transaction (:func:`run`) while writing its progress to the row now and then (:class:`Progress`, a
bounded number of writes), and stores the result document in the row (:func:`store`), only if the
solve is still its own.

Claims, leases and counts are those of match jobs (``bots.competition.leases``): ``worker`` and
``attempts`` are the token, a heartbeat extends the lease, a solve whose worker died is taken
by another once its lease runs out, and ``leases.Caps`` ends a solve that every worker
stopped on (``SOLVE_MAX_CLAIMS``: few, since a solve that kills its worker, say by running it
out of memory, will do it again) or that ended in errors of ours.

Bounds (settings, see :class:`Bounds`): at most ``SOLVE_MAX_OPEN`` solves queued or running
(a request beyond it is refused with :class:`Busy`), of which one person, or the guests of one
client address, may have queued a few (a match review's solves are charged to whoever's view
queued them), and at most ``SOLVE_MAX_NEW_PER_HOUR`` new ones an hour from the explorer's form
(:class:`OverShare`: every count is of rows in the database, so every web process counts the
same); at most ``SOLVE_MAX_RUNNING`` running at once over all workers (the others play
matches), a result of at most ``SOLVE_MAX_RESULT_BYTES`` of JSON, and the ``SOLVE_KEEP`` most
recently used finished solves kept, one asker's beyond their ``SOLVE_KEEP_PER_ASKER`` most
recent going first (:func:`forget_old`), so that one asker's flood forgets their own solves,
not everyone else's. The web's limits on iterations and options (the games' specs:
``SolverSpec.web_limit``, ``SolverOption.choices``) are checked by the form and again by the
worker (:meth:`SolveSettings.refusal`), so a row written by other means cannot start a solve
that runs for minutes or takes gigabytes.

This module names no game (tests/engine/test_one_package.py checks).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings as django_settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from bots.clock import shared_now
from bots.competition import leases
from bots.competition.leases import Caps, Claim
from bots.competition.status import workers_at_work as holding_matches
from bots.models import PlaygroundRun
from games.engine import untrusted
from games.engine.spec import SolverOption
from games.engine.table import minutes, plural
from games.models import SolveJob, SolvePage
from games.solver.cfr import Solver
from games.solver.export import ALGORITHM_NAMES, result_document
from games.solver.public import PublicSolver, solver_for
from games.solver.views import DocumentPages, Infosets, paged
from games.solver_games import make_game, solvers, titles

log = logging.getLogger("games.solves")


def options_of(game: str | None) -> tuple[SolverOption, ...]:
    """A game's own options (none for a game that is not solvable)."""
    solver = solvers().get(game or "")
    return solver.options if solver is not None else ()


# --------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class SolveSettings:
    """What one solve is asked to do; equal settings are the same job."""

    game: str
    algorithm: str = "cfr+"
    iterations: int = 1000
    #: the game's own options, (name, value) in its spec's order (``SolverSpec.options``)
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, job: SolveJob) -> SolveSettings:
        """The settings a job row holds."""
        options = tuple((str(name), value) for name, value in job.options)
        return cls(job.game, job.algorithm, job.iterations, options)

    def _named(self) -> list[tuple[SolverOption, Any]]:
        """The options with their declarations (one the game does not take is left out
        here: :meth:`refusal` refuses it)."""
        own = {option.name: option for option in options_of(self.game)}
        return [(own[name], value) for name, value in self.options if name in own]

    @property
    def key(self) -> str:
        parts = [self.game, self.algorithm, str(self.iterations)]
        parts += [option.key(value) for option, value in self._named()]
        return "|".join(parts)

    @property
    def job_id(self) -> str:
        return hashlib.sha256(self.key.encode()).hexdigest()[:16]

    @property
    def game_title(self) -> str:
        return titles().get(self.game, self.game)

    @property
    def unit(self) -> str:
        """What the solve's payoffs and exploitability are counted in (``SolverSpec.unit``)."""
        solver = solvers().get(self.game)
        return solver.unit if solver is not None else ""

    @property
    def algorithm_title(self) -> str:
        return ALGORITHM_NAMES.get(self.algorithm, self.algorithm)

    @property
    def iterations_text(self) -> str:
        return f"{self.iterations:,}"

    @property
    def options_text(self) -> str:
        """The options in a sentence, their parts named (empty for a game without options):
        ``Sides h/t (first, second), stake 5.``"""
        text = ", ".join(option.detail(value) for option, value in self._named())
        return text[:1].upper() + text[1:] + "." if text else ""

    def describe(self) -> str:
        text = f"{self.game_title}, {self.algorithm_title}, {self.iterations:,} iterations"
        return "".join([text] + [f", {o.describe(v)}" for o, v in self._named()])

    def query(self) -> str:
        """The form's fields as a query string, to open the form with these settings."""
        fields: dict[str, Any] = {
            "game": self.game,
            "algorithm": self.algorithm,
            "iterations": self.iterations,
        }
        for option, value in self._named():
            fields.update(zip(option.field_names, option.split(value), strict=True))
        return "&".join(f"{k}={v}" for k, v in fields.items()).replace("+", "%2B")

    def file_name(self) -> str:
        """The result's file name, without ``.json``: the game, algorithm and iterations
        (``<game>-cfrplus-100``), then each option as it names itself in files."""
        name = f"{self.game}-{self.algorithm.replace('+', 'plus')}-{self.iterations}"
        return "".join([name] + [f"-{o.file_text(v)}" for o, v in self._named()])

    def refusal(self) -> str:
        """Why the web may not run this solve ("" if it may): an unknown game or algorithm,
        more iterations than the game's web limit, or an option that is not the game's or
        not among the choices its spec offers the web. The form says the same field by
        field; the worker asks again before it builds anything."""
        solver = solvers().get(self.game)
        if solver is None:
            return f"The solver does not know the game {self.game!r}."
        if self.algorithm not in ALGORITHM_NAMES:
            return f"The solver has no algorithm {self.algorithm!r}."
        own = {option.name: option for option in solver.options}
        if [name for name, _ in self.options] != list(own):
            return f"{titles()[self.game]} takes the options {', '.join(own) or 'none'}."
        for name, value in self.options:
            option = own[name]
            allowed = {str(choice) for choice, _ in option.choices}
            if allowed and not all(str(part) in allowed for part in option.split(value)):
                return option.refused or f"{option.label}: {value!r} is not offered on the web."
        return iterations_refusal(self.game, self.iterations, dict(self.options))

    def make_game(self):
        return make_game(self.game, **dict(self.options))


def iterations_refusal(game: str, iterations: int, options: dict[str, Any]) -> str:
    """Why the web may not run ``iterations`` of the game with these options ("" if it
    may): more than its ``web_limit``, or than an option's value allows
    (``SolverOption.web_iterations``)."""
    solver = solvers()[game]
    limit = solver.iteration_limit(options)
    if 1 <= iterations <= limit:
        return ""
    lowering = [
        option.describe(options[option.name])
        for option in solver.options
        if option.web_limit_for(options.get(option.name)) is not None
    ]
    with_options = "" if limit == solver.web_limit else " with " + ", ".join(lowering)
    return (
        f"{titles()[game]}{with_options}: 1 to {limit:,} iterations on the web "
        f"(asked for {iterations:,}; manage.py solve has no limit)."
    )


# ------------------------------------------------------------------------------------ bounds
@dataclass(frozen=True)
class Bounds:
    """How much the explorer may ask of the workers and of the database (settings)."""

    #: solves queued or running at once; a request for a new one beyond it is refused
    max_open: int = 8
    #: of those, the most one signed-in person, and all the guests of one client address
    #: together, may have queued (a solve someone else queued, or one already done, is free),
    #: in the explorer's form or by opening a match page whose review needs them
    per_person: int = 2
    per_guest_address: int = 2
    #: new solves one signed-in person, or all the guests of one client address together, may
    #: ask for in the explorer's form in an hour (a match review's solves are not counted:
    #: they are of the deals of stored matches, each solved once for every review)
    new_per_hour: int = 20
    #: solves running at once over all workers (the other workers play matches)
    max_running: int = 2
    #: finished solves kept, the most recently used (with the largest result allowed, the
    #: store stays under ``keep * max_result_bytes``)
    keep: int = 100
    #: of those, when there are more: the ones beyond the ``keep_per_asker`` most recently
    #: used of one asker (a signed-in person, the guests of one address) go first
    keep_per_asker: int = 20
    #: the largest result stored, in bytes: the document's JSON and its strategy's pages,
    #: compressed (475,000 information sets: about 3 MB)
    max_result_bytes: int = 8 * 1024 * 1024
    #: claims of one solve without a result (its worker died each time) before it fails
    max_claims: int = 3
    #: seconds a solve may wait, with no solve running, before its page says why: the workers
    #: are busy with other work, or none is at work (:func:`queue_state`)
    stalled_s: float = 30.0

    @classmethod
    def from_settings(cls) -> Bounds:
        names = {
            "max_open": "SOLVE_MAX_OPEN",
            "per_person": "SOLVE_MAX_OPEN_PER_PERSON",
            "per_guest_address": "SOLVE_MAX_OPEN_PER_GUEST_ADDRESS",
            "new_per_hour": "SOLVE_MAX_NEW_PER_HOUR",
            "keep_per_asker": "SOLVE_KEEP_PER_ASKER",
            "max_running": "SOLVE_MAX_RUNNING",
            "keep": "SOLVE_KEEP",
            "max_result_bytes": "SOLVE_MAX_RESULT_BYTES",
            "max_claims": "SOLVE_MAX_CLAIMS",
            "stalled_s": "SOLVE_STALLED_S",
        }
        default = cls()
        return cls(
            **{
                field: type(getattr(default, field))(
                    getattr(django_settings, name, getattr(default, field))
                )
                for field, name in names.items()
            }
        )

    def caps(self, errors: int) -> Caps:
        """When a solve is given up: ``errors`` errors of ours, or ``max_claims`` claims
        without a result."""
        return Caps(errors=errors, claims=self.max_claims)


class Busy(Exception):
    """As many solves as allowed are queued or running already: ``running`` of them run now,
    the soonest to end with about ``seconds_left`` of training left by its pace so far (None:
    none has a pace yet, or none runs), and ``workers_busy`` says, when none runs, whether the
    workers are at other work (else none is at work)."""

    def __init__(
        self,
        open_solves: int,
        running: int = 0,
        seconds_left: float | None = None,
        workers_busy: bool = False,
    ) -> None:
        super().__init__(f"{open_solves} solves are queued or running")
        self.open_solves = open_solves
        self.running = running
        self.seconds_left = seconds_left
        self.workers_busy = workers_busy

    @property
    def retry_after(self) -> int:
        """Seconds to tell a client to wait (``Retry-After``): the soonest running solve's
        time left where there is a pace, else half a minute."""
        if self.seconds_left is None:
            return 30
        return min(max(math.ceil(self.seconds_left), 5), 600)


class OverShare(Busy):
    """The person asking (a signed-in user, or the guests of one client address) has as many
    solves queued or running as one may, or has asked for as many new ones in the last hour:
    ``message`` says which limit, for the form; ``held`` the same in a few words, for a match
    review ("you have 2 solves waiting or running"); ``retry_after`` the seconds to wait."""

    def __init__(
        self, message: str, open_solves: int, *, held: str = "", retry_after: int = 30
    ) -> None:
        Exception.__init__(self, message)
        self.open_solves = open_solves
        self.running, self.seconds_left, self.workers_busy = 0, None, False
        self.message = message
        self.held = held or message
        self._retry_after = retry_after

    @property
    def retry_after(self) -> int:
        return self._retry_after


def _asked_by(user: Any, guest_address: str) -> Q | None:
    """The solves queued by ``user`` (signed in), else by the guests of ``guest_address``
    (None: neither, a solve that is nobody's)."""
    if user is not None:
        return Q(asked_by=user)
    if guest_address:
        return Q(asked_by__isnull=True, asked_from=guest_address)
    return None


def share_refusal(
    bounds: Bounds,
    user: Any = None,
    guest_address: str = "",
    *,
    for_review: bool = False,
    now: Any = None,
) -> OverShare | None:
    """Inside the queue's lock: why the person asking may not queue another solve now (None:
    they may). A signed-in person is counted by their account; a guest by their client
    address (its keyed hash), with every guest of it: a new session costs nothing. Their
    solves waiting or running count, whether the explorer's form or a match review they
    opened queued them; and, for a solve of the form (not ``for_review``), the new solves
    they asked for there in the last hour."""
    mine = _asked_by(user, guest_address)
    if mine is None:
        return None
    signed_in = user is not None
    if not for_review and (refused := _hourly_refusal(bounds, mine, signed_in, now)):
        return refused
    open_jobs = SolveJob.objects.filter(mine, status__in=SolveJob.OPEN)
    held = open_jobs.count()
    most = bounds.per_person if signed_in else bounds.per_guest_address
    if held < most:
        return None
    reviews = open_jobs.filter(for_review=True).count()
    opened = "you opened" if signed_in else "opened from your address"
    a_review = f"a match review {opened}" if reviews == 1 else f"match reviews {opened}"
    of_reviews = (
        ""
        if not reviews
        else f" (for {a_review})"
        if reviews == held
        else f" ({reviews} of them for {a_review})"
    )
    if signed_in:
        message = (
            f"You have {plural(held, 'solve')} waiting or running{of_reviews}, the most one "
            f"person may have at once ({most}); you can ask for another when one of them ends "
            "(a solve someone already ran answers at once)."
        )
    else:
        message = (
            f"Guests from your address have {plural(held, 'solve')} waiting or running"
            f"{of_reviews}, the most at once ({most}); you can ask for another when one of them "
            "ends, or log in (logged-in people have a share of their own)."
        )
    who = "you have" if signed_in else "guests from your address have"
    held_words = f"{who} {plural(held, 'solve')} waiting or running, the most at once ({most})"
    return OverShare(message, _open_count(), held=held_words)


def _hourly_refusal(bounds: Bounds, mine: Q, signed_in: bool, now: Any) -> OverShare | None:
    """Why the asker may not ask the explorer's form for another new solve this hour (None:
    they may): they asked for ``SOLVE_MAX_NEW_PER_HOUR`` in the last hour. Counted from the
    rows (``created``), so every web process counts the same."""
    now = now or timezone.now()
    hour = SolveJob.objects.filter(mine, for_review=False, created__gt=now - timedelta(hours=1))
    asked = hour.count()
    if asked < bounds.new_per_hour:
        return None
    oldest = hour.order_by("created").values_list("created", flat=True).first() or now
    wait = max((oldest + timedelta(hours=1) - now).total_seconds(), 1.0)
    when = minutes(wait)
    if signed_in:
        message = (
            f"You have asked for {plural(asked, 'new solve')} in the last hour, the most one "
            f"person may ({bounds.new_per_hour} an hour); you can ask for another in {when} "
            "(a solve someone already ran answers at once)."
        )
    else:
        message = (
            f"Guests from your address have asked for {plural(asked, 'new solve')} in the last "
            f"hour, the most an hour ({bounds.new_per_hour}); you can ask for another in "
            f"{when}, or log in (logged-in people have a count of their own)."
        )
    return OverShare(message, _open_count(), retry_after=math.ceil(wait))


def _open_count() -> int:
    return SolveJob.objects.filter(status__in=SolveJob.OPEN).count()


def _busy(open_solves: int) -> Busy:
    """The queue is full: how many run, and the soonest one's time left by its pace."""
    running = list(
        SolveJob.objects.filter(live_running()).values_list(
            "phase", "iteration", "iterations", "train_seconds"
        )
    )
    left = [
        seconds / iteration * max(total - iteration, 0)
        for phase, iteration, total, seconds in running
        if phase == "training" and iteration >= 1
    ]
    return Busy(
        open_solves,
        running=len(running),
        seconds_left=min(left) if left else None,
        workers_busy=not running and workers_at_work(),
    )


class SolveFailed(Exception):
    """The solve cannot give a result, and would not on another worker either: the message
    is what its page says."""


class LeaseLost(Exception):
    """The solve is no longer this worker's (its lease ran out and another took it)."""


# ------------------------------------------------------------------------- the web's side
#: the key of the lock that makes counting the open solves and adding one (or claiming one
#: and counting the running ones) a single step on PostgreSQL; SQLite's transactions
#: (``transaction_mode`` IMMEDIATE) are one at a time anyway
QUEUE_LOCK = zlib.crc32(b"card-arena solve queue")


def _lock_queue() -> None:
    """Inside a transaction: hold the solve queue until it ends (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [QUEUE_LOCK])


def submit(
    settings: SolveSettings,
    bounds: Bounds | None = None,
    *,
    user: Any = None,
    guest_address: str = "",
    for_review: bool = False,
) -> SolveJob:
    """The job for ``settings``: the one there is (queued, running or done: a done one is
    served from the store), else a new one in the queue (a failed one is queued afresh),
    counted as asked by ``user`` (signed in) or a guest of ``guest_address`` (the keyed hash
    of their client's address), and as a match review's (``for_review``) or the explorer
    form's. Raises :class:`OverShare` when a new one would exceed the person's share
    (``SOLVE_MAX_OPEN_PER_PERSON``, ``SOLVE_MAX_OPEN_PER_GUEST_ADDRESS``) or, for the form's,
    their new solves in the last hour (``SOLVE_MAX_NEW_PER_HOUR``); :class:`Busy` when it would
    exceed ``SOLVE_MAX_OPEN`` (``bounds.max_open``: a review passes fewer)."""
    if user is not None and getattr(user, "pk", None) is None:
        user = None  # an anonymous user: a guest
    if user is not None:
        guest_address = ""
    bounds = bounds or Bounds.from_settings()
    digest = settings.job_id
    now = timezone.now()
    with transaction.atomic():
        _lock_queue()
        job = SolveJob.objects.defer("result").filter(digest=digest).first()
        if job is not None and job.status != SolveJob.FAILED:
            SolveJob.objects.filter(pk=job.pk).update(used=now)
            return job
        if refused := share_refusal(bounds, user, guest_address, for_review=for_review, now=now):
            raise refused
        open_solves = _open_count()
        if open_solves >= bounds.max_open:
            raise _busy(open_solves)
        if job is not None:
            # a new row, so that a worker still holding the failed one cannot write to it
            job.delete()
        job = SolveJob.objects.create(
            key=settings.key,
            digest=digest,
            game=settings.game,
            algorithm=settings.algorithm,
            iterations=settings.iterations,
            options=[[name, value] for name, value in settings.options],
            asked_by=user,
            asked_from=guest_address,
            for_review=for_review,
        )
    log.info("event=solve.queued solve=%s key=%s", job.digest, job.key)
    return job


def find(digest: str, *, document: bool = False) -> SolveJob | None:
    """A solve by its id (the result document only when asked for: polls never read it)."""
    jobs = SolveJob.objects.all() if document else SolveJob.objects.defer("result")
    return jobs.filter(digest=digest).first()


def document_of(job: SolveJob) -> dict[str, Any] | None:
    """A done solve's result document, its keys in their order, with its whole strategy
    gathered from its pages."""
    if not job.result:
        return None
    stored = StoredPages(job)
    return stored.document | {"infosets": stored.all()}


class StoredPages:
    """A done solve's strategy read a page at a time from its :class:`SolvePage` rows
    (``games.solver.views.StrategyPages``): the explorer's heat maps read the pages of the
    situation they show. A page read is kept for the request. ``document`` is the row's
    result document (parsed once here), whose ``infosets`` are empty: a solve stored before
    its strategy was paged keeps it there, and it is read from there instead."""

    def __init__(self, job: SolveJob) -> None:
        self.job = job
        self._read: dict[str, Infosets] = {}
        self.document: dict[str, Any] = json.loads(job.result) if job.result else {}
        kept = self.document.get("infosets")
        self._document = DocumentPages(kept, _page_of(job.game)) if kept else None

    def page(self, key: str) -> Infosets:
        if self._document is not None:
            return self._document.page(key)
        if key not in self._read:
            data = SolvePage.objects.filter(job=self.job, key=key).values_list("data", flat=True)
            self._read[key] = _unpack(data.first())
        return self._read[key]

    def present(self, keys: Iterable[str]) -> set[str]:
        if self._document is not None:
            return self._document.present(keys)
        wanted = list(keys)
        found = SolvePage.objects.filter(job=self.job, key__in=wanted)
        return set(found.values_list("key", flat=True))

    def all(self) -> Infosets:
        if self._document is not None:
            return self._document.all()
        every: Infosets = {}
        for data in self._pages():
            every.update(_unpack(data))
        return every

    def _pages(self) -> Iterator[bytes]:
        rows = SolvePage.objects.filter(job=self.job).order_by("id")
        return rows.values_list("data", flat=True).iterator(chunk_size=500)

    def document_chunks(self) -> Iterator[str]:
        """The whole result document as JSON text in pieces, for a download (a strategy of
        475,000 information sets is 29 MB of text: it is never all in memory at once). The
        keys keep their order; the information sets come a page after another, one a line."""
        yield "{"
        for number, (name, value) in enumerate(self.document.items()):
            yield (",\n " if number else "\n ") + json.dumps(name) + ": "
            if name != "infosets":
                yield json.dumps(value)
                continue
            if self._document is not None:
                pages: Iterable[Infosets] = [self._document.all()]
            else:
                pages = (_unpack(data) for data in self._pages())
            yield "{"
            first = True
            for page in pages:
                for key, actions in page.items():
                    yield ("\n  " if first else ",\n  ") + json.dumps(key) + ": "
                    yield json.dumps(actions)
                    first = False
            yield "\n }" if not first else "}"
        yield "\n}\n"


def _page_of(game: str) -> Callable[[str], str] | None:
    solver = solvers().get(game)
    return solver.page_of if solver is not None else None


def _pack(infosets: Infosets) -> bytes:
    return zlib.compress(json.dumps(infosets, separators=(",", ":")).encode(), 6)


def _unpack(data: bytes | memoryview | None) -> Infosets:
    return json.loads(zlib.decompress(bytes(data))) if data is not None else {}


def touch(job: SolveJob) -> None:
    """Note that someone looked at the solve (at most once a minute: a page view is not
    worth a write each), which keeps it among the most recently used."""
    now = timezone.now()
    if job.used < now - timedelta(minutes=1):
        SolveJob.objects.filter(pk=job.pk).update(used=now)


#: the most solves of one asker the form page lists among the recent ones
RECENT_PER_ASKER = 2


def _asker_key(asked_by: int | None, asked_from: str) -> tuple[str, Any]:
    """Whose a solve is, for the shares of the store and of the recent list: a signed-in
    person, the guests of one address, or nobody (one asker for all those)."""
    if asked_by is not None:
        return ("person", asked_by)
    return ("address", asked_from) if asked_from else ("nobody", "")


def recent(count: int = 12, per_asker: int = RECENT_PER_ASKER) -> list[SolveJob]:
    """The most recently used solves, for the form page: at most ``per_asker`` of one asker
    (a signed-in person, the guests of one address), so that one asker's many solves do not
    fill the list."""
    shown: list[SolveJob] = []
    counts: Counter[tuple[str, Any]] = Counter()
    rows = SolveJob.objects.defer("result").order_by("-used", "-id")
    for job in rows[: max(count * per_asker * 10, 200)].iterator(chunk_size=100):
        key = _asker_key(job.asked_by_id, job.asked_from)
        if counts[key] >= per_asker:
            continue
        counts[key] += 1
        shown.append(job)
        if len(shown) >= count:
            break
    return shown


def live_running() -> Q:
    """Solves a worker is running now (its lease has not run out)."""
    return Q(status=SolveJob.RUNNING, lease_until__gte=shared_now())


def waited_for(job: SolveJob) -> float:
    """Seconds the solve has waited for a worker: since the lease of the worker that took it
    ran out (on the database's clock, as the lease is), or since it was queued (on this
    process's clock: ``created`` is written with the clock of the process that queued it)."""
    if job.status == SolveJob.RUNNING and job.lease_until is not None:
        return (shared_now() - job.lease_until).total_seconds()
    return (timezone.now() - job.created).total_seconds()


def workers_at_work() -> bool:
    """Whether some worker is at work now: it holds a match, a validation
    (:func:`bots.competition.status.workers_at_work`), a playground run or a solve whose lease
    has not run out (its heartbeat renews the lease while it works). A worker runs one solve
    between two pieces of other work, so a solve that waits while this is true waits for a
    busy worker; while it is false, no worker is there (an idle one would have taken it)."""
    now = shared_now()
    return (
        holding_matches()
        or PlaygroundRun.objects.filter(status=PlaygroundRun.RUNNING, lease_until__gt=now).exists()
        or SolveJob.objects.filter(live_running()).exists()
    )


def queue_state(job: SolveJob, bounds: Bounds | None = None) -> dict[str, Any]:
    """For a solve that waits for a worker: its place in the queue (1: next), how many solves
    are running, whether it has waited past ``SOLVE_STALLED_S`` with none running
    (``stalled``), and then whether the workers are busy with other work
    (``workers_busy``: :func:`workers_at_work`) or none is at work at all."""
    bounds = bounds or Bounds.from_settings()
    ahead = leases.claimable(shared_now()) & Q(id__lt=job.id)
    running = SolveJob.objects.filter(live_running()).count()
    waited = waited_for(job)
    stalled = running == 0 and waited >= bounds.stalled_s
    return {
        "position": SolveJob.objects.filter(ahead).count() + 1,
        "running": running,
        "waited_seconds": round(max(waited, 0.0), 1),
        "stalled": stalled,
        "workers_busy": stalled and workers_at_work(),
    }


def is_waiting(job: SolveJob) -> bool:
    """Queued, or taken by a worker whose lease has run out (it stopped: another will take
    the solve over)."""
    if job.status == SolveJob.QUEUED:
        return True
    return job.status == SolveJob.RUNNING and (
        job.lease_until is None or job.lease_until < shared_now()
    )


# ---------------------------------------------------------------------- the worker's side
def _room(bounds: Bounds) -> bool:
    """Inside the claim's transaction: hold the queue, and whether fewer than
    ``SOLVE_MAX_RUNNING`` solves run."""
    _lock_queue()
    return SolveJob.objects.filter(live_running()).count() < bounds.max_running


def _give_up(job: SolveJob, verdict: str) -> None:
    """End ``job`` at one of its caps (``verdict``: the operators' words, logged): its page
    says what happened in people's words, never a worker's name ("Given up: taken 2 times
    without a result: … (the last one: w2)." once)."""
    _end(job.pk, SolveJob.FAILED, error=given_up_words(verdict))
    log.warning("event=solve.failed solve=%s error=%r", job.digest, verdict)


def given_up_words(verdict: str) -> str:
    """What the page of a solve given up with ``verdict`` (``leases.Caps.verdict``) says."""
    times = re.search(r"\d+", verdict)
    count = f"{times.group(0)} times" if times else "several times"
    if verdict.startswith("taken"):
        what = f"the site's workers stopped {count} while solving it"
    elif verdict.startswith("failed"):
        what = f"the site ran into an error of its own {count} while solving it"
    else:
        what = f"the site could not run it, {count}"
    return f"Given up: {what} (the site's trouble, not your settings'); ask for it again later."


#: what a claim resets besides the lease: the progress of the worker before
STARTING = {"phase": "waiting", "iteration": 0, "train_seconds": 0.0, "measured": None}


def claim(
    worker: str, lease_s: float, caps: Caps, bounds: Bounds | None = None
) -> Claim[SolveJob] | None:
    """Claim the oldest waiting solve (queued, or running with an expired lease: its worker
    died), unless ``SOLVE_MAX_RUNNING`` solves run already. A solve at one of its ``caps``
    is failed instead, and the next one looked at."""
    bounds = bounds or Bounds.from_settings()
    return leases.claim_oldest(
        SolveJob.objects.defer("result"),
        worker,
        lease_s,
        caps,
        give_up=_give_up,
        ready=lambda: _room(bounds),
        fields=lambda job, now: STARTING,
    )


def save_progress(held: Claim, fields: dict[str, Any]) -> bool:
    """Write where the solve has got to, a sign of life as a heartbeat is (it extends the
    lease as the heartbeat does: a worker that stops is then counted silent from its last
    write, ``games.explorer.JobView.silent_for``); False if it is no longer ours."""
    return bool(held.rows().update(**fields, **leases.beating(held.lease_s)))


def release(held: Claim, error: str = "", *, our_error: bool = False) -> bool:
    """Give the solve back to the queue: the worker is stopping (nothing counted), or running
    it ended in an error of ours (``our_error``: counted against the cap of errors)."""
    return leases.release(held, error, our_error=our_error, phase="waiting")


def _end(pk: int, status: str, **fields: Any) -> None:
    leases.end(SolveJob.objects.filter(pk=pk), status, phase=status, **fields)


def fail(held: Claim, message: str) -> bool:
    """The solve ends without a result (it would fail on any worker): ``message`` is what
    its page says. False if it was no longer ours."""
    error = untrusted.clean_text(message)
    if not leases.end_held(held, SolveJob.FAILED, phase=SolveJob.FAILED, error=error):
        return False
    log.info("event=solve.failed solve=%s error=%r", held.job.digest, message)
    return True


def store(held: Claim, result: Result) -> bool:
    """Keep the result in the solve's row and its strategy's pages beside it, and mark it
    done, in one transaction and only if the solve is still ours; False if it is not
    (another worker took it over: its result is the one kept)."""
    with transaction.atomic():
        if not leases.lock_held(held):
            log.warning("event=solve.lost solve=%s worker=%s", held.job.digest, held.worker)
            return False
        SolvePage.objects.filter(job_id=held.job.pk).delete()
        SolvePage.objects.bulk_create(
            (SolvePage(job_id=held.job.pk, key=key, data=data) for key, data in result.pages),
            batch_size=500,
        )
        _end(
            held.job.pk,
            SolveJob.DONE,
            result=result.text,
            result_bytes=result.size,
            iteration=int(result.document["iterations"]),
            train_seconds=float(result.document["train_seconds"]),
            error="",
        )
    return True


def forget_old(keep: int, per_asker: int | None = None) -> int:
    """Delete the finished solves beyond the ``keep`` most recently used; how many went.
    Those beyond the ``per_asker`` most recently used of one asker (``SOLVE_KEEP_PER_ASKER``:
    a signed-in person, the guests of one address, or nobody) go first, so that one asker
    asking for many solves pushes out their own older ones, not everyone else's."""
    if per_asker is None:
        per_asker = Bounds.from_settings().keep_per_asker
    finished = SolveJob.objects.exclude(status__in=SolveJob.OPEN).order_by("-used", "-id")
    rows = list(finished.values_list("pk", "asked_by", "asked_from"))
    if len(rows) <= keep:
        return 0
    counts: Counter[tuple[str, Any]] = Counter()
    ranked = []
    for place, (pk, asked_by, asked_from) in enumerate(rows):
        key = _asker_key(asked_by, asked_from)
        counts[key] += 1
        ranked.append((counts[key] > per_asker, place, pk))
    old = [pk for _, _, pk in sorted(ranked)[keep:]]
    if old:
        SolveJob.objects.filter(pk__in=old).delete()
    return len(old)


#: the shortest time between two progress writes of a training solve, and the most writes
#: while it trains (besides one per phase)
PROGRESS_EVERY_S = 0.5
PROGRESS_WRITES = 50


class Progress:
    """Writes where a solve has got to into its row, a bounded number of times: at each
    change of phase, and while training at most ``writes`` times (:data:`PROGRESS_WRITES`),
    each at least ``every_s`` seconds (:data:`PROGRESS_EVERY_S`) and ``iterations / writes``
    iterations after the last one.

    ``save(fields)`` writes and says whether the solve is still ours (None: unknown, the
    database is away; the write is skipped). A solve found no longer ours, here or by the
    heartbeat (``lost()``), stops with :class:`LeaseLost`: its result would be dropped."""

    def __init__(
        self,
        save: Callable[[dict[str, Any]], bool | None],
        total: int,
        *,
        writes: int | None = None,
        every_s: float | None = None,
        lost: Callable[[], bool] = lambda: False,
    ) -> None:
        self.save, self.total, self.lost = save, total, lost
        self.every_s = PROGRESS_EVERY_S if every_s is None else every_s
        writes = PROGRESS_WRITES if writes is None else writes
        self.step = max(1, -(-total // max(writes, 1)))
        self.next_at = self.step
        self.last_write = time.monotonic()
        self.solver: Solver | PublicSolver | None = None
        self.count = 0

    def _write(self, fields: dict[str, Any]) -> None:
        self.count += 1
        self.last_write = time.monotonic()
        if self.save(fields) is False or self.lost():
            raise LeaseLost

    def phase(self, phase: str) -> None:
        self._write({"phase": phase})

    def iteration(self, n: int) -> None:
        """The solver's ``progress`` callback: called after every iteration."""
        if n < self.next_at or time.monotonic() - self.last_write < self.every_s:
            return
        self.next_at = n + self.step
        fields: dict[str, Any] = {"phase": "training", "iteration": n}
        if self.solver is not None:
            fields["train_seconds"] = self.solver.train_seconds
            if self.solver.convergence:
                i, e = self.solver.convergence[-1]
                fields["measured"] = [int(i), float(e)]
        self._write(fields)


@dataclass
class Result:
    """A solve's result as it is stored: the document without its strategy (as JSON text,
    ``text``) and the strategy in compressed pages, ``(page key, data)``."""

    document: dict[str, Any]
    text: str
    pages: list[tuple[str, bytes]] = field(default_factory=list)

    @property
    def size(self) -> int:
        """The bytes stored: the document's text and every page."""
        return len(self.text.encode()) + sum(len(data) for _, data in self.pages)


def result_of(settings: SolveSettings, document: dict[str, Any]) -> Result:
    """The result ``document`` as stored: its strategy split into the game's pages
    (``SolverSpec.page_of``), each compressed, and the rest as JSON text."""
    pages = paged(document["infosets"], _page_of(settings.game))
    head = {name: ({} if name == "infosets" else value) for name, value in document.items()}
    return Result(head, json.dumps(head), [(key, _pack(page)) for key, page in pages.items()])


def run(job: SolveJob, progress: Progress, bounds: Bounds | None = None) -> Result:
    """Build the tree (the game's public tree where it has one: ``solver_for``), train and
    measure: the result, split into pages. Raises :class:`SolveFailed` when the solve
    cannot give a result (refused settings, a game that refuses its options, no memory
    left, a result over ``SOLVE_MAX_RESULT_BYTES`` stored), :class:`LeaseLost` when it is
    no longer ours; whatever else the solver raises is its failure too, which the worker
    records as such (it would be the same on any worker)."""
    bounds = bounds or Bounds.from_settings()
    settings = SolveSettings.of(job)
    if refused := settings.refusal():
        raise SolveFailed(f"The solve was refused: {refused}")
    try:
        game = settings.make_game()
        progress.phase("building")
        solver = solver_for(game, settings.algorithm)
        progress.solver = solver
        progress.phase("training")
        solver.train(settings.iterations, progress=progress.iteration)
        progress.phase("measuring")
        document = result_document(game, solver)
        result = result_of(settings, document)
    except MemoryError:
        raise SolveFailed("The solve ran out of memory.") from None
    if result.size > bounds.max_result_bytes:
        raise SolveFailed(
            f"The result is {result.size / 1e6:.1f} MB stored, over the "
            f"{bounds.max_result_bytes / 1e6:.1f} MB the site keeps: solve it with "
            "manage.py solve."
        )
    return result
