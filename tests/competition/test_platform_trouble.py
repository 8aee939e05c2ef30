"""The platform's trouble is never a bot's fault, a rejection or a rated result: the worker
gives such a job back (voided at its cap of claims, saying so), defers such a validation,
drops the faults of a match its own shutdown may have caused, and never rejects the site's
built-in bots."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from bots import competition, playground
from bots.competition import leases, leaving, uploads
from bots.models import BotVersion, Match, MatchJob, PlaygroundRun, Rating, Tournament
from bots.running.process import PlatformError
from bots.sandbox import SandboxBusy
from bots.worker import Interrupted, Options, Worker
from tests.competition.conftest import builtin_code, misbehaving
from tests.playground.conftest import given_up, queue


@pytest.fixture
def two_bots(alice, bob, active_bot):
    return active_bot(alice, "simple", builtin_code("simple")), active_bot(
        bob, "strong", builtin_code("strong")
    )


def busy(job, cache=None, versions=None, spent=None, seen=True):
    raise SandboxBusy("no free sandbox slot: all 64 (uids 60000-60063) in use")


def quick_worker(**options) -> Worker:
    return Worker(Options(validate=False, poll_s=0, **options), name="w1")


def ratings(versions) -> list[tuple[float, float]]:
    return [(r.mu, r.sigma) for r in Rating.objects.filter(bot__versions__in=versions)]


def test_a_job_without_a_free_slot_goes_back_to_the_queue_with_nothing_counted(
    two_bots, monkeypatch
):
    tournament = competition.start_round_robin("rps-poker", 1, seed=11)
    before = ratings(two_bots)
    monkeypatch.setattr(competition, "play_job", busy)
    worker = quick_worker()
    assert worker.step() is True
    job = tournament.jobs.order_by("id").first()
    assert (job.status, job.errors, job.attempts) == (MatchJob.QUEUED, 0, 1)
    assert job.error.startswith(leases.PLATFORM + "no free sandbox slot")
    assert "(on w1)" in job.error
    assert not Match.objects.exists()  # no fault stored, nothing rated
    assert ratings(two_bots) == before
    # once slots are free again it is played as any job
    monkeypatch.undo()
    assert worker.run(batch=True) == 2
    job.refresh_from_db()
    assert job.status == MatchJob.DONE
    assert not Match.objects.exclude(participants__fault_kind="").exists()


def test_a_job_the_platform_never_could_play_is_voided_saying_so(two_bots, monkeypatch):
    tournament = competition.start_round_robin("rps-poker", 1, seed=12)
    monkeypatch.setattr(competition, "play_job", busy)
    worker = quick_worker(max_claims=3)
    worker.run(batch=True)
    jobs = list(tournament.jobs.all())
    assert {job.status for job in jobs} == {MatchJob.FAILED}
    for job in jobs:
        assert job.error.startswith("voided after 3 tries: " + leases.PLATFORM)
        assert job.error.endswith("no bot is charged for it and nothing is rated")
        assert job.errors == 0
    assert not Match.objects.exists()
    tournament.refresh_from_db()
    assert tournament.state == Tournament.DONE


def test_faults_of_a_match_played_while_the_worker_was_stopped_are_not_the_bots(
    two_bots, monkeypatch
):
    # A service manager stopping the worker signals every process of its group: the bots
    # die with "crash" during the match the worker finishes. That match is played again.
    tournament = competition.start_round_robin("rps-poker", 1, seed=13)
    real = competition.play_job
    worker = quick_worker()

    def shut_down(job, cache=None, versions=None, spent=None, seen=True):
        played = real(job, cache, versions, spent)
        worker.on_sigterm()
        played.seats[0].fault_kind = "crash"
        played.seats[0].fault_reason = "the bot was killed by SIGTERM during main_play"
        return played

    monkeypatch.setattr(competition, "play_job", shut_down)
    assert worker.run() == 1
    assert not Match.objects.exists()
    job = tournament.jobs.order_by("id").first()
    assert job.status == MatchJob.QUEUED and job.errors == 0
    assert job.error == leases.PLATFORM + "the worker was stopped during it (crash)"


def test_a_match_without_faults_is_stored_even_by_a_stopping_worker(two_bots, monkeypatch):
    competition.start_round_robin("rps-poker", 1, seed=14)
    real = competition.play_job
    worker = quick_worker()

    def stopped(job, cache=None, versions=None, spent=None, seen=True):
        worker.on_sigterm()
        return real(job, cache, versions, spent)

    monkeypatch.setattr(competition, "play_job", stopped)
    assert worker.run() == 1
    assert Match.objects.count() == 1


# ---- validation -----------------------------------------------------------------------------
@pytest.fixture
def waiting(alice):
    return uploads.upload(alice, "rps-poker", "later", "later.py", builtin_code("simple").encode())


def test_a_validation_without_a_free_slot_waits_and_is_never_rejected(waiting, monkeypatch):
    def no_slot(version, quick=None):
        raise SandboxBusy("no free sandbox slot: all 64 in use")

    monkeypatch.setattr(uploads, "run_validation", no_slot)
    worker = Worker(Options(poll_s=0), name="w1")
    for _ in range(25):  # more tries than any cap
        assert worker.validate_one() is True
        waiting.refresh_from_db()
        assert waiting.status == BotVersion.VALIDATING
        assert waiting.validation_claims == 0 and waiting.validation_errors == 0
        assert waiting.validation_lease > timezone.now()  # tried again after a pause
        BotVersion.objects.filter(pk=waiting.pk).update(validation_lease=None)
    assert waiting.validation_log.startswith("validation waits: no free sandbox slot")
    monkeypatch.undo()
    assert worker.validate_one() is True
    waiting.refresh_from_db()
    assert waiting.status == BotVersion.ACTIVE


def test_a_failed_validation_while_the_worker_stops_is_no_verdict(waiting, monkeypatch):
    crashed = uploads.ValidationResult(False, "crash: killed by SIGTERM", "log", fault_kind="crash")
    worker = Worker(Options(poll_s=0), name="w1")

    def stopped(version, quick=None):
        worker.on_sigterm()
        return crashed

    monkeypatch.setattr(uploads, "run_validation", stopped)
    assert worker.validate_one() is True
    waiting.refresh_from_db()
    assert waiting.status == BotVersion.VALIDATING
    assert "the worker was stopped during the validation" in waiting.validation_log


def test_a_worker_stopped_twice_during_a_validation_gives_it_back_uncounted(waiting, monkeypatch):
    """A second SIGTERM (run-site sends one to a worker still busy after 5 s, as during a
    Java compile) counted as a validation error of the platform's: three stops rejected a
    sound upload, "validation failed 3 times; the last time: error on vm:N: Interrupted"."""
    worker = Worker(Options(poll_s=0), name="w1")

    def stopped_twice(version, quick=None):
        worker.on_sigterm()
        worker.on_sigterm()

    monkeypatch.setattr(uploads, "run_validation", stopped_twice)
    for _ in range(5):  # more stops than the cap of errors
        worker.stopping = False
        with pytest.raises(Interrupted):
            worker.validate_one()
        waiting.refresh_from_db()
        assert waiting.status == BotVersion.VALIDATING
        assert waiting.validation_errors == 0 and waiting.validation_claims == 0
        assert waiting.validation_lease <= timezone.now()  # free for the next worker at once
    assert "the worker w1 was stopped during the validation" in waiting.validation_log
    assert "tried again by the next worker free" in waiting.validation_log
    monkeypatch.undo()
    assert Worker(Options(poll_s=0), name="w2").validate_one() is True
    waiting.refresh_from_db()
    assert waiting.status == BotVersion.ACTIVE


@pytest.fixture
def house(db) -> User:
    return User.objects.create_user(uploads.HOUSE)


def test_a_built_in_bot_that_fails_validation_is_retried_loudly_never_rejected(house, caplog):
    broken = misbehaving("raise RuntimeError('the platform broke this')")
    version = uploads.upload(house, "rps-poker", "simple", "simple.py", broken.encode())
    assert leaving.is_builtin(version)
    worker = Worker(Options(poll_s=0), name="w1")
    with caplog.at_level(logging.ERROR, logger="bots.competition.uploads"):
        assert worker.validate_one() is True
    version.refresh_from_db()
    assert version.status == BotVersion.VALIDATING and version.reason == ""
    assert version.validation_lease > timezone.now() + timedelta(seconds=30)
    assert "a platform error, not a verdict" in version.validation_log
    assert any(
        r.levelno == logging.ERROR and "event=builtin.validation_failed" in r.getMessage()
        for r in caplog.records
    )
    # not taken again before its pause, and never rejected at any cap
    assert worker.validate_one() is False
    BotVersion.objects.filter(pk=version.pk).update(
        validation_lease=None, validation_errors=10, validation_claims=50
    )
    assert uploads.claim_validation("w2", 60, leases.Caps(errors=3, claims=20)) is not None
    version.refresh_from_db()
    assert version.status == BotVersion.VALIDATING


def test_an_uploaded_bot_of_a_built_ins_name_is_judged_like_any_other(alice):
    broken = misbehaving("raise RuntimeError('mine')")
    version = uploads.upload(alice, "rps-poker", "simple", "simple.py", broken.encode())
    assert not leaving.is_builtin(version)
    uploads.validate(version)
    version.refresh_from_db()
    assert version.status == BotVersion.REJECTED


def test_validate_at_once_passes_platform_trouble_on_and_leaves_the_version_waiting(
    waiting, monkeypatch
):
    def no_sandbox(*args, **kwargs):
        raise PlatformError("the sandbox failed in its own set-up")

    monkeypatch.setattr("bots.running.playing.bot_launch", no_sandbox)
    with pytest.raises(PlatformError):
        uploads.validate(waiting)
    waiting.refresh_from_db()
    assert waiting.status == BotVersion.VALIDATING


# ---- the playground -------------------------------------------------------------------------
def test_a_playground_run_without_a_free_slot_is_given_back_then_voided(
    alice, settings, monkeypatch
):
    settings.PLAYGROUND_MAX_CLAIMS = 2
    run = queue(alice, matches=2)
    worker = Worker(Options(validate=False, solve=False, poll_s=0), name="w1")

    def no_slot(*args, **kwargs):
        raise SandboxBusy("no free sandbox slot: all 64 in use")

    monkeypatch.setattr(playground, "play_match", no_slot)
    for _ in range(2):
        assert worker.step() is True
        run.refresh_from_db()
        assert run.status == PlaygroundRun.QUEUED and run.errors == 0
        assert run.error.startswith(leases.PLATFORM)
        # taken again only after a pause, as a validation is: a brief shortage passes
        # meanwhile instead of using up the run's tries within a second
        assert run.lease_until > timezone.now() + timedelta(seconds=20)
        assert worker.step() is False
        PlaygroundRun.objects.filter(pk=run.pk).update(lease_until=timezone.now())
    worker.step()
    run.refresh_from_db()
    assert run.status == PlaygroundRun.FAILED
    # the site's trouble, said so on its page: not the person's, nor their bot's
    assert run.reason == (
        "The site could not play this run: a worker tried 2 times, and the last time every "
        "place the site runs bots in was taken. That is the site's trouble, not your bot's; "
        "start the run again later."
    )
    assert not run.played_matches.exists()


def test_a_run_whose_bot_was_killed_from_outside_says_so_in_whole_plain_sentences(alice):
    """The audit's page: "...tried: the bot's process was killed by SIGKILL from outside
    during act after 0.0 s of CPU (not by the platform, nor by its memory or CPU-time limit.
    That is the site's trouble, ..." (cut inside its parenthesis, and "not by the platform"
    against "the site's trouble")."""
    run = queue(alice, matches=2)
    killed = (
        "the bot's process was killed by SIGKILL from outside during act after 0.0 s of CPU "
        "(not by the platform, nor by its memory or CPU-time limit: the machine's OOM killer "
        "or an operator)"
    )
    reason = given_up(run, attempts=3, error=f"{leases.PLATFORM}{killed} (on vm:23904)")
    assert reason == (
        "The site could not play this run: a worker tried 3 times, and the last time a bot's "
        "process was stopped from outside the bot (the machine ran short of memory, or an "
        "operator stopped it). That is the site's trouble, not your bot's; start the run "
        "again later."
    )


def test_a_playground_match_whose_bots_a_stopping_worker_may_have_killed_is_not_kept(
    alice, monkeypatch
):
    run = queue(alice, matches=2)
    worker = Worker(Options(validate=False, solve=False, poll_s=0), name="w1")
    real = playground.play_match

    def shut_down(*args, **kwargs):
        played, seat = real(*args, **kwargs)
        worker.on_sigterm()
        played.seats[seat].fault_kind = "crash"
        return played, seat

    monkeypatch.setattr(playground, "play_match", shut_down)
    assert worker.step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.QUEUED and run.played == 0
    assert run.error == "the worker was stopped during match 1"
    assert run.attempts == 0  # a stop is no try of the run's
    assert not run.played_matches.exists()


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        (
            "the bot's process was killed by SIGKILL from outside during act: by the machine's "
            "OOM killer or an operator, not by the bot's own memory or CPU-time limit",
            "a bot's process was stopped from outside the bot (the machine ran short of "
            "memory, or an operator stopped it)",
        ),
        (
            "the bot's process was killed by SIGTERM from outside during act (an operator or a "
            "service manager: the sandbox lets no bot send it)",
            "a bot's process was stopped from outside the bot (an operator, or the site's "
            "service manager)",
        ),
        ("no free sandbox slot", "every place the site runs bots in was taken"),
    ],
)
def test_each_kind_of_the_platforms_trouble_is_said_in_plain_words(reason, said):
    # (bots.running.process raises these PlatformErrors: a kind it words anew, here SIGTERM's,
    # read "the site had trouble running the bots")
    assert playground.trouble_text(f"{leases.PLATFORM}{reason} (on vm:1)") == said
