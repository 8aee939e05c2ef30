"""Tiny helpers that read settings from the environment and refuse bad values."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger("cardsite.env")

#: var/ and what it holds are the site's alone: the database, the secret key, logs
PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def envbool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no)")


def envint(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


def envints(name: str, default: tuple[int, ...], count: int) -> tuple[int, ...]:
    """``count`` positive integers separated by commas."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        values = tuple(int(part) for part in raw.split(","))
    except ValueError:
        values = ()
    if len(values) != count or min(values) < 1:
        raise ImproperlyConfigured(f"{name}={raw!r} is not {count} positive integers like 1,2,3")
    return values


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def _tighten(path: Path, mode: int, what: str) -> None:
    """chmod ``path`` to ``mode`` if it lets anyone but its owner in, saying so in the log."""
    found = stat.S_IMODE(path.stat().st_mode)
    if found & 0o077 == 0:
        return
    try:
        path.chmod(mode)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"{what} {path} has mode {found:04o}, open to other users, and could not be made "
            f"{mode:04o}: {exc.strerror}"
        ) from None
    log.warning("event=permissions.tightened path=%s was=%04o now=%04o", path, found, mode)


def private_dir(path: Path) -> Path:
    """The folder ``path`` (var/), created if missing, readable by its owner alone: mode 0700.
    One that exists with a looser mode is tightened, with a log line."""
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    _tighten(path, PRIVATE_DIR, "the folder")
    return path


def private_file(path: Path, *, create: bool = False) -> Path:
    """Make the file ``path`` readable by its owner alone (mode 0600), tightening a looser
    mode with a log line; with ``create``, a missing file is created empty with that mode (an
    empty file is a new SQLite database, which SQLite then fills without changing the mode)."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    if path.exists():
        _tighten(path, PRIVATE_FILE, "the file")
    return path


def sqlite_database(var_dir: Path) -> Path:
    """var/db.sqlite3, mode 0600, and so its journal files (SQLite gives them the database's
    mode when it makes them; ones left by an older run are tightened here)."""
    path = private_file(var_dir / "db.sqlite3", create=True)
    for suffix in ("-journal", "-wal", "-shm"):
        private_file(path.with_name(path.name + suffix))
    return path


def secret_key(var_dir: Path) -> str:
    """SECRET_KEY from the environment, else one generated once and kept in var/ (not in git),
    mode 0600."""
    from_env = os.environ.get("SECRET_KEY")
    if from_env:
        return from_env
    path = var_dir / "secret_key"
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        pass
    else:
        private_file(path)
        return key
    private_dir(var_dir)
    key = secrets.token_urlsafe(50)
    # O_EXCL: two processes starting at once agree on the first key written.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as fh:
        fh.write(key + "\n")
    return key
