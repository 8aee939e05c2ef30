"""Which tests run in both halves of ``scripts/run-tests``, and what a test process of a
parallel run keeps to itself. A pytest plugin (``pytest_plugins`` in tests/conftest.py).

The test command runs pytest twice: on the built-in defaults (SQLite, the in-memory channel
layer), then on a real PostgreSQL and Redis. Only a test that *depends on the backends* can
find something new the second time, so that run keeps only those (``--backends-only``):

- a test that uses the test database (``django_db``, or a fixture such as ``db`` or
  ``transactional_db``, directly or through other fixtures), found by itself;
- a test that uses the browser tests' live site, which runs on the run's backends;
- a test marked ``backends``: it reaches the channel layer or Django's caches (which are
  Redis in the second run) without the test database, or starts processes of the site that
  inherit the run's ``DATABASE_URL`` and ``REDIS_URL``.

Nothing relies on remembering the mark: in every run, a test that is neither (so it would run
once only) and still reaches the channel layer or a cache fails, saying to mark it.

With pytest-xdist (``-n N --dist loadgroup``), the tests that share a fixture wider than
one test (a module's solve, the browser tests' live site) go to one test process together.
Each test process (``gw0``, ``gw1``, ...) gets a database of its own (pytest-django's
suffix) and, here, Redis databases of its own: ``2 * N`` for its own use and ``2 * N + 1``
for the sites it starts (``redis_url_for_site``), so that live tables, groups and caches of
one process never meet another's; the processes it starts get a ``CARD_ARENA_VAR`` of its
own. Its COLUMNS and LINES are the main process's (pytest-xdist sets them to 80 and 24).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

#: pytest-django's fixtures that give a test the database
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
        "admin_user",
        "admin_client",
        "django_user_model",
    }
)
#: fixtures that start the site on the run's backends: the browser tests' live site
SITE_FIXTURES = frozenset({"live_site"})
#: Redis databases each test process takes: its own and its sites' (a Redis has 16 unless
#: told otherwise; cardsite.localservices starts it with 64, enough for 32 processes)
REDIS_DATABASES_NEEDED = 2


def depends_on_backends(item: pytest.Item) -> bool:
    if item.get_closest_marker("backends") or item.get_closest_marker("django_db"):
        return True
    return bool((DATABASE_FIXTURES | SITE_FIXTURES) & set(getattr(item, "fixturenames", ())))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backends-only",
        action="store_true",
        help="run only the tests that depend on the database or channel-layer backend "
        "(the second half of scripts/run-tests)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "backends: reaches the channel layer, Django's caches or the site's processes "
        "without the test database: runs on both backends (tests/halves.py)",
    )
    config.addinivalue_line(
        "markers",
        "postgresql: its subject is PostgreSQL's own (two connections at once, its locks): "
        "the first half, on SQLite, leaves it out (tests/halves.py)",
    )
    config.addinivalue_line(
        "markers",
        "sqlite: its subject is SQLite's own (its query plan): the second half, on "
        "PostgreSQL, leaves it out (tests/halves.py)",
    )
    # pytest-xdist's, named here too for runs without it (-p no:xdist)
    config.addinivalue_line("markers", "xdist_group(name): tests of one pytest-xdist process")
    keep_redis_to_this_process()
    var_of_this_process()
    terminal_size_as_in_the_main_process(config)


def shared_fixture_group(item: pytest.Item) -> str | None:
    """The module or package whose fixtures the test shares with others (a live site, a
    solve), or None: with ``--dist loadgroup`` such tests go to one test process together,
    so that the fixture is made once, not once in each process. pytest-django gives every
    test a class-scoped fixture, so in practice each module goes whole to one process."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    widest = None
    for name in item.fixturenames:
        definitions = info.name2fixturedefs.get(name)
        if not definitions:
            continue
        scope = definitions[-1].scope
        if scope == "package":
            return definitions[-1].baseid or item.nodeid.split("::")[0]
        if scope in ("module", "class"):
            widest = item.nodeid.split("::")[0]
    return widest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = shared_fixture_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(f"shared:{group}"))
    if not config.getoption("--backends-only"):
        # a test of PostgreSQL's own behaviour is left out on SQLite, not skipped there: it
        # runs in the second half, which keeps it (it uses the database)
        drop = [item for item in items if item.get_closest_marker("postgresql")]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = [item for item in items if not item.get_closest_marker("postgresql")]
        return
    keep, drop = [], []
    for item in items:
        # (a test of SQLite's own behaviour ran in the first half; it is not run again here)
        on_both = depends_on_backends(item) and not item.get_closest_marker("sqlite")
        (keep if on_both else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """With ``--dist loadgroup``, a test given a group must carry it in its id (that is how
    pytest-xdist hands groups to its scheduler); if it does not, the groups would be spread
    over the processes, each making the shared fixture again: say so, and stop."""
    loadgroup = session.config.getoption("loadgroup", default=False)
    if not loadgroup or not hasattr(session.config, "workerinput"):
        return
    lost = [
        item.nodeid
        for item in session.items
        if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid
    ]
    if lost:
        raise pytest.UsageError(
            f"pytest-xdist did not group {len(lost)} test(s), e.g. {lost[0]}: this pytest and "
            "pytest-xdist do not work together (see the pin of pytest in pyproject.toml)"
        )


class _Undeclared:
    """Counts a use of a backend by a test that was not found to depend on backends."""

    def __init__(self) -> None:
        self.uses: list[str] = []

    def wrap(self, what: str, original):
        def used(manager, alias, *args, **kwargs):
            self.uses.append(f"{what} {alias!r}")
            return original(manager, alias, *args, **kwargs)

        return used


@pytest.fixture(autouse=True)
def _backend_use_is_declared(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """A test that runs in one half only must not reach what differs between the halves."""
    if depends_on_backends(request.node):
        yield
        return
    from channels.layers import ChannelLayerManager
    from django.core.cache import CacheHandler

    seen = _Undeclared()
    monkeypatch.setattr(
        ChannelLayerManager,
        "__getitem__",
        seen.wrap("the channel layer", ChannelLayerManager.__getitem__),
    )
    monkeypatch.setattr(
        CacheHandler, "__getitem__", seen.wrap("the cache", CacheHandler.__getitem__)
    )
    yield
    if seen.uses:
        pytest.fail(
            f"{request.node.nodeid} reached {', '.join(sorted(set(seen.uses)))} without the "
            "test database, so it would run on one backend only: mark it "
            "@pytest.mark.backends (tests/halves.py)",
            pytrace=False,
        )


# --------------------------------------------------------------------------------------------
# one test process of a parallel run


def worker_number() -> int:
    """0 without pytest-xdist, else N of the test process gwN."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def redis_database(url: str) -> int:
    path = urlsplit(url).path.strip("/")
    return int(path) if path.isdigit() else 0


def with_redis_database(url: str, number: int) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{number}"))


def redis_url_for_site(url: str) -> str:
    """The Redis database for a site a test starts: the one after the test process's own."""
    return with_redis_database(url, redis_database(url) + 1)


def _replace_everywhere(value, old: str, new: str):
    if value == old:
        return new
    if isinstance(value, dict):
        return {key: _replace_everywhere(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_everywhere(item, old, new) for item in value]
    return value


#: what a test process of pytest-xdist finds set to 80 and 24 whatever the main process had
TERMINAL_SIZE = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """(pytest-xdist, main process) The terminal size variables as this process has them."""
    node.workerinput["terminal_size"] = {name: os.environ.get(name) for name in TERMINAL_SIZE}


def terminal_size_as_in_the_main_process(config: pytest.Config) -> None:
    """A test process sees the main process's COLUMNS and LINES (or none), so that what a
    command prints is the same serial or parallel."""
    given = getattr(config, "workerinput", {}).get("terminal_size")
    if given is None:
        return
    for name, value in given.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def var_of_this_process() -> None:
    """The processes a test process gwN starts that take ``CARD_ARENA_VAR`` from it (a
    ``manage.py`` command) get a folder of its own in the run's: ``var/gwN``."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    var = os.environ.get("CARD_ARENA_VAR", "")
    if name and var:
        os.environ["CARD_ARENA_VAR"] = os.path.join(var, name)


def keep_redis_to_this_process() -> None:
    """In test process gwN, every setting that names the run's Redis names database
    ``base + 2N`` instead, and so does ``REDIS_URL`` for the processes it starts. Called as
    pytest configures the test process: Django's settings are read by then, its caches and
    channel layers not yet made."""
    from django.conf import settings

    number = worker_number()
    old = getattr(settings, "REDIS_URL", "")
    if not old or not number:
        return
    new = with_redis_database(old, redis_database(old) + REDIS_DATABASES_NEEDED * number)
    settings.REDIS_URL = new
    settings.CHANNEL_LAYERS = _replace_everywhere(settings.CHANNEL_LAYERS, old, new)
    settings.CACHES = _replace_everywhere(settings.CACHES, old, new)
    os.environ["REDIS_URL"] = new
