"""A table's messages as the sockets send them: one compact JSON text each, made by the host,
the hub's own replies and the people's seats (``games.live.humans``) alike."""

from __future__ import annotations

import json
from typing import Any

#: one encoder for every message (``json.dumps`` with options makes a new one each call)
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def message_text(message: dict[str, Any]) -> str:
    """A table's message as the sockets send it."""
    return _ENCODER.encode(message)
