"""Every command of the project's own apps reads at an 80-column terminal: its --help has no
line wider than that (argparse wraps the help, never a usage line's choices)."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, get_commands, load_command_class

PROJECT_APPS = ("bots", "games", "cardsite")
OWN = sorted(
    (app, name) for name, app in get_commands().items() if app.split(".")[0] in PROJECT_APPS
)


def test_the_projects_commands_are_found():
    assert {"arena", "standings", "replay", "upload_bot", "worker"} <= {n for _, n in OWN}


@pytest.mark.parametrize(("app", "name"), OWN, ids=[n for _, n in OWN])
def test_a_commands_help_fits_80_columns(app, name, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    parser = load_command_class(app, name).create_parser("manage.py", name)
    wide = [line for line in parser.format_help().splitlines() if len(line) > 80]
    assert wide == []


def test_upload_bot_refuses_an_unknown_game():
    parser = load_command_class("bots", "upload_bot").create_parser("manage.py", "upload_bot")
    with pytest.raises(CommandError, match="argument --game: invalid choice: 'poker'"):
        parser.parse_args(["bot.py", "--user", "ann", "--game", "poker"])
