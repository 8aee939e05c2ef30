"""The time rules a bot is held to on the site, in one place: the upload's validation
(:mod:`bots.competition.uploads`) and the command-line arena (:mod:`bots.arena`) both take them from
here, so that a bot that passes the arena is not rejected at upload for a rule the arena did
not apply.

They are the game's time control (a per-call time and a time bank per match) with one rule
more: at most :func:`slow_calls_allowed` calls in a row over the per-call time (setting
``BOT_VALIDATION_SLOW_CALLS``, 3 by default): the bank pays for occasional slow calls, not
for a bot that is slow on every call.
"""

from __future__ import annotations

import dataclasses

from bots.running.settings import project_settings
from games.engine.runner import TimeControl
from games.engine.spec import GameSpec

#: calls in a row over the per-call time allowed when no Django settings say otherwise
SLOW_CALLS = 3


def slow_calls_allowed() -> int:
    """Calls in a row over the per-call time that a bot may make (at least 1)."""
    value = getattr(project_settings(), "BOT_VALIDATION_SLOW_CALLS", SLOW_CALLS)  # (None: none)
    return max(int(value), 1)


def site_time_control(game: GameSpec) -> TimeControl:
    """The game's time control with the site's limit on slow calls in a row."""
    return dataclasses.replace(game.time_control, streak=slow_calls_allowed())
