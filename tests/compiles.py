"""Watching where a bot's launch looks for its compiled program, from a test (the arena's and
upload_bot's "compiling ..." notice must look where the launch does)."""

from __future__ import annotations

from pathlib import Path

import pytest


class CompileLookedUp(Exception):
    """Where a test stops a launch, once it has seen the compile's cache entry."""


def spy_on_compiles(monkeypatch: pytest.MonkeyPatch, folder: Path) -> list[Path]:
    """Compiled programs kept under ``folder``; every launch that looks for one stops there
    (:class:`CompileLookedUp`), and the entry it looked for is added to the list returned."""
    from bots.sandbox import compiling

    monkeypatch.setattr(compiling, "cache_dir", lambda: folder / "compiled")
    looked_up: list[Path] = []

    def spy(language, kept, refused, limits):  # where the launch looks for the program
        looked_up.append(kept)
        raise CompileLookedUp

    monkeypatch.setattr(compiling, "_cached", spy)
    return looked_up
