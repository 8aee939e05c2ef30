"""How the pages write numbers and times in the tables they build as HTML themselves (the
leaderboard, a tournament's cross table, a bot's history and results): as the template
filters would, without a filter call per cell."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone


def number(value: float) -> str:
    """Points: two decimals, none for a whole number (what ``floatformat:"-2"`` writes)."""
    text = f"{value:.2f}"
    return text[:-3] if text.endswith(".00") else text


def when(value: datetime | None) -> str:
    """A time, ``Y-m-d H:i`` in the site's time zone; empty for none."""
    if not value:
        return ""
    return value.astimezone(timezone.get_current_timezone()).strftime("%Y-%m-%d %H:%M")
