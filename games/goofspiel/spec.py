"""Goofspiel as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.options import GameOption
from games.engine.runner import TimeControl
from games.engine.spec import GameSpec

HERE = Path(__file__).resolve().parent


def spec() -> GameSpec:
    from games.goofspiel import botapi
    from games.goofspiel.replay import frames
    from games.goofspiel.rules import MAX_CARDS, MAX_DEALS, MIN_CARDS, RETURNS_TYPES, GoofspielState
    from games.goofspiel.table import GoofspielTable
    from games.goofspiel.tournament import DealsRoundRobin

    return GameSpec(
        slug="goofspiel",
        title="Goofspiel",
        state_class=GoofspielState,
        bot_call=botapi.bot_call,
        # the random bot's file is not random.py, which would hide the standard module from
        # the other bots of its folder
        builtin_bots={
            "random": "games.bots.uniform",
            "matching": "games.goofspiel.bots.matching",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=DealsRoundRobin,
        table=GoofspielTable,
        score_label="deal score",
        starters={
            "python": HERE / "starter.py",
            "javascript": HERE / "starter.js",
            "cpp": HERE / "starter.cpp",
            "java": HERE / "GoofspielStarter.java",
        },
        strongest_builtin="matching",
        replay=frames,
        options=(
            GameOption(
                "num_cards",
                "cards in each hand and prizes in a deal",
                13,
                low=MIN_CARDS,
                high=MAX_CARDS,
            ),
            GameOption("deals", "deals in a match", 3, low=1, high=MAX_DEALS),
            GameOption(
                "returns_type",
                "what a deal pays: +1/-1/0, or half the prize points' difference",
                "win_loss",
                choices=RETURNS_TYPES,
            ),
        ),
    )
