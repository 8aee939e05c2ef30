"""Ultimate Texas Hold'em at a live table: your hole cards, the board as far as it is turned,
your bets and chips; the dealer's cards only once a round reaches the showdown."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableRules
from games.uth.actions import CHECK, FOLD, text
from games.uth.rules import OVER, UthState

RECENT = 10


class UthTable(TableRules):
    default_action_text = "check, or fold at the river"

    def view(self, state: UthState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        live = state.phase != OVER
        public: dict[str, Any] = {
            "phase": state.phase,
            "round": state.round_no if live else len(state.rounds),
            "max_rounds": state.config["max_rounds"],
            "board": state.visible_board() if live else [],
            "chips": state.observation()["chips"] if live else state.result()["chips"],
            "bets": {"ante": state.ante, "blind": state.ante, "play": state.play_bet},
            "taken": [text(a) for a in state.taken] if live else [],
            # settled rounds: the cards turned at the showdown (a folded round's hole cards
            # only to the seat, the dealer's to no one)
            "rounds": [state.seen_round(r, seat) for r in state.rounds[-RECENT:]],
            "outcome": state.outcome,
        }
        if seat is None:
            return public
        mine: dict[str, Any] = {"seat": seat}
        if live:
            mine |= {
                "hole": list(state.player),
                "legal": [text(a) for a in state.legal()],
                "error": state.last_error,
            }
        return public | {"you": mine}

    def default_action(self, state: UthState, seat: int) -> Any:  # type: ignore[override]
        legal = state.legal()
        if CHECK in legal:
            return text(CHECK)
        return text(FOLD) if FOLD in legal else text(legal[0])
