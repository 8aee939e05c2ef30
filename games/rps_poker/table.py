"""RPS Poker at a live table: your offer or hand, the base card, the games so far."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableRules
from games.rps_poker.rules import RpsPokerState


class RpsPokerTable(TableRules):
    default_action_text = "the first card"

    def view(self, state: RpsPokerState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        public: dict[str, Any] = {
            "phase": state.phase,
            "step": state.step,
            "scores": list(state.scores),
            "base": state.base if state.phase == "main" else None,
            # cards played are shown when both are down; the games so far are public
            "games": [
                {"base": g["base"], "played": list(g["played"]), "winner": g["winner"]}
                for g in state.games
            ],
            "hand_sizes": [len(h) for h in state.hands],
            "deck_sizes": [len(d) for d in state.decks],
            "remaining": len(state.remaining),
            # who has chosen this step (never what)
            "chosen": sorted(state.chosen),
        }
        if seat is None:
            return public
        mine: dict[str, Any] = {"seat": seat}
        if state.phase == "draft":
            mine["offer"] = list(state.offers[seat])
        mine["hand"] = list(state.hands[seat])
        mine["deck"] = list(state.decks[seat])
        if seat in state.chosen:
            mine["choice"] = state.chosen[seat]
        return public | {"you": mine}

    def default_action(self, state: RpsPokerState, seat: int) -> Any:  # type: ignore[override]
        return 0
