"""Tiny helpers that read settings from the environment and refuse bad values."""

from __future__ import annotations

import contextlib
import logging
import os
import pwd
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


def _user(uid: int) -> str:
    """A user's name (their number if the machine has no name for it)."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def usable_dir(path: Path, what: str, *, write: bool = True, mode: int = PRIVATE_DIR) -> Path:
    """The folder ``path``, created with ``mode`` if missing, that this process may read and
    search (and with ``write``, write in). One it cannot use (a folder root made for a site
    that runs as another user) is refused in one line saying whose it is and who runs, not
    by a traceback from the first file written there."""
    user = _user(os.geteuid())
    try:
        path.mkdir(parents=True, exist_ok=True, mode=mode)
    except PermissionError:
        parent = _nearest_existing(path.parent)
        raise ImproperlyConfigured(
            f"{what} {path} cannot be made: {parent} belongs to {_user(parent.stat().st_uid)}, "
            f"and this process runs as {user}, who may not write there; make it for {user} "
            f"(as root: install -d -o {user} -m 0700 {path}; docs/deploy.md)"
        ) from None
    except OSError as exc:
        raise ImproperlyConfigured(f"{what} {path} cannot be made: {exc.strerror}") from None
    need = os.R_OK | os.X_OK | (os.W_OK if write else 0)
    if not os.access(path, need):
        owner = _user(path.stat().st_uid)
        found = stat.S_IMODE(path.stat().st_mode)
        can = "use" if write else "read"
        raise ImproperlyConfigured(
            f"{what} {path} belongs to {owner} (mode {found:04o}), and this process runs as "
            f"{user}, who cannot {can} it: make it {user}'s (chown -R {user} {path}; "
            "docs/deploy.md)"
        )
    return path


def private_dir(path: Path, what: str = "the folder") -> Path:
    """The folder ``path`` (var/), created if missing, readable by its owner alone: mode 0700.
    One that exists with a looser mode is tightened, with a log line; one this process
    cannot use is refused (:func:`usable_dir`)."""
    usable_dir(path, what)
    _tighten(path, PRIVATE_DIR, what)
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


def shares_services() -> bool:
    """Whether this process shares its database or channel layer with others, which may run
    on other machines: PostgreSQL (DATABASE_URL) or Redis (REDIS_URL)."""
    database = os.environ.get("DATABASE_URL", "").strip().lower()
    return database.startswith(("postgres", "pgsql")) or bool(os.environ.get("REDIS_URL"))


def secret_key(var_dir: Path, *, shared: bool = False) -> str:
    """SECRET_KEY from the environment, else one generated once and kept in var/ (not in git),
    mode 0600. ``shared``: the process shares its database or Redis with others
    (:func:`shares_services`), which need the same key; one read from var/ is then said in
    the log, since a process on another machine (or with another var/) has a key of its own."""
    from_env = os.environ.get("SECRET_KEY")
    if from_env:
        return from_env
    path = var_dir / "secret_key"
    if shared:
        log.warning(
            "event=secret_key.own SECRET_KEY is not set, so this process uses the key kept "
            "in %s. Processes on other machines, or with another CARD_ARENA_VAR, that share "
            "this database make keys of their own: people are logged out, and guests lose "
            "their seats, as they move between them. Give every process the same SECRET_KEY "
            "(docs/deploy.md).",
            path,
        )
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        pass
    except PermissionError:  # made by a command run as root, say
        user = _user(os.geteuid())
        raise ImproperlyConfigured(
            f"the secret key {path} belongs to {_user(path.stat().st_uid)}, and this process "
            f"runs as {user}, who cannot read it: make it {user}'s (chown {user} {path}), or "
            "set SECRET_KEY (docs/deploy.md)"
        ) from None
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
