"""A command run on a database older than the code (a checkout updated, ``migrate`` not run
yet) says what to do in a few lines, not with Django's traceback ending in "no such column"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import OperationalError

from bots.management.commands import standings
from bots.models import Bot
from games.management import database

ROOT = Path(__file__).resolve().parents[2]


def test_the_test_database_lacks_no_migration(db):
    assert database.unapplied() == ([], False)
    assert database.behind() is None


def test_a_database_error_of_a_database_behind_the_code_says_to_migrate(db, monkeypatch):
    def fails(bot):
        raise OperationalError("no such column: bots_botversion.taken_off")

    monkeypatch.setattr(standings, "bot_status", fails)
    user = get_user_model().objects.create(username="ann")
    Bot.objects.create(owner=user, name="b", game="rps-poker", language="python")
    # the database is up to date: the error is the error
    with pytest.raises(OperationalError, match="taken_off"):
        call_command("standings", "--game", "rps-poker")
    monkeypatch.setattr(
        database, "unapplied", lambda using="default": (["bots.0099_taken_off"] * 3, False)
    )
    with pytest.raises(CommandError) as caught:
        call_command("standings", "--game", "rps-poker")
    said = str(caught.value)
    assert said.startswith("the database is behind this code: 3 migrations are not applied\n")
    assert "(the first: bots.0099_taken_off)" in said
    assert "  .venv/bin/python manage.py migrate\n" in said
    assert all(len("CommandError: " + line) <= 80 for line in said.splitlines())


def test_the_worker_will_not_start_on_a_database_behind_the_code(db, monkeypatch):
    monkeypatch.setattr(
        database, "unapplied", lambda using="default": (["bots.0099_taken_off"], False)
    )
    with pytest.raises(CommandError, match="a migration is not applied"):
        call_command("worker", "--once")


def test_a_command_on_a_new_database_says_to_make_its_tables(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env |= {"CARD_ARENA_VAR": str(tmp_path / "var"), "COLUMNS": "80"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "manage.py", "standings"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.endswith(
        "CommandError: the database has no tables yet. Make them with\n"
        "  .venv/bin/python manage.py migrate\n"
        "(scripts/run-site does so as it starts), then run this again.\n"
    ), done.stderr
