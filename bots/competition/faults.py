"""Taking off the ladder a version that faults in its rated matches after validation.

Validation plays a new version a couple of matches; nothing stops code from behaving there
and failing afterwards (it can read the clock, or count its calls). Such a version would stay
active for ever, every round spending worker time on it and handing forfeit wins to whoever
it meets. So, the rule: a version whose last :data:`FAULTS_IN_A_ROW` (5) stored matches
each ended with a fault of its own seat is taken off the ladder. Its status becomes
``rejected`` with a reason in its owner's words and the time in ``taken_off``; its queued
matches are withdrawn as retiring does it, it leaves the ranking, and its results, rating
and history stay (they were played).

What counts:

- only faults stored against the bot, in its own seat: the platform's trouble is never
  stored as a fault (docs/competition.md, "Platform trouble"), and another seat's fault is
  not its own;
- any match it finishes without a fault of its own ends the run of faults;
- a forfeit for being out of worker time in a tournament (fault ``time``) neither counts
  nor ends a run: the bound on worker time (bots.competition, Worker time) forfeits the rest
  of a slow bot's matches in a tournament, which says nothing of its code and would take a
  slow but sound bot off after one large round;
- the site's built-in bots are never taken off (their faults would be the platform's);
- only a tournament's matches count (those of a match job): a live table's match neither
  counts nor ends a run (its owner, or anyone, could otherwise take a bot off, or keep a
  crashing one on, by playing it at tables).

"In a row" is in the order the matches were stored (their ids). The check reads the
version's last matches, so it counts nothing of its own: a match is counted once because it
is stored once, and a store tried again checks again harmlessly. It runs after the store's
transaction has committed (:func:`bots.competition.store_results`), only for versions whose
last seat in the batch faulted (a batch without faults costs no statement), and of two
workers storing a version's faults at once, the one that commits last sees both. Taking off
is one conditional UPDATE (``status = active``), so only one of them does it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bots.competition.leaving import WITHDRAWN as WITHDRAWN_PREFIX
from bots.competition.leaving import is_builtin, withdraw_queued_jobs
from bots.ladder.ratings import lock_ledger, rerank
from bots.models import BotVersion, MatchJob, MatchSeat
from bots.outages import DATABASE_AWAY
from bots.running.playing import Played
from games.engine import untrusted

log = logging.getLogger("bots.competition.faults")

#: faults of its own in this many rated matches in a row take a version off the ladder
#: (Django setting LADDER_FAULTS_IN_A_ROW). A bot that faults in one match of ten at random
#: is taken off after some 110,000 matches on average, one that faults in one of five after
#: some 3,900, one that faults in every match after 5
FAULTS_IN_A_ROW = 5
#: fault kinds that neither count nor end a run: out of worker time in a tournament
NOT_COUNTED = frozenset({"time"})
#: how much of the last fault's reason (the bot's own words: its exception's message) the
#: reason keeps
REASON_CHARS = 200
#: the queued matches of a version taken off end failed with this error
WITHDRAWN = f"{WITHDRAWN_PREFIX}the bot was taken off the ladder for faulting in its rated matches"


def faults_in_a_row() -> int:
    return max(1, int(getattr(settings, "LADDER_FAULTS_IN_A_ROW", FAULTS_IN_A_ROW)))


def counted(kind: str) -> bool:
    """Whether a seat's fault of this kind counts towards taking its version off."""
    return bool(kind) and kind not in NOT_COUNTED


def reason_for(count: int, match_id: int, kind: str, why: str) -> str:
    """The reason its owner reads (My bots, the bot's page, ``manage.py standings``)."""
    why = untrusted.one_line(why, REASON_CHARS)
    last = f"{kind}: {why}" if why else kind
    return (
        f"taken off the ladder: it faulted in {count} rated matches in a row after validation "
        f"(the last, in match {match_id}: {last}); upload a fixed version"
    )


