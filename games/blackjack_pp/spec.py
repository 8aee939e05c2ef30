"""Blackjack++ as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.options import GameOption
from games.engine.runner import TimeControl
from games.engine.spec import GameSpec, SolverSpec

HERE = Path(__file__).resolve().parent


def spec() -> GameSpec:
    from games.blackjack_pp import botapi
    from games.blackjack_pp.dump import write_strategy_tree
    from games.blackjack_pp.review import (
        describe_infoset,
        review_moves,
        review_options,
        review_words,
    )
    from games.blackjack_pp.rules import DEFAULT_DEALS, BlackjackPPState
    from games.blackjack_pp.solving import BOT, OPTIONS, solver_game
    from games.blackjack_pp.strategy import page_of, strategy
    from games.blackjack_pp.table import BlackjackPPTable
    from games.blackjack_pp.tournament import DealsRoundRobin
    from games.chips.match import MAX_HANDS
    from games.chips.replay import blackjack_pp_frames

    return GameSpec(
        slug="blackjack-pp",
        title="Blackjack++",
        state_class=BlackjackPPState,
        bot_call=botapi.bot_call,
        builtin_bots={
            "random": "games.bots.uniform",
            "simple": "games.blackjack_pp.bots.simple",
            "cfr": "games.blackjack_pp.bots.cfr",
        },
        time_control=TimeControl(move=1.0, bank=10.0, startup=10.0),
        methods=botapi.METHODS,
        tournament=DealsRoundRobin,
        table=BlackjackPPTable,
        score_label="points won",
        score_label_one="point won",
        starters={
            "python": HERE / "starter.py",
            "javascript": HERE / "starter.js",
            "cpp": HERE / "starter.cpp",
            "java": HERE / "BlackjackStarter.java",
        },
        # (the command every starter's header gives)
        arena_example="builtin:simple --rounds 10",
        replay=blackjack_pp_frames,
        solver=SolverSpec(
            make=solver_game,
            web_limit=2_000,
            default_iterations=200,
            unit="points per deal",
            aliases=("blackjack", "blackjack_pp", "blackjackpp"),
            options=OPTIONS,
            strategy=strategy,
            page_of=page_of,
            export=write_strategy_tree,
            review_moves=review_moves,
            review_options=review_options,
            describe_infoset=describe_infoset,
            review_words=review_words,
            export_help="write the strategy as one folder per history",
            bot=BOT,
        ),
        options=(
            GameOption(
                "hands",
                "deals in a match",
                DEFAULT_DEALS,
                low=2,
                high=MAX_HANDS,
                even=True,
            ),
            GameOption(
                "max_hits", "the most cards the player may draw in a deal", 1, low=1, high=3
            ),
        ),
    )
