"""Goofspiel at a live table: the prize face up, both hands (public: every bid is shown once
both are down), the points of this deal and the match, this deal's turns and the previous
deal. A bid stays sealed until both players have bid: before that the others see only that
it is in, never which card."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableOption, TableRules, name_of, plural, signed
from games.engine.written import minus_signs
from games.goofspiel.replay import deal_end
from games.goofspiel.rules import GoofspielState, deal_returns
from games.replays import zone

#: the deals whose turns the log shows (this one and the one before)
LOGGED_DEALS = 2
#: what a deal scores, by ``returns_type``, as the table's description says it
#: (games.goofspiel.rules.deal_returns; docs/games/goofspiel.md)
RETURNS_SHOWN = {
    "win_loss": "a deal scores +1 for a win, \u22121 for a loss and 0 for a tie",
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
            # (short enough to be read whole in the menu on a phone: the help says it all)
            (
                ("win_loss", "+1 win, \u22121 loss, 0 tie"),
                ("point_difference", "half the difference in points"),
            ),
            default="win_loss",
            help="What a deal adds to the match's score: +1 to the player who took more "
            "prize points and \u22121 to the other (0 each for a tie), or half the difference "
            "of their prize points (7 to 2: +2.5 and \u22122.5).",
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
                "score": signed(state.scores[s]).removeprefix("+"),
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
            "log": self._log(state, [name_of(names, s, seat) for s in (0, 1)]),
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

    def _log(self, state: GoofspielState, names: list[str]) -> list[dict]:
        deals = [(n, d["turns"], d) for n, d in enumerate(state.deals_played)]
        if not state.over:
            deals.append((state.deal, state.history, None))
        # a fault: who faulted, before the end of the deal it cut short (as the replay says
        # it), and what the rules gave for the rest after it
        faults = self.fault_log(state, names)
        said = [entry for entry in faults if entry["key"] != "fault-given"]
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
                if done.get("forfeit") is not None:
                    log += said
                    said = []
                # (as the pages write figures: a negative with the minus sign)
                text = minus_signs(deal_end(number, done))
                log.append({"key": f"d{number}end", "text": f"{text}."})
        # (both seats at once: no deal ended by it, nothing given)
        return log + said + [entry for entry in faults if entry["key"] == "fault-given"]

    def fault_given(self, state: GoofspielState, names: list[str]) -> str:  # type: ignore[override]
        """As every game's ("The prizes left in deal 1 and the 2 deals not played went to
        bob"), and what each deal not played scored, as the end of a deal says it (": deal
        score +1 and \u22121 for each of deals 2 and 3.")."""
        given = super().fault_given(state, names)
        left = state.forfeited_deals
        if not given or not left or state.deals_played[-1].get("forfeit") is None:
            return given
        whole = [0, 0]
        whole[1 - state.deals_played[-1]["forfeit"]] = state.num_cards * (state.num_cards + 1) // 2
        returns = deal_returns(whole, state.returns_type)
        first = state.deals_total - left + 1  # the deals not played, by number
        which = (
            f"deal {first}" if left == 1 else f"each of deals {first} and {first + 1}"
            if left == 2 else f"each of deals {first} to {state.deals_total}"
        )  # fmt: skip
        paid = minus_signs(f"deal score {returns[0]:+g} and {returns[1]:+g} for {which}")
        return f"{given[:-1]}: {paid}."

    def actions(self, state: GoofspielState, seat: int) -> list[dict[str, Any]]:  # type: ignore[override]
        if seat not in state.pending():
            return []
        return [
            # each card is a number of its own: the digit keys type it ("1", "3": the 13)
            {"value": card, "label": "Bid", "key": "", "card": str(card), "number": card}
            for card in state.hands[seat]
        ]
