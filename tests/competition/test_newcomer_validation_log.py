"""A validation log as its owner reads it on My bots, the bot page and upload_bot's output:
the bot and version without the status it had when the log began (which went stale), seats
counted from 1 as every page counts them, and each side's score in the game's own words (not
a Python list with no word of whose score is whose), within an 80-column terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots.competition.uploads import upload, validate
from bots.models import BotVersion

ROOT = Path(__file__).resolve().parents[2]
SCORE = r"[+\u2212]?\d+(?:\.\d+)?"


def test_the_log_names_the_version_the_seats_from_1_and_whose_score_is_whose(alice):
    code = (ROOT / "games/kuhn/starter.py").read_bytes()
    version = validate(upload(alice, "kuhn", "caller", "caller.py", code))
    assert version.status == BotVersion.ACTIVE, version.validation_log
    first, one, two, *rest = version.validation_log.splitlines()
    assert first.startswith(
        "validation of alice/caller v1 against the built-in bot house/simple, 2 matches ("
    ), first
    assert "(validating)" not in version.validation_log
    assert re.fullmatch(
        rf"match 1: your bot in seat 1: chips won {SCORE}, house/simple {SCORE} \(\d+\.\d\d s\)",
        one,
    ), one
    assert re.fullmatch(
        rf"match 2: your bot in seat 2: chips won {SCORE}, house/simple {SCORE} \(\d+\.\d\d s\)",
        two,
    ), two
    # (the deal's seed is of no use to its owner: no command plays a deal again from it)
    assert "seat 0" not in version.validation_log and "seed" not in version.validation_log
    assert "scores [" not in version.validation_log
    assert rest[-1] == "passed"


def test_upload_bot_prints_the_log_within_80_columns(alice, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "caller.py"
    path.write_text("class Bot:\n    def act(self, obs):\n        raise ValueError('no idea')\n")
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "upload_bot", str(path), "--user", "alice", "--game", "kuhn", stdout=out, stderr=err
        )
    said = out.getvalue() + err.getvalue()
    assert all(len(line) <= 80 for line in said.splitlines()), said
    joined = " ".join(said.split())
    assert "validation of alice/caller v1 against the built-in bot house/simple" in joined
    assert re.search(rf"match 1: your bot in seat 1: chips won {SCORE}, house/simple", joined)
