"""Goofspiel's entry for the game registry: ``spec()`` builds its ``GameSpec``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.engine.runner import TimeControl

if TYPE_CHECKING:
    from games.registry import GameSpec


def spec() -> GameSpec:
    """Imports lazily, so that ``games/registry.py`` may import this module at its top."""
    from games.goofspiel import botapi
    from games.goofspiel.rules import GoofspielState
    from games.goofspiel.table import GoofspielTable
    from games.goofspiel.tournament import DealsRoundRobin
    from games.registry import GameSpec

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
    )
