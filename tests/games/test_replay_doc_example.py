"""docs/replays.md shows an answer of ``/matches/<id>/replay.json``; its ``format`` is the
one the site answers with (``games.replays.FORMAT_VERSION``): the example said 5 while
the site answered 7, and a client written from the page checked for the wrong version."""

from __future__ import annotations

import re
from pathlib import Path

from games.replays import FORMAT_VERSION

DOC = Path(__file__).resolve().parents[2] / "docs" / "replays.md"


def test_the_replay_json_example_has_the_sites_format():
    shown = re.findall(r'\{"format": (\d+), "game"', DOC.read_text())
    assert shown and all(int(n) == FORMAT_VERSION for n in shown), (shown, FORMAT_VERSION)
