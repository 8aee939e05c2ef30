"""Claiming several jobs at once and storing their results together: a fair share of the
queue, the same ratings as one by one, leases that give a dead worker's jobs back, a store
tried again, a bounded number of statements whatever the batch, and a result that cannot be
stored counted against its own job only.

SQLite (a single writer) claims one job at a time: there a batch is one job, and the tests
check that instead."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DataError, OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots import competition
from bots.models import Match, MatchJob, Rating, RatingHistory
from bots.running.playing import Entry, play
from bots.worker import Options, Worker
from games.engine import untrusted
from games.registry import get_game
from tests.competition.conftest import builtin_code
from tests.competition.test_storing import MOST_STATEMENTS


def _played(job: MatchJob):
    versions = competition.seat_versions(job)
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
    return play(get_game("rps-poker"), entries, seed=job.seed)


def _batch(wanted: int) -> int:
    """How many jobs a claim of ``wanted`` takes from a long enough queue."""
    return wanted if connection.features.has_select_for_update_skip_locked else 1


@pytest.fixture
def three(alice, bob, carol, active_bot):
    for owner, name in ((alice, "simple"), (bob, "strong"), (carol, "minimal")):
        active_bot(owner, name, builtin_code(name))


def test_a_claim_takes_several_jobs_in_order_and_shares_the_end_of_the_queue(three):
    tournament = competition.start_round_robin("rps-poker", 1, seed=31)  # 6 jobs
    jobs = list(tournament.jobs.order_by("id").values_list("id", flat=True))
    first = competition.claim_many("w1", 60, 4)
    assert [held.job.pk for held in first] == jobs[: _batch(4)]
    assert {(held.worker, held.attempt) for held in first} == {("w1", 1)}
    running = MatchJob.objects.filter(status=MatchJob.RUNNING, worker="w1")
    assert running.count() == _batch(4)
    if connection.features.has_select_for_update_skip_locked:
        # (the two left on deals of their own: as they were dealt, their deals' other
        # seatings are w1's, and wait for it: tests/competition/test_deal_one_at_a_time.py)
        for n, pk in enumerate(jobs[4:]):
            MatchJob.objects.filter(pk=pk).update(seed=10_000 + n)
        # two jobs left and w1 holds jobs: w2 takes its half, not both
        second = competition.claim_many("w2", 60, 4)
        assert [held.job.pk for held in second] == [jobs[4]]
        third = competition.claim_many("w3", 60, 4)
        assert [held.job.pk for held in third] == [jobs[5]]
        assert competition.claim_many("w4", 60, 4) == []


def test_the_jobs_of_a_worker_that_died_with_a_batch_are_all_taken_again(three):
    tournament = competition.start_round_robin("rps-poker", 1, seed=32)
    dead = competition.claim_many("dead", 60, 6)
    assert len(dead) == _batch(6)
    # its heartbeat stopped: the leases run out
    tournament.jobs.filter(worker="dead").update(lease_until=timezone.now() - timedelta(1))
    rescued = []
    while batch := competition.claim_many("rescuer", 60, 6):
        rescued += batch
    assert {held.job.pk for held in dead} <= {held.job.pk for held in rescued}
    assert {held.job.pk for held in rescued} == set(tournament.jobs.values_list("id", flat=True))
    assert {held.attempt for held in rescued if held.job.pk in {h.job.pk for h in dead}} == {2}
    # the dead worker's results come too late: not stored
    late = [(held, _played(held.job)) for held in dead]
    assert competition.store_results(late) == [None] * len(dead)
    results = [(held, _played(held.job)) for held in rescued]
    assert all(competition.store_results(results))
    assert Match.objects.filter(tournament=tournament).count() == 6
    assert not Match.objects.filter(rated=False).exists()


def _ratings_when_stored_in(batches: list[list[int]]) -> dict[str, tuple[float, float]]:
    """One tournament whose results are stored in these batches (indexes of its jobs, a
    batch stored together); undone afterwards."""
    with transaction.atomic():
        tournament = competition.start_round_robin("rps-poker", 1, seed=33)
        held = [competition.claim("w", 60) for _ in range(tournament.jobs.count())]
        results = [(h, _played(h.job)) for h in held]
        for batch in batches:
            stored = competition.store_results([results[n] for n in batch])
            assert all(stored)
        ratings = {r.bot.name: (r.mu, r.sigma) for r in Rating.objects.select_related("bot")}
        assert RatingHistory.objects.count() == 12
        transaction.set_rollback(True)
    return ratings


def test_results_stored_together_rate_as_they_would_one_by_one(three):
    one_by_one = _ratings_when_stored_in([[0], [1], [2], [3], [4], [5]])
    assert _ratings_when_stored_in([[0, 1, 2, 3, 4, 5]]) == one_by_one
    assert _ratings_when_stored_in([[5, 3], [4, 1, 2], [0]]) == one_by_one


def test_a_batch_takes_no_more_statements_than_one_store_may(three, monkeypatch):
    """Ten results stored together take about what one store may take: the statements grow
    with the bots a batch rates (a rating and a row each: here three bots where one match
    has two), not with its results. (Moving a slow bot's queued jobs back takes one more
    transaction per such bot, by how long its matches took on this machine: out of this
    count, see tests/competition/test_worker_time.py.)"""
    monkeypatch.setattr(competition, "TURN_S", 1e9)
    competition.start_round_robin("rps-poker", 2, seed=34)  # 12 jobs
    held = [competition.claim("w1", 60) for _ in range(12)]
    results = [(h, _played(h.job)) for h in held]
    counts = []
    for batch in (results[:2], results[2:12]):
        with CaptureQueriesContext(connection) as queries:
            assert all(competition.store_results(batch))
        counts.append(len(queries.captured_queries))
    assert counts[1] <= MOST_STATEMENTS + 2, counts
    assert not Match.objects.filter(rated=False).exists()
    assert RatingHistory.objects.count() == 24


def test_records_stored_together_come_back_as_they_were_played(three):
    """Several records in one insert, each with what a bot may have made of its answers:
    quotes, backslashes, braces, commas, newlines, text that looks like an escape, NUL and
    non-ASCII. On PostgreSQL they go as VALUES, one parameter a record (an array of
    JSON texts for UNNEST was escaped in Python, most of a batch's store)."""
    competition.start_round_robin("rps-poker", 1, seed=37)
    held = [competition.claim("w1", 60) for _ in range(6)]
    results = [(h, _played(h.job)) for h in held]
    hostile = 'say "hi" \\ {"a": [1, 2]}, \\u0000\n\t\x00 \u00e9\U0001f0a1 NULL'
    for n, (_, played) in enumerate(results):
        played.outcome.record["said"] = {hostile: [hostile, n], "n": n}
    with CaptureQueriesContext(connection) as queries:
        assert all(competition.store_results(results))
    inserts = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith('INSERT INTO "bots_match"')
    ]
    assert len(inserts) == 1
    if connection.vendor == "postgresql":
        assert "UNNEST" not in inserts[0] and "VALUES" in inserts[0]
    stored = {m.job_id: m.record for m in Match.objects.all()}
    for h, played in results:
        assert stored[h.job.pk] == untrusted.storable(played.outcome.record)
    cleaned = hostile.replace("\x00", untrusted.REPLACEMENT)
    assert stored[results[2][0].job.pk]["said"] == {cleaned: [cleaned, 2], "n": 2}


