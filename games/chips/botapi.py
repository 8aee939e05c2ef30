"""The chip games' bot contract, as the runner calls it: one method, ``act(obs)``, for every
decision (each game's ``botapi`` module says what ``obs`` holds and what ``act`` returns)."""

from __future__ import annotations

from typing import Any

from games.engine.game import Prompt


def bot_call(prompt: Prompt) -> tuple[str, list[Any]]:
    if prompt.kind == "act":
        return "act", [dict(prompt.data)]
    raise ValueError(f"this game has no prompt {prompt.kind!r}")
