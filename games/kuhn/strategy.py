"""Kuhn poker's solved strategy as the strategy explorer shows it: one row per information
set, one column per action."""

from __future__ import annotations

from typing import Any

from games.solver.views import StrategyPages, heat, table

KUHN_HISTORIES = {
    "": "player 0, first to act",
    "p": "player 1, player 0 checked",
    "b": "player 1, player 0 bet",
    "pb": "player 0, checked and faces a bet",
}
CARD_WORD = {"J": "jack", "Q": "queen", "K": "king"}


def kuhn_tables(infosets: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    """Kuhn poker: one row per information set, one column per action."""
    columns = [
        {"label": "p", "sub": "check / fold"},
        {"label": "b", "sub": "bet / call"},
    ]
    rows = []
    for history, situation in KUHN_HISTORIES.items():
        for card in "JQK":
            key = card + history
            actions = infosets.get(key)
            if actions is None:
                continue
            rows.append(
                {
                    "label": key,
                    "sub": f"{CARD_WORD[card]}; {situation}",
                    "cells": [
                        heat(actions.get(a, 0.0), f"{key}: {a} with probability {actions[a]:.4f}")
                        for a in ("p", "b")
                    ],
                }
            )
    return [
        table(
            "kuhn",
            "Strategy by information set",
            "information set",
            columns,
            rows,
            "Each cell is the probability of the column's action; each row adds up to 1.",
        )
    ]


def strategy(pages: StrategyPages, settings: dict[str, Any], at: str | None, base: str):
    """What the explorer shows of a solve (``SolverSpec.strategy``)."""
    return {"tables": kuhn_tables(pages.all())}
