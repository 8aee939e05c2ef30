"""Goofspiel at a live table: the prize face up, both hands (public: every bid is shown once
both are down), the points of this deal and the match, this deal's turns and the previous
deal. A bid stays sealed until both players have bid: before that the others see only that
it is in, never which card."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableRules
from games.goofspiel.rules import GoofspielState


class GoofspielTable(TableRules):
    default_action_text = "the card equal to the prize if you still hold it, else your lowest"

    def view(self, state: GoofspielState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        last = state.deals_played[-1] if state.deals_played else None
        public: dict[str, Any] = {
            "deal": min(state.deal + 1, state.deals_total),
            "deals": state.deals_total,
            "num_cards": state.num_cards,
            "returns_type": state.returns_type,
            "over": state.over,
            "prize": state.prize,
            "prizes_left": state.prizes_left(),
            "hands": [list(h) for h in state.hands],
            "points": list(state.points),
            "scores": list(state.scores),
            # this deal's turns, bids shown once both were down: [prize, seat 0, seat 1]
            "turns": [list(t) for t in state.history] if not state.over else [],
            "last_deal": None
            if last is None
            else {k: last[k] for k in ("turns", "points", "returns", "forfeit")},
            # who has bid on the prize face up (never what)
            "bid_in": sorted(state.bids),
            "to_act": state.pending(),
        }
        if seat is None:
            return public
        mine: dict[str, Any] = {"seat": seat, "hand": list(state.hands[seat])}
        if seat in state.pending():
            mine["legal"] = list(state.hands[seat])
        if seat in state.bids:
            mine["bid"] = state.bids[seat]
        return public | {"you": mine}

    def default_action(self, state: GoofspielState, seat: int) -> Any:  # type: ignore[override]
        hand = state.hands[seat]
        return state.prize if state.prize in hand else hand[0]
