"""The tournament worker: a polling loop whose every step says whether it found work.

``manage.py worker`` runs :class:`Worker`. A step validates one uploaded version or plays
one match job, in an order fair to every upload (:meth:`Worker.step`): claim (short
transaction), play in the sandbox with a heartbeat thread extending the lease, store (short
transaction, only if the job is still ours). SIGTERM sets a flag: the current match finishes,
then the loop ends; a second SIGTERM gives the job back to the queue at once.

The worker outlives its database: an error that says the database is away (a lost
connection, a server shutting down, SQLite locked past its busy timeout) is logged and tried
again with a growing pause, at every step. A result that was played is kept and stored once
the database is back, as long as the job is still ours. Such outages, like a worker that was
killed, never count against a job: only errors of the platform's own do.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from importlib import import_module
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError, connection

from bots import competition, playground
from bots.clock import shared_now
from bots.competition import leases, uploads
from bots.ladder.ratings import left_unrated, rate_pending
from bots.models import BotVersion, Match
from bots.outages import DATABASE_AWAY, Backoff
from bots.running.playing import Played, ProcessCache, shutdown_fault, shutdown_faults
from bots.running.process import PlatformError
from bots.sandbox import SandboxUnavailable
from games import solves

log = logging.getLogger("bots.worker")

T = TypeVar("T")


#: the kinds of work :meth:`Worker.other_work` takes turns between, in their order: an
#: upload's validation, a playground run, a batch of match jobs
VALIDATE, RUN, MATCHES = "validation", "run", "matches"
TURNS = (VALIDATE, RUN, MATCHES)


class Interrupted(Exception):
    """Raised in the main thread by a second SIGTERM."""


#: what a database that is away raises through Django (bots.outages)
OUTAGE = DATABASE_AWAY

#: how often a worker deletes the expired sessions (Django's ``clearsessions``): every guest
#: who sits down or starts a run has one, kept two weeks (docs/deploy.md)
SESSIONS_CLEARED_EVERY_S = 3600.0


def clear_expired_sessions() -> None:
    """Delete the sessions past their expiry, as ``manage.py clearsessions`` does."""
    engine = import_module(settings.SESSION_ENGINE)
    engine.SessionStore.clear_expired()


def drop_connection() -> None:
    """Forget this thread's database connection, so the next query opens a new one."""
    try:
        connection.close()
    except Exception:  # a connection that is already gone cannot be closed cleanly
        log.debug("event=database.close_failed", exc_info=True)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def database_label() -> str:
    """Where the database is, without its user or password: ``host:port/name``, or
    ``sqlite:PATH``."""
    found = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:{found['NAME']}"
    return f"{found.get('HOST') or 'localhost'}:{found.get('PORT') or 5432}/{found['NAME']}"


def no_live_updates() -> str | None:
    """What a worker says as it starts if the tournament pages cannot hear from it: on a
    shared database (PostgreSQL) the web processes have Redis, and a worker tells them of
    each finished match through it (``competition.push_progress``); without REDIS_URL it
    cannot. None if it can, or if it need not (SQLite: one machine, pages that poll)."""
    if settings.REDIS_URL or connection.vendor != "postgresql":
        return None
    return (
        "REDIS_URL is not set: tournament pages will not update live (give every worker "
        "the web processes' REDIS_URL; docs/deploy.md)"
    )


class DatabaseUnreachable(Exception):
    """The database cannot be reached as the worker starts (its words in one line)."""


def check_database(timeout: float) -> None:
    """Connect to the database once, or raise :class:`DatabaseUnreachable` within about
    ``timeout`` seconds with the driver's reason. PostgreSQL is asked directly, not through
    the pool, which would wait its whole timeout and then say only that it got no
    connection, and would go on trying in the background."""
    try:
        if connection.vendor == "postgresql":
            params = connection.get_connection_params()
            with connection.Database.connect(**params, connect_timeout=max(1, round(timeout))):
                pass
        else:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
    except (DatabaseError, connection.Database.Error) as exc:  # Django's, and the driver's
        raise DatabaseUnreachable(_brief(exc).split(": ", 1)[-1]) from None