def test_a_batch_store_tried_again_after_its_results_were_committed_goes_on(three, monkeypatch):
    competition.start_round_robin("rps-poker", 1, seed=35)
    held = [competition.claim("w1", 60) for _ in range(3)]
    results = [(h, _played(h.job)) for h in held]
    real = competition.rate_pending

    def away(game: str, **kwargs: object) -> int:
        raise OperationalError("the database went away")

    monkeypatch.setattr(competition, "rate_pending", away)
    with pytest.raises(OperationalError):
        competition.store_results(results)
    stored = list(Match.objects.order_by("job_id"))
    assert [m.job_id for m in stored] == [h.job.pk for h in held]
    assert not any(m.rated for m in stored)
    monkeypatch.setattr(competition, "rate_pending", real)
    assert competition.store_results(results) == stored
    # the round's other seatings: each deal is rated with its last seating
    twins = [competition.claim("w1", 60) for _ in range(3)]
    competition.store_results([(h, _played(h.job)) for h in twins])
    assert Match.objects.count() == 6 and not Match.objects.filter(rated=False).exists()


def test_a_worker_plays_a_batch_and_stores_it(three):
    tournament = competition.start_round_robin("rps-poker", 1, seed=36)
    worker = Worker(Options(validate=False, claim=4), name="w1")
    assert worker.batch_size() == 1  # how long a match takes is not known yet
    assert worker.step() is True
    assert tournament.jobs.filter(status=MatchJob.DONE).count() == 1
    assert worker.match_s is not None  # the length of that one
    worker.match_s = 0.01  # quick matches: as many as it may claim
    assert worker.batch_size() == 4
    assert worker.step() is True
    assert tournament.jobs.filter(status=MatchJob.DONE).count() == 1 + _batch(4)
    worker.match_s = 0.4  # slow ones: about a second of play
    assert worker.batch_size() == 2
    worker.run(batch=True)
    assert worker.counters.played == 6
    assert set(tournament.jobs.values_list("status", "attempts")) == {(MatchJob.DONE, 1)}
    assert not Match.objects.filter(rated=False).exists()


def test_a_result_that_cannot_be_stored_fails_its_own_job_only(three, monkeypatch):
    tournament = competition.start_round_robin("rps-poker", 1, seed=37)
    bad = tournament.jobs.order_by("id").values_list("id", flat=True)[1]
    real = competition.store_results

    def picky(results, **kwargs):
        if any(held.job.pk == bad for held, _ in results):
            raise DataError("bad")
        return real(results, **kwargs)

    monkeypatch.setattr(competition, "store_results", picky)
    worker = Worker(Options(validate=False, claim=3, max_attempts=1), name="w1")
    worker.run(batch=True)
    jobs = dict(tournament.jobs.values_list("id", "status"))
    assert jobs.pop(bad) == MatchJob.FAILED
    assert set(jobs.values()) == {MatchJob.DONE}
    failed = MatchJob.objects.get(pk=bad)
    assert failed.errors == 1 and "could not store on w1: DataError: bad" in failed.error
    assert Match.objects.filter(tournament=tournament).count() == 5
