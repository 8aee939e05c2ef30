"""Last Card's bot contract: one method, ``play(state) -> move``, with plain dicts.

``state`` holds ``hand``, ``last_played``, ``active_suit`` (or None), ``punishment`` (cards to
draw, 0 if none), ``hand_sizes`` (by seat), ``seat``, ``direction`` (1 or -1), ``deck_size``
and ``played_cards``; the move is ``{"cards": [...], "suit": "h" or None, "last_card": bool}``
(an empty ``cards`` list passes). See docs/games/last-card.md.
"""

from __future__ import annotations

from typing import Any

from games.engine.game import Prompt

METHODS = ("play",)
STATE_KEYS = (
    "hand",
    "last_played",
    "active_suit",
    "punishment",
    "hand_sizes",
    "seat",
    "direction",
    "deck_size",
    "played_cards",
)


def bot_call(prompt: Prompt) -> tuple[str, list[Any]]:
    if prompt.kind == "play":
        return "play", [dict(prompt.data)]
    raise ValueError(f"Last Card has no prompt {prompt.kind!r}")
