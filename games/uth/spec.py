"""Ultimate Texas Hold'em as the platform sees it (see games/engine/spec.py)."""

from __future__ import annotations

from fractions import Fraction
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
        # UthState.reject: the reference's allowance of one refused action
        illegal_answer="but an answer that is not a legal action is only refused the first "
        'time, with the reason in obs["error"], and asked for again: a second refusal before '
        "two actions in a row are accepted is a fault",
        arena_example="builtin:basic --sessions 5",
        replay=frames,
        session_rounds=1000,
        hand_history=HandHistory(replay=replay_history, lines=report_lines),
        toolkit=("games.uth.textarena_text",),
        options=(
            GameOption("variant", variant_help(), "default", choices=tuple(PAY_TABLES)),
            GameOption("chips", "chips at the start of a session", 1000, low=1, high=1_000_000),
            GameOption("ante", "the ante (and the blind) of a round", 25, low=1, high=100_000),
        ),
    )


def variant_help() -> str:
    """What the ``variant`` option chooses, read from the pay tables themselves: ``the pay
    table of the blind bet, on a winning straight or better: flush 3 to 1 in default, 3 to 2
    in standard; in both, royal flush 500 to 1, ...``."""
    from games.uth.hands import LABELS
    from games.uth.rules import PAY_TABLES

    def pays(ratio: Fraction) -> str:
        return f"{ratio.numerator} to {ratio.denominator}"

    tables = list(PAY_TABLES.items())
    differ, same = [], []
    for name, ratio in tables[0][1].items():
        if all(table[name] == ratio for _, table in tables):
            same.append(f"{LABELS[name]} {pays(ratio)}")
        else:
            each = ", ".join(f"{pays(table[name])} in {variant}" for variant, table in tables)
            differ.append(f"{LABELS[name]} {each}")
    every = "both" if len(tables) == 2 else "all"
    return (
        "the pay table of the blind bet, on a winning straight or better: "
        f"{'; '.join(differ)}; in {every}, {', '.join(same)}"
    )
