"""Last Card as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.options import GameOption
from games.engine.runner import TimeControl
from games.engine.spec import GameSpec

HERE = Path(__file__).resolve().parent


def spec() -> GameSpec:
    from games.last_card import botapi
    from games.last_card.replay import frames
    from games.last_card.rules import LastCardState
    from games.last_card.table import LastCardTable
    from games.last_card.tournament import Tables

    return GameSpec(
        slug="last-card",
        title="Last Card",
        state_class=LastCardState,
        bot_call=botapi.bot_call,
        builtin_bots={name: f"games.last_card.bots.{name}" for name in ("naive", "heuristic")},
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=Tables,
        toolkit=("games.last_card.movecheck",),
        table=LastCardTable,
        score_label="points taken",
        score_label_one="point taken",
        starters={
            "python": HERE / "starter.py",
            "javascript": HERE / "starter.js",
            "cpp": HERE / "starter.cpp",
            "java": HERE / "YourStrategy.java",
        },
        # the original kit's classes, in Java (docs/games/last-card.md, "Java")
        kits={"java": tuple(sorted((HERE / "java").glob("*.java")))},
        strongest_builtin="heuristic",
        arena_example="--fill builtin:naive --games 100",
        illegal_answer="an illegal move is refused and counts as a pass",
        replay=frames,
        options=(
            GameOption(
                "max_turns", "turns after which a game ends unfinished", 1000, low=1, high=100_000
            ),
        ),
    )
