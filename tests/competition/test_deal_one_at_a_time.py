"""A bot never plays two seatings of one deal at the same time. Its process in one seating
holds the cards that its opponent holds in the other (the seats swapped), and two processes
that run at once could signal to each other (through the CPUs and caches they share, or the
time they take): one would learn the opponent's hand. So no worker claims a seating while
another worker plays a seating of its deal with one of the same bots; the worker that holds
one may take the others, as it plays its jobs one after the other. Bots that only share a
deal (the bots of an Ultimate Texas Hold'em session, each alone against the dealer) are not
held up."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from bots import competition
from bots.competition import leases
from bots.languages import get_language
from bots.models import MatchJob
from bots.sandbox import mirror, resident
from tests.competition.conftest import builtin_code
from tests.competition.test_one_seat_ratings import make_active, played

GAME = "rps-poker"


@pytest.fixture
def two(alice, bob, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    MatchJob.objects.update(status=MatchJob.DONE)  # their placements, out of the way


def _twin(job: MatchJob) -> MatchJob:
    return MatchJob.objects.exclude(pk=job.pk).get(tournament=job.tournament, seed=job.seed)


def test_a_deals_other_seating_waits_while_another_worker_plays_the_first(two):
    competition.start_round_robin(GAME, 2, seed=61)  # two deals, each in two seatings
    first = competition.claim("w1", 60)
    second = competition.claim("w2", 60)
    assert second.job.seed != first.job.seed  # the next job of another deal
    # what is left is the other seating of each deal: each waits for its worker's first
    assert competition.claim("w3", 60) is None
    assert competition.claim_many("w3", 60, 4) == []
    # the worker that plays a deal may take its other seating, to play it next
    again = competition.claim("w1", 60)
    assert again.job.pk == _twin(first.job).pk
    # once a seating is stored, or its worker's lease ran out, the other is anyone's
    assert competition.store_result(second, competition.play_job(second.job)) is not None
    taken = competition.claim("w3", 60)
    assert taken.job.pk == _twin(second.job).pk
    assert competition.claim("w4", 60) is None
    MatchJob.objects.filter(worker="w3").update(lease_until=timezone.now() - timedelta(1))
    rescued = competition.claim("w4", 60)
    assert rescued.job.pk == taken.job.pk and rescued.attempt == 2


def test_bots_that_share_only_a_deal_play_it_at_the_same_time(db):
    make_active("alice", "always-check")
    make_active("bob", "basic")
    MatchJob.objects.update(status=MatchJob.DONE)
    competition.start_round_robin("uth", 1, seed=62)  # one session: one deal, a job a bot
    first, second = competition.claim("w1", 60), competition.claim("w2", 60)
    assert first.job.seed == second.job.seed and first.job.seats != second.job.seats
    for held in (first, second):
        assert competition.store_result(held, played(held.job)) is not None


def test_a_seating_taken_between_a_claims_look_and_its_write_is_not_taken_again(two, monkeypatch):
    """The one-at-a-time claim (SQLite's: a single writer) reads its candidates, then takes
    one: the statement that takes it checks again that no other worker has taken a seating
    of its deal in between."""
    competition.start_round_robin(GAME, 1, seed=63)
    first, twin = MatchJob.objects.order_by("id")
    MatchJob.objects.filter(pk=twin.pk).update(turn=0)
    MatchJob.objects.filter(pk=first.pk).update(turn=1)  # the twin first in claim order
    real = leases.take

    def take(row, fields, *also, **kwargs):
        if row.pk == twin.pk:  # another worker takes the first seating meanwhile
            MatchJob.objects.filter(pk=first.pk).update(
                status=MatchJob.RUNNING,
                worker="w1",
                attempts=1,
                lease_until=timezone.now() + timedelta(seconds=60),
            )
        return real(row, fields, *also, **kwargs)

    monkeypatch.setattr(leases, "take", take)
    caps = leases.Caps.from_settings()
    assert competition._claim_conditional("w2", 60, caps, None) == "again"
    assert MatchJob.objects.get(pk=twin.pk).status == MatchJob.QUEUED
    monkeypatch.setattr(leases, "take", real)
    assert competition.claim("w2", 60) is None  # and it waits, as long as w1 plays


@pytest.mark.postgresql
def test_two_claims_at_once_take_no_two_seatings_of_a_deal(
    transactional_db, alice, bob, active_bot, monkeypatch
):
    """On PostgreSQL neither of two claims made at once sees the other's rows before it
    commits: the second passes over the seating whose deal the first holds, by its lock."""
    assert connection.vendor == "postgresql"  # (the first half, on SQLite, leaves it out)
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    MatchJob.objects.update(status=MatchJob.DONE)
    tournament = competition.start_round_robin(GAME, 6, seed=64)  # six deals
    first = tournament.jobs.order_by("id").first()
    twin = _twin(first)
    # the twin last in claim order, beyond what the first claim looks at
    MatchJob.objects.filter(pk=twin.pk).update(turn=1000)
    other: dict[str, object] = {}

    def second_worker() -> None:
        try:
            other["held"] = competition.claim_many("w2", 60, 20)
        except Exception as exc:  # noqa: BLE001 - the test says what it was
            other["error"] = exc
        finally:
            connection.close()

    real = leases.taking

    def taking(job, worker, *args):
        # the first claim has taken its deal's locks and not committed: the second claims now
        if worker == "w1" and not other:
            thread = threading.Thread(target=second_worker)
            thread.start()
            thread.join(timeout=60)
        return real(job, worker, *args)

    monkeypatch.setattr(leases, "taking", taking)
    (held,) = competition.claim_many("w1", 60, 1)
    assert held.job.pk == first.pk
    assert "error" not in other, other
    taken = {h.job.pk for h in other["held"]}
    assert taken and twin.pk not in taken
    assert MatchJob.objects.get(pk=twin.pk).status == MatchJob.QUEUED
    # the jobs the second claim took are of other deals than the first's
    assert first.seed not in {h.job.seed for h in other["held"]}


def test_a_seating_of_a_deal_a_bot_was_dealt_before_meets_every_page_in_memory(two, monkeypatch):
    # what a bot read in a deal's first seating is in memory; on a virtual machine whose host
    # pages out what was not touched lately the rest might not be, and the second seating
    # could tell the two apart by timing reads (tests/sandbox/test_page_cache.py). So the
    # worker touches every page of the runtimes before it, and only before such a match:
    # a touch takes a millisecond or so, a tenth of a quick match.
    from bots.worker import Heartbeat, Options, Worker

    order = []
    touch, play = resident.touch, competition.play

    def touched() -> int:
        if threading.current_thread() is threading.main_thread():  # (not the thread's own)
            order.append("touch")
        return touch()

    monkeypatch.setattr(resident, "touch", touched)
    monkeypatch.setattr(competition, "play", lambda *a, **k: order.append("play") or play(*a, **k))
    competition.start_round_robin(GAME, 2, seed=62)  # two deals, each in two seatings
    worker = Worker(Options(validate=False), name="w1")
    first = competition.claim("w1", 60)
    twin = competition.claim("w1", 60)
    assert twin.job.pk == _twin(first.job).pk
    assert competition.deals_seen([first, twin]) == set()  # nobody was dealt it yet
    worker._play_claims([first, twin], Heartbeat([first, twin], 60))
    assert order == ["play", "touch", "play"]  # the twin, after the first seating
    assert mirror.mirror(get_language("python")) in resident.mapped()  # (their runtime)
    # a seating of a deal whose other seating another batch claimed, or one claimed again
    # (its last attempt may have been played in part), is a deal seen
    other = competition.claim("w1", 60)
    assert competition.deals_seen([other]) == set()
    assert leases.release(other, "the worker was stopped")
    again = competition.claim("w1", 60)
    assert again.job.pk == other.job.pk and again.attempt == 2
    deal = (other.job.tournament_id, other.job.seed)
    assert competition.deals_seen([again]) == {deal}
    assert leases.release(again, "the worker was stopped")
    assert competition.deals_seen([competition.claim("w1", 60)]) == {deal}  # (either seating)
