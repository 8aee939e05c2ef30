"""Results a worker stored without rating them (another worker held the game's rating ledger
at that moment) are rated by any worker that goes idle, read from the database: a worker
killed before it rated them leaves nothing that only it knew of (an audit's tournament stayed
unrated for ten minutes, through a restart of both workers)."""

from __future__ import annotations

import pytest
from django.db import connection

from bots import competition
from bots.ladder.ratings import left_unrated
from bots.models import Match, MatchJob, RatingHistory, RatingLedger
from bots.worker import Options, Worker
from tests.competition.conftest import builtin_code, ledger_held_elsewhere

GAME = "rps-poker"


@pytest.fixture
def three(alice, bob, carol, active_bot):
    for owner, name in ((alice, "simple"), (bob, "strong"), (carol, "minimal")):
        active_bot(owner, name, builtin_code(name))


def _play_without_going_idle(worker: Worker) -> None:
    """What a worker does up to the moment it is killed: it plays and stores every match,
    and never reaches an idle step."""
    while worker.play_one():
        pass


def test_a_fresh_worker_going_idle_rates_what_a_killed_one_stored_unrated(three, monkeypatch):
    def ledger_held_elsewhere(game: str, *, wait: bool = True) -> int | None:
        assert not wait  # a worker's store does not wait for the ledger
        return None  # what rate_pending says when another transaction holds the ledger

    monkeypatch.setattr(competition, "rate_pending", ledger_held_elsewhere)
    tournament = competition.start_round_robin(GAME, 1, seed=31)
    _play_without_going_idle(Worker(Options(validate=False), name="killed"))
    assert Match.objects.filter(tournament=tournament).count() == 6
    assert Match.objects.filter(rated=False).count() == 6
    assert set(left_unrated()) == {GAME}

    # the worker is killed; another process's worker has nothing to play and goes idle
    other = Worker(Options(validate=False), name="other")
    assert other.step() is False
    assert not Match.objects.filter(rated=False).exists()
    assert RatingHistory.objects.count() == 12
    last = tournament.jobs.order_by("-pk").first().pk
    assert RatingLedger.objects.get(game=GAME).rated_through == last
    assert left_unrated() == {}


def test_a_worker_rates_what_was_left_as_it_starts(three, monkeypatch):
    """A worker that starts and finds work at once rates what was left first (else it would
    wait for its first idle moment, which a busy queue may not give for long)."""
    real = competition.rate_pending
    monkeypatch.setattr(competition, "rate_pending", lambda game, *, wait=True: None)
    competition.start_round_robin(GAME, 1, seed=32)
    _play_without_going_idle(Worker(Options(validate=False), name="killed"))
    monkeypatch.setattr(competition, "rate_pending", real)
    competition.start_round_robin(GAME, 1, seed=33)  # more work, waiting

    rated_at_first_step: list[int] = []
    other = Worker(Options(validate=False), name="other")
    original = other.play_one

    def play_one(*args, **kwargs) -> bool:
        if not rated_at_first_step:
            rated_at_first_step.append(RatingHistory.objects.count())
        return original(*args, **kwargs)

    other.play_one = play_one  # type: ignore[method-assign]
    assert other.run(once=True) == 1
    assert rated_at_first_step == [12]


def test_only_games_whose_next_job_to_rate_has_finished_are_left_unrated(three):
    tournament = competition.start_round_robin(GAME, 1, seed=34)
    jobs = list(tournament.jobs.order_by("pk"))
    RatingLedger.objects.get_or_create(game=GAME)
    assert left_unrated() == {}  # nothing has finished
    MatchJob.objects.filter(pk=jobs[1].pk).update(status=MatchJob.DONE)
    assert left_unrated() == {}  # the first job is still queued: rating waits for it
    MatchJob.objects.filter(pk=jobs[0].pk).update(status=MatchJob.FAILED)
    through = RatingLedger.objects.get(game=GAME).rated_through
    # where its ratings stand: the ledger, and the first job still queued
    assert left_unrated() == {GAME: (through, jobs[2].pk)}


@pytest.mark.postgresql
def test_results_stored_while_another_transaction_holds_the_ledger_are_rated_by_another_worker(
    transactional_db, three
):
    """As the audit saw it, on PostgreSQL: another connection holds the game's ledger row
    while a worker stores; the worker's store skips rating and the worker is then killed."""
    assert connection.vendor == "postgresql"
    tournament = competition.start_round_robin(GAME, 1, seed=35)
    with ledger_held_elsewhere(GAME):
        _play_without_going_idle(Worker(Options(validate=False), name="killed"))
        assert Match.objects.filter(tournament=tournament, rated=False).count() == 6
    assert Worker(Options(validate=False), name="other").step() is False
    assert not Match.objects.filter(rated=False).exists()
