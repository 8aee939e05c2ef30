"""Results reach the channel layer group of their tournament."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.cache import caches

from bots import competition
from bots.worker import Options, Worker
from tests.competition.conftest import builtin_code

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def test_it_pushes_progress_to_the_tournament_group(
    alice, bob, active_bot, settings, django_capture_on_commit_callbacks
):
    settings.REDIS_URL = "redis://shared-layer"  # any shared layer; in-memory here
    settings.CHANNEL_LAYERS = IN_MEMORY
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=21)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(tournament.group, channel)
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
    settings.REDIS_URL = ""
    settings.CHANNEL_LAYERS = IN_MEMORY
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=22)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(tournament.group, channel)
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
    settings.REDIS_URL = "redis://shared-layer"
    settings.CHANNEL_LAYERS = IN_MEMORY
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    tournament = competition.start_round_robin("rps-poker", 1, seed=23)
    kept = {"queued": 7, "running": 5, "done": 3, "failed": 1}  # (not the database's)
    # (the tournament runs once its first job is claimed: a page counted it then)
    key = f"tournament-jobs:{tournament.pk}:{tournament.created.timestamp()}:running"
    caches["default"].set(key, kept, 60)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(tournament.group, channel)
    worker = Worker(Options(validate=False), name="w1")
    with django_capture_on_commit_callbacks(execute=True):
        assert worker.step()
    assert async_to_sync(layer.receive)(channel)["jobs"] == kept
    caches["default"].delete(key)
