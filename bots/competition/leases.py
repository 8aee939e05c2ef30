"""The lease every kind of queued work is claimed with: match jobs (``bots.competition``),
the strategy explorer's solves (``games.solves``) and the playground's runs
(``bots.playground``).

A leased row has a ``status`` (queued, running, done, failed: the models spell them alike),
the ``worker`` that holds it, ``attempts`` (how many times a worker claimed it: it only
grows, but for a playground run that a stopping worker gives back, whose claim is undone,
``bots.playground.stopped``: that worker claims nothing more, so its token never holds
again), ``errors`` (runs that ended in an error of the platform's own) and the last
``error``, ``lease_until`` and ``heartbeat``, ``started`` and ``finished``. A row is
claimable when it is queued, or running with a lease that ran out (its worker died). A claim
sets ``running``, the worker's name, ``attempts + 1`` and a lease; (``worker``,
``attempts``) is then the token every later write checks (:func:`held`), so a worker whose
lease ran out and whose row another worker took writes nothing more to it. The heartbeat
extends the lease, a release puts the row back in the queue (an error of ours counted or
not), an end sets a final status and clears the lease; :class:`Caps` gives a row up after
too many errors of ours or claims without a result.

What differs between the kinds stays in their modules: how many rows a claim takes and in
what order (match jobs: several at once, by priority), what must hold before one is taken
(solves: fewer than ``SOLVE_MAX_RUNNING`` running), what a given-up row's end says, and the
fields a kind sets besides the lease's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, F, Model, Q, QuerySet

from bots.clock import shared_now
from games.engine import untrusted

#: the statuses of a leased row (every leased model spells them so)
QUEUED, RUNNING = "queued", "running"

#: how many times a claim looks again after a row it looked at was given up or taken by
#: another worker first
CLAIM_TRIES = 20

#: how the error of a row given back for the platform's trouble begins (no free sandbox
#: slot, a sandbox that would not start, a worker stopped mid-match): at the cap of claims
#: such a row is voided, and its end says so
PLATFORM = "the platform could not play it: "

#: the caps a row can be given up at (:meth:`Caps.reached`): errors of ours, claims each
#: given back for the platform's trouble (voided), claims its workers did not end
ERRORS, VOIDED, CLAIMS = "errors", "voided", "claims"

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Claim(Generic[M]):
    """A row held by a worker: (worker, attempt) is the token every later write checks."""

    job: M
    worker: str
    attempt: int

    def rows(self) -> QuerySet[M]:
        """The held row, as long as it is still this claim's (else nothing)."""
        return type(self.job)._default_manager.filter(held(self))

    @property
    def lease_s(self) -> float:
        """Seconds the lease runs from each sign of life: as it was taken (:func:`taking`
        writes the heartbeat and the lease from one time)."""
        return (self.job.lease_until - self.job.heartbeat).total_seconds()  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Caps:
    """When a row is given up: ``errors`` runs ended in an error of the platform's own, or
    ``claims`` workers took it without a result (each was killed or lost it: work that stops
    every worker that takes it; or each gave it back for the platform's trouble, then it is
    *voided*, saying so). Neither a bot's fault nor a database outage counts."""

    errors: int = 3
    claims: int = 20

    @classmethod
    def from_settings(cls) -> Caps:
        return cls(
            errors=int(getattr(settings, "WORKER_MAX_ATTEMPTS", 3)),
            claims=int(getattr(settings, "WORKER_MAX_CLAIMS", 20)),
        )

    def reached(self, errors: int, claims: int, last_error: str) -> str:
        """Which cap a job, run or validation with these counts is at: :data:`ERRORS`,
        :data:`VOIDED` (its claims, each given back for the platform's trouble),
        :data:`CLAIMS` (its claims, its workers killed or lost it), or "" (it goes on). Each
        kind says its own end in words for its people from it; :meth:`verdict` is the
        operators' (a job's error, the logs)."""
        if errors >= self.errors:
            return ERRORS
        if claims >= self.claims:
            return VOIDED if last_error.startswith(PLATFORM) else CLAIMS
        return ""

    def verdict(self, errors: int, claims: int, last_error: str, last_worker: str) -> str:
        """Why a job or validation with these counts ends now, for its operators (a job's
        error, the logs); "" if it goes on."""
        reached = self.reached(errors, claims, last_error)
        if reached == ERRORS:
            return f"failed {errors} times; the last time: {last_error or 'no error recorded'}"
        if reached == VOIDED:
            return (
                f"voided after {claims} tries: {last_error}; no bot is charged for it and "
                "nothing is rated"
            )
        if reached == CLAIMS:
            return (
                f"taken {claims} times without a result: each worker that took it stopped or "
                f"lost it (the last one: {last_worker or 'unknown'})"
            )
        return ""

    def given_up(self, row: Model) -> str:
        """:meth:`verdict` of a leased row's own counts."""
        return self.verdict(row.errors, row.attempts, row.error, row.worker)  # type: ignore[attr-defined]


def claimable(now: datetime) -> Q:
    """Rows a worker may claim: queued, or running with a lease that ran out."""
    queued, expired = claimable_parts(now)
    return queued | expired


