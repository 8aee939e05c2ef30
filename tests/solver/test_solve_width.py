"""``manage.py solve``'s table fits the width the other commands' lines keep where its
output is not a terminal (a pipe, a file): ``COLUMNS``, else 80 columns. It was 100 columns
whatever ``COLUMNS`` said, so Blackjack++'s table ran to 96 columns in an 80-column pipe,
its expected points on one line."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


def solve(*args: str) -> list[str]:
    out = StringIO()
    call_command("solve", *args, "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue().splitlines()


@pytest.mark.parametrize("columns", ["80", "72"])
def test_the_blackjack_table_fits_the_columns_of_a_pipe(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    lines = solve("blackjack-pp", "--up", "6,6,2", "--max-hits", "1", "--iterations", "10")
    assert lines and max(len(line) for line in lines) <= int(columns), "\n".join(lines)
    # each seat's expected points on a line of its own, whole
    for seat in ("player 0 points", "player 1 points", "dealer points"):
        (line,) = [line for line in lines if seat in line]
        assert line.rstrip(" │").split(seat)[1].strip().replace(".", "").isdigit(), line
    assert any("14,511 histories" in line for line in lines)


def test_without_columns_a_pipe_gets_80(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    lines = solve("kuhn", "--iterations", "10")
    assert max(len(line) for line in lines) <= 80
    assert any("player 0 -0.0" in line for line in lines)
