"""Blackjack++ at a live table: the up cards and hit cards, your own down card and total;
the other player's down card and the dealer's cards only once the deal is settled."""

from __future__ import annotations

from typing import Any

from games.blackjack_pp.rules import BlackjackPPState, hand_total, is_soft
from games.engine.table import TableRules

RECENT = 10


class BlackjackPPTable(TableRules):
    #: a sitting at a table, not a tournament match of 100 hands
    sitting = {"hands": 10}
    default_action_text = "stand"

    def view(self, state: BlackjackPPState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        live = not state.over
        first = state.seat_of(0)
        public: dict[str, Any] = {
            "hand": min(state.hand + 1, state.hands_total),
            "hands": state.hands_total,
            "max_hits": state.config["max_hits"],
            "chips": list(state.chips),
            "first": first if live else None,
            # by position: player 0, player 1 (then the dealer for the up cards)
            "up": list(state.up) if live else [],
            "hits": [list(h) for h in state.hits] if live else [[], []],
            "history": ",".join(state.tokens) if live else "",
            "to_act": state.pending()[0] if live else None,
            # settled deals are public: every card was turned
            "recent": [
                {
                    "hand": i + 1,
                    "first": d["first"],
                    "up": d["up"],
                    "down": d["cards"],
                    "hits": d["hits"],
                    "dealer": d["dealer"],
                    "totals": d["totals"],
                    "points": d["points"],
                    "won": d["won"],
                }
                for i, d in list(enumerate(state.hands_played))[-RECENT:]
            ],
        }
        if seat is None:
            return public
        mine: dict[str, Any] = {"seat": seat}
        if live:
            position = state.position_of(seat)
            cards = state.cards_of(position)
            mine |= {
                "position": position,
                "down": state.down[position],
                "total": hand_total(cards),
                "soft": is_soft(cards),
            }
            if state.pending() == [seat]:
                mine["legal"] = state.legal()
        return public | {"you": mine}

    def result(self, state: BlackjackPPState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        """The result without the cards of a hand no one saw at a showdown (your own kept)."""
        return state.result_for(seat)

    def default_action(self, state: BlackjackPPState, seat: int) -> Any:  # type: ignore[override]
        return "stand"
