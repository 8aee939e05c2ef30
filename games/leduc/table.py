"""Leduc hold'em at a live table: your card, the public card once turned, the betting and
the pot; the other private card only when a hand ends in a showdown."""

from __future__ import annotations

from typing import Any

from games.chips.table import (
    RECENT,
    ChipTable,
    hand_words,
    in_order,
    public_hands,
    seat_hands,
)
from games.engine.table import TableOption
from games.leduc.rules import LeducState
from games.replays import zone

#: what a raise puts in, round by round
RAISES = (2, 4)


def leduc_said(history: str, names: list[str]) -> list[list[str]]:
    """Each betting round's moves in words, as the buttons name them (``cr``: "ann checks",
    "bob raises 2"); ``names`` by position, the first to act first in each round."""
    return LeducState.said(history, names)


def leduc_betting(history: str, names: list[str]) -> str:
    """Leduc hold'em's betting in words (``cr/c``: "ann checks, bob raises 2; then ann
    checks"); ``names`` by position, the first to act first in each round."""
    return LeducState.betting_words(history, names)


def leduc_cards(done: dict[str, Any]) -> list[str]:
    cards = list(done["cards"])
    return cards if done["first"] == 0 else cards[::-1]


class LeducTable(ChipTable):
    #: the game's hands option (its spec's), as a table offers it
    options = (
        TableOption(
            "hands", "Hands", tuple((n, f"{n} hands") for n in (10, 20, 50)), default=10,
            shown="{} hands",
        ),
    )  # fmt: skip
    default_action_text = "check, or fold facing a raise"
    cautious = ("f",)

    def seat_cards(self, state: LeducState, seat: int, viewer: int | None) -> tuple[list, int]:  # type: ignore[override]
        if seat == viewer:
            return [state.private()[state.position_of(seat)]], 0
        return [], 1

    def shared_zones(self, state: LeducState) -> list[dict[str, Any]]:  # type: ignore[override]
        board = state.board()
        return [zone("Board", [board] if board else [], 0 if board else 1)]

    def facts(self, state: LeducState, names: list[str]) -> list[str]:  # type: ignore[override]
        pot = state.pot()
        by_seat = pot if state.seat_of(0) == 0 else pot[::-1]
        betting = leduc_betting("/".join(state.rounds), in_order(names, state.seat_of(0)))
        return [
            f"Betting: {betting}.",
            f"In the pot: {names[0]} {by_seat[0]}, {names[1]} {by_seat[1]}.",
        ]

    def moves(self, state: LeducState, names: list[str]) -> list[str]:  # type: ignore[override]
        said = leduc_said("/".join(state.rounds), in_order(names, state.seat_of(0)))
        return [
            f"Hand {state.hand + 1}, round {number + 1}: {move}."
            for number, moves in enumerate(said)
            for move in moves
        ]

    def faces(self, state: LeducState) -> dict[str, tuple[str, str]]:  # type: ignore[override]
        facing = state.rounds[-1].endswith("r") if state.rounds else False
        # the chips each button puts in, as Kuhn's "Bet 1" says: a raise is this round's size,
        # a call matches the raise faced (one raise's size), and a re-raise is said as the log
        # says it ("re-raises by 2"), the raise on top of the call
        size = RAISES[min(max(len(state.rounds) - 1, 0), len(RAISES) - 1)]
        words = {
            "f": ("Fold", "F"),
            "c": (f"Call {size}", "C") if facing else ("Check", "C"),
            "r": (f"Re-raise by {size}", "R") if facing else (f"Raise {size}", "R"),
        }
        return {action: words[action] for action in state.legal()}

    def finished(self, state: LeducState, viewer: int | None = None) -> list[dict[str, Any]]:  # type: ignore[override]
        return [
            h | {"board": done["board"] if "/" in done["history"] else None}
            for h, done in zip(
                public_hands(state, leduc_cards, viewer),
                state.hands_played[-RECENT:],
                strict=True,
            )
        ]

    def finished_zones(
        self, done: dict[str, Any], names: list[str], viewer: int | None
    ) -> list[dict[str, Any]]:
        zones = seat_hands(done, names, viewer)
        if zones and done["board"]:
            zones.append(zone(f"Hand {done['hand']}: board", [done["board"]]))
        return zones

    def hand_text(self, done: dict[str, Any], names: list[str]) -> str:
        betting = leduc_betting(done["history"], in_order(names, done["first"]))
        return hand_words(done, names, betting)

    def result(self, state: LeducState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        """The result without the cards of a hand no one saw at a showdown (your own kept)."""
        return state.result_for(seat)

    def default_action(self, state: LeducState, seat: int) -> Any:  # type: ignore[override]
        return "f" if "f" in state.legal() else "c"
