"""Blackjack++'s solved strategy as the strategy explorer shows it: the hit probability by
the acting player's down card (rows) and situation (columns), a situation at a time."""

from __future__ import annotations

import re
from typing import Any

from games.blackjack_pp.tree import NAMES as CARD_NAMES
from games.blackjack_pp.tree import total as hand_total
from games.solver.views import StrategyPages, heat, table

VALUE_OF = {name: value for value, name in CARD_NAMES.items()}
READING = (
    "The probability that the acting player hits. Choose a column heading to see what follows it."
)

TOKEN = re.compile(r"^[01](s|h[A2-9T])$")
DOWN_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]


def describe_token(token: str) -> str:
    player = token[0]
    if token[1] == "s":
        return f"player {player} stood"
    card = "10" if token[2] == "T" else token[2]
    return f"player {player} hit, drew {card}"


def parse_at(text: str | None) -> tuple[tuple[str, ...], bool]:
    """The history prefix a Blackjack++ view starts at (``0h5,1s``) and whether it was valid."""
    if not text:
        return (), True
    tokens = tuple(t.strip() for t in text.split(","))
    if len(tokens) > 12 or not all(TOKEN.match(t) for t in tokens):
        return (), False
    return tokens, True


def page_of(key: str) -> str:
    """The page of the stored strategy an information set ``PD:H`` is kept in
    (``SolverSpec.page_of``): its history less the last token, so that a situation's page
    holds every situation one token further (``""`` holds the start and the first tokens)."""
    history = key[3:]
    return history.rsplit(",", 1)[0] if "," in history else ""


def _blackjack_index(
    infosets: dict[str, dict[str, float]],
) -> dict[tuple[tuple[str, ...], int], dict[str, float]]:
    """``{(history tokens, player): {down card: hit probability}}`` from keys ``PD:H``."""
    index: dict[tuple[tuple[str, ...], int], dict[str, float]] = {}
    for key, actions in infosets.items():
        player, down, history = key[0], key[1], key[3:]
        tokens = tuple(history.split(",")) if history else ()
        index.setdefault((tokens, int(player)), {})[down] = actions.get("h", 0.0)
    return index


def blackjack_view(
    pages: StrategyPages, up: list[str], at: tuple[str, ...], base_url: str
) -> dict[str, Any]:
    """Blackjack++: hit probability by the acting player's down card (rows) and situation
    (columns): the situation ``at`` and the ones one token further. A column whose situation
    leads further links to the view starting there. Reads two pages of the strategy (the
    situation's and the one it is kept in) and which of the next situations have pages."""
    depth = len(at)
    infosets = dict(pages.page(",".join(at)))
    if at:
        infosets |= pages.page(",".join(at[:-1]))
    index = _blackjack_index(infosets)

    def order(situation: tuple[tuple[str, ...], int]) -> tuple[int, str, int, int]:
        tokens, player = situation
        if len(tokens) == depth:
            return (0, "", 0, player)
        last = tokens[-1]
        return (1, last[0], -1 if last[1] == "s" else DOWN_ORDER.index(last[2]), player)

    shown = sorted((s for s in index if s[0][:depth] == at and len(s[0]) <= depth + 1), key=order)
    following = {",".join(t) for t, _ in shown if len(t) == depth + 1}
    deeper = {tuple(key.split(",")) for key in pages.present(following)}
    ups = [VALUE_OF[c] for c in up]
    columns = []
    for tokens, player in shown:
        last = tokens[-1] if len(tokens) > depth else ""
        href = ""
        if last and tokens in deeper:
            href = f"{base_url}?at={','.join(tokens)}#strategy"
        columns.append(
            {
                "label": last or ("start" if not at else "here"),
                "sub": f"player {player} acts",
                "href": href,
                "title": describe_token(last) if last else "",
            }
        )
    rows = []
    for down in DOWN_ORDER:
        cells = []
        for tokens, player in shown:
            p = index[(tokens, player)].get(down)
            if p is None:
                cells.append(None)
                continue
            hits = [VALUE_OF[t[2]] for t in tokens if t[0] == str(player) and t[1] == "h"]
            cards = (ups[player], VALUE_OF[down], *hits)
            t = hand_total(cards)
            soft = 1 in cards and sum(cards) + 10 <= 21
            history = ",".join(tokens)
            cells.append(
                heat(
                    p,
                    f"{player}{down}:{history} — player {player}, down {down}, total "
                    f"{t}{' soft' if soft else ''}: hit {p:.3f}",
                )
            )
        rows.append({"label": "10" if down == "T" else down, "sub": "", "cells": cells})
    crumbs = [{"label": "start", "href": f"{base_url}#strategy"}]
    for n in range(1, depth + 1):
        crumbs.append(
            {
                "label": at[n - 1],
                "title": describe_token(at[n - 1]),
                "text": describe_token(at[n - 1]),
                "href": f"{base_url}?at={','.join(at[:n])}#strategy",
            }
        )
    return {
        "table": table(
            "blackjack",
            "Hit probability",
            "down card",
            columns,
            rows,
            "Rows: the acting player's own down card. Columns: the situation, by the last "
            "history token (0s: player 0 stood; 1h5: player 1 hit and drew a 5). A column "
            "that leads further is a link: follow it to see what comes after. An empty cell "
            "is a hand that never decides there (it has bust or is out of hits).",
        ),
        "crumbs": crumbs,
        "empty": not shown,
    }


def strategy(pages: StrategyPages, settings: dict[str, Any], at: str | None, base: str):
    """What the explorer shows of a solve (``SolverSpec.strategy``): the situation ``at``
    (a history prefix such as ``0h5,1s``), or the start when there is no such situation."""
    tokens, valid = parse_at(at)
    view = blackjack_view(pages, settings["up"], tokens, base)
    if view["empty"]:
        valid = False
        view = blackjack_view(pages, settings["up"], (), base)
    return {
        "tables": [view["table"]],
        "reading": READING,
        "crumbs": view["crumbs"],
        "at_invalid": not valid,
    }