def last_faulted(results: Iterable[tuple[MatchJob, Played]]) -> list[int]:
    """The versions whose last counted seat among these stored results (in the order they
    were stored) ended with a fault of their own: the only ones worth checking."""
    last: dict[int, bool] = {}
    for job, played in results:
        for version, report in zip(job.seats, played.seats, strict=False):
            if report.fault_kind in NOT_COUNTED:
                continue
            last[version] = counted(report.fault_kind)
    return sorted(version for version, faulted in last.items() if faulted)


def check(results: Sequence[tuple[MatchJob, Played]]) -> list[BotVersion]:
    """After a store has committed: take off the ladder every version of these results whose
    last :func:`faults_in_a_row` stored matches each ended with a fault of its own. Returns
    the versions taken off now. An outage propagates (the store is tried again, and so is
    this); any other error is logged and left for the next fault to check again: it never
    fails the store."""
    taken = []
    for version_id in last_faulted(results):
        try:
            version = check_version(version_id)
        except DATABASE_AWAY:
            raise
        except Exception:
            log.exception("event=version.fault_check_failed version=%s", version_id)
            continue
        if version is not None:
            taken.append(version)
    return taken


def check_version(version_id: int) -> BotVersion | None:
    """Take the version off if it is active and its last :func:`faults_in_a_row` stored
    matches (``time`` forfeits aside) each ended with a fault of its own; the version, or
    None. Two statements when it stays: the version, then its last seats in tournaments
    (read newest first through the index of a bot's seats, ``seat_bot_latest``, each
    match's row by its key to see that it is a job's)."""
    version = (
        BotVersion.objects.filter(pk=version_id, status=BotVersion.ACTIVE)
        .select_related("bot", "bot__owner")
        .defer("code", "validation_log")
        .first()
    )
    if version is None or is_builtin(version):
        return None
    count = faults_in_a_row()
    seats = list(
        # a tournament's matches only (a job's): a match at a live table is played against
        # people whoever asks, so its faults neither count nor end a run
        MatchSeat.objects.filter(
            bot_id=version.bot_id, version_id=version.pk, match__job__isnull=False
        )
        .exclude(fault_kind__in=NOT_COUNTED)
        .order_by("-match_id")
        .values_list("match_id", "fault_kind", "fault_reason")[:count]
    )
    if len(seats) < count or not all(kind for _, kind, _ in seats):
        return None
    match_id, kind, why = seats[0]
    return take_off(version, reason_for(count, match_id, kind, why))


def take_off(version: BotVersion, reason: str) -> BotVersion | None:
    """Take an active version off the ladder: ``rejected`` with ``reason`` and the time in
    ``taken_off``, its queued matches withdrawn, its bot out of the ranking (its rating,
    results and history stay). One conditional UPDATE decides: of several workers that find
    the same faults at once, one takes it off; the others get None. The version's row, then
    the game's rating ledger, as retiring takes them."""
    game = version.bot.game
    now = timezone.now()
    reason = untrusted.clean_text(reason)
    with transaction.atomic():
        won = BotVersion.objects.filter(pk=version.pk, status=BotVersion.ACTIVE).update(
            status=BotVersion.REJECTED, reason=reason, taken_off=now
        )
        if not won:
            return None
        version.status, version.reason, version.taken_off = BotVersion.REJECTED, reason, now
        lock_ledger(game)
        withdrawn = withdraw_queued_jobs(version, WITHDRAWN)
        rerank(game)  # it leaves the ranking; its row, rating and history stay
    log.warning(
        "event=version.taken_off version=%s bot=%r withdrawn=%d reason=%r",
        version.pk,
        f"{version.bot.label} v{version.number}",
        withdrawn,
        reason,
    )
    return version


def taken_off_text(version: BotVersion) -> str:
    """What anyone may read of a version taken off (the reason is its owner's)."""
    return f"v{version.number} was taken off the ladder for faulting in its rated matches"
