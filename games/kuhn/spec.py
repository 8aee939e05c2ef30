"""Kuhn poker as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.runner import TimeControl
from games.engine.spec import GameSpec, SolverBot, SolverSpec

HERE = Path(__file__).resolve().parent


def solver_game():
    from games.kuhn.tree import Kuhn

    return Kuhn()


def spec() -> GameSpec:
    from games.chips.match import HANDS_OPTION
    from games.chips.replay import kuhn_frames
    from games.chips.tournament import ChipsRoundRobin
    from games.kuhn import botapi
    from games.kuhn.review import describe_infoset, review_moves, review_words
    from games.kuhn.rules import KuhnState
    from games.kuhn.strategy import strategy
    from games.kuhn.table import KuhnTable

    return GameSpec(
        slug="kuhn",
        title="Kuhn poker",
        state_class=KuhnState,
        bot_call=botapi.bot_call,
        # the random bot's file is not random.py, which would hide the standard module from
        # the other bots of its folder
        builtin_bots={
            "random": "games.bots.uniform",
            "simple": "games.kuhn.bots.simple",
            "cfr": "games.kuhn.bots.cfr",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=ChipsRoundRobin,
        table=KuhnTable,
        score_label="chips won",
        score_label_one="chip won",
        starters={
            "python": HERE / "starter.py",
            "javascript": HERE / "starter.js",
            "cpp": HERE / "starter.cpp",
            "java": HERE / "KuhnStarter.java",
        },
        replay=kuhn_frames,
        solver=SolverSpec(
            make=solver_game,
            web_limit=20_000,
            default_iterations=1_000,
            strategy=strategy,
            review_moves=review_moves,
            describe_infoset=describe_infoset,
            review_words=review_words,
            bot=SolverBot(),
        ),
        options=(HANDS_OPTION,),
    )
