"""What a live table of a chip game shows everyone of the hands already played."""

from __future__ import annotations

from typing import Any

from games.chips.match import HandsMatch

RECENT = 10


def public_hands(state: HandsMatch, cards_of) -> list[dict[str, Any]]:
    """The last hands as everyone saw them: cards only of hands that reached a showdown."""
    out = []
    for number, done in enumerate(state.hands_played[-RECENT:]):
        shown = done["showdown"]
        out.append(
            {
                "hand": len(state.hands_played) - min(RECENT, len(state.hands_played)) + number + 1,
                "first": done["first"],
                "history": done["history"],
                "won": [done["won"], -done["won"]] if done["first"] == 0 else
                       [-done["won"], done["won"]],
                "showdown": shown,
                # by seat: the cards of the seat that acted first, then the other
                "cards": cards_of(done) if shown else None,
            }
        )  # fmt: skip
    return out
