"""The lease shared by match jobs, solves and playground runs
(``bots.competition.leases``), on match jobs' rows: the kinds' own tests check it through their
claims."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots import competition
from bots.competition import leases
from bots.models import MatchJob
from tests.competition.conftest import builtin_code


@pytest.fixture
def jobs(alice, bob, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 2, seed=21)  # two deals
    return list(tournament.jobs.order_by("id"))


def test_the_oldest_row_is_taken_and_one_at_its_caps_is_given_up(jobs):
    MatchJob.objects.filter(pk=jobs[0].pk).update(errors=2, error="a bug")
    given_up = []

    def give_up(row: MatchJob, verdict: str) -> None:
        given_up.append((row.pk, verdict))
        leases.end(MatchJob.objects.filter(pk=row.pk), MatchJob.FAILED, error=verdict)

    held = leases.claim_oldest(
        MatchJob.objects.all(),
        "w1",
        60,
        leases.Caps(errors=2),
        give_up=give_up,
        fields=lambda row, now: {"error": "kind's own"},
    )
    assert given_up == [(jobs[0].pk, "failed 2 times; the last time: a bug")]
    assert (held.job.pk, held.worker, held.attempt) == (jobs[1].pk, "w1", 1)
    row = MatchJob.objects.get(pk=jobs[1].pk)
    assert (row.status, row.worker, row.attempts, row.error) == ("running", "w1", 1, "kind's own")
    assert held.job.lease_until == row.lease_until > timezone.now() + timedelta(seconds=50)


def test_nothing_is_taken_when_the_kind_says_not_now(jobs):
    held = leases.claim_oldest(
        MatchJob.objects.all(), "w1", 60, leases.Caps(), give_up=print, ready=lambda: False
    )
    assert held is None
    assert not MatchJob.objects.filter(status=MatchJob.RUNNING).exists()


def test_a_take_loses_to_a_claim_made_since_the_row_was_read(jobs):
    stale = MatchJob.objects.get(pk=jobs[0].pk)
    first = competition.claim("w1", 60)
    assert first.job.pk == stale.pk
    assert not leases.take(stale, leases.taking(stale, "w2", 60, timezone.now()))
    assert MatchJob.objects.get(pk=stale.pk).worker == "w1"


def test_every_write_checks_the_token(jobs):
    held = competition.claim("w1", 60)
    stale = leases.Claim(held.job, "w1", held.attempt - 1)
    assert not leases.heartbeat(stale, 60)
    assert not leases.release(stale, "stale")
    assert not leases.end_held(stale, MatchJob.FAILED)
    assert leases.end_held(held, MatchJob.FAILED, error="ours")
    row = MatchJob.objects.get(pk=held.job.pk)
    assert (row.status, row.lease_until, row.error) == (MatchJob.FAILED, None, "ours")
    assert row.finished is not None
    assert not leases.heartbeat(held, 60)  # ended: no longer running


def test_a_worker_whose_clock_runs_ahead_claims_no_job_another_worker_holds(jobs, clock_ahead):
    """Leases are on the database's clock (bots.clock): a worker on a machine whose clock
    runs 30 s ahead of the others' finds w1's 20 s lease, just taken, still running, and
    takes the next job (such a worker once took jobs others were still playing, which were
    then played twice). Its own lease runs 20 s on that clock too."""
    held = competition.claim("w1", 20)
    assert held.job.pk == jobs[0].pk
    clock_ahead(30)
    other = competition.claim("w2", 20)
    # (the next job of another deal: jobs[1] is its deal's other seating, w1's to play)
    assert jobs[1].seed == jobs[0].seed != jobs[2].seed
    assert other is not None and other.job.pk == jobs[2].pk
    row = MatchJob.objects.get(pk=held.job.pk)
    assert (row.worker, row.attempts) == ("w1", 1)
    assert leases.heartbeat(held, 20)  # still w1's
    lease = MatchJob.objects.get(pk=other.job.pk).lease_until
    database_now = timezone.now() - timedelta(seconds=30)
    assert abs(lease - database_now - timedelta(seconds=20)) < timedelta(seconds=5)
