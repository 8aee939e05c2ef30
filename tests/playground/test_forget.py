"""Finished playground runs are forgotten once they are older than they are kept: a guest's
after PLAYGROUND_GUEST_KEEP_DAYS, a user's after PLAYGROUND_KEEP_DAYS, with their matches, a
bounded batch at a time, by the worker after each run it plays. A run not finished is never
forgotten."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from bots import playground
from bots.models import PlaygroundMatch, PlaygroundRun
from tests.playground.conftest import queue, worker


def finished(run: PlaygroundRun, days_ago: float, status: str = PlaygroundRun.DONE) -> int:
    """Mark ``run`` as finished that long ago, with a match of its own; its id."""
    when = timezone.now() - timedelta(days=days_ago)
    PlaygroundRun.objects.filter(pk=run.pk).update(status=status, finished=when)
    seats = [{"name": playground.YOUR_BOT, "score": 1, "fault_kind": "", "fault_reason": ""}]
    PlaygroundMatch.objects.create(
        run=run, number=0, seed=1, seat=0, seats=seats, record={"events": []}
    )
    return run.pk


def test_old_finished_runs_go_with_their_matches_and_open_ones_stay(alice, settings):
    settings.PLAYGROUND_KEEP_DAYS = 30
    settings.PLAYGROUND_GUEST_KEEP_DAYS = 7
    settings.PLAYGROUND_RUNS_PER_HOUR = settings.PLAYGROUND_GUEST_RUNS_PER_HOUR = 100
    settings.PLAYGROUND_MAX_OPEN = settings.PLAYGROUND_GUEST_MAX_OPEN = 100
    guest_old = finished(queue(guest="g1"), 8)
    guest_older = finished(queue(guest="g3"), 40)  # old by both counts: counted once
    guest_new = finished(queue(guest="g2"), 6)
    user_old = finished(queue(alice), 31, PlaygroundRun.FAILED)
    user_mid = finished(queue(alice), 8)  # old for a guest's, not for a user's
    waiting = queue(alice)  # queued a long time ago: it waits for a worker still
    PlaygroundRun.objects.filter(pk=waiting.pk).update(created=timezone.now() - timedelta(days=90))
    keys = dict(PlaygroundRun.objects.values_list("pk", "key"))

    assert playground.forget_old() == 3
    left = set(PlaygroundRun.objects.values_list("pk", flat=True))
    assert left == {guest_new, user_mid, waiting.pk}
    assert set(PlaygroundMatch.objects.values_list("run_id", flat=True)) == {guest_new, user_mid}
    assert playground.forget_old() == 0
    # their pages are gone; the others' are there
    for pk in (guest_old, guest_older, user_old):
        assert Client().get(f"/playground/{keys[pk]}/status.json").status_code == 404
    assert Client().get(f"/playground/{keys[user_mid]}/status.json").status_code == 200


def test_a_batch_at_a_time_the_oldest_first(alice, settings):
    settings.PLAYGROUND_RUNS_PER_HOUR = 100
    settings.PLAYGROUND_MAX_OPEN = 100
    runs = [finished(queue(alice), 40 + n) for n in range(5)]  # the last is the oldest
    assert playground.forget_old(batch=2) == 2
    assert set(PlaygroundRun.objects.values_list("pk", flat=True)) == set(runs[:3])


def test_the_worker_forgets_after_each_run_it_plays(alice, settings):
    settings.PLAYGROUND_RUNS_PER_HOUR = 100
    settings.PLAYGROUND_MAX_OPEN = 100
    old = finished(queue(alice), 45)
    fresh = queue(alice, matches=2)
    assert worker().step() is True
    assert not PlaygroundRun.objects.filter(pk=old).exists()
    fresh.refresh_from_db()
    assert fresh.status == PlaygroundRun.DONE
