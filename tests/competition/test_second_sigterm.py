"""A second SIGTERM (scripts/run-site sends one to a worker whose match outlasts its stop's
few seconds) gives every job the worker holds back to the queue at once, nothing counted:
another worker can take them right away, not after their lease (tests/deploy/
test_run_site_stop.py for run-site's side)."""

from __future__ import annotations

from bots import competition
from bots.models import MatchJob
from bots.worker import Options, Worker
from tests.competition.conftest import builtin_code


def test_a_second_sigterm_mid_match_leaves_every_held_job_free_at_once(
    alice, bob, active_bot, monkeypatch
):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=41)
    worker = Worker(Options(validate=False, claim=4), name="stopped")
    worker.match_s = 0.01  # quick matches: it claims a batch of them

    def told_twice_while_playing(*_args, **_kwargs):
        worker.on_sigterm()  # scripts/run-site's stop
        worker.on_sigterm()  # its second SIGTERM, a few seconds later

    monkeypatch.setattr(competition, "play_job", told_twice_while_playing)
    assert worker.run() == 0
    assert worker.counters.released >= 1
    jobs = tournament.jobs.all()
    assert {(job.status, job.lease_until, job.errors) for job in jobs} == {
        (MatchJob.QUEUED, None, 0)
    }
    assert {job.error for job in jobs if job.attempts} == {"the worker was stopped"}
    # another worker takes the first of them at once
    taken = competition.claim("other", lease_s=60)
    assert taken is not None and taken.job.pk == min(job.pk for job in jobs)
