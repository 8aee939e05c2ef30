"""Settings come from the environment, with safe defaults for a laptop."""

from __future__ import annotations

import gc
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from cardsite import collector
from cardsite.env import (
    envbool,
    envint,
    envints,
    envlist,
    private_dir,
    secret_key,
    sqlite_database,
)

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json
from django.conf import settings
import django
django.setup()
print(json.dumps({
    "debug": settings.DEBUG,
    "engine": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "layer_hosts": settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("hosts"),
    "secret": settings.SECRET_KEY,
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_location": settings.CACHES["default"].get("LOCATION"),
}))
"""


def load_settings(tmp_path: Path, **env: str) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}
    }
    clean |= {"DJANGO_SETTINGS_MODULE": "cardsite.settings", "CARD_ARENA_VAR": str(tmp_path)}
    clean |= env
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_it_defaults_to_sqlite_in_var_and_the_in_memory_layer_with_debug_off(tmp_path):
    loaded = load_settings(tmp_path)
    assert loaded["debug"] is False
    assert loaded["engine"] == "django.db.backends.sqlite3"
    assert loaded["db_name"] == str(tmp_path / "db.sqlite3")
    assert loaded["layer"] == "channels.layers.InMemoryChannelLayer"
    assert loaded["cache"] == "django.core.cache.backends.locmem.LocMemCache"


def test_it_switches_to_postgresql_and_redis_from_urls(tmp_path):
    loaded = load_settings(
        tmp_path,
        DATABASE_URL="postgres://u:p@db.example:5433/arena",
        REDIS_URL="redis://cache.example:6380/2",
        DEBUG="1",
    )
    assert loaded["debug"] is True
    assert loaded["engine"] == "django.db.backends.postgresql"
    assert loaded["db_name"] == "arena"
    assert loaded["layer"] == "channels_redis.core.RedisChannelLayer"
    assert loaded["layer_hosts"] == ["redis://cache.example:6380/2"]
    # the counters every web process shares (the sign-up throttle) are in Redis too
    assert loaded["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert loaded["cache_location"] == "redis://cache.example:6380/2"


def test_it_generates_the_secret_key_once_and_keeps_it_private(tmp_path):
    first = load_settings(tmp_path)["secret"]
    second = load_settings(tmp_path)["secret"]
    assert first == second
    assert len(first) >= 50
    key_file = tmp_path / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert load_settings(tmp_path, SECRET_KEY="from-env")["secret"] == "from-env"


def test_it_keeps_var_out_of_git():
    ignored = subprocess.run(["git", "check-ignore", "-q", "var/secret_key"], cwd=ROOT, check=False)
    assert ignored.returncode == 0


def test_it_refuses_bad_values(monkeypatch):
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG='maybe' is not a boolean"):
        envbool("X_FLAG")
    monkeypatch.setenv("X_NUM", "ten")
    with pytest.raises(ImproperlyConfigured, match="X_NUM='ten' is not an integer"):
        envint("X_NUM", 1)
    monkeypatch.setenv("X_FLAG", "Yes")
    assert envbool("X_FLAG") is True
    monkeypatch.setenv("X_LIST", " a, b ,,c")
    assert envlist("X_LIST", []) == ["a", "b", "c"]
    for bad in ("700,10", "700,ten,10", "700,0,10"):
        monkeypatch.setenv("X_GC", bad)
        with pytest.raises(ImproperlyConfigured, match="is not 3 positive integers"):
            envints("X_GC", (1, 2, 3), 3)
    monkeypatch.setenv("X_GC", "700, 10, 100")
    assert envints("X_GC", (1, 2, 3), 3) == (700, 10, 100)
    monkeypatch.delenv("X_GC")
    assert envints("X_GC", (1, 2, 3), 3) == (1, 2, 3)


def test_the_collector_is_tuned_for_serving():
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    try:
        collector.tune((900, 9, 99))
        assert gc.get_threshold() == (900, 9, 99)
        assert gc.get_freeze_count() > frozen  # what start-up made is set aside
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_it_writes_a_new_secret_key_file(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    key = secret_key(tmp_path / "fresh")
    assert (tmp_path / "fresh" / "secret_key").read_text().strip() == key


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_settings_make_var_private(tmp_path):
    var = tmp_path / "new" / "var"
    load_settings(var)
    assert mode(var) == 0o700
    assert mode(var / "db.sqlite3") == 0o600
    assert mode(var / "secret_key") == 0o600


def test_the_settings_tighten_a_var_others_could_read(tmp_path):
    var = tmp_path / "var"
    var.mkdir()
    (var / "secret_key").write_text("k" * 60 + "\n")
    (var / "db.sqlite3").write_bytes(b"")
    for path, loose in ((var, 0o755), (var / "secret_key", 0o644), (var / "db.sqlite3", 0o664)):
        path.chmod(loose)
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=clean | {"DJANGO_SETTINGS_MODULE": "cardsite.settings", "CARD_ARENA_VAR": str(var)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (mode(var), mode(var / "secret_key"), mode(var / "db.sqlite3")) == (
        0o700,
        0o600,
        0o600,
    )
    assert f"path={var} was=0755 now=0700" in done.stderr
    assert f"path={var / 'secret_key'} was=0644 now=0600" in done.stderr
    assert f"path={var / 'db.sqlite3'} was=0664 now=0600" in done.stderr


def test_private_dir_and_sqlite_database_create_and_tighten(tmp_path, caplog):
    var = private_dir(tmp_path / "a" / "var")
    assert mode(var) == 0o700
    database = sqlite_database(var)
    assert database == var / "db.sqlite3"
    assert mode(database) == 0o600
    assert database.read_bytes() == b""  # an empty file: SQLite makes it a new database
    (var / "db.sqlite3-wal").write_bytes(b"x")
    for path in (var, database, var / "db.sqlite3-wal"):
        path.chmod(0o777)
    caplog.set_level("WARNING", logger="cardsite.env")
    assert private_dir(var) == var
    sqlite_database(var)
    assert [mode(p) for p in (var, database, var / "db.sqlite3-wal")] == [0o700, 0o600, 0o600]
    assert len([r for r in caplog.records if "permissions.tightened" in r.getMessage()]) == 3
    # a private mode is left alone, and not logged
    caplog.clear()
    private_dir(var)
    sqlite_database(var)
    assert caplog.records == []


def test_an_existing_secret_key_file_is_tightened(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    (tmp_path / "secret_key").write_text("an-old-key\n")
    (tmp_path / "secret_key").chmod(0o644)
    assert secret_key(tmp_path) == "an-old-key"
    assert mode(tmp_path / "secret_key") == 0o600
