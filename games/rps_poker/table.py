"""RPS Poker at a live table: your offer or hand, the base card, the games so far.

A choice stays sealed until both players have chosen: the others see that it is down, never
which card. The draft is private too: each player's log says which card it kept and which it
received; the other player and spectators read only that a draft step is done."""

from __future__ import annotations

from typing import Any

from games.engine.table import TableRules, name_of, plural
from games.replays import card_view, zone
from games.rps_poker.cards import DRAFT_STEPS, GAMES
from games.rps_poker.rules import RpsPokerState


def _label(code: str | None) -> str:
    return card_view(code)["label"] if code else ""


class RpsPokerTable(TableRules):
    default_action_text = "the first card"

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        text = super().summary(result, names, mine)
        forfeited = result.get("forfeited_games")
        return f"{text} {forfeited} games were forfeited." if forfeited else text

    def frame(self, state: RpsPokerState, seat: int | None, names: list[str]) -> dict[str, Any]:  # type: ignore[override]
        shown = [name_of(names, s, seat) for s in (0, 1)]
        draft, over = state.phase == "draft", state.phase == "over"
        seats = []
        for s in (0, 1):
            hand, deck = len(state.hands[s]), len(state.decks[s])
            down = not over and s in state.chosen
            seats.append({
                "zones": [zone("Hand", down=hand, fan="pile")]
                if s != seat and state.phase == "main" else [],
                "notes": [f"{deck} cards in deck"] if draft
                else [f"{hand} in hand", f"{deck} in deck"],
                "turn": not over and not down, "turn_text": "choosing", "done_text": "card down",
                "score": str(state.scores[s]),
                "badges": ["card down"] if down else [],
            })  # fmt: skip
        shared, lines = [], []
        if draft:
            lines.append(
                f"Draft: step {state.step + 1} of {DRAFT_STEPS}. Each player keeps one of two "
                "cards and passes the other on."
            )
        elif state.phase == "main":
            note = f"game {state.step + 1} of {GAMES}"
            shared.append(zone("Base card", [state.base or ""]) | {"note": note})
        if state.games:  # each card of the last game under the name of who played it
            last = state.games[-1]
            won = f"won, base {_label(last['base'])}"
            for s in (0, 1):
                played = zone(f"Last game: {shown[s]}", [last["played"][s]])
                shared.append(played | {"note": won} if s == last["winner"] else played)
        if not draft:
            lines.append(f"{plural(len(state.remaining), 'base card')} left")
        frame = {
            "label": self._title(state),
            "lines": lines,
            "scores": list(state.scores),
            "seats": seats,
            "shared": shared,
            "hand": [] if seat is None or over else self._hand(state, seat),
            "status": self._status(state, seat, shown),
            # a seat's words, for a seat still to play: never a spectator's, nor once it is over
            "prompt": "",
            # (a fault: who faulted, and what the rules gave for the rest, after the games)
            "log": self._log(state, seat, shown) + self.fault_log(state, shown),
        }
        if seat is not None and not over:
            frame |= {
                "pick": "Your offer: keep one card" if draft else "Your hand",
                "prompt": "Your turn: keep one of the two cards offered to you."
                if draft
                else f"Your turn: play a card against the base card {_label(state.base)}.",
                # the turn line once the table has this seat's card and awaits the other's
                "taken": "Your card is down",
                "waiting": "waiting for {names}",
            }
        return frame

    def fault_given(self, state: RpsPokerState, names: list[str]) -> str:  # type: ignore[override]
        """As every game's ("The 7 unplayed games went to bob."), with the score that made,
        as the games' lines write it: ": score 1-9"."""
        given = super().fault_given(state, names)
        if not given:
            return given
        return f"{given[:-1]}: score {state.scores[0]}-{state.scores[1]}."

    @staticmethod
    def _title(state: RpsPokerState) -> str:
        if state.phase == "draft":
            return f"Draft {state.step + 1} of {DRAFT_STEPS}"
        if state.phase == "main":
            return f"Game {state.step + 1} of {GAMES}"
        return "The match is over"

    @staticmethod
    def _hand(state: RpsPokerState, seat: int) -> list[dict[str, Any]]:
        """The seat's cards that are not choices now: its choice once made, the cards it
        holds while it waits, and its deck."""
        draft = state.phase == "draft"
        zones = []
        if seat in state.chosen:
            offered = state.offers[seat] if draft else state.hands[seat]
            zones.append(zone("Your choice", [offered[state.chosen[seat]]]))
            zones.append(zone("Your offer" if draft else "Your hand", offered))
        if state.decks[seat]:
            # a set, sorted: the order of a shuffled deck is the dealer's secret (a bot in
            # the seat is told only its hand), and the draft's order is in the log
            title = "Your deck so far" if draft else "Your deck (shuffled; cards to draw)"
            zones.append(zone(title, sorted(state.decks[seat])))
        return zones

    @staticmethod
    def _status(state: RpsPokerState, seat: int | None, shown: list[str]) -> str:
        if state.phase == "over":
            return "The match is over."
        if seat is not None and seat in state.chosen:
            waiting = " and ".join(shown[s] for s in state.pending())
            return f"Your card is down. Waiting for {waiting}\u2026"
        what = "Draft step" if state.phase == "draft" else "Game"
        return f"{what} {state.step + 1}: both players choose at the same time."

    @staticmethod
    def _log(state: RpsPokerState, seat: int | None, shown: list[str]) -> list[dict[str, Any]]:
        log = []
        for step, done in enumerate(state.drafts):
            if seat is None:
                text = f"Draft step {step + 1} of {DRAFT_STEPS} done."
            else:
                kept, got = done["kept"][seat], done["passed"][1 - seat]
                text = (
                    f"Draft {step + 1} of {DRAFT_STEPS}: you kept {_label(kept)} and "
                    f"received {_label(got)}."
                )
            log.append({"key": f"d{step}", "text": text, "mine": seat is not None})
        score = [0, 0]
        for n, game in enumerate(state.games):
            score[game["winner"]] += 1
            a, b = (_label(c) for c in game["played"])
            text = (
                f"Game {n + 1} (base {_label(game['base'])}): {shown[0]} played {a}, "
                f"{shown[1]} played {b}. {shown[game['winner']]} wins it; "
                f"score {score[0]}-{score[1]}."
            )
            log.append({"key": f"g{n}", "text": text})
        return log

    def actions(self, state: RpsPokerState, seat: int) -> list[dict[str, Any]]:  # type: ignore[override]
        if seat not in state.pending():
            return []
        draft = state.phase == "draft"
        cards = state.offers[seat] if draft else state.hands[seat]
        label = "Keep" if draft else "Play"
        return [{"value": i, "label": label, "key": "", "card": c} for i, c in enumerate(cards)]

    def default_action(self, state: RpsPokerState, seat: int) -> Any:  # type: ignore[override]
        return 0
