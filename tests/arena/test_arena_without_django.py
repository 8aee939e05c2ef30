"""``manage.py arena`` runs without Django's set-up (bots.arena.command): the same results as
the Django command's, the same errors, and none of Django's command machinery or asyncio
imported."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from django.core.management import call_command

from bots.management.commands.arena import Command as ArenaCommand
from games.registry import games

ROOT = Path(__file__).resolve().parents[2]

#: runs manage.py as its command line does, and says on stderr, last, which of these modules
#: the run imported
RUN = """
import atexit, runpy, sys
watched = ("django.core.management", "django.apps", "django.conf", "asyncio", "channels")
said = lambda: print("IMPORTED", [m for m in watched if m in sys.modules], file=sys.stderr)
atexit.register(said)
sys.argv = ["manage.py", *sys.argv[1:]]
runpy.run_path("manage.py", run_name="__main__")
"""


def manage(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "-c", RUN, "arena", *args],
        cwd=ROOT, env=env | {"COLUMNS": "80"}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_it_plays_as_the_django_command_does_without_importing_django_s_machinery(tmp_path):
    args = ["--game", "rps-poker", "builtin:minimal", "builtin:simple", "builtin:strong"]
    args += ["--rounds", "2", "--seed", "9", "--no-progress", "--jobs", "1"]
    done = manage(*args, "--json", str(tmp_path / "plain.json"))
    assert done.returncode == 0, done.stderr
    assert "RPS Poker: 3 bots, 2 rounds, 6 matches, seed 9" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "IMPORTED []"
    assert "│ strong" in done.stdout or "│ simple" in done.stdout
    call_command(*["arena", *args, "--json", str(tmp_path / "django.json")], stdout=io.StringIO())
    plain, django = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("plain", "django"))
    for results in (plain, django):
        results.pop("elapsed_s")
        for bot in results["bots"]:
            bot.pop("mean_call_ms")
    assert plain == django


def test_its_errors_are_said_as_the_django_command_says_them():
    done = manage("--game", "rps-poker")
    assert done.returncode == 1
    assert "CommandError: name the BOTs: bot files (" in done.stderr
    done = manage("--game", "rps-poker", "builtin:minimal", "--rounds", "x")
    assert done.returncode == 2
    assert "manage.py arena: error: argument --rounds: invalid int value: 'x'" in done.stderr


def test_django_s_own_options_run_it_through_django():
    done = manage("--game", "rps-poker", "--traceback")
    assert done.returncode == 1
    assert "CommandError: name the BOTs" in done.stderr
    assert "'django.core.management'" in done.stderr.strip().splitlines()[-1]


def help_lines_of_both_commands(monkeypatch) -> list[list[str]]:
    """``manage.py arena --help`` at 80 columns, without Django and through Django's
    command runner."""
    done = manage("--help")
    assert done.returncode == 0, done.stderr
    monkeypatch.setenv("COLUMNS", "80")
    django = ArenaCommand().create_parser("manage.py", "arena").format_help()
    return [done.stdout.splitlines(), django.splitlines()]


def test_its_help_fits_80_columns_and_names_every_game_s_built_in_bots(monkeypatch):
    for lines in help_lines_of_both_commands(monkeypatch):
        assert [line for line in lines if len(line) > 80] == []
        text = " ".join(" ".join(lines).split())
        assert "[--game GAME]" in text
        assert "BOT a bot file (" in text
        listed = text.split("--game GAME the game: ", 1)[1]
        assert all(game.slug in listed for game in games())
        # "(rps-poker: minimal, simple, strong; kuhn, leduc and blackjack-pp: random, ...)"
        said = text.split("built-in bots (", 1)[1].split(")", 1)[0]
        builtins = {}
        for entry in said.split("; "):
            slugs, names = entry.split(": ")
            for slug in slugs.replace(" and ", ", ").split(", "):
                builtins[slug] = names.split(", ")
        assert builtins == {game.slug: game.builtin_names for game in games()}
