"""Blackjack++ as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from pathlib import Path

from games.engine.runner import TimeControl
from games.engine.spec import GameSpec, SolverSpec

HERE = Path(__file__).resolve().parent


def solver_game(up: str | None = None, max_hits: int | None = None):
    """The solver's Blackjack++: ``up`` cards of player 0, player 1 and the dealer (e.g.
    ``"6,6,2"``) and at most ``max_hits`` hits (1, 2 or 3); ValueError says what is wrong."""
    from games.blackjack_pp.tree import BlackjackPP, parse_up_cards

    hits = 2 if max_hits is None else max_hits
    if hits not in (1, 2, 3):
        raise ValueError(f"--max-hits must be 1, 2 or 3 (got {hits})")
    return BlackjackPP(parse_up_cards(up if up is not None else "6,6,2"), hits)


def spec() -> GameSpec:
    from games.blackjack_pp import botapi
    from games.blackjack_pp.rules import BlackjackPPState
    from games.blackjack_pp.strategy import strategy
    from games.blackjack_pp.table import BlackjackPPTable
    from games.blackjack_pp.tournament import DealsRoundRobin
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
        starters={"python": HERE / "starter.py"},
        replay=blackjack_pp_frames,
        solver=SolverSpec(
            make=solver_game,
            web_limit=2_000,
            default_iterations=200,
            aliases=("blackjack", "blackjack_pp", "blackjackpp"),
            options=("up", "max_hits"),
            strategy=strategy,
        ),
    )
