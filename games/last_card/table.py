"""Last Card at a live table: your hand, the last played card, everyone's hand size, and
the moves so far (cards played are public; cards drawn are counted, never shown)."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableRules
from games.last_card.rules import LastCardState

#: the log's entries a table shows, each reduced to its public part
_PUBLIC_KEYS = {
    "play": ("seat", "cards", "suit", "call"),
    "pass": ("seat", "call", "auto"),
    "draw": ("seat", "drawn"),
    "punished": ("seat", "owed", "drawn"),
    "no_call": ("seat", "drawn"),
    "skip": ("seat",),
    # the reason of a refused move may name cards of the hand: the seat alone hears it
    "illegal": ("seat",),
    "fault": ("seat", "kind"),
    "reshuffle": ("cards",),
    "cap": ("turns",),
    "win": ("seat",),
}
RECENT = 40


class LastCardTable(TableRules):
    default_action_text = "a pass (draw)"

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        scores = result.get("scores") or []
        winner = result.get("winner")
        points = ", ".join(f"{n} {p:g}" for n, p in zip(names, scores, strict=False))
        who = "Nobody emptied their hand" if winner is None else f"{names[winner]} wins"
        if winner is not None and winner == mine:
            who = "You win"
        return f"{who}. Points taken (lower is better): {points}."

    def view(self, state: LastCardState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        public: dict[str, Any] = {
            "last_played": state.played[-1] if state.played else None,
            "active_suit": state.active_suit,
            "punishment": state.punishment,
            "hand_sizes": [len(h) for h in state.hands],
            "direction": state.direction,
            "current": None if state.over else state.current,
            "deck_size": len(state.deck),
            "played_count": len(state.played),
            "turns": state.turns,
            "called": list(state.called),
            "winner": state.winner,
            "over": state.over,
            "moves": [_public(entry) for entry in state.history[-RECENT:]],
        }
        if seat is None:
            return public
        return public | {"you": {"seat": seat, "hand": list(state.hands[seat])}}

    def default_action(self, state: LastCardState, seat: int) -> Any:  # type: ignore[override]
        return {"cards": [], "suit": None, "last_card": False}


def _public(entry: dict[str, Any]) -> dict[str, Any]:
    kind = entry.get("e", "")
    keys = _PUBLIC_KEYS.get(kind, ("seat",))
    return {"e": kind} | {k: entry[k] for k in keys if k in entry}