@dataclass
class Options:
    lease_s: float = 60.0
    max_attempts: int = 3
    poll_s: float = 1.0
    #: seconds between regular ladder rounds of a game (0: never start them)
    ladder_interval_s: float = 0.0
    validate: bool = True
    #: sandboxed bot processes kept alive between matches (0: a fresh process per match)
    process_cache: int = 0
    #: seconds without work after which the kept processes are closed: each holds a sandbox
    #: slot, which a live table may need meanwhile
    idle_release_s: float = 60.0
    #: the most match jobs claimed at once, played one after the other and stored together
    #: (fewer at the end of a queue: see competition.claim_many)
    claim: int = 1
    #: seconds of play a batch of jobs aims at (see Worker.batch_size)
    batch_s: float = 1.0
    #: claims of one job without a result before it fails (see leases.Caps)
    max_claims: int = 20
    #: the longest pause between tries while the database is away
    db_retry_max_s: float = 5.0
    #: run the strategy explorer's solves too (games.solves)
    solve: bool = True
    #: play the playground's runs too (bots.playground)
    playground: bool = True

    @classmethod
    def from_settings(cls, **overrides: object) -> Options:
        values: dict[str, object] = {
            "lease_s": float(settings.WORKER_LEASE_S),
            "max_attempts": int(settings.WORKER_MAX_ATTEMPTS),
            "max_claims": int(settings.WORKER_MAX_CLAIMS),
            "db_retry_max_s": float(settings.WORKER_DB_RETRY_MAX_S),
            "claim": int(settings.WORKER_CLAIM),
        }
        return cls(**(values | overrides))  # type: ignore[arg-type]

    @property
    def caps(self) -> leases.Caps:
        return leases.Caps(errors=self.max_attempts, claims=self.max_claims)


@dataclass
class Counters:
    played: int = 0
    validated: int = 0
    #: playground runs ended (done or failed) by this worker
    tried: int = 0
    solved: int = 0
    lost: int = 0
    released: int = 0
    faults: int = 0
    #: tries that found the database away, and the last such error
    outages: int = 0
    outage: str = ""
    last: str = ""
    current: str = ""
    started: float = field(default_factory=time.monotonic)
    #: the current stretch of steps that found work, or the last one: when it began and
    #: ended, the matches played before it, and whether it goes on (see :meth:`rate`)
    busy_began: float = 0.0
    busy_ended: float = 0.0
    busy_from: int = 0
    busy: bool = False

    def stepped(self, found: bool, began: float, played_before: int) -> None:
        """Note a step (begun at ``began``, with ``played_before`` matches played then)."""
        if not found:
            self.busy = False
            return
        if not self.busy:
            self.busy, self.busy_began, self.busy_from = True, began, played_before
        self.busy_ended = time.monotonic()

    def rate(self) -> tuple[float, float] | None:
        """Matches a second over the current stretch of work, or the last one if the worker
        is idle now, and that stretch's seconds; None if it played none. (Over the worker's
        whole life, the rate would sink while it waits for work.)"""
        played = self.played - self.busy_from
        seconds = self.busy_ended - self.busy_began
        if played <= 0 or seconds <= 0:
            return None
        return played / seconds, seconds


class _Beating(threading.Thread):
    """A thread that extends a lease of ``lease_s`` every third of it, on its own database
    connection, until :meth:`stop`."""

    def __init__(self, name: str, lease_s: float) -> None:
        super().__init__(daemon=True, name=name)
        self.lease_s = lease_s
        self._stop_event = threading.Event()

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


class Heartbeat(_Beating):
    """Extends the leases of the held rows (one claim, or a worker's batch of them) every
    third of the lease, on its own database connection (:func:`bots.competition.leases.heartbeat`,
    for match jobs, solves and playground runs alike); notes which were lost."""

    def __init__(self, held: leases.Claim | list[leases.Claim], lease_s: float) -> None:
        self.claims = held if isinstance(held, list) else [held]
        super().__init__(f"heartbeat-{self.claims[0].job.pk}", lease_s)
        #: the jobs whose lease ran out and that another worker took
        self.lost_jobs: set[int] = set()

    @property
    def lost(self) -> bool:
        """Whether any held job was lost (a single claim: whether it was)."""
        return bool(self.lost_jobs)

    def run(self) -> None:
        pause = self.lease_s / 3
        try:
            while not self._stop_event.wait(pause):
                pause = self.lease_s / 3
                for held in self.claims:
                    if held.job.pk in self.lost_jobs or self._stop_event.is_set():
                        continue
                    try:
                        ours = leases.heartbeat(held, self.lease_s)
                    except OUTAGE as exc:
                        # the lease may run out meanwhile: the result is then stored only if
                        # no other worker took the job; either way, try again soon
                        log.warning(
                            "event=database.unavailable during=heartbeat job=%s error=%r",
                            held.job.pk,
                            _brief(exc),
                        )
                        drop_connection()
                        pause = min(1.0, self.lease_s / 3)
                        break
                    if not ours:
                        self.lost_jobs.add(held.job.pk)
                        log.warning("event=lease.lost job=%s", held.job.pk)
                if len(self.lost_jobs) == len(self.claims):
                    return
        finally:
            drop_connection()


