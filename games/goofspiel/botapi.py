"""Goofspiel's bot contract: one method, ``act(obs) -> card``, asked once a turn.

The same shape as Kuhn poker, Leduc hold'em and Blackjack++ (one ``act`` with an ``obs``
dict holding ``legal``), so the shared random bot plays it too. ``obs``:

- ``prize``: the prize card face up now (1..N); ``prizes_left``: the prizes of this deal
  not yet turned up, ascending (their order is unknown);
- ``hand``, ``legal``: your cards, ascending (a bid is one of them);
  ``opponent_hand``: the other player's cards, ascending (public: every bid is shown);
- ``history``: this deal's turns so far, each ``[prize, your bid, their bid]``;
- ``points``: ``[yours, theirs]`` in this deal;
- ``deal``, ``deals``: this deal's number (from 1) and how many the match has;
- ``num_cards``, ``returns_type``, ``seat``, ``score`` (your match score so far);
- ``last_deal``: the previous deal from your side, or None: ``turns`` (with the last,
  automatic turn), ``points``, ``returns`` (as [yours, theirs]) and ``forfeit``.

The answer is a card of ``hand`` (an int). The last turn of a deal, with one card each, is
played without asking.
"""

from __future__ import annotations

from typing import Any

from games.engine.game import Prompt

METHODS = ("act",)


def bot_call(prompt: Prompt) -> tuple[str, list[Any]]:
    if prompt.kind == "act":
        return "act", [dict(prompt.data)]
    raise ValueError(f"Goofspiel has no prompt {prompt.kind!r}")
