"""Blackjack++'s bot contract: one method, ``act(obs) -> "hit" | "stand"``.

``obs`` is a dict:

- ``position``: 0 if you are player 0 of this deal (you act first), else 1;
- ``up``: the up cards of player 0, player 1 and the dealer, like ``["6h", "Kc", "2s"]``;
- ``down``: your own down card; ``total`` and ``soft``: your total, and whether an ace
  counts 11 in it;
- ``hits``: the cards player 0 and player 1 have drawn so far;
- ``history``: the deal so far in the solver's tokens, e.g. ``0h5,1s``;
- ``max_hits``, ``legal`` (``["hit", "stand"]``);
- ``infoset``: the solver's key, e.g. ``1T:0h5`` (its actions ``h`` and ``s`` are ``hit``
  and ``stand``);
- ``seat``, ``hand`` and ``hands`` (this deal's number, and how many the match has),
  ``chips`` (your payoff so far);
- ``last_hand``: the previous deal (``position``, ``history``, ``won``, ``showdown`` and
  ``opponent_card``, the other player's down card), or None.
"""

from __future__ import annotations

from games.chips.botapi import bot_call

METHODS = ("act",)

__all__ = ["METHODS", "bot_call"]
