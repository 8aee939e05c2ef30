"""Leduc hold'em's solved strategy as the strategy explorer shows it: rows are the private
card (and the public card in the second round), columns the betting so far in the round."""

from __future__ import annotations

from typing import Any

from games.solver.views import StrategyPages, heat, spread, table

CARD_WORD = {"J": "jack", "Q": "queen", "K": "king"}
READING = (
    "Rows: the player's own card (and the public card in the second round). Columns: the "
    "betting so far in the round (c check or call, r raise). A cell is the probability of "
    "raising, or of calling where no raise is left (after two raises). Hover or long-press a "
    "cell for all its actions."
)

LEDUC_ROUND = ("", "c", "r", "cr", "rr", "crr")
LEDUC_LINES = ("cc", "rc", "crc", "rrc", "crrc")
LEDUC_NAMES = {"f": "fold", "c": "check/call", "r": "raise"}


def _leduc_columns(histories: tuple[str, ...]) -> list[dict[str, str]]:
    return [
        {
            "label": h or "start",
            "sub": f"player {len(h) % 2}: {'raise' if h.count('r') < 2 else 'call'}",
        }
        for h in histories
    ]


def _leduc_cell(key: str, infosets: dict[str, dict[str, float]]) -> dict[str, str] | None:
    actions = infosets.get(key)
    if actions is None:
        return None
    shown = "r" if "r" in actions else "c"
    return heat(actions[shown], f"{key}: {spread(actions, LEDUC_NAMES)}")


def leduc_tables(infosets: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    """Leduc hold'em: rows are the private card (and the public card in the second round),
    columns the betting so far in the round; a cell is the probability of raising (of
    calling where no raise is left)."""
    tables = [
        table(
            "leduc-1",
            "First round",
            "card \\ betting",
            _leduc_columns(LEDUC_ROUND),
            [
                {
                    "label": card,
                    "sub": CARD_WORD[card],
                    "cells": [_leduc_cell(card + h, infosets) for h in LEDUC_ROUND],
                }
                for card in "JQK"
            ],
        )
    ]
    for line in LEDUC_LINES:
        rows = []
        for card in "JQK":
            for public in "JQK":
                rows.append(
                    {
                        "label": f"{card} / {public}",
                        "sub": "pair" if card == public else "",
                        "cells": [
                            _leduc_cell(f"{card}{line}/{public}{h}", infosets) for h in LEDUC_ROUND
                        ],
                    }
                )
        tables.append(
            table(
                f"leduc-2-{line}",
                f"Second round after {line}",
                "card / public",
                _leduc_columns(LEDUC_ROUND),
                rows,
            )
        )
    return tables


def strategy(pages: StrategyPages, settings: dict[str, Any], at: str | None, base: str):
    """What the explorer shows of a solve (``SolverSpec.strategy``)."""
    return {"tables": leduc_tables(pages.all()), "reading": READING}
