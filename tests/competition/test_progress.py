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
    key = f"tournament-jobs:{tournament.pk}:{tournament.created.timestamp()}:running"
    caches["default"].set(key, kept, 60)
    worker = Worker(Options(validate=False), name="w1")
    with django_capture_on_commit_callbacks(execute=True):
        assert worker.step()
    assert async_to_sync(layer.receive)(channel)["jobs"] == kept
    caches["default"].delete(key)
