from __future__ import annotations

import textwrap

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


def waiting_for_a_lock() -> bool:
    """Whether a transaction on PostgreSQL waits for a lock another one holds (pg_locks is
    read afresh by every statement, inside a transaction too): a race test's second
    connection has reached the row the first holds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        return cursor.fetchone()[0] > 0
