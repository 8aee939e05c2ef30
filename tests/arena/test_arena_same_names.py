"""Two bot files that give themselves one name (a game's C++ and Java starters both say
``starter``) are told apart in the table only as ``starter`` and ``starter#2``: the arena
says which file is which before the matches. Copies of one bot (``--fill``, a file given
twice) need no such note."""

from __future__ import annotations

import io

from django.core.management import call_command

from tests.arena.conftest import FIRST_CARD_BOT


def arena_notes(capsys, *args: str) -> str:
    call_command("arena", "--no-progress", "--seed", "1", *args, stdout=io.StringIO())
    return " ".join(line.strip() for line in capsys.readouterr().err.splitlines())


def test_files_of_one_name_are_said_apart(tmp_path, capsys, bot_file):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = bot_file("a/twin.py", FIRST_CARD_BOT.format(name="twin"))
    second = bot_file("b/other.py", FIRST_CARD_BOT.format(name="twin"))
    notes = arena_notes(
        capsys, "--game", "rps-poker", str(first), str(second), "builtin:simple", "--rounds", "1"
    )
    assert f"2 bots are named twin: twin is {first}, twin#2 is {second}" in notes


def test_copies_of_one_bot_get_no_note(tmp_path, capsys, bot_file):
    bot = bot_file("twin.py", FIRST_CARD_BOT.format(name="twin"))
    notes = arena_notes(capsys, "--game", "rps-poker", str(bot), str(bot), "--rounds", "1")
    notes += arena_notes(
        capsys, "--game", "last-card", "builtin:naive", "--fill", "builtin:naive", "--games", "1"
    )
    assert "bots are named" not in notes
