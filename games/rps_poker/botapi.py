"""RPS Poker's bot contract: how the engine's prompts map onto the bot's methods."""

from __future__ import annotations

from typing import Any

from games.engine.game import Prompt

METHODS = ("draft_pick", "draft_receive", "main_play", "main_postprocess")


def bot_call(prompt: Prompt) -> tuple[str, list[Any]]:
    data = prompt.data
    if prompt.kind == "draft_pick":
        return "draft_pick", [list(data["cards"])]
    if prompt.kind == "draft_receive":
        return "draft_receive", [data["card"]]
    if prompt.kind == "main_play":
        return "main_play", [list(data["hand"]), data["base"]]
    if prompt.kind == "main_postprocess":
        return "main_postprocess", [data["card"]]
    raise ValueError(f"RPS Poker has no prompt {prompt.kind!r}")
