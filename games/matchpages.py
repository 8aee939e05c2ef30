"""Match pages: participants, result, faults, the replay viewer and the record download."""

from __future__ import annotations

urlpatterns: list = []
