"""The arena's own notes on stderr (the tournament's first line, where the results and the
logs went) say paths and options as given, and are wrapped between words to the terminal:
a folder named ``[bold]run`` was said as ``run`` (read as markup), and the first line of a
run with options ran past 80 columns, cut by the terminal with a space left at its end."""

from __future__ import annotations

import io

from django.core.management import call_command


def test_the_notes_name_the_paths_as_given_and_fit_the_columns(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    logs, results = tmp_path / "[bold]run", tmp_path / "[red]results.json"
    call_command(
        "arena", "--no-progress", "--game", "uth", "builtin:basic", "--sessions", "1",
        "--rounds-per-session", "3", "--seed", "1", "--option", "variant=standard",
        "--option", "chips=500", "--logs", str(logs), "--json", str(results),
        stdout=io.StringIO(),
    )  # fmt: skip
    assert logs.is_dir() and results.is_file()
    err = capsys.readouterr().err
    said = " ".join(line.strip() for line in err.splitlines())
    assert f"results written to {results}" in said
    assert f"the full leaderboard in {logs}" in said
    first = err.splitlines()[:2]
    assert first[0] == "Ultimate Texas Hold'em: 1 bot, 1 session, 1 match, seed 1,"
    assert first[1] == "  variant=standard, chips=500"
