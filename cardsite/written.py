"""How the pages write numbers and times in the tables they build as HTML themselves (the
leaderboard, a tournament's cross table, a bot's history and results): as the template
filters would, without a filter call per cell.

Every negative figure a page writes has the minus sign (U+2212), never the hyphen, so that a
total beside a cross table's "\u221222 \u2013 22" reads "\u2212174", not "-174":
:func:`figure` for points, :func:`minus_signs` for a text of figures already written (a
rating's ``.2f``, a format's cell), and in templates the ``minus`` filter
(games/templatetags/figures.py). The API gives numbers, as numbers."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from games.engine.written import MINUS, figure, minus_signs, number

__all__ = ["MINUS", "figure", "minus_signs", "number", "score_pair", "when"]


def score_pair(mine: float, theirs: float) -> str:
    """Two sides' points as a cell of a cross table or a bot's results writes them, the
    first side's first: ``4 \u2013 \u22124`` (an en dash between spaces, negatives with
    the minus sign, never a negative zero), each number as :func:`figure` writes it."""
    return " \u2013 ".join(figure(value) for value in (mine, theirs))


def when(value: datetime | None) -> str:
    """A time, ``Y-m-d H:i`` in the site's time zone; empty for none."""
    if not value:
        return ""
    return value.astimezone(timezone.get_current_timezone()).strftime("%Y-%m-%d %H:%M")
