"""A tournament's jobs by status, counted at most once every few seconds whatever the number
of pages open on it, web processes and workers storing its matches: the count is kept in the
shared cache (Redis where the site has one), and when it is older than
:data:`JOBS_COUNTED_S` one process (the first to ask) counts again while the others read the
last count. Its pages and every batch of matches a worker stores (which it tells the pages
of) read the one count.

The count reads the index of jobs by tournament and status alone (``job_tournament_status``),
not the jobs: at 830,000 jobs, of which 520,000 were of the six open tournaments, it read
3.7 MB of index instead of the whole 160 MB table."""

from __future__ import annotations

from django.core.cache import caches
from django.db.models import Count

from bots.models import MatchJob, Tournament
from bots.outages import REDIS_UNREACHABLE

#: how long a count of a running tournament's jobs by status is fresh (seconds); past it, the
#: first process to ask counts again, and the others read the last count meanwhile
JOBS_COUNTED_S = 2
#: how long a running tournament's last count is kept to be read while it is counted again
#: (a process that died counting leaves it to the next one to ask, JOBS_COUNTED_S later)
JOBS_KEPT_S = 60
#: the same for a finished tournament, whose jobs no longer change
JOBS_COUNTED_DONE_S = 300


def cache_keys(tournament: Tournament) -> tuple[str, str]:
    """The shared cache's keys of the tournament's count and of its being fresh. A
    tournament that changes state is counted afresh (its state is part of the key), so a
    finished one never shows the counts of its last seconds; so is a tournament of a database
    made again (its creation time is part of the key too)."""
    t = tournament
    count = f"tournament-jobs:{t.pk}:{t.created.timestamp()}:{t.state}"
    return count, f"{count}:fresh"


def jobs_by_status(tournaments: list[Tournament]) -> dict[int, dict[str, int]]:
    """Each tournament's jobs by status (queued, running, done, failed): from the shared cache
    where they were counted in the last :data:`JOBS_COUNTED_S` seconds, or where another
    process is counting them again; the others counted in one query. While the cache cannot
    be reached, every count is made."""
    cache = caches["default"]
    keys = {t.pk: cache_keys(t) for t in tournaments}
    try:
        found = cache.get_many([key for pair in keys.values() for key in pair])
    except REDIS_UNREACHABLE:
        found = {}
    counts: dict[int, dict[str, int]] = {}
    missing = []
    for t in tournaments:
        count, fresh = keys[t.pk]
        if count in found and (t.state == Tournament.DONE or fresh in found or not _turn(fresh)):
            counts[t.pk] = found[count]
        else:
            missing.append(t)
    if not missing:
        return counts
    for t in missing:
        counts[t.pk] = {status: 0 for status, _ in MatchJob.STATUSES}
    # COUNT(*), not of a column: the index on (tournament, status) holds all it reads
    jobs = MatchJob.objects.filter(tournament_id__in=[t.pk for t in missing])
    for row in jobs.values("tournament_id", "status").annotate(n=Count("*")).order_by():
        counts[row["tournament_id"]][row["status"]] = row["n"]
    done = {keys[t.pk][0]: counts[t.pk] for t in missing if t.state == Tournament.DONE}
    running = [t for t in missing if t.state != Tournament.DONE]
    try:
        cache.set_many(done, JOBS_COUNTED_DONE_S)
        cache.set_many({keys[t.pk][0]: counts[t.pk] for t in running}, JOBS_KEPT_S)
        cache.set_many({keys[t.pk][1]: True for t in running}, JOBS_COUNTED_S)
    except REDIS_UNREACHABLE:
        pass
    return counts


def _turn(fresh: str) -> bool:
    """Whether this process is the one to count a tournament again, its count being older than
    JOBS_COUNTED_S: the first to mark it fresh (an atomic add in the shared cache) is, and
    the others read the last count for the moment it takes. Yes when the cache cannot say."""
    try:
        return bool(caches["default"].add(fresh, True, JOBS_COUNTED_S))
    except REDIS_UNREACHABLE:
        return True
