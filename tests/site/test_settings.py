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
    "pool": settings.DATABASES["default"].get("OPTIONS", {}).get("pool"),
    "health_checks": settings.DATABASES["default"].get("CONN_HEALTH_CHECKS"),
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


def test_a_database_outage_fails_pages_in_seconds_and_is_over_when_postgresql_is_back(tmp_path):
    """An audit's PostgreSQL outage: pages hung 30 s (the pool's wait) before their 500, and
    once the server was back the first page took 25 s: the pool's tries to connect had
    grown minutes apart. A request now waits DB_POOL_TIMEOUT (5 s), the pool's tries stay
    as close (it gives up after as long, and the next request starts afresh), and each
    connection is checked as it is handed out (none the restart closed reaches a page).
    Measured with a real outage (40 s): 500 after 5 s, not 30; the first page 0.7 s after
    the server was back, not 23 s; a worker 2 s after, not 17 (docs/deploy.md)."""
    url = "postgres://u:p@db.example:5433/arena"
    pool = load_settings(tmp_path, DATABASE_URL=url)["pool"]
    assert (pool["timeout"], pool["reconnect_timeout"]) == (5, 5)
    assert load_settings(tmp_path, DATABASE_URL=url)["health_checks"] is True
    pool = load_settings(tmp_path, DATABASE_URL=url, DB_POOL_TIMEOUT="2")["pool"]
    assert (pool["timeout"], pool["reconnect_timeout"]) == (2, 2)
    assert load_settings(tmp_path, DATABASE_URL=url, DB_POOL_CHECK="0")["health_checks"] is False


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


def test_a_folder_the_process_cannot_use_is_refused_naming_its_owner_and_the_user(
    tmp_path, monkeypatch
):
    """A folder root made (mode 0700) for a site that runs as another user: one line that
    says whose it is and who runs, not the traceback of the first file written there."""
    import pwd

    from cardsite import env

    owner = pwd.getpwuid(os.getuid()).pw_name
    monkeypatch.setattr(env, "_user", lambda uid: owner if uid == os.getuid() else "?")
    monkeypatch.setattr(env.os, "geteuid", lambda: -1)  # runs as someone else: "?"
    monkeypatch.setattr(env.os, "access", lambda path, need: False)
    var = tmp_path / "var"
    var.mkdir(mode=0o700)
    with pytest.raises(ImproperlyConfigured) as refused:
        env.private_dir(var, "the site's folder (CARD_ARENA_VAR)")
    assert str(refused.value) == (
        f"the site's folder (CARD_ARENA_VAR) {var} belongs to {owner} (mode 0700), and this "
        f"process runs as ?, who cannot use it: make it ?'s (chown -R ? {var}; docs/deploy.md)"
    )
    # a folder it may not make: where, whose, and the command that makes it for the user
    monkeypatch.setattr(Path, "mkdir", lambda *a, **k: (_ for _ in ()).throw(PermissionError()))
    with pytest.raises(ImproperlyConfigured) as refused:
        env.usable_dir(tmp_path / "new" / "var", "the site's folder (CARD_ARENA_VAR)")
    assert str(refused.value) == (
        f"the site's folder (CARD_ARENA_VAR) {tmp_path / 'new' / 'var'} cannot be made: "
        f"{tmp_path} belongs to {owner}, and this process runs as ?, who may not write there; "
        f"make it for ? (as root: install -d -o ? -m 0700 {tmp_path / 'new' / 'var'}; "
        "docs/deploy.md)"
    )
    # a secret key file it may not read (written by a command run as root)
    monkeypatch.delenv("SECRET_KEY", raising=False)
    (var / "secret_key").write_text("a-key\n")
    monkeypatch.setattr(Path, "read_text", lambda *a, **k: (_ for _ in ()).throw(PermissionError()))
    with pytest.raises(ImproperlyConfigured) as refused:
        env.secret_key(var)
    assert str(refused.value) == (
        f"the secret key {var / 'secret_key'} belongs to {owner}, and this process runs as ?, "
        f"who cannot read it: make it ?'s (chown ? {var / 'secret_key'}), or set SECRET_KEY "
        "(docs/deploy.md)"
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the site as another user: needs root")
def test_the_site_started_as_another_user_on_roots_folder_says_so_in_one_line():
    """As docs/deploy.md once had it: the folder made by root (mode 0700), the web process
    run as the site's user. It stops at once with one line, not a traceback."""
    import shutil
    import tempfile

    if shutil.which("setpriv") is None:
        pytest.skip("no setpriv to run as another user")
    base = Path(tempfile.mkdtemp(prefix="card-arena-var-"))
    try:
        base.chmod(0o711)  # the other user may pass through, as through /srv/card-arena
        var = base / "var"
        var.mkdir(mode=0o700)
        env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        env |= {"CARD_ARENA_VAR": str(var), "SECRET_KEY": "x" * 50}
        done = subprocess.run(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
             sys.executable, "manage.py", "check"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        shutil.rmtree(base)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"ImproperlyConfigured: the site's folder (CARD_ARENA_VAR) {var} belongs to root "
        "(mode 0700), and this process runs as nobody, who cannot use it: make it nobody's "
        f"(chown -R nobody {var}; docs/deploy.md)"
    ]


def test_an_existing_secret_key_file_is_tightened(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    (tmp_path / "secret_key").write_text("an-old-key\n")
    (tmp_path / "secret_key").chmod(0o644)
    assert secret_key(tmp_path) == "an-old-key"
    assert mode(tmp_path / "secret_key") == 0o600


def test_the_server_takes_in_every_upload_its_form_can_refuse_with_a_page(settings):
    """An upload just over the forms' limit gets the page that says how large it was (the
    view reads its length); only a request larger than that is cut short by the server, with
    one line (cardsite/serve.py)."""
    from bots.pages.views import request_limit

    server_takes = settings.REQUEST_BODY_MAX_BYTES
    assert server_takes >= 2 * request_limit()
