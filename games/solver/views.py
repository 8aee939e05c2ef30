"""A solved strategy as tables of heat-map cells, the data the strategy explorer draws.

Each solvable game lays its own strategy out (``games/<game>/strategy.py``, named by its
``SolverSpec.strategy``) with these pieces; the explorer page (``games/explorer.py``,
``templates/solver/_heatmap.html``) draws any of them the same way. Plain data, no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

Infosets = dict[str, dict[str, float]]

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


class StrategyPages(Protocol):
    """A solved strategy, read a page at a time: the game's ``SolverSpec.page_of`` says which
    page each information set is kept in (a game without it has one page, ``""``). The
    explorer reads stored solves through ``games.solves.StoredPages``; :class:`DocumentPages`
    reads a result document in memory."""

    def page(self, key: str) -> Infosets:
        """The information sets kept in page ``key`` ({} for a page there is not)."""
        ...

    def present(self, keys: Iterable[str]) -> set[str]:
        """Those of ``keys`` that are pages of the strategy."""
        ...

    def all(self) -> Infosets:
        """Every information set (for the games whose strategy is small)."""
        ...


def paged(infosets: Infosets, page_of: Callable[[str], str] | None) -> dict[str, Infosets]:
    """The strategy split into its pages, in the order of their first information set."""
    pages: dict[str, Infosets] = {}
    for key, actions in infosets.items():
        pages.setdefault(page_of(key) if page_of else "", {})[key] = actions
    return pages


class DocumentPages:
    """:class:`StrategyPages` over a result document's ``infosets``, held in memory."""

    def __init__(self, infosets: Infosets, page_of: Callable[[str], str] | None = None) -> None:
        self.infosets = infosets
        self.pages = paged(infosets, page_of)

    def page(self, key: str) -> Infosets:
        return self.pages.get(key, {})

    def present(self, keys: Iterable[str]) -> set[str]:
        return {key for key in keys if key in self.pages}

    def all(self) -> Infosets:
        return self.infosets
