"""Leduc hold'em's bot contract: one method, ``act(obs) -> "f" | "c" | "r"``.

``obs`` is a dict: ``card`` (your private card, like ``Qh``), ``board`` (the public card once
turned, else None), ``round`` (1 or 2), ``history`` (the betting so far, the rounds joined by
``/``, e.g. ``rc/c``), ``position`` (0: you act first in each round of this hand),
``legal`` (the actions allowed now), ``infoset`` (the solver's key, e.g. ``Jrc/Qc``),
``pot`` (what position 0 and position 1 have put in), ``seat``, ``hand``, ``hands``,
``chips`` and ``last_hand`` (as in Kuhn poker). ``f`` folds (only facing a raise), ``c``
checks or calls, ``r`` raises (2 in the first round, 4 in the second, at most two a round).
"""

from __future__ import annotations

from games.chips.botapi import bot_call

METHODS = ("act",)

__all__ = ["METHODS", "bot_call"]
