"""What a process says as it starts when it shares PostgreSQL or Redis with others but lacks
what they must share too: a worker without REDIS_URL (tournament pages would not hear of its
matches), and any process without SECRET_KEY (each machine would sign sessions with a key of
its own) (docs/deploy.md)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

from bots.worker import no_live_updates
from cardsite.env import secret_key, shares_services

ROOT = Path(__file__).resolve().parents[2]
NO_REDIS = "REDIS_URL is not set: tournament pages will not update live"
OWN_KEY = "SECRET_KEY is not set, so this process uses the key kept in"


def test_a_worker_on_postgresql_without_redis_says_pages_will_not_update_live(
    settings, monkeypatch
):
    settings.REDIS_URL = ""
    monkeypatch.setattr(connection, "vendor", "postgresql")
    assert no_live_updates().startswith(NO_REDIS)
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    assert no_live_updates() is None


def test_a_worker_on_sqlite_without_redis_says_nothing(settings, monkeypatch):
    settings.REDIS_URL = ""
    monkeypatch.setattr(connection, "vendor", "sqlite")
    assert no_live_updates() is None


def test_a_shared_database_or_redis_is_recognised(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("DATABASE_URL", "")
    assert not shares_services()
    monkeypatch.setenv("DATABASE_URL", "sqlite:////tmp/db.sqlite3")
    assert not shares_services()
    monkeypatch.setenv("DATABASE_URL", "postgres://arena:x@db.internal:5432/arena")
    assert shares_services()
    monkeypatch.setenv("DATABASE_URL", "")
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
    assert shares_services()


def test_a_key_of_its_own_is_said_only_where_others_share_the_database(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    with caplog.at_level(logging.WARNING, logger="cardsite.env"):
        key = secret_key(tmp_path)
        assert not caplog.records
        assert secret_key(tmp_path, shared=True) == key
    [record] = caplog.records
    assert OWN_KEY in record.getMessage()
    assert str(tmp_path / "secret_key") in record.getMessage()
    assert "Give every process the same SECRET_KEY (docs/deploy.md)" in record.getMessage()
    caplog.clear()
    monkeypatch.setenv("SECRET_KEY", "shared by every process")
    assert secret_key(tmp_path, shared=True) == "shared by every process"
    assert not caplog.records


def test_every_process_on_postgresql_without_secret_key_says_so_as_it_starts(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "REDIS_URL")}
    env |= {
        "DATABASE_URL": "postgres://arena:x@127.0.0.1:9/arena",  # never connected to
        "CARD_ARENA_VAR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "cardsite.settings",
    }
    start = [sys.executable, "-c", "import django; django.setup()"]
    run = subprocess.run(start, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert OWN_KEY in run.stderr
    run = subprocess.run(
        start, env=env | {"SECRET_KEY": "x" * 50}, cwd=ROOT, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert OWN_KEY not in run.stderr
