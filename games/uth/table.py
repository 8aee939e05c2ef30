"""Ultimate Texas Hold'em at a live table: your hole cards, the board as far as it is turned,
your bets and chips; the dealer's cards only once a round reaches the showdown."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableOption, TableRules
from games.uth.actions import CHECK, FOLD, text
from games.uth.rules import OVER, UthState

RECENT = 10


class UthTable(TableRules):
    default_action_text = "check, or fold at the river"
    options = (
        TableOption(
            "max_rounds",
            "Rounds",
            tuple((r, f"{r} rounds") for r in (5, 10, 20, 50)),
            default=10,
            help="You start with 1000 chips; the ante and the blind are 25 each.",
            shown="{} rounds",
        ),
        TableOption(
            "variant",
            "Pay table",
            (
                ("default", "default: a flush pays 3 to 1 on the blind (as the reference)"),
                ("standard", "standard casino: a flush pays 3 to 2 on the blind"),
            ),
            default="default",
            shown="{} pay table",
        ),
    )

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        scores = result.get("scores") or []
        net = scores[0] if scores else 0
        sign = "+" if net > 0 else ""
        reason = result.get("reason") or "the session is over"
        return f"{reason[:1].upper()}{reason[1:]}. Net result: {sign}{net:g} chips."

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
