"""``manage.py arena --help`` tells where a game's starter bot is, by a rule that finds it
for every game: it said ``games/<game>/starter.py``, and ``games/last-card/starter.py`` (the
game's name as ``--game`` takes it) is no file; the folders are the names with ``_``."""

from __future__ import annotations

import re
from pathlib import Path

from bots.arena.command import help_text
from games.registry import games

ROOT = Path(__file__).resolve().parents[2]


def test_the_help_names_a_starter_that_is_there_and_the_rule_finds_every_games():
    text = " ".join(help_text().split())
    assert "games/<game>/" not in text
    named = re.findall(r"games/\w+/starter\.py", text)
    assert named and all((ROOT / path).is_file() for path in named)
    assert "its name with _ for -" in text
    for game in games():
        assert (ROOT / "games" / game.slug.replace("-", "_") / "starter.py").is_file(), game.slug
