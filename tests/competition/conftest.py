from __future__ import annotations

import contextlib
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction

from bots.competition.uploads import activate
from bots.models import Bot, BotVersion
from games.registry import get_game


def builtin_code(name: str) -> str:
    return get_game("rps-poker").builtin_path(name).read_text()


#: a bot that plays legal moves and then misbehaves as the test asks (code in ``{act}``)
MISBEHAVING = """
class Bot:
    name = "misbehaving"

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
{act}
        return 0

    def main_postprocess(self, card):
        pass
"""


def misbehaving(act: str) -> str:
    return MISBEHAVING.format(act=textwrap.indent(textwrap.dedent(act).strip(), " " * 8))


def write_bot(folder: Path, name: str, code: str) -> Path:
    """``code`` in ``folder/NAME.py``, for a command to upload."""
    path = folder / f"{name}.py"
    path.write_text(code)
    return path


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob")


@pytest.fixture
def carol(db) -> User:
    return User.objects.create_user("carol")


@pytest.fixture
def active_bot(db):
    """Make an active version directly (no validation): ``active_bot(owner, name, code)``."""

    def make(owner: User, name: str, code: str) -> BotVersion:
        bot, _ = Bot.objects.get_or_create(
            owner=owner, game="rps-poker", name=name, defaults={"language": "python"}
        )
        version = BotVersion.objects.create(
            bot=bot,
            number=bot.versions.count() + 1,
            code=code,
            checksum=BotVersion.checksum_of(code),
        )
        with transaction.atomic():
            activate(version)
        return version

    return make


@pytest.fixture(scope="session")
def pg_site(tmp_path_factory):
    """A migrated database on a PostgreSQL server of our own (in both test runs)."""
    from cardsite.localservices import postgres_server
    from tests.competition.services import Site

    base = tmp_path_factory.mktemp("pg")
    with postgres_server(base) as server:
        site = Site.migrated(server.url, base)
        yield site
        site.reset()


@pytest.fixture
def site(pg_site):
    pg_site.reset()
    yield pg_site
    pg_site.reset()


def second_waiting_for_the_lock(target: Callable[[], None], said: object) -> threading.Thread:
    """Start ``target`` (a second worker, on a connection of its own) in a thread, and return
    the thread once it waits for a lock this test's transaction holds on PostgreSQL (pg_locks
    is read afresh by every statement, inside a transaction too); ``said`` is shown if it
    ends or never waits."""
    thread = threading.Thread(target=target)
    thread.start()
    deadline = time.monotonic() + 30
    while not _waiting_for_a_lock():
        assert thread.is_alive(), said
        assert time.monotonic() < deadline, "the second worker never waited for the first"
        time.sleep(0.01)
    return thread


def _waiting_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        return cursor.fetchone()[0] > 0


@contextlib.contextmanager
def ledger_held_elsewhere(game: str) -> Iterator[None]:
    """On PostgreSQL: another connection (as another worker would) holds ``game``'s rating
    ledger row locked (SELECT ... FOR UPDATE) until the block ends."""
    import psycopg

    settings = connection.settings_dict
    other = psycopg.connect(
        dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"],
        port=settings["PORT"], password=settings["PASSWORD"] or None,
    )  # fmt: skip
    with other, other.transaction():
        other.execute("SELECT 1 FROM bots_ratingledger WHERE game = %s FOR UPDATE", [game])
        yield