def claimable_parts(now: datetime) -> tuple[Q, Q]:
    """:func:`claimable` in its two parts: the queued rows, and the running ones whose lease
    ran out. Each names one status, so a claim can read each part in its order through an
    index that begins with the status (match jobs: ``job_claim_order``), and merge the two:
    with both in one condition (an OR), PostgreSQL reads and sorts every queued row to find
    the first few."""
    return Q(status=QUEUED), Q(status=RUNNING, lease_until__lt=now)


def held(claim: Claim) -> Q:
    """The claimed row, only while the claim's token is still the row's."""
    return Q(pk=claim.job.pk, status=RUNNING, worker=claim.worker, attempts=claim.attempt)


def taking(row: Model, worker: str, lease_s: float, now: datetime) -> dict[str, Any]:
    """The fields a claim of ``row`` writes: running, ours, one attempt more, a lease
    (``now``: :func:`bots.clock.shared_now`, as every lease and heartbeat is told)."""
    return {
        "status": RUNNING,
        "worker": worker,
        "attempts": row.attempts + 1,  # type: ignore[attr-defined]
        **beating(lease_s, now),
        "started": now,
    }


def beating(lease_s: float, now: datetime | None = None) -> dict[str, Any]:
    """The fields a sign of life of a held row writes: the heartbeat now and the lease
    ``lease_s`` from it, on the database's clock (:func:`bots.clock.shared_now`: the
    processes that compare them may run on machines whose clocks differ)."""
    now = now or shared_now()
    return {"lease_until": now + timedelta(seconds=lease_s), "heartbeat": now}


def claim_oldest(
    rows: QuerySet[M],
    worker: str,
    lease_s: float,
    caps: Caps,
    *,
    give_up: Callable[[M, str], object],
    ready: Callable[[], bool] = lambda: True,
    fields: Callable[[M, datetime], dict[str, Any]] = lambda row, now: {},
    skip_locked: bool = False,
) -> Claim[M] | None:
    """Claim the oldest claimable row of ``rows``, one short transaction a try: when
    ``ready()`` (asked first, inside the transaction) says one may be taken. A row at one of
    its ``caps`` is handed to ``give_up(row, verdict)`` (inside the transaction) and the next
    one looked at. The row is taken with an UPDATE that only matches if no other worker took
    it meanwhile, writing :func:`taking`'s fields and the kind's own ``fields(row, now)``.
    ``skip_locked``: on PostgreSQL, a row another claim has locked is passed over."""
    for _ in range(CLAIM_TRIES):
        with transaction.atomic():
            if not ready():
                return None
            now = shared_now()
            waiting = rows.filter(claimable(now)).order_by("id")
            if skip_locked and connection.features.has_select_for_update_skip_locked:
                waiting = waiting.select_for_update(skip_locked=True)
            row = waiting.first()
            if row is None:
                return None
            if verdict := caps.given_up(row):
                give_up(row, verdict)
                continue
            taken = taking(row, worker, lease_s, now) | fields(row, now)
            if not take(row, taken):
                continue
        for name, value in taken.items():
            setattr(row, name, value)
        return Claim(row, worker, row.attempts)  # type: ignore[attr-defined]
    return None


def take(row: Model, fields: dict[str, Any], *also: str, unless: Exists | None = None) -> bool:
    """Write a claim's ``fields`` to ``row`` only if nobody changed it since it was read
    (its status and attempts, and the fields named in ``also``, are as read), and, with
    ``unless``, only if that does not hold as the row is written (one statement)."""
    unchanged = {name: getattr(row, name) for name in ("status", "attempts", *also)}
    rows = type(row)._default_manager.filter(pk=row.pk, **unchanged)
    if unless is not None:
        rows = rows.filter(~unless)
    return bool(rows.update(**fields))


def heartbeat(claim: Claim, lease_s: float) -> bool:
    """Extend the lease; False if the row is no longer ours (its lease ran out and another
    worker took it)."""
    return bool(claim.rows().update(**beating(lease_s)))


def release(claim: Claim, error: str = "", *, our_error: bool = False, **fields: Any) -> bool:
    """Give the row back to the queue: the worker is stopping or cannot run it (nothing is
    counted), or running it ended in an error of ours (``our_error``: counted against the
    cap of errors). ``fields``: what the kind resets besides. False if it was not ours."""
    fields |= {"status": QUEUED, "lease_until": None, "error": untrusted.clean_text(error)}
    if our_error:
        fields["errors"] = F("errors") + 1
    return bool(claim.rows().update(**fields))


def end(rows: QuerySet, status: str, **fields: Any) -> int:
    """Give ``rows`` a final status, with no lease; how many there were. ``finished`` is on
    the clock of their ``started`` (:func:`taking`), so that the two tell how long it took."""
    return rows.update(status=status, lease_until=None, finished=shared_now(), **fields)


def end_held(claim: Claim, status: str, **fields: Any) -> bool:
    """:func:`end` the held row, only if it is still ours; False if it was not."""
    return bool(end(claim.rows(), status, **fields))


def lock_held(claim: Claim) -> bool:
    """Inside a transaction: lock the held row until it ends, if it is still ours (a store
    that writes other rows beside it); False if it is not."""
    return claim.rows().select_for_update().exists()
