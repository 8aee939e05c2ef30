"""The worker, one step at a time, on the test database (claims, leases, attempts, faults)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from bots import competition
from bots.competition import leases
from bots.models import Match, MatchJob, MatchSeat, Tournament
from bots.worker import Options, Worker
from tests.competition.conftest import builtin_code, misbehaving


@pytest.fixture
def two_bots(alice, bob, active_bot):
    return active_bot(alice, "simple", builtin_code("simple")), active_bot(
        bob, "strong", builtin_code("strong")
    )


def test_it_plays_a_round_robin_and_finishes_the_tournament(two_bots):
    tournament = competition.start_round_robin("rps-poker", 2, seed=7)
    # 1 pair x 2 rounds x both seatings
    assert tournament.jobs.count() == 4
    worker = Worker(Options(validate=False), name="w1")
    assert worker.run(batch=True) == 4
    assert worker.step() is False
    tournament.refresh_from_db()
    assert tournament.state == Tournament.DONE
    matches = Match.objects.filter(tournament=tournament)
    assert matches.count() == 4
    for match in matches:
        seats = list(match.participants.all())
        assert [s.score for s in seats] == match.record["result"]["scores"]
        assert all(not s.fault_kind for s in seats)
        assert match.rated
    # same deal, seats swapped
    jobs = list(tournament.jobs.order_by("id"))
    assert jobs[0].seed == jobs[1].seed and jobs[0].seats == jobs[1].seats[::-1]


def test_it_stores_a_result_once_even_if_a_stale_worker_reports(two_bots):
    competition.start_round_robin("rps-poker", 1, seed=1)
    first = competition.claim("w1", lease_s=60)
    played = competition.play_job(first.job)
    # w1's lease runs out; w2 claims the job again and stores it
    MatchJob.objects.filter(pk=first.job.pk).update(lease_until=timezone.now() - timedelta(1))
    second = competition.claim("w2", lease_s=60)
    assert second.job.pk == first.job.pk and second.attempt == 2
    assert leases.heartbeat(first, 60) is False
    assert competition.store_result(second, competition.play_job(second.job)) is not None
    assert competition.store_result(first, played) is None
    assert Match.objects.filter(job=first.job).count() == 1
    assert Match.objects.get(job=first.job).worker == "w2"


def test_it_does_not_hand_a_leased_job_to_another_worker(two_bots):
    competition.start_round_robin("rps-poker", 2, seed=2)  # two deals, each in two seatings
    first = competition.claim("w1", lease_s=60)
    second = competition.claim("w2", lease_s=60)
    third = competition.claim("w3", lease_s=60)
    assert first.job.pk != second.job.pk
    # the other seating of each deal waits until its worker has played the first
    assert first.job.seed != second.job.seed
    assert third is None


def test_it_fails_a_job_at_its_cap_of_errors(two_bots):
    tournament = competition.start_round_robin("rps-poker", 1, seed=3)
    job = tournament.jobs.order_by("id").first()
    MatchJob.objects.filter(pk=job.pk).update(errors=3, error="error on w0: KeyError: 7")
    held = competition.claim("w1", lease_s=60, caps=leases.Caps(errors=3))
    assert held.job.pk != job.pk
    job.refresh_from_db()
    assert job.status == MatchJob.FAILED
    assert job.error == "failed 3 times; the last time: error on w0: KeyError: 7"


def test_lost_workers_do_not_count_as_errors_but_a_poison_job_ends(two_bots):
    tournament = competition.start_round_robin("rps-poker", 1, seed=3)
    job = tournament.jobs.order_by("id").first()
    caps = leases.Caps(errors=3, claims=5)
    # four workers in a row took it and died (their leases ran out): it is still played
    MatchJob.objects.filter(pk=job.pk).update(
        status=MatchJob.RUNNING, attempts=4, worker="dead", lease_until=timezone.now()
    )
    held = competition.claim("w1", lease_s=60, caps=caps)
    assert (held.job.pk, held.attempt, held.job.errors) == (job.pk, 5, 0)
    # the fifth died too: the sixth worker ends it, saying why
    MatchJob.objects.filter(pk=job.pk).update(lease_until=timezone.now())
    again = competition.claim("w2", lease_s=60, caps=caps)
    assert again.job.pk != job.pk
    job.refresh_from_db()
    assert job.status == MatchJob.FAILED
    assert job.error.startswith("taken 5 times without a result")
    assert "the last one: w1" in job.error


def test_it_gives_a_job_back_when_released(two_bots):
    competition.start_round_robin("rps-poker", 1, seed=4)
    held = competition.claim("w1", lease_s=60)
    assert leases.release(held, "stopping")
    job = MatchJob.objects.get(pk=held.job.pk)
    # the claim count only grows (it is the token of the next claim); no error counted
    assert (job.status, job.attempts, job.errors, job.error) == (MatchJob.QUEUED, 1, 0, "stopping")
    again = competition.claim("w2", lease_s=60)
    assert leases.release(again, "a bug", our_error=True)
    job.refresh_from_db()
    assert (job.attempts, job.errors) == (2, 1)
    assert not leases.release(held, "stale")  # w1's token is no longer the job's


def test_it_records_faults_and_goes_on(alice, bob, carol, active_bot):
    good = active_bot(alice, "simple", builtin_code("simple"))
    crash = active_bot(bob, "crash", misbehaving("import os; os._exit(3)"))
    flood = active_bot(carol, "flood", misbehaving("import sys; sys.stderr.write('x' * 2000000)"))
    competition.start_round_robin("rps-poker", 1, seed=5, move=0.5, bank=1.0)
    worker = Worker(Options(validate=False), name="w1")
    assert worker.run(batch=True) == 6
    seats = MatchSeat.objects.select_related("version")
    crash_seats = seats.filter(version=crash)
    assert crash_seats.count() == 4
    assert {s.fault_kind for s in crash_seats} == {"crash"}
    assert all(s.fault_reason for s in crash_seats)
    assert {s.fault_kind for s in seats.filter(version=flood)} == {"output"}
    assert {s.fault_kind for s in seats.filter(version=good)} == {""}
    assert all(s.stderr for s in seats.filter(version=flood))
    assert MatchJob.objects.filter(status=MatchJob.DONE).count() == 6


def test_it_validates_uploads_waiting_for_a_worker(alice, tmp_path):
    path = tmp_path / "later.py"
    path.write_text(builtin_code("simple"))
    call_command("upload_bot", str(path), "--user", "alice", "--defer")
    worker = Worker(Options(), name="w1")
    assert worker.step() is True
    assert worker.counters.validated == 1
    assert alice.bots.get().active_version() is not None
    assert worker.step() is False


def test_it_stops_after_the_current_step_on_sigterm(two_bots):
    competition.start_round_robin("rps-poker", 1, seed=6)
    worker = Worker(Options(validate=False), name="w1")
    original = worker.step

    def step() -> bool:
        worker.on_sigterm()
        return original()

    worker.step = step
    assert worker.run() == 1
    assert MatchJob.objects.filter(status=MatchJob.DONE).count() == 1
    assert MatchJob.objects.filter(status=MatchJob.QUEUED).count() == 1


def test_it_shows_progress_on_a_terminal(two_bots):
    from rich.console import Console

    from bots.worker.display import worker_panel

    competition.start_round_robin("rps-poker", 1, seed=8)
    worker = Worker(Options(validate=False), name="w-display")
    worker.step()
    console = Console(record=True, width=120)
    console.print(worker_panel(worker))
    text = console.export_text()
    assert "worker w-display" in text
    assert "played" in text and "1, 0 faults (" in text
    assert "queued 1" in text and "done 1" in text


def test_it_starts_a_ladder_round_when_idle_and_not_too_often(two_bots):
    worker = Worker(Options(validate=False, ladder_interval_s=3600), name="w1")
    assert worker.step() is True
    ladder = Tournament.objects.get(format=Tournament.LADDER)
    assert ladder.jobs.count() == 2
    assert worker.run(batch=True) == 2
    worker._last_ladder_check = 0.0
    assert worker.step() is False  # the last round is younger than the interval
    assert Tournament.objects.filter(format=Tournament.LADDER).count() == 1


def test_it_keeps_bot_processes_between_matches_and_ends_them_on_exit(alice, bob, active_bot):
    simple = active_bot(alice, "simple", builtin_code("simple"))
    chatty = active_bot(
        bob, "chatty", misbehaving("import sys; print('thinking', file=sys.stderr)")
    )
    competition.start_round_robin("rps-poker", 2, seed=31)
    worker = Worker(Options(validate=False, process_cache=4), name="w1")
    cache = worker.cache
    assert worker.step() and worker.step()
    # the two seatings of the first deal: the second is played by a second process of each
    # bot (one that has not been dealt it), and both are kept
    assert len(cache) == 4
    processes = list(cache._items.values())
    assert all(p.alive and p.starts == 1 and p.played == 1 for p in processes)
    # each match keeps all of its own stderr and nothing else: one line per main play, and a
    # match of RPS Poker has ten of them
    first, second = MatchSeat.objects.filter(version=chatty).order_by("match_id")
    assert first.stderr.count("thinking") == second.stderr.count("thinking") == 10
    assert worker.run(batch=True) == 2
    assert len(cache) == 0
    assert not any(p.alive for p in processes)
    assert MatchJob.objects.filter(status=MatchJob.DONE).count() == 4
    assert not MatchSeat.objects.exclude(fault_kind="").exists()
    assert simple.seats.count() == 4


@pytest.mark.parametrize("release_s", [0.0, 3600.0])
def test_an_idle_worker_ends_its_kept_processes_so_that_live_tables_get_their_slots(
    alice, bob, active_bot, release_s
):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "minimal", builtin_code("minimal"))
    competition.start_round_robin("rps-poker", 1, seed=47)
    options = Options(validate=False, process_cache=4, idle_release_s=release_s, poll_s=0)
    worker = Worker(options, name="w1")
    assert worker.step() and worker.step()
    processes = list(worker.cache._items.values())
    assert processes and all(p.alive for p in processes)
    kept = []

    def idle() -> None:  # the first look that found nothing to do
        kept.append(len(worker.cache))
        worker.stopping = True

    worker.run(on_idle=idle)
    assert kept == ([0] if release_s == 0 else [len(processes)])


def test_it_survives_an_error_of_its_own_and_fails_the_job_at_the_cap(two_bots, monkeypatch):
    tournament = competition.start_round_robin("rps-poker", 1, seed=5)

    def broken(job, cache=None, versions=None, spent=None, seen=True):
        raise ValueError("a bug on our side")

    monkeypatch.setattr(competition, "play_job", broken)
    worker = Worker(Options(validate=False, max_attempts=2), name="w1")
    assert worker.step() is True  # the error is logged, the job given back, the worker lives
    job = tournament.jobs.order_by("id").first()
    job.refresh_from_db()
    assert job.status == MatchJob.QUEUED
    assert job.error == "error on w1: ValueError: a bug on our side"
    worker.run(batch=True)
    assert set(tournament.jobs.values_list("status", flat=True)) == {MatchJob.FAILED}


@pytest.mark.parametrize("kept", [4, 2])
def test_a_bot_never_knows_the_deal_of_its_second_seating(alice, bob, active_bot, kept):
    """The competition plays each deal twice, seats swapped. A bot that remembers every deal
    it is shown (tests/sandbox/bots/remembers.py) never meets one again: with room to keep
    them, a second process of the bot plays its second seatings; with room for one process
    a bot, it starts afresh before each deal it has been dealt."""
    from pathlib import Path

    code = (Path(__file__).parent.parent / "sandbox" / "bots" / "remembers.py").read_text()
    remembers = active_bot(alice, "remembers", code)
    active_bot(bob, "simple", builtin_code("simple"))
    competition.start_round_robin("rps-poker", 3, seed=41)
    worker = Worker(Options(validate=False, process_cache=kept), name="w1")
    assert worker.run(batch=True) == 6
    seen = []
    for seat in MatchSeat.objects.filter(version=remembers).order_by("match_id"):
        seen += [json.loads(line) for line in seat.stderr.splitlines() if line.startswith("{")]
    assert len(seen) == 6
    assert not any(match["again"] for match in seen)
    # what does carry over: the process's memory of earlier deals
    assert max(match["matches"] for match in seen) > 1


def test_a_cache_smaller_than_a_match_never_closes_a_process_the_match_uses(alice, bob, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "minimal", builtin_code("minimal"))
    competition.start_round_robin("rps-poker", 1, seed=43)
    worker = Worker(Options(validate=False, process_cache=1), name="w1")
    assert worker.run(batch=True) == 2
    assert not MatchSeat.objects.exclude(fault_kind="").exists()
    assert MatchJob.objects.filter(status=MatchJob.DONE).count() == 2


def test_it_clears_the_expired_sessions_once_an_hour(db, monkeypatch):
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session

    import bots.worker

    def session(expires_in: timedelta) -> str:
        store = SessionStore()
        store["guest_token"] = "t"
        store.save()
        Session.objects.filter(pk=store.session_key).update(expire_date=timezone.now() + expires_in)
        return str(store.session_key)

    session(-timedelta(days=1))
    kept = session(timedelta(days=1))
    worker = Worker(Options(validate=False, solve=False), name="w1")
    assert worker.step() is False  # nothing to play: the expired session goes all the same
    assert list(Session.objects.values_list("pk", flat=True)) == [kept]
    session(-timedelta(days=1))
    worker.step()  # not again within the hour
    assert Session.objects.count() == 2
    clock = bots.worker.time.monotonic() + bots.worker.SESSIONS_CLEARED_EVERY_S + 1
    monkeypatch.setattr(bots.worker.time, "monotonic", lambda: clock)
    worker.step()
    assert list(Session.objects.values_list("pk", flat=True)) == [kept]
