"""Blackjack++ at a live table: the up cards and hit cards, your own down card and total;
the other player's down card and the dealer's cards only once the deal is settled."""

from __future__ import annotations

from typing import Any

from games.blackjack_pp.rules import BlackjackPPState, hand_total, is_soft
from games.chips.table import ChipTable, in_order, the_cards, won_by_seat
from games.engine.table import TableOption, name_of, signed
from games.replays import zone

RECENT = 10


def _total(total: int) -> str:
    return f"{total} (bust)" if total > 21 else str(total)


def deal_cards(done: dict[str, Any], position: int) -> list[str]:
    """The cards a player of a settled deal held, by position (the first to act 0): the up
    card, the down card, the hits. ``done`` is one of ``hands_played`` or of
    :meth:`BlackjackPPTable.finished` (whose down cards are ``down``)."""
    down = done["down"] if "down" in done else done["cards"]
    return [done["up"][position], down[position], *done["hits"][position]]


class BlackjackPPTable(ChipTable):
    default_action_text = "stand"
    unit = "deal"
    points = "points"
    cautious = ("stand",)
    #: the game's options (its spec's), as a table offers them
    options = (
        TableOption(
            "hands", "Deals", tuple((n, f"{n} deals") for n in (10, 20, 50)), default=10,
            shown="{} deals",
        ),
        TableOption(
            "max_hits",
            "Hits",
            ((1, "at most 1 card drawn in a deal"), (2, "at most 2"), (3, "at most 3")),
            default=1,
            shown="at most {} hits", shown_one="at most {} hit",
        ),
    )  # fmt: skip

    def seat_cards(  # type: ignore[override]
        self, state: BlackjackPPState, seat: int, viewer: int | None
    ) -> tuple[list, int]:
        position = state.position_of(seat)
        if seat == viewer:
            return [state.up[position], state.down[position], *state.hits[position]], 0
        return [state.up[position], *state.hits[position]], 1

    def seat_zone_label(self, state: BlackjackPPState, seat: int) -> str:  # type: ignore[override]
        # a seat keeps its name from deal to deal; who acts first (which alternates) is the
        # seat's note, never a "Player 0/1" that would swap between the seats
        return "Cards"

    def title_note(self, state: BlackjackPPState) -> str:  # type: ignore[override]
        return f", max hits {state.config['max_hits']}"

    def shared_zones(self, state: BlackjackPPState) -> list[dict[str, Any]]:  # type: ignore[override]
        return [zone("Dealer", [state.up[2]], 1)]

    def hand_zone(self, state: BlackjackPPState, seat: int) -> dict[str, Any]:  # type: ignore[override]
        cards, _ = self.seat_cards(state, seat, seat)
        soft = " (soft)" if is_soft(cards) else ""
        return zone("Your cards", cards) | {"note": f"total {hand_total(cards)}{soft}"}

    def moves(self, state: BlackjackPPState, names: list[str]) -> list[str]:  # type: ignore[override]
        # tokens by position ("0h5": the first to act hit, "1s": the other stood)
        by_position = in_order(names, state.seat_of(0))
        words = {"h": "hits", "s": "stands"}
        return [
            f"Deal {state.hand + 1}, play: {by_position[int(token[0])]} {words[token[1]]}."
            for token in state.tokens
        ]

    def faces(self, state: BlackjackPPState) -> dict[str, tuple[str, str]]:  # type: ignore[override]
        words = {"hit": ("Hit", "H"), "stand": ("Stand", "S")}
        return {action: words[action] for action in state.legal()}

    def finished(  # type: ignore[override]
        self, state: BlackjackPPState, viewer: int | None = None
    ) -> list[dict[str, Any]]:
        # settled deals are public: every card was turned
        deals = list(enumerate(state.hands_played))[-RECENT:]
        return [
            {
                "hand": i + 1,
                "first": d["first"],
                "up": d["up"],
                "down": d["cards"],
                "hits": d["hits"],
                "dealer": d["dealer"],
                "totals": d["totals"],
                "points": d["points"],
                "won": won_by_seat(d),
                # the viewer's own cards of the deal (None: a spectator)
                "mine": None if viewer is None else deal_cards(d, (viewer + d["first"]) % 2),
            }
            for i, d in deals
        ]

    def finished_zones(
        self, done: dict[str, Any], names: list[str], viewer: int | None
    ) -> list[dict[str, Any]]:
        """The settled deal's cards, every one turned: yours, the other seat's, the dealer's."""
        number = done["hand"]
        zones = []
        for seat in (0, 1):
            position = (seat + done["first"]) % 2
            who = "you" if seat == viewer else name_of(names, seat, None)
            zones.append(
                zone(f"Deal {number}: {who}", deal_cards(done, position))
                | {"note": f"total {_total(done['totals'][position])}"}
            )
        dealer = zone(f"Deal {number}: dealer", done["dealer"])
        return [*zones, dealer | {"note": f"total {_total(done['totals'][2])}"}]

    def hand_text(self, done: dict[str, Any], names: list[str]) -> str:
        totals = done["totals"]
        first, second = in_order(names, done["first"])
        won = ", ".join(f"{names[s]} {signed(done['won'][s])}" for s in (0, 1))
        held = f" (you held {the_cards(done['mine'])})" if done.get("mine") else ""
        return (
            f"Deal {done['hand']}: {first} {_total(totals[0])}, {second} {_total(totals[1])}, "
            f"the dealer {_total(totals[2])}; {won}{held}."
        )

    def result(self, state: BlackjackPPState, seat: int | None) -> dict[str, Any]:  # type: ignore[override]
        """The result without the cards of a hand no one saw at a showdown (your own kept)."""
        return state.result_for(seat)

    def default_action(self, state: BlackjackPPState, seat: int) -> Any:  # type: ignore[override]
        return "stand"
