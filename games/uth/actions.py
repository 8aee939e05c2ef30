"""The text actions of Ultimate Texas Hold'em, read exactly as the reference reads them.

An answer is free text holding a command in square brackets, case-insensitive: ``[4x]`` (also
``[4]``, ``[play bet 4x]``, ``[play 4x bet]``, ``[play_bet_4x]``), the same forms for 2x and
1x, ``[check]``/``[c]``, ``[fold]``/``[f]``, ``[skip]``/``[s]``. Text with no bracket at all
is read as if it were bracketed (``check`` is ``[check]``), as TextArena's default action
wrapper does. Only the actions legal in the current phase are looked for, in the order of the
phase's list, so ``[check] or maybe [4x]`` before the flop is a 4x bet, as in the reference.
"""

from __future__ import annotations

import re
from typing import Any

from games.engine.game import IllegalAction

BET_4X, BET_2X, BET_1X = "4x", "2x", "1x"
CHECK, FOLD, SKIP = "check", "fold", "skip"

#: the multiple of the ante each play bet puts in
MULTIPLES = {BET_4X: 4, BET_2X: 2, BET_1X: 1}


def _bet_pattern(n: int) -> re.Pattern[str]:
    size = f"{n}x?"
    return re.compile(
        rf"\[(?:{size}|play\s+bet\s+{size}|play\s+{size}\s+bet|play_bet_{n}x)\]", re.IGNORECASE
    )


_PATTERNS: dict[str, re.Pattern[str]] = {
    BET_4X: _bet_pattern(4),
    BET_2X: _bet_pattern(2),
    BET_1X: _bet_pattern(1),
    CHECK: re.compile(r"\[c(?:heck)?\]", re.IGNORECASE),
    FOLD: re.compile(r"\[f(?:old)?\]", re.IGNORECASE),
    SKIP: re.compile(r"\[s(?:kip)?\]", re.IGNORECASE),
}


def text(action: str) -> str:
    """The canonical text of an action: ``[4x]``, ``[check]``..."""
    return f"[{action}]"


def legal_text(legal: list[str]) -> str:
    return ", ".join(text(a) for a in legal)


def parse(answer: Any, legal: list[str], *, wrap_bare: bool = True) -> str:
    """The action among ``legal`` that ``answer`` names; raises :class:`IllegalAction`.

    ``wrap_bare=False`` reads like the reference without its default action wrapper
    (``UltimateTexasHoldem-v0-raw``): text without brackets names nothing.
    """
    if not isinstance(answer, str):
        raise IllegalAction(
            f"expected an action as text, got {type(answer).__name__}; "
            f"legal actions: {legal_text(legal)}"
        )
    read = answer
    if wrap_bare and "[" not in answer and "]" not in answer:
        read = f"[{answer}]"
    for action in legal:
        if _PATTERNS[action].search(read):
            return action
    shown = answer if len(answer) <= 60 else answer[:57] + "..."
    raise IllegalAction(f"{shown!r} is not a legal action now; legal actions: {legal_text(legal)}")
