"""Leduc hold'em at a live table: your card, the public card once turned, the betting and
the pot; the other private card only when a hand ends in a showdown."""

from __future__ import annotations

from typing import Any

from games.chips.table import public_hands
from games.engine.table import TableRules
from games.leduc.rules import LeducState


def leduc_cards(done: dict[str, Any]) -> list[str]:
    cards = list(done["cards"])
    return cards if done["first"] == 0 else cards[::-1]


class LeducTable(TableRules):
    #: a sitting at a table, not a tournament match of 100 hands
    sitting = {"hands": 10}
    default_action_text = "check, or fold facing a raise"

    def view(self, state: LeducState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        live = not state.over
        pot = state.pot() if live else [0, 0]
        first = state.seat_of(0)
        public: dict[str, Any] = {
            "hand": min(state.hand + 1, state.hands_total),
            "hands": state.hands_total,
            "chips": list(state.chips),
            "first": first if live else None,
            "board": state.board() if live else None,
            "history": "/".join(state.rounds) if live else "",
            # by seat
            "pot": (pot if first == 0 else pot[::-1]) if live else [0, 0],
            "to_act": state.pending()[0] if live else None,
            "recent": [
                h | {"board": done["board"] if "/" in done["history"] else None}
                for h, done in zip(
                    public_hands(state, leduc_cards), state.hands_played[-10:], strict=True
                )
            ],
        }
        if seat is None:
            return public
        mine: dict[str, Any] = {"seat": seat}
        if live:
            mine["card"] = state.private()[state.position_of(seat)]
            mine["position"] = state.position_of(seat)
            if state.pending() == [seat]:
                mine["legal"] = state.legal()
        return public | {"you": mine}

    def result(self, state: LeducState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        """The result without the cards of a hand no one saw at a showdown (your own kept)."""
        return state.result_for(seat)

    def default_action(self, state: LeducState, seat: int) -> Any:  # type: ignore[override]
        return "f" if "f" in state.legal() else "c"
