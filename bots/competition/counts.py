"""A tournament's jobs by status, counted at most once every few seconds whatever the number
of pages open on it, web processes and workers storing its matches: the count is kept in the
shared cache (Redis where the site has one). A tournament of 250,000 jobs takes tens of
milliseconds of the database to count; its pages and every batch of matches a worker stores
(which it tells the pages of) read the one count."""

from __future__ import annotations

from django.core.cache import caches
from django.db.models import Count

from bots.models import MatchJob, Tournament
from bots.outages import REDIS_UNREACHABLE

#: how long a count of a running tournament's jobs by status is kept (seconds)
JOBS_COUNTED_S = 2
#: the same for a finished tournament, whose jobs no longer change
JOBS_COUNTED_DONE_S = 300


def jobs_by_status(tournaments: list[Tournament]) -> dict[int, dict[str, int]]:
    """Each tournament's jobs by status (queued, running, done, failed), from the shared
    cache where they were counted in the last :data:`JOBS_COUNTED_S` seconds, the others
    counted in one query. A tournament that changes state is counted afresh (its state is
    part of the key), so a finished one never shows the counts of its last seconds; so is
    a tournament of a database made again (its creation time is part of the key too). While
    the cache cannot be reached, every count is made."""
    cache = caches["default"]
    keys = {t.pk: f"tournament-jobs:{t.pk}:{t.created.timestamp()}:{t.state}" for t in tournaments}
    try:
        found = cache.get_many(list(keys.values()))
    except REDIS_UNREACHABLE:
        found = {}
    counts = {pk: found[key] for pk, key in keys.items() if key in found}
    missing = [t for t in tournaments if t.pk not in counts]
    if not missing:
        return counts
    for t in missing:
        counts[t.pk] = {status: 0 for status, _ in MatchJob.STATUSES}
    jobs = MatchJob.objects.filter(tournament_id__in=[t.pk for t in missing])
    for row in jobs.values("tournament_id", "status").annotate(n=Count("id")).order_by():
        counts[row["tournament_id"]][row["status"]] = row["n"]
    for done in (False, True):
        fresh = {keys[t.pk]: counts[t.pk] for t in missing if (t.state == Tournament.DONE) == done}
        try:
            cache.set_many(fresh, JOBS_COUNTED_DONE_S if done else JOBS_COUNTED_S)
        except REDIS_UNREACHABLE:
            break
    return counts
