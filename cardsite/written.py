"""How the pages write numbers and times in the tables they build as HTML themselves (the
leaderboard, a tournament's cross table, a bot's history and results): as the template
filters would, without a filter call per cell."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from games.engine.written import MINUS, number

__all__ = ["MINUS", "number", "score_pair", "when"]


def score_pair(mine: float, theirs: float) -> str:
    """Two sides' points as a cell of a cross table or a bot's results writes them, the
    first side's first: ``4 \u2013 \u22124`` (an en dash between spaces, negatives with
    the minus sign, never a negative zero), each number as :func:`number` writes it."""
    # adding 0.0 turns a negative zero (a rounded -0.001 too) into 0
    shown = (number(round(value, 2) + 0.0).replace("-", MINUS) for value in (mine, theirs))
    return " \u2013 ".join(shown)


def when(value: datetime | None) -> str:
    """A time, ``Y-m-d H:i`` in the site's time zone; empty for none."""
    if not value:
        return ""
    return value.astimezone(timezone.get_current_timezone()).strftime("%Y-%m-%d %H:%M")
