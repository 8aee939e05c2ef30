"""RPS Poker as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.runner import TimeControl
from games.engine.spec import GameSpec

HERE = Path(__file__).resolve().parent


def spec() -> GameSpec:
    from games.rps_poker import botapi
    from games.rps_poker.cards import FULL_DECK
    from games.rps_poker.replay import frames
    from games.rps_poker.rules import RpsPokerState
    from games.rps_poker.table import RpsPokerTable
    from games.rps_poker.tournament import RoundRobin

    return GameSpec(
        slug="rps-poker",
        title="RPS Poker",
        state_class=RpsPokerState,
        bot_call=botapi.bot_call,
        builtin_bots={
            name: f"games.rps_poker.bots.{name}" for name in ("minimal", "simple", "strong")
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=RoundRobin,
        table=RpsPokerTable,
        score_label="games won",
        score_label_one="game won",
        # the original challenge's contract is JavaScript, which the JavaScript host speaks
        starters={
            "python": HERE / "starter.py",
            "javascript": HERE / "starter.js",
            "cpp": HERE / "starter.cpp",
            "java": HERE / "RpsPokerStarter.java",
        },
        strongest_builtin="strong",
        # (the command every starter's header gives: a first run against a simple bot)
        arena_example="builtin:simple --rounds 20",
        js_globals={"fullDeck": list(FULL_DECK)},
        cards=tuple(FULL_DECK),
        replay=frames,
    )
