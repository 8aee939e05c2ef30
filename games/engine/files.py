"""Naming files after bots and matches."""

from __future__ import annotations

import re


def safe_filename(name: str) -> str:
    """``name`` reduced to characters safe in a file name (at most 60; never empty)."""
    return re.sub(r"[^A-Za-z0-9_.#-]+", "_", name)[:60].lstrip(".") or "bot"
