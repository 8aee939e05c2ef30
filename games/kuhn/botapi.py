"""Kuhn poker's bot contract: one method, ``act(obs) -> "p" | "b"``.

``obs`` is a dict: ``card`` (``J``, ``Q`` or ``K``), ``history`` (this hand's betting so
far, in ``p`` and ``b``), ``position`` (0: you act first this hand, 1: second), ``legal``
(``["p", "b"]``), ``infoset`` (the solver's key: ``card + history``, e.g. ``Kpb``), ``seat``,
``hand`` and ``hands`` (this hand's number and how many the match has), ``chips`` (what you
have won so far) and ``last_hand`` (the previous hand as you saw it, or None: ``position``,
``history``, ``won``, ``showdown``, and ``opponent_card`` after a showdown, else None).
``p`` checks, or folds facing a bet; ``b`` bets 1, or calls a bet.
"""

from __future__ import annotations

from games.chips.botapi import bot_call

METHODS = ("act",)

__all__ = ["METHODS", "bot_call"]
