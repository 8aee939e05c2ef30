"""Shared test set-up."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import hypothesis
import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers
from django.db import connections

# which tests run in both halves of scripts/run-tests; parallel test processes kept apart
pytest_plugins = ["tests.halves"]

# Hypothesis's property tests: in CI (``CI`` set, as .ci/run does), the same examples every
# run, so that a run that fails fails again (and one that passed is not failed by chance);
# no database of examples kept between runs. Elsewhere, new examples each run (the
# default). ``--hypothesis-profile`` chooses either by hand.
hypothesis.settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis.settings.register_profile("dev")
hypothesis.settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _drop_thread_connections() -> None:
    """Django never closes a connection to the in-memory SQLite test database (closing
    would destroy it; the main thread's connection keeps it alive), so asgiref's worker
    thread would keep the one a consumer opened, and a later test without database access
    would trip over it. Drop it for real."""
    for conn in connections.all(initialized_only=True):
        if conn.connection is not None and conn.vendor == "sqlite" and conn.is_in_memory_db():
            conn.connection.close()
            conn.connection = None
        else:
            conn.close()


@pytest.fixture(autouse=True)
def fresh_upload_counters(request):
    """The uploads of the test client's address are counted in the cache
    (``bots.pages.upload_address``), which outlives a test's database: each test that has
    the database (an upload needs it) leaves none, so the next one's are the address's
    first of the hour."""
    yield
    from tests.halves import depends_on_backends

    if not depends_on_backends(request.node):
        return  # (no upload without the database; and no cache reached without it)
    from bots.pages import upload_address
    from cardsite.accounts import CACHE_ERRORS

    with contextlib.suppress(*CACHE_ERRORS):
        upload_address.throttle().forget("127.0.0.1")


@pytest.fixture
def keep_the_test_connection(monkeypatch):
    """The worker drops a connection the database broke (``bots.worker.drop_connection``);
    in-process tests that fake such failures run inside the test's transaction, which
    dropping would end (PostgreSQL refuses a new connection in an atomic block). A module
    of such tests uses this fixture (``pytest.mark.usefixtures``) to keep the connection."""
    from bots import worker

    monkeypatch.setattr(worker, "drop_connection", lambda: None)


@pytest.fixture
def clock_ahead(monkeypatch):
    """``clock_ahead(seconds)``: from now on, this process's clock runs ``seconds`` ahead of
    the database's and the other machines' (``django.utils.timezone.now`` moved on, as a
    machine whose clock is not kept in time; the offset to the database's clock measured
    afresh, ``bots.clock``). On PostgreSQL the offset is measured for real; on SQLite, where
    the database has no clock of its own to read, it is what PostgreSQL would find."""
    from datetime import timedelta

    from django.db import connection
    from django.utils import timezone

    from bots import clock

    def ahead(seconds: float) -> None:
        real = timezone.now
        monkeypatch.setattr(timezone, "now", lambda: real() + timedelta(seconds=seconds))
        monkeypatch.setattr(clock, "_measured", clock._Measured())
        if connection.vendor != "postgresql":
            monkeypatch.setattr(clock, "measure", lambda: timedelta(seconds=-seconds))

    return ahead


@pytest_asyncio.fixture
async def consumer_threads_cleaned():
    # a layer left by a test that ran before in another loop (a sync test's async_to_sync
    # among them) is not this test's either
    channel_layers.backends.pop(DEFAULT_CHANNEL_LAYER, None)
    yield
    from games.live.hub import hub

    await hub.settled()  # the steps of live tables still being written
    await database_sync_to_async(_drop_thread_connections)()
    # The next test gets a channel layer of its own, as it gets an event loop of its own:
    # channels-redis keeps a lock per channel that the first loop to wait on it binds, and a
    # listener of this test's loop that ends holding it would leave the next loop a lock
    # "bound to a different event loop". (channels-redis closes a loop's connections as the
    # loop closes.)
    channel_layers.backends.pop(DEFAULT_CHANNEL_LAYER, None)


def pytest_configure(config: pytest.Config) -> None:
    """The site hashes passwords with PBKDF2 at about a million rounds, slow on purpose
    (0.2 s a person here); tests make people by the hundred, so this test process uses a
    cheap hasher. The sites the tests start as processes (browser tests, several
    processes) keep the real one.

    A test socket's connect waits 10 s for the consumer's answer, not Channels' 1 s: a
    consumer's connect reads the database in asgiref's thread, which a full run's load can
    keep that long (a refused origin's connect timed out so once). It ends as soon as the
    answer comes."""
    from channels.testing import WebsocketCommunicator
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    connect = WebsocketCommunicator.connect

    async def patient_connect(self: WebsocketCommunicator, timeout: float = 10) -> Any:
        return await connect(self, timeout)

    WebsocketCommunicator.connect = patient_connect  # type: ignore[method-assign]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every async test (consumers run their database calls in asgiref's thread) cleans
    that thread's connections after itself, and has a channel layer of its own. (A
    ``usefixtures`` mark added here would come too late: a test's fixtures are settled when
    it is collected, so the fixture is added to its names.)"""
    for item in items:
        if item.get_closest_marker("asyncio") is None:
            continue
        names = getattr(item, "fixturenames", None)
        if names is not None and "consumer_threads_cleaned" not in names:
            names.append("consumer_threads_cleaned")


def starter_source(filename: str) -> Path:
    """A starter bot's file by its old name (``rps_poker.js``: the RPS Poker JavaScript
    starter), as the game's spec names it."""
    from games.registry import get_game

    stem, _, suffix = filename.partition(".")
    language = {"py": "python", "js": "javascript"}[suffix]
    spec = get_game(stem.replace("_", "-"))
    return spec.starters[language]


@pytest.fixture(scope="session", autouse=True)
def _database_pools_closed_at_the_end(django_db_setup):
    """With PostgreSQL, Django keeps a pool of connections (settings: DB_POOL) that closing a
    connection returns to; the idle ones would still be sessions of the test database when
    pytest-django drops it at the end ("being accessed by other users"). Torn down before
    the database is: the connection asgiref's thread kept for the last async test dropped
    (which test ran last differs from run to run with several test processes), then every
    pool closed."""
    yield
    from asgiref.sync import SyncToAsync

    SyncToAsync.single_thread_executor.submit(_drop_thread_connections).result(timeout=60)
    for connection in connections.all(initialized_only=True):
        connection.close()
        close_pool = getattr(connection, "close_pool", None)
        if close_pool is not None:
            close_pool()
