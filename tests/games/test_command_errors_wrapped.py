"""``manage.py replay`` and ``manage.py solve``, run from the command line, wrap their errors
between words to the terminal's width (``COLUMNS`` in a pipe, else 80), as ``arena`` and
``upload_bot`` do: Django prints a CommandError on one line, and a record the command
refused ran to three hundred characters on it. Called from code (``call_command``), the
error's text stays one line, for the code to read."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command, load_command_class


def from_the_command_line(capsys, name: str, *args: str) -> list[str]:
    command = load_command_class("games", name)
    with pytest.raises(SystemExit) as stopped:
        command.run_from_argv(["manage.py", name, *args])
    assert stopped.value.code == 1
    return capsys.readouterr().err.splitlines()


@pytest.mark.parametrize("columns", ["80", "60"])
def test_replay_wraps_a_long_refusal_to_the_columns(tmp_path, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not-a-record.json").write_text(json.dumps({"game": "kuhn", "seats": []}))
    lines = from_the_command_line(capsys, "replay", "not-a-record.json")
    assert lines[0].startswith("CommandError: not-a-record.json: not a") and len(lines) > 1
    assert all(len(line) <= int(columns) for line in lines), lines
    said = " ".join(line.strip() for line in lines)
    assert "not a match record (no 'events' list); the arena writes its records" in said


def test_solve_wraps_its_error_to_80_columns(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    lines = from_the_command_line(capsys, "solve", "leduc", "--up", "6,6,2")
    assert lines == [
        "CommandError: leduc takes no --up: --up and --max-hits are options of",
        "  blackjack-pp only",
    ]


def test_called_from_code_the_error_stays_one_line(tmp_path):
    path = tmp_path / "not-a-record.json"
    path.write_text(json.dumps({"game": "kuhn", "seats": []}))
    with pytest.raises(CommandError) as caught:
        call_command("replay", str(path))
    assert "\n" not in str(caught.value)


def test_a_path_too_long_for_the_line_starts_the_next_one_whole(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    path = tmp_path / ("x" * 50 + ".json")
    path.write_text(json.dumps({"game": "kuhn", "seats": []}))
    lines = from_the_command_line(capsys, "replay", str(path))
    assert lines[0].rstrip() == "CommandError:"
    assert lines[1] == f"  {path}:"
