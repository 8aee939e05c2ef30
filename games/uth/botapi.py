"""Ultimate Texas Hold'em's bot contract: one method, ``act(obs) -> str``.

``obs`` is a dict: ``phase`` (``pre_flop``, ``flop``, ``river``), ``hole`` (two cards),
``board`` (the community cards shown so far), ``chips``, ``round``, ``legal`` (the legal
action texts, like ``["[4x]", "[check]"]``), and also ``max_rounds``, ``ante``, ``bets``
(this round's ante, blind and play bet), ``blind_pay`` (the pay table, winnings per chip of
blind), ``error`` (why the previous answer was refused, else None) and ``last_round`` (the
previous round as the hand history settled it: cards, actions, bets, results, net, chips;
None in the first round). The answer is action text, read like TextArena's
(``games/uth/actions.py``); ``textarena_text.py`` turns ``obs`` into TextArena's text for an
agent written for it.
"""

from __future__ import annotations

from typing import Any

from games.engine.game import Prompt

METHODS = ("act",)


def bot_call(prompt: Prompt) -> tuple[str, list[Any]]:
    if prompt.kind == "act":
        return "act", [dict(prompt.data)]
    raise ValueError(f"Ultimate Texas Hold'em has no prompt {prompt.kind!r}")
