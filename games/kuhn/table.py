"""Kuhn poker at a live table: your card, the betting, the chips; the other card only when
a hand ends in a showdown."""

from __future__ import annotations

from typing import Any

from games.chips.table import public_hands
from games.engine.table import TableRules
from games.kuhn.rules import DECK, KuhnState


def kuhn_cards(done: dict[str, Any]) -> list[str]:
    """A hand's cards by seat, as card codes."""
    codes = {c[0]: c for c in DECK}
    by_position = [codes[c] for c in done["cards"]]
    return by_position if done["first"] == 0 else by_position[::-1]


class KuhnTable(TableRules):
    #: a sitting at a table, not a tournament match of 100 hands
    sitting = {"hands": 10}
    default_action_text = "check, or fold facing a bet"

    def view(self, state: KuhnState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        live = not state.over
        public: dict[str, Any] = {
            "hand": min(state.hand + 1, state.hands_total),
            "hands": state.hands_total,
            "chips": list(state.chips),
            "first": state.seat_of(0) if live else None,
            "history": state.history if live else "",
            "to_act": state.pending()[0] if live else None,
            "recent": public_hands(state, kuhn_cards),
        }
        if seat is None:
            return public
        mine: dict[str, Any] = {"seat": seat}
        if live:
            position = state.position_of(seat)
            mine |= {"position": position, "card": state.cards()[position]}
            if state.pending() == [seat]:
                mine["legal"] = state.legal()
        return public | {"you": mine}

    def result(self, state: KuhnState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        """The result without the cards of a hand no one saw at a showdown (your own kept)."""
        return state.result_for(seat)

    def default_action(self, state: KuhnState, seat: int) -> Any:  # type: ignore[override]
        return "p"