class ValidationHeartbeat(_Beating):
    """Extends a validation's lease (``BotVersion.validation_lease``) every third of the lease
    while the worker validates the version, on its own database connection, as
    :class:`Heartbeat` does for match jobs: a C++ or Java version's compile alone may take
    longer than the lease. A validation's claim is the version still validating with the
    count of claims it was taken with (:func:`uploads.claim_validation`): once another worker
    took it (the lease ran out meanwhile) or it ended, nothing is extended."""

    def __init__(self, version: BotVersion, lease_s: float) -> None:
        super().__init__(f"heartbeat-version-{version.pk}", lease_s)
        self.version_id = version.pk
        self.claims = version.validation_claims
        #: the validation's claim went to another worker
        self.lost = False

    def beat(self) -> bool:
        """Extend the lease once; False if the validation is no longer this claim's."""
        ours = BotVersion.objects.filter(
            pk=self.version_id,
            status=BotVersion.VALIDATING,
            validation_claims=self.claims,
        ).update(validation_lease=shared_now() + timedelta(seconds=self.lease_s))
        return bool(ours)

    def run(self) -> None:
        pause = self.lease_s / 3
        try:
            while not self._stop_event.wait(pause):
                pause = self.lease_s / 3
                try:
                    ours = self.beat()
                except OUTAGE as exc:
                    log.warning(
                        "event=database.unavailable during=heartbeat version=%s error=%r",
                        self.version_id,
                        _brief(exc),
                    )
                    drop_connection()
                    pause = min(1.0, self.lease_s / 3)
                    continue
                if not ours:
                    self.lost = True
                    log.warning("event=lease.lost version=%s", self.version_id)
                    return
        finally:
            drop_connection()


