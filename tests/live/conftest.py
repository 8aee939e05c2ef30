"""Live tables' tests: the hub's heartbeat and sweep (a database trip every few seconds, at a
moment no test chooses) stay out of them; tests that need a beat or a sweep call it."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_background_beats(settings) -> None:
    settings.TABLE_HEARTBEAT_S = 3600
