"""Goofspiel at a live table: the prize face up, both hands (public: every bid is shown once
both are down), the points of this deal and the match, this deal's turns and the previous
deal. A bid stays sealed until both players have bid: before that the others see only that
it is in, never which card."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableOption, TableRules, name_of, plural
from games.goofspiel.replay import deal_end
from games.goofspiel.rules import GoofspielState
from games.replays import zone

#: the deals whose turns the log shows (this one and the one before)
LOGGED_DEALS = 2
#: what a deal scores, by ``returns_type``, as the table's description says it
#: (games.goofspiel.rules.deal_returns; docs/games/goofspiel.md)
RETURNS_SHOWN = {
    "win_loss": "a deal scores +1 for a win, -1 for a loss and 0 for a tie",
    "point_difference": "a deal scores half the difference of the prize points",
}


class GoofspielTable(TableRules):
    default_action_text = "the card equal to the prize if you still hold it, else your lowest"
    #: the game's options (its spec's), as a table offers them
    options = (
        TableOption(
            "num_cards",
            "Cards",
            tuple((n, f"{n} cards in each hand") for n in (5, 8, 10, 13)),
            default=13,
            shown="{} cards",
        ),
        TableOption(
            "deals", "Deals", tuple((n, plural(n, "deal")) for n in (1, 2, 3, 5)), default=3,
            shown="{} deals", shown_one="{} deal",
        ),
        TableOption(
            "returns_type",
            "A deal pays",
            (
                ("win_loss", "+1 to its winner, -1 to the other (0 each for a tie)"),
                ("point_difference", "half the difference of the prize points"),
            ),
            default="win_loss",
        ),
    )  # fmt: skip

    def describe(self, config: dict[str, Any]) -> list[str]:
        """As every table's, with what a deal scores in words, not the option's value (the
        last option: said last)."""
        words = super().describe({k: v for k, v in config.items() if k != "returns_type"})
        if "returns_type" in config:
            kind = config["returns_type"]
            words.append(RETURNS_SHOWN.get(kind, f"returns: {kind}"))
        return words

    def default_action(self, state: GoofspielState, seat: int) -> Any:  # type: ignore[override]
        hand = state.hands[seat]
        return state.prize if state.prize in hand else hand[0]

    def frame(self, state: GoofspielState, seat: int | None, names: list[str]) -> dict[str, Any]:  # type: ignore[override]
        deal = min(state.deal + 1, state.deals_total)
        pending = state.pending()
        seats = []
        for s in (0, 1):
            shown = s != seat and not state.over
            seats.append({
                "zones": [zone("Hand", [str(c) for c in state.hands[s]])] if shown else [],
                "notes": [f"{plural(state.points[s], 'prize point')} this deal"],
                "turn": s in pending, "turn_text": "bidding", "done_text": "bid in",
                "score": f"{state.scores[s]:g}",
                # a bid that is in shows as in, never as which card
                "badges": ["bid in"] if s in state.bids else [],
            })  # fmt: skip
        shared, lines, hand = [], [], []
        if not state.over:
            shared = [
                zone("Prize", [str(state.prize)]),
                zone("Prizes to come", down=len(state.prizes_left())),
            ]
            left = ", ".join(str(c) for c in state.prizes_left()) or "none"
            lines.append(f"Deal {deal} of {state.deals_total}: prizes still to come {left}.")
            if seat is not None:
                if seat in state.bids:
                    hand.append(zone("Your bid", [str(state.bids[seat])]))
                if seat not in pending:
                    hand.append(zone("Your hand", [str(c) for c in state.hands[seat]]))
        waiting = [name_of(names, s, seat) for s in pending if s != seat]
        if state.over:
            status = "The match is over."
        elif seat in state.bids:
            status = "Your bid is in. Waiting for " + " and ".join(waiting) + "\u2026"
        else:
            status = f"Deal {deal}, prize {state.prize}: both players bid at the same time."
        frame = {
            "label": "The match is over" if state.over else f"Deal {deal}, prize {state.prize}",
            "lines": lines,
            "scores": list(state.scores),
            "seats": seats,
            "shared": shared,
            "hand": hand,
            "status": status,
            # a seat's words, for a seat still to bid: never a spectator's, nor once it is over
            "prompt": "",
            "log": self._log(state, [name_of(names, s, seat) for s in (0, 1)], seat),
        }
        if seat is not None and not state.over:
            frame |= {
                "pick": "Your hand: bid one card",
                "prompt": f"Your turn: bid a card for the prize {state.prize}.",
                # the turn line once the table has this seat's bid and awaits the other's
                "taken": "Your bid is in",
                "waiting": "waiting for {names}'s bid",
            }
        return frame

    def _log(self, state: GoofspielState, names: list[str], seat: int | None) -> list[dict]:
        deals = [(n, d["turns"], d) for n, d in enumerate(state.deals_played)]
        if not state.over:
            deals.append((state.deal, state.history, None))
        log = []
        for number, turns, done in deals[-LOGGED_DEALS:]:
            for i, (prize, first, second) in enumerate(turns):
                if first == second:
                    taken = "nobody takes it (equal bids)"
                else:
                    taken = f"{names[0 if first > second else 1]} takes it"
                text = f"Prize {prize}: {names[0]} bids {first}, {names[1]} bids {second}; {taken}."
                log.append({"key": f"d{number}t{i}", "text": text})
            if done is not None:
                log.append({"key": f"d{number}end", "text": f"{deal_end(number, done)}."})
        return log

    def actions(self, state: GoofspielState, seat: int) -> list[dict[str, Any]]:  # type: ignore[override]
        if seat not in state.pending():
            return []
        return [
            {"value": card, "label": "Bid", "key": "", "card": str(card)}
            for card in state.hands[seat]
        ]
