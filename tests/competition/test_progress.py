"""Results reach the channel layer group of their tournament."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots import competition
from bots.competition import counts
from bots.models import MatchJob, Tournament
from bots.worker import Options, Worker
from tests.competition.conftest import builtin_code

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def watched_round(settings, alice, bob, active_bot, seed: int, redis_url: str):
    """A round robin of two bots on the in-memory layer (``redis_url``: whether the site
    says it has a shared one), and a channel in its tournament's group."""
    settings.REDIS_URL = redis_url
    settings.CHANNEL_LAYERS = IN_MEMORY
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=seed)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(tournament.group, channel)
    return tournament, layer, channel


def test_it_pushes_progress_to_the_tournament_group(
    alice, bob, active_bot, settings, django_capture_on_commit_callbacks
):
    # any shared layer; in-memory here
    tournament, layer, channel = watched_round(
        settings, alice, bob, active_bot, 21, "redis://shared-layer"
    )
    worker = Worker(Options(validate=False), name="w1")
    with django_capture_on_commit_callbacks(execute=True):
        assert worker.step()
    message = async_to_sync(layer.receive)(channel)
    assert message["type"] == "tournament.progress"
    assert message["tournament"] == tournament.pk
    assert message["jobs"] == {"queued": 1, "running": 0, "done": 1, "failed": 0}
    assert message["finished"] is False
    assert len(message["scores"]) == 2


def test_it_pushes_nothing_without_a_shared_layer(alice, bob, active_bot, settings):
    tournament, layer, channel = watched_round(settings, alice, bob, active_bot, 22, "")
    held = competition.claim("w1", 60)
    match = competition.store_result(held, competition.play_job(held.job))
    competition.push_progress(tournament.pk, match, False, {})

    async def receive_nothing() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(channel), 0.3)

    async_to_sync(receive_nothing)()


def test_a_workers_push_reads_the_count_the_pages_keep_in_the_shared_cache(
    alice, bob, active_bot, settings, django_capture_on_commit_callbacks
):
    # A tournament of 250,000 jobs took tens of milliseconds to count, once for every batch
    # of matches each worker stored: the pages' count, a few seconds old, serves them too.
    tournament, layer, channel = watched_round(
        settings, alice, bob, active_bot, 23, "redis://shared-layer"
    )
    kept = {"queued": 7, "running": 5, "done": 3, "failed": 1}  # (not the database's)
    # (the tournament runs once its first job is claimed: a page counted it then)
    tournament.state = Tournament.RUNNING
    keys = counts.cache_keys(tournament)  # the count, and its being fresh
    caches["default"].set_many(dict.fromkeys(keys, kept), 60)
    worker = Worker(Options(validate=False), name="w1")
    with django_capture_on_commit_callbacks(execute=True):
        assert worker.step()
    assert async_to_sync(layer.receive)(channel)["jobs"] == kept
    caches["default"].delete_many(keys)


def test_a_count_past_its_seconds_is_made_again_by_one_process_while_others_read_the_last(db):
    """Every page of an open tournament and every worker's store counted its jobs again once
    the shared count was 2 seconds old, all of them at once (a scan of the whole job table
    each, at 830,000 jobs). Now the first to ask counts, and the others read the last count
    meanwhile, from the shared cache: nothing one process keeps is needed by another, and a
    process that dies counting leaves it to the next one to ask, 2 seconds later."""
    tournament = Tournament.objects.create(game="rps-poker", state=Tournament.RUNNING)
    jobs = MatchJob.objects.bulk_create(
        MatchJob(tournament=tournament, game="rps-poker", seats=[1, 2], seed=n) for n in range(3)
    )
    cache = caches["default"]
    count, fresh = counts.cache_keys(tournament)
    cache.delete_many([count, fresh])

    def counted() -> tuple[dict[str, int], int]:
        """The count, and how many times the jobs were read for it."""
        with CaptureQueriesContext(connection) as ctx:
            found = counts.jobs_by_status([tournament])[tournament.pk]
        return found, sum("bots_matchjob" in q["sql"] for q in ctx.captured_queries)

    before = {"queued": 3, "running": 0, "done": 0, "failed": 0}
    after = {"queued": 2, "running": 0, "done": 1, "failed": 0}
    assert counted() == (before, 1)
    MatchJob.objects.filter(pk=jobs[0].pk).update(status=MatchJob.DONE)
    assert counted() == (before, 0)  # fresh
    cache.delete(fresh)  # 2 seconds later...
    assert cache.add(fresh, True, 60)  # ...another process took its turn to count
    assert counted() == (before, 0)  # the last count, meanwhile
    cache.delete(fresh)  # its turn ran out (it died counting)
    assert counted() == (after, 1)  # the first to ask counts again
    assert counted() == (after, 0)
    assert cache.get(count) == after
    cache.delete_many([count, fresh])
