"""The read-only JSON API: leaderboards, bots and matches."""

from __future__ import annotations

urlpatterns: list = []
