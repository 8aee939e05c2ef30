"""Kuhn poker at a live table: your card, the betting, the chips; the other card only when
a hand ends in a showdown."""

from __future__ import annotations

from typing import Any

from games.chips.table import ChipTable, hand_words, in_order, public_hands, seat_hands
from games.engine.table import TableOption
from games.kuhn.rules import DECK, KuhnState


def kuhn_said(history: str, names: list[str]) -> list[str]:
    """Kuhn poker's moves in words (``pb``: "ann checks", "bob bets 1"); ``names`` by
    position, the first to act first."""
    return [move for moves in KuhnState.said(history, names) for move in moves]


def kuhn_betting(history: str, names: list[str]) -> str:
    """Kuhn poker's betting in words (``pb``: "ann checks, bob bets 1")."""
    return KuhnState.betting_words(history, names)


def kuhn_cards(done: dict[str, Any]) -> list[str]:
    """A hand's cards by seat, as card codes."""
    codes = {c[0]: c for c in DECK}
    by_position = [codes[c] for c in done["cards"]]
    return by_position if done["first"] == 0 else by_position[::-1]


class KuhnTable(ChipTable):
    #: the game's hands option (its spec's), as a table offers it
    options = (
        TableOption(
            "hands", "Hands", tuple((n, f"{n} hands") for n in (10, 20, 50)), default=10,
            shown="{} hands",
        ),
    )  # fmt: skip
    default_action_text = "check, or fold facing a bet"
    cautious = ("p",)

    def seat_cards(self, state: KuhnState, seat: int, viewer: int | None) -> tuple[list, int]:  # type: ignore[override]
        if seat == viewer:
            return [state.cards()[state.position_of(seat)]], 0
        return [], 1

    def facts(self, state: KuhnState, names: list[str]) -> list[str]:  # type: ignore[override]
        first = in_order(names, state.seat_of(0))
        return [f"Betting: {kuhn_betting(state.history, first)}."]

    def moves(self, state: KuhnState, names: list[str]) -> list[str]:  # type: ignore[override]
        said = kuhn_said(state.history, in_order(names, state.seat_of(0)))
        return [f"Hand {state.hand + 1}, betting: {move}." for move in said]

    def faces(self, state: KuhnState) -> dict[str, tuple[str, str]]:  # type: ignore[override]
        facing = state.history.endswith("b")
        words = {
            "p": ("Fold", "F") if facing else ("Check", "C"),
            "b": ("Call 1", "C") if facing else ("Bet 1", "B"),
        }
        return {action: words[action] for action in state.legal()}

    def finished(self, state: KuhnState, viewer: int | None = None) -> list[dict[str, Any]]:  # type: ignore[override]
        return public_hands(state, kuhn_cards, viewer)

    def finished_zones(
        self, done: dict[str, Any], names: list[str], viewer: int | None
    ) -> list[dict[str, Any]]:
        return seat_hands(done, names, viewer)

    def hand_text(self, done: dict[str, Any], names: list[str]) -> str:
        betting = kuhn_betting(done["history"], in_order(names, done["first"]))
        return hand_words(done, names, betting)

    def result(self, state: KuhnState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        """The result without the cards of a hand no one saw at a showdown (your own kept)."""
        return state.result_for(seat)

    def default_action(self, state: KuhnState, seat: int) -> Any:  # type: ignore[override]
        return "p"
