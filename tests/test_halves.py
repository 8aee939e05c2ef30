"""The split of the test command's halves (tests/halves.py), run for real: pytest on a few
tests of its own, in a folder outside the suite, with the project's plugin and settings."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.halves import redis_url_for_site, with_redis_database

ROOT = Path(__file__).resolve().parents[1]

SUITE = """
import pytest
from channels.layers import get_channel_layer
from django.core.cache import caches


def test_rules():
    assert 1 + 1 == 2


@pytest.mark.django_db
def test_stores():
    from django.contrib.auth.models import User
    User.objects.create_user("ann")


@pytest.fixture
def person(db):
    from django.contrib.auth.models import User
    return User.objects.create_user("bea")


def test_through_a_fixture(person):
    assert person.pk


@pytest.mark.backends
def test_marked_layer():
    assert get_channel_layer() is not None


def test_unmarked_layer():
    assert get_channel_layer() is not None


def test_unmarked_cache_swallowed():
    try:  # a failure of the cache kept from the test, as the replay cache does
        caches["default"].get("x")
    except Exception:
        pass
"""


def pytest_run(tmp_path: Path, *args: str) -> tuple[int, str]:
    (tmp_path / "test_suite.py").write_text(textwrap.dedent(SUITE))
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.halves"]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env |= {"PYTHONPATH": str(ROOT), "CARD_ARENA_VAR": str(tmp_path / "var")}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--ds", "cardsite.settings", "-q", "-rA", "--rootdir", str(tmp_path), *args,
         str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def outcome(output: str, name: str) -> str:
    """What pytest's summary says of a test: ERROR or FAILED if any phase did, else
    PASSED, or "absent"."""
    words = {
        line.split()[0]
        for line in output.splitlines()
        if line.endswith(f"::{name}") or f"::{name} " in line
    }
    for word in ("ERROR", "FAILED", "PASSED"):
        if word in words:
            return word
    return "absent"


@pytest.fixture(scope="module")
def both_halves(tmp_path_factory) -> tuple[str, str]:
    everything = pytest_run(tmp_path_factory.mktemp("all"))[1]
    backends = pytest_run(tmp_path_factory.mktemp("backends"), "--backends-only")[1]
    return everything, backends


def test_the_second_half_keeps_the_tests_that_reach_a_backend(both_halves):
    _, backends = both_halves
    assert "3 deselected" in backends, backends
    for name in ("test_stores", "test_through_a_fixture", "test_marked_layer"):
        assert outcome(backends, name) == "PASSED", backends
    for name in ("test_rules", "test_unmarked_layer", "test_unmarked_cache_swallowed"):
        assert outcome(backends, name) == "absent", backends


def test_a_test_that_would_run_once_and_reaches_a_backend_fails_saying_to_mark_it(both_halves):
    everything, _ = both_halves
    for name in ("test_rules", "test_stores", "test_through_a_fixture", "test_marked_layer"):
        assert outcome(everything, name) == "PASSED", everything
    assert outcome(everything, "test_unmarked_layer") == "ERROR", everything
    assert "reached the channel layer 'default' without the test database" in everything
    # even when the test itself swallowed what went wrong
    assert outcome(everything, "test_unmarked_cache_swallowed") == "ERROR", everything
    assert "reached the cache 'default'" in everything
    assert "mark it @pytest.mark.backends" in everything


def test_each_test_process_has_redis_databases_of_its_own():
    run = "redis://127.0.0.1:6379/0"
    assert with_redis_database(run, 4) == "redis://127.0.0.1:6379/4"
    assert redis_url_for_site("redis://127.0.0.1:6379") == "redis://127.0.0.1:6379/1"
    # process gw1 takes 2 (and 3 for its sites): never gw0's 0 and 1
    assert redis_url_for_site(with_redis_database(run, 2)) == "redis://127.0.0.1:6379/3"


@pytest.mark.asyncio
async def test_an_async_test_starts_with_a_channel_layer_of_its_own(request):
    """Every async test gets the fixture that drops the channel layer before and after it
    (tests/conftest.py): a layer another test's event loop used would hold locks bound to
    that loop (channels-redis), which failed a later test now and then."""
    from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers

    assert "consumer_threads_cleaned" in request.fixturenames
    assert DEFAULT_CHANNEL_LAYER not in channel_layers.backends
