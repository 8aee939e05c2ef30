"""A bot file's name, read without running it: one rule for ``manage.py arena`` and
``manage.py upload_bot`` (a bot from ``rps_mine.py`` whose class says ``rps-mine`` was named
``rps_mine`` on the site and ``rps-mine`` in the arena)."""

from __future__ import annotations

import pytest

from bots.names import declared_name


@pytest.mark.parametrize(
    ("filename", "code", "name"),
    [
        ("rps_mine.py", 'class Bot:\n    name = "rps-mine"\n', "rps-mine"),
        ("rps_mine.py", 'class Bot:\n    name: str = "  typed  "\n', "typed"),
        ("rps_mine.py", "class Bot:\n    pass\n", "rps_mine"),
        ("rps_mine.py", 'class Bot:\n    name = "x" + "y"\n', "rps_mine"),  # not plain
        ("rps_mine.py", 'class Bot:\n    name = ""\n', "rps_mine"),
        ("rps_mine.py", 'class Other:\n    name = "other"\n', "rps_mine"),
        ("rps_mine.py", "class Bot(:\n", "rps_mine"),  # no Python: its start will say
        ("mine.js", "({\n  name: 'js-mine',\n  draftPick(cards) { return 0; },\n})\n", "js-mine"),
        ("mine.js", "module.exports = {\n  draftPick(cards) { return 0; },\n};\n", "mine"),
    ],
)
def test_a_bot_file_is_named_by_its_plain_name_else_its_stem(filename, code, name):
    assert declared_name(filename, code.encode()) == name
