"""A solved strategy as tables of heat-map cells, the data the strategy explorer draws.

Each solvable game lays its own strategy out (``games/<game>/strategy.py``, named by its
``SolverSpec.strategy``) with these pieces; the explorer page (``games/explorer.py``,
``templates/solver/_heatmap.html``) draws any of them the same way. Plain data, no Django.
"""

from __future__ import annotations

from typing import Any

#: a cell's shade is one of SHADES + 1 steps from probability 0 to 1 (heat.css has a class
#: for each)
SHADES = 20


def heat(p: float, title: str = "") -> dict[str, Any]:
    """A heat-map cell: the probability as text, and the shade (a class of heat.css) that
    shows it, the nearest of SHADES + 1 steps."""
    p = min(max(float(p), 0.0), 1.0)
    return {"text": f"{p:.2f}", "shade": round(p * SHADES), "title": title}


def table(
    table_id: str, title: str, corner: str, columns: list, rows: list, note: str = ""
) -> dict[str, Any]:
    """One table: ``columns`` of ``{"label", "sub"[, "href", "title"]}``, ``rows`` of
    ``{"label", "sub", "cells"}`` whose cells are :func:`heat` cells or None (no decision)."""
    return {
        "id": table_id,
        "title": title,
        "corner": corner,
        "columns": columns,
        "rows": rows,
        "note": note,
    }


def spread(actions: dict[str, float], names: dict[str, str]) -> str:
    """Every action's probability in words: ``fold 0.100, call 0.900``."""
    return ", ".join(f"{names.get(a, a)} {p:.3f}" for a, p in actions.items())
