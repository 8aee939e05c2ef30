"""The machinery of the browser tests: finding Chromium, keeping the live site apart from the
test process's databases, and the live site itself."""

from __future__ import annotations

import os
import urllib.request

import pytest

from tests.browser.conftest import chromium_args, chromium_executable, redis_url_for_site

pytestmark = pytest.mark.browser


def test_it_fails_with_a_clear_message_when_chromium_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CHROMIUM", raising=False)
    with pytest.raises(pytest.fail.Exception, match="apt-get install chromium"):
        chromium_executable()


def test_it_fails_when_chromium_points_at_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "no-such-browser"))
    with pytest.raises(pytest.fail.Exception, match="no-such-browser"):
        chromium_executable()


def test_it_launches_chromium_without_background_traffic():
    args = chromium_args()
    assert "--disable-background-networking" in args
    assert "--disable-gpu" in args
    # Chromium's own sandbox refuses root; as another user it stays on
    assert ("--no-sandbox" in args) == (os.geteuid() == 0)


def test_it_gives_the_live_site_another_redis_database():
    assert redis_url_for_site("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/1"
    assert redis_url_for_site("redis://127.0.0.1:6379") == "redis://127.0.0.1:6379/1"
    assert redis_url_for_site("redis://127.0.0.1:6379/1") == "redis://127.0.0.1:6379/2"


def test_it_runs_daphne_and_the_worker_until_the_tests_end(live_site):
    running = {p.name: p.popen.poll() for p in live_site.processes}
    assert running == {"daphne": None, "worker": None}
    with urllib.request.urlopen(live_site.url("/healthz"), timeout=5) as response:
        assert response.status == 200
    # the whole log: other tests' tables may have pushed the line out of the logs' tail
    daphne = next(p for p in live_site.processes if p.name == "daphne")
    assert "Listening on TCP address 127.0.0.1" in daphne.log_path.read_text(errors="replace")