class Worker:
    def __init__(self, options: Options | None = None, name: str | None = None) -> None:
        self.options = options or Options()
        self.name = name or worker_name()
        self.stopping = False
        self.counters = Counters()
        self._last_ladder_check = 0.0
        #: whether the last work done was a solve, and when to look for one next
        self._solved_last = False
        self._next_solve_look = 0.0
        #: the kind of the last piece of other_work (:data:`TURNS`): a validation comes first
        self._last_turn = TURNS[-1]
        self.backoff = Backoff(self.options.db_retry_max_s)
        self.cache = (
            ProcessCache(self.options.process_cache) if self.options.process_cache else None
        )
        #: where each game's ratings stood when this worker last rated it to no avail (a
        #: deal of a one-seat game still in play): not tried again until that changes. Only
        #: a saving: what is left to rate is read from the database (see settle_ratings)
        self._rated_in_vain: dict[str, tuple[int, int]] = {}
        #: seconds a match took to play lately (a moving average; None before the first)
        self.match_s: float | None = None
        #: when (time.monotonic) to delete the expired sessions next: at the first step
        self._next_sessions_clear = 0.0

    # ---- signals ------------------------------------------------------------------------
    def on_sigterm(self, *_: object) -> None:
        if self.stopping:
            raise Interrupted
        self.stopping = True
        log.info("event=worker.stopping worker=%s", self.name)

    # ---- the database going away ----------------------------------------------------------
    def database_away(self, during: str, exc: BaseException) -> None:
        """Log an outage, drop the connection and pause before the next try (a pause that
        even a stopping worker takes: what it holds is worth storing)."""
        pause = self.backoff.next_pause()
        self.counters.outages += 1
        self.counters.outage = f"{during}: {_brief(exc)}"
        log.warning(
            "event=database.unavailable during=%s worker=%s error=%r retry_in=%.1f",
            during,
            self.name,
            _brief(exc),
            pause,
        )
        drop_connection()
        time.sleep(pause)

    def database_back(self) -> None:
        lasted = self.backoff.reset()
        if lasted is not None:
            self.counters.outage = ""
            log.warning("event=database.back worker=%s after=%.1fs", self.name, lasted)

    def until_done(self, during: str, action: Callable[[], T]) -> T:
        """``action()``, tried again for as long as the database is away."""
        while True:
            try:
                result = action()
            except OUTAGE as exc:
                self.database_away(during, exc)
                continue
            self.database_back()
            return result

    def best_effort(self, during: str, action: Callable[[], object]) -> None:
        """``action()`` once; if the database is away it is left undone (what it would have
        written, a lease running out writes too)."""
        try:
            action()
        except OUTAGE as exc:
            log.warning(
                "event=database.unavailable during=%s worker=%s error=%r (left to the lease)",
                during,
                self.name,
                _brief(exc),
            )
            drop_connection()

    # ---- steps --------------------------------------------------------------------------
    def step(self) -> bool:
        """Do one piece of work (:meth:`work`); False if there was none."""
        began, played = time.monotonic(), self.counters.played
        self.clear_sessions()
        found = self.work()
        self.counters.stepped(found, began, played)
        return found

    def clear_sessions(self) -> None:
        """Every :data:`SESSIONS_CLEARED_EVERY_S`, delete the expired sessions (any worker
        may: a second one at once deletes nothing more)."""
        now = time.monotonic()
        if now < self._next_sessions_clear:
            return
        self._next_sessions_clear = now + SESSIONS_CLEARED_EVERY_S
        self.best_effort("sessions.clear", clear_expired_sessions)

    def work(self) -> bool:
        """One piece of work; False if there was none.

        A solve of the strategy explorer comes first (someone waits for it at their screen),
        but never two in a row while other work waits: after a solve the worker takes one
        piece of the other work, if there is any, before the next solve (:meth:`solve_first`).
        Solves are bounded in size by the web's limits and in number running at once by
        ``SOLVE_MAX_RUNNING`` (docs/explorer.md), so tournaments always move on."""
        if self.solve_first() and self.solve_one():
            return True
        if self.other_work():
            self._solved_last = False
            return True
        self.settle_ratings()  # nothing to play: rate what any worker's stores left
        return self.solve_one() or self.maybe_schedule()

    def other_work(self) -> bool:
        """Validations, playground runs and matches, taking turns (:data:`TURNS`): after a
        piece of one kind, the worker looks for the next kind first, so none of them is
        taken twice in a row while another waits, and each gets a turn in three. An upload's
        validation (its compile alone may hold the worker for minutes) is followed by a run
        (someone waits for it at their screen), a run by a batch of matches, and matches by
        the next validation; a kind with nothing waiting passes its turn on. So neither a
        stream of uploads (from any number of accounts) nor of runs can stop the others or
        the tournaments, and an upload still waits for at most one run and one batch of
        matches (docs/competition.md, "The worker"). Within each kind the order is fair to
        every owner (``uploads.claim_validation``, ``playground.claim``,
        ``competition.CLAIM_ORDER``)."""
        after = TURNS.index(self._last_turn) + 1
        for kind in TURNS[after:] + TURNS[:after]:
            if self._take(kind):
                self._last_turn = kind
                return True
        return False

    def _take(self, kind: str) -> bool:
        """One piece of work of ``kind`` (:data:`TURNS`); False if none waits."""
        if kind == RUN:
            return self.playground_one()
        if kind == VALIDATE:
            if not self.options.validate:
                return False
            # a version found slow is validated in full once the quick passes of the versions
            # behind it and the placements of those that passed are done
            if self.validate_one(slow=False):
                return True
            placing = competition.jobs_waiting(
                shared_now(), min_priority=competition.PLACEMENT_PRIORITY
            )
            return not placing and self.validate_one(slow=True)
        return self.play_one()  # (placement matches first: competition.CLAIM_ORDER)

    def validate_one(self, slow: bool | None = None) -> bool:
        """Validate the next waiting version (``slow``: only one found slow, or only one
        not); a quick pass that finds it slow leaves it for a full one."""
        version = uploads.claim_validation(
            self.name, self.options.lease_s, self.options.caps, slow=slow
        )
        if version is None:
            return False
        self.counters.current = f"validating {version}"
        # its lease is extended while it runs (a compile may outlast it): no other worker
        # takes it meanwhile, and its page says it is being validated
        beat = ValidationHeartbeat(version, self.options.lease_s)
        beat.start()
        try:
            try:
                result = uploads.run_validation(version)
            finally:
                beat.stop()  # before anything is stored: a deferral sets a lease of its own
        except Interrupted:
            # a stop is no try of the validation's: its claim is given back, nothing counted
            # (three stops during a Java compile rejected a sound upload as an "error")
            reason = f"the worker {self.name} was stopped during the validation"
            log.warning("event=validation.deferred version=%s reason=%r", version.pk, reason)
            self.best_effort(
                "validation.deferred",
                lambda: uploads.validation_deferred(version, reason, retry_s=0.0),
            )
            self.counters.current = ""
            raise
        except PlatformError as exc:
            # the platform's trouble, never a verdict: the version waits and is tried again
            self._defer_validation(version, f"{exc} (on {self.name})", exc)
            return True
        except OUTAGE:
            raise  # the lease runs out; the next try is counted as nothing
        except Exception as exc:  # a fault of ours: counted, retried up to the cap
            log.exception("event=validation.error version=%s", version.pk)
            error = f"error on {self.name}: {type(exc).__name__}: {exc}"
            self.best_effort("validation.error", lambda: uploads.validation_failed(version, error))
            self.counters.current = ""
            self._sleep(self.options.poll_s)
            return True
        if not result.ok and self.stopping and shutdown_fault(result.fault_kind):
            # stopped while it played: a shutdown may have killed the bot (a service
            # manager signals every process of the worker's group); no verdict on that
            reason = f"the worker was stopped during the validation ({result.reason})"
            self._defer_validation(version, reason, None)
            return True
        version = self.until_done(
            "validation.store", lambda: uploads.record_validation(version, result)
        )
        self.counters.current = ""
        if version.status == BotVersion.VALIDATING and not result.ok and not result.slow:
            return True  # a built-in bot of the site: never rejected, tried again (logged)
        if result.slow and version.status == BotVersion.VALIDATING:
            log.info(
                "event=version.slow version=%s reason=%r next=full-validation bot=%r",
                version.pk,
                result.reason,
                f"{version.bot.label} v{version.number}",
            )
            return True
        self.counters.validated += 1
        log.info(
            "event=version.validated version=%s status=%s reason=%r bot=%r",
            version.pk,
            version.status,
            version.reason,
            f"{version.bot.label} v{version.number}",
        )
        return True

    def _defer_validation(
        self, version: BotVersion, reason: str, exc: PlatformError | None
    ) -> None:
        """The platform could not validate ``version`` now: no verdict and nothing counted;
        it is tried again after a pause (:func:`uploads.validation_deferred`)."""
        level = logging.ERROR if isinstance(exc, SandboxUnavailable) else logging.WARNING
        log.log(level, "event=validation.deferred version=%s reason=%r", version.pk, reason)
        self.best_effort(
            "validation.deferred", lambda: uploads.validation_deferred(version, reason)
        )
        self.counters.current = ""
        self._sleep(self.options.poll_s)

    def play_one(self, min_priority: int | None = None) -> bool:
        """Claim match jobs (``Options.claim`` of them at once, fewer at the end of the
        queue), play them one after the other with one heartbeat thread extending all their
        leases, then store their results together (:func:`competition.store_results`)."""
        claims = competition.claim_many(
            self.name,
            self.options.lease_s,
            self.batch_size(),
            caps=self.options.caps,
            min_priority=min_priority,
        )
        if not claims:
            return False
        for held in claims:
            log.info(
                "event=job.claimed job=%s attempt=%s worker=%s",
                held.job.pk,
                held.attempt,
                self.name,
            )
        beat = Heartbeat(claims, self.options.lease_s)
        beat.start()
        try:
            results = self._play_claims(claims, beat)
            if results:
                self._store(results)
        finally:
            beat.stop()
        self.counters.current = ""
        return True

    def batch_size(self) -> int:
        """How many jobs to claim: about ``batch_s`` seconds of play at the pace of the
        matches played lately, at most ``claim``; one before the first match (its length
        is not known yet). Quick matches go many to a store, where the database's round
        trips would otherwise cost more than playing; slow ones go one or a few, so their
        results and ratings are not held back long and the end of a queue is shared."""
        if self.options.claim <= 1 or self.match_s is None:
            return 1
        return max(1, min(self.options.claim, int(self.options.batch_s / self.match_s)))

    def _play_claims(
        self, claims: list[leases.Claim], beat: Heartbeat
    ) -> list[tuple[leases.Claim, Played]]:
        """Play the claimed jobs in turn; the results played. A job lost meanwhile is
        skipped; a stopping worker plays none after the current one and gives the rest back
        (nothing counted), as does one whose sandbox is unavailable or whose database went
        away (their leases run out)."""
        results: list[tuple[leases.Claim, Played]] = []
        try:
            versions = competition.versions_of([held.job for held in claims])
            # the worker time their bots used in these tournaments, and as the batch goes on
            # what its own matches took (see competition.play_job)
            spent = competition.worker_time_of([held.job for held in claims], versions)
            # the deals a bot's process may have been dealt before, in another process
            seen = competition.deals_seen(claims)
        except OUTAGE as exc:
            # the leases run out, nothing counted; this step is tried again
            self.database_away("job.read", exc)
            return []
        for n, held in enumerate(claims):
            if held.job.pk in beat.lost_jobs:
                self.counters.lost += 1
                continue
            if self.stopping and n:
                self._release(claims[n:], "the worker was stopped")
                break
            job = held.job
            self.counters.current = f"job {job.pk} ({job.game}, tournament {job.tournament_id})"
            try:
                deal = (job.tournament_id, job.seed)
                again = deal in seen
                seen.add(deal)  # (from its first move on, a bot may have read its pages)
                played = competition.play_job(job, self.cache, versions, spent, seen=again)
            except Interrupted:
                self._release(claims[n:], "the worker was stopped")
                self._release([h for h, _ in results], "the worker was stopped")
                raise
            except PlatformError as exc:
                # never a bot's fault: the jobs go back to the queue, to be played later (at
                # the cap of claims a job is voided, saying why: leases.Caps)
                reason = f"{leases.PLATFORM}{exc} (on {self.name})"
                self._release(claims[n:], reason)
                level = logging.ERROR if isinstance(exc, SandboxUnavailable) else logging.WARNING
                log.log(level, "event=job.platform_error job=%s reason=%r", job.pk, str(exc))
                self._sleep(self.options.poll_s)
                break
            except OUTAGE as exc:
                # reading the job's bots failed: its lease and the rest's run out, nothing
                # counted; what was played is stored
                self.database_away("job.read", exc)
                break
            except Exception as exc:  # a fault of ours: the job fails at its cap of errors
                log.exception("event=job.error job=%s", job.pk)
                self._our_error(held, f"error on {self.name}: {type(exc).__name__}: {exc}")
                continue
            if self.stopping and shutdown_faults(played):
                # stopped while it played: a shutdown may have killed the bots (a service
                # manager signals every process of the worker's group), so its faults are
                # not the bots' to carry; it is played again by the next worker
                faults = ",".join(r.fault_kind for r in played.seats if r.fault_kind)
                self._release(
                    [held], f"{leases.PLATFORM}the worker was stopped during it ({faults})"
                )
                continue
            results.append((held, played))
            competition.add_charges(spent, job, versions, played)
            seconds = max(played.duration_s, 1e-3)
            self.match_s = seconds if self.match_s is None else 0.8 * self.match_s + 0.2 * seconds
        return results

    def _store(self, results: list[tuple[leases.Claim, Played]]) -> None:
        """Store the results together; the heartbeat goes on while they wait for the
        database, and a rating under way in another worker is not waited for
        (settle_ratings). An error of ours in the store (not an outage) is retried one
        result at a time, so only the result that causes it is counted against its job."""
        try:
            store = functools.partial(competition.store_results, results, wait=False)
            matches = self.until_done("store", store)
        except Interrupted:
            self._release([held for held, _ in results], "the worker was stopped")
            raise
        except Exception as exc:  # not an outage: a fault of ours, found result by result below
            log.exception("event=jobs.store_error jobs=%s", [h.job.pk for h, _ in results])
            if len(results) == 1:
                self._store_failed(results[0][0], exc)
                return
            for held, played in results:
                try:
                    store = functools.partial(competition.store_result, held, played, wait=False)
                    match = self.until_done("store", store)
                except Interrupted:
                    self._release([held], "the worker was stopped")
                    raise
                except Exception as exc:
                    log.exception("event=job.store_error job=%s", held.job.pk)
                    self._store_failed(held, exc)
                    continue
                self._done(held, played, match)
            return
        for (held, played), match in zip(results, matches, strict=True):
            self._done(held, played, match)

    def _store_failed(self, held: leases.Claim, exc: Exception) -> None:
        """A store that failed by a fault of ours: counted against the job's cap."""
        self._our_error(held, f"could not store on {self.name}: {type(exc).__name__}: {exc}")

    def _done(self, held: leases.Claim, played: Played, match: Match | None) -> None:
        job = held.job
        if match is None:
            self.counters.lost += 1
            return
        self.counters.played += 1
        faults = [f"{r.fault_kind}@{n}" for n, r in enumerate(played.seats) if r.fault_kind]
        self.counters.faults += len(faults)
        self.counters.last = f"job {job.pk}: scores {played.outcome.result.get('scores')}" + (
            f" faults {' '.join(faults)}" if faults else ""
        )
        log.info(
            "event=job.done job=%s game=%s match=%s attempt=%s worker=%s scores=%s faults=%s "
            "secs=%.3f bots=%r",
            job.pk,
            job.game,
            match.pk,
            held.attempt,
            self.name,
            played.outcome.result.get("scores"),
            ",".join(faults) or "-",
            played.duration_s,
            [seat.get("name") for seat in played.outcome.record.get("seats", [])],
        )

    def _release(self, claims: list[leases.Claim], reason: str) -> None:
        """Give jobs back to the queue, nothing counted (best effort: a lease that runs out
        gives them back too)."""
        for held in claims:
            self.best_effort("release", lambda held=held: leases.release(held, reason))
            self.counters.released += 1
            log.info("event=job.released job=%s reason=%r", held.job.pk, reason)

    def settle_ratings(self) -> None:
        """As it starts, whenever it goes idle and as it stops: rate the results that any
        worker's store left unrated (its rating skipped while another rated the game, or the
        worker killed before it rated), waiting for a rating under way this time, so that no
        result stays unrated when the queue runs dry. What is left is read from the database
        (:func:`~bots.ladder.ratings.left_unrated`), never from this worker's memory: a
        worker killed or stopped leaves nothing that only it knew of."""
        for game, stands in sorted(left_unrated().items()):
            if self._rated_in_vain.get(game) == stands:
                continue  # nothing rating could use has finished since the last try
            rated = rate_pending(game)
            if rated:
                self._rated_in_vain.pop(game, None)
            else:
                self._rated_in_vain[game] = stands

    def _our_error(self, held: leases.Claim, error: str) -> None:
        self.best_effort("release", lambda: leases.release(held, error, our_error=True))
        self.counters.released += 1
        self.counters.current = ""

    # ---- the playground ------------------------------------------------------------------
    def playground_one(self) -> bool:
        """Play the next waiting playground run, in turn by owner (``playground.claim``): claim
        it, play its matches in the sandbox one by one with a heartbeat thread extending the
        lease, each stored as soon as it is played and charged only its bots' own time
        (:func:`bots.playground.play_run`)."""
        if not self.options.playground:
            return False
        caps = playground.caps(errors=self.options.max_attempts)
        held = playground.claim(self.name, self.options.lease_s, caps)
        if held is None:
            return False
        run = held.job
        self.counters.current = f"playground run {run.pk} ({run.game})"
        log.info(
            "event=playground.claimed run=%s attempt=%s worker=%s", run.pk, held.attempt, self.name
        )
        beat = Heartbeat(held, self.options.lease_s)
        beat.start()
        try:
            ended = playground.play_run(
                held,
                until_done=self.until_done,
                stopping=lambda: self.stopping,
                lost=lambda: beat.lost,
            )
        except Interrupted:
            # a stop is no try of the run's: its claim is undone
            self.best_effort("release", lambda: playground.stopped(held))
            self.counters.released += 1
            raise
        except PlatformError as exc:
            # the run waits for a worker that can run it (a free slot, a working sandbox,
            # memory to spare), taken again after a pause; nothing counted but the claim
            reason = f"{leases.PLATFORM}{exc} (on {self.name})"
            self.best_effort("release", lambda: playground.give_back(held, reason))
            level = logging.ERROR if isinstance(exc, SandboxUnavailable) else logging.WARNING
            log.log(level, "event=playground.released run=%s reason=%r", run.pk, str(exc))
            self._sleep(self.options.poll_s)
            return True
        except OUTAGE:
            raise  # the lease runs out; the next try is counted as nothing
        except Exception as exc:  # a fault of ours: counted, the run fails at its cap
            log.exception("event=playground.error run=%s", run.pk)
            error = f"error on {self.name}: {type(exc).__name__}: {exc}"
            self.best_effort("release", lambda: leases.release(held, error, our_error=True))
            self._sleep(self.options.poll_s)
            return True
        finally:
            beat.stop()
            self.counters.current = ""
        if ended in (playground.DONE, playground.FAILED):
            self.counters.tried += 1
        elif ended == playground.LOST:
            self.counters.lost += 1
        log.info("event=playground.%s run=%s worker=%s", ended, run.pk, self.name)
        self.best_effort("playground.forget", playground.forget_old)
        return True

    # ---- solves of the strategy explorer ----------------------------------------------------
    def solve_first(self) -> bool:
        """Whether to look for a solve before other work: not right after a solve, and not
        more often than every ``poll_s`` (a look that finds nothing costs a query; a solve
        waits at most that long, plus the piece of work at hand)."""
        return (
            self.options.solve
            and not self._solved_last
            and time.monotonic() >= self._next_solve_look
        )

    def solve_one(self) -> bool:
        """Run the oldest waiting solve, if fewer than ``SOLVE_MAX_RUNNING`` run: claim it
        (short transaction), solve with a heartbeat thread extending the lease and the
        progress written to its row now and then, store the result (only if it is still
        ours). A solve that cannot give a result fails with the reason its page shows."""
        if not self.options.solve:
            return False
        bounds = solves.Bounds.from_settings()
        caps = bounds.caps(errors=self.options.max_attempts)
        held = solves.claim(self.name, self.options.lease_s, caps, bounds)
        if held is None:
            self._next_solve_look = time.monotonic() + self.options.poll_s
            return False
        self._solved_last = True
        job = held.job
        self.counters.current = f"solve {job.digest} ({job.key})"
        log.info(
            "event=solve.claimed solve=%s attempt=%s worker=%s", job.digest, held.attempt, self.name
        )
        beat = Heartbeat(held, self.options.lease_s)
        beat.start()
        progress = solves.Progress(
            lambda fields: self._save_progress(held, fields), job.iterations, lost=lambda: beat.lost
        )
        began = time.monotonic()
        try:
            try:
                result = solves.run(job, progress, bounds)
            except Interrupted:
                self.best_effort("release", lambda: solves.release(held, "the worker was stopped"))
                self.counters.released += 1
                raise
            except solves.LeaseLost:
                self.counters.lost += 1
                log.warning("event=solve.lost solve=%s worker=%s", job.digest, self.name)
                return True
            except OUTAGE:
                raise  # the lease runs out; the next try is counted as nothing
            except solves.SolveFailed as exc:  # it would fail on any worker: a verdict
                verdict = str(exc)
                self.until_done("solve.fail", lambda: solves.fail(held, verdict))
                stored = False
            except Exception as exc:  # the solver's own failure: the same on any worker
                log.exception("event=solve.error solve=%s", job.digest)
                message = f"The solve failed: {exc}"
                self.until_done("solve.fail", lambda: solves.fail(held, message))
                stored = False
            else:
                # the heartbeat goes on while the result waits for the database
                stored = self.until_done("solve.store", lambda: solves.store(held, result))
        finally:
            beat.stop()
            self.counters.current = ""
        if stored:
            self.counters.solved += 1
            log.info(
                "event=solve.done solve=%s attempt=%s worker=%s bytes=%d writes=%d secs=%.3f",
                job.digest,
                held.attempt,
                self.name,
                result.size,
                progress.count,
                time.monotonic() - began,
            )
        self.best_effort("solve.forget", lambda: solves.forget_old(bounds.keep))
        return True

    def _save_progress(self, held: leases.Claim, fields: dict) -> bool | None:
        """A progress write: whether the solve is still ours; None (skipped) while the
        database is away (the heartbeat keeps trying; the next write may get through)."""
        try:
            return solves.save_progress(held, fields)
        except OUTAGE as exc:
            log.warning(
                "event=database.unavailable during=solve.progress worker=%s error=%r",
                self.name,
                _brief(exc),
            )
            drop_connection()
            return None

    def maybe_schedule(self) -> bool:
        interval = self.options.ladder_interval_s
        now = time.monotonic()
        if interval <= 0 or now - self._last_ladder_check < min(interval, 30):
            return False
        self._last_ladder_check = now
        from games.registry import game_slugs

        started = False
        for game in game_slugs():
            if competition.maybe_ladder_round(game, interval) is not None:
                started = True
        return started

    # ---- loops --------------------------------------------------------------------------
    def run(self, *, once: bool = False, batch: bool = False, on_idle=None) -> int:
        """Loop until stopped; ``once``: one step; ``batch``: until a step finds nothing.
        Returns the number of steps that found work."""
        worked = 0
        idle_since: float | None = None
        try:
            self.best_effort("ratings", self.settle_ratings)  # what a stopped worker left
            while not self.stopping:
                try:
                    found = self.step()
                except OUTAGE as exc:
                    self.database_away("step", exc)
                    continue
                self.database_back()
                worked += found
                if once or (batch and not found):
                    break
                if found:
                    idle_since = None
                else:
                    now = time.monotonic()
                    idle_since = now if idle_since is None else idle_since
                    if now - idle_since >= self.options.idle_release_s:
                        self.close()  # (the cache is used again by the next match)
                    if on_idle is not None:
                        on_idle()
                    self._sleep(self.options.poll_s)
            self.best_effort("ratings", self.settle_ratings)  # stopped between two matches
        except Interrupted:
            log.info("event=worker.interrupted worker=%s", self.name)
        finally:
            self.close()
        return worked

    def close(self) -> None:
        """End the bot processes kept for later matches."""
        if self.cache is not None:
            self.cache.close()

    def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < end:
            time.sleep(min(0.1, end - time.monotonic()))


def _brief(exc: BaseException) -> str:
    """An outage's error in one line (drivers' messages span several)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:300]}"
