"""Leduc hold'em as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.runner import TimeControl
from games.engine.spec import GameSpec, SolverBot, SolverSpec

HERE = Path(__file__).resolve().parent


def solver_game():
    from games.leduc.tree import Leduc

    return Leduc()


def spec() -> GameSpec:
    from games.chips.match import HANDS_OPTION
    from games.chips.replay import leduc_frames
    from games.leduc import botapi
    from games.leduc.review import describe_infoset, review_moves, review_words
    from games.leduc.rules import LeducState
    from games.leduc.strategy import strategy
    from games.leduc.table import LeducTable
    from games.leduc.tournament import ChipsRoundRobin

    return GameSpec(
        slug="leduc",
        title="Leduc hold'em",
        state_class=LeducState,
        bot_call=botapi.bot_call,
        builtin_bots={
            "random": "games.bots.uniform",
            "simple": "games.leduc.bots.simple",
            "cfr": "games.leduc.bots.cfr",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=ChipsRoundRobin,
        table=LeducTable,
        score_label="chips won",
        score_label_one="chip won",
        starters={
            "python": HERE / "starter.py",
            "javascript": HERE / "starter.js",
            "cpp": HERE / "starter.cpp",
            "java": HERE / "LeducStarter.java",
        },
        replay=leduc_frames,
        solver=SolverSpec(
            make=solver_game,
            web_limit=10_000,
            default_iterations=500,
            # at 500, actions the solve mixes are valued up to tenths of a chip apart where
            # both players' strategies reach (a "mistake" the solve itself plays); 10,000
            # leave none (tests/solver/test_review_verdicts.py), in 3-12 s of a worker, once
            review_iterations=10_000,
            strategy=strategy,
            review_moves=review_moves,
            describe_infoset=describe_infoset,
            review_words=review_words,
            bot=SolverBot(),
        ),
        options=(HANDS_OPTION,),
    )
