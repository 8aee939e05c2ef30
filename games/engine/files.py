"""Naming files after bots and matches."""

from __future__ import annotations

import re

#: the longest name :func:`safe_filename` makes
MOST = 60


def safe_filename(name: str) -> str:
    """``name`` reduced to characters safe in a file name (at most :data:`MOST`; never
    empty), its suffix kept: a bot's file of a 60-character name (``<name>.py``) is cut in its
    stem, so it is still a Python file."""
    safe = re.sub(r"[^A-Za-z0-9_.#-]+", "_", name).lstrip(".")
    stem, dot, suffix = safe.rpartition(".")
    if not dot or not stem or len(suffix) > 10:  # no suffix to keep
        return safe[:MOST] or "bot"
    return stem[: MOST - len(suffix) - 1] + "." + suffix
