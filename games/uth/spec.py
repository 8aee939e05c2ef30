"""Ultimate Texas Hold'em as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.options import GameOption
from games.engine.runner import TimeControl
from games.engine.spec import GameSpec, HandHistory

HERE = Path(__file__).resolve().parent


def spec() -> GameSpec:
    from games.uth import botapi
    from games.uth.history import replay as replay_history
    from games.uth.history import report_lines
    from games.uth.replay import frames
    from games.uth.rules import PAY_TABLES, UthState
    from games.uth.table import UthTable
    from games.uth.tournament import Duplicate

    return GameSpec(
        slug="uth",
        title="Ultimate Texas Hold'em",
        state_class=UthState,
        bot_call=botapi.bot_call,
        builtin_bots={
            "always-check": "games.uth.bots.always_check",
            "basic": "games.uth.bots.basic",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=Duplicate,
        table=UthTable,
        score_label="net chips",
        starters={
            "python": HERE / "starter.py",
            "javascript": HERE / "starter.js",
            "cpp": HERE / "starter.cpp",
            "java": HERE / "UthStarter.java",
        },
        strongest_builtin="basic",
        arena_example="builtin:basic --sessions 5",
        replay=frames,
        session_rounds=1000,
        hand_history=HandHistory(replay=replay_history, lines=report_lines),
        toolkit=("games.uth.textarena_text",),
        options=(
            GameOption(
                "variant",
                "the pay table of the blind and trips bets",
                "default",
                choices=tuple(PAY_TABLES),
            ),
            GameOption("chips", "chips at the start of a session", 1000, low=1, high=1_000_000),
            GameOption("ante", "the ante (and the blind) of a round", 25, low=1, high=100_000),
        ),
    )
