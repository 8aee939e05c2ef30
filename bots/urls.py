"""Pages about bots: my bots (upload, versions, activate / retire) and the public bot page."""

from __future__ import annotations

urlpatterns: list = []
