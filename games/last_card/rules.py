"""The Last Card engine: dealing, moves and their effects, punishments, last card calls,
reshuffles, the turn cap, illegal moves as passes, statistics and the readable history.

Every move is judged by :mod:`games.last_card.movecheck`, the file bot authors import, so
the checker and the engine cannot disagree.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.engine.cards import standard_deck
from games.engine.chance import Chance
from games.engine.game import Fault, GameState, IllegalAction, Prompt
from games.last_card.movecheck import PUNISHMENT, hand_value, problem

HAND_SIZE = 7
FULL_DECK: tuple[str, ...] = tuple(str(card) for card in standard_deck())
#: calls of last card per game that cost nothing
FREE_CALLS = 10
#: cards drawn by a player that empties its hand without having called last card
LAST_CARD_PENALTY = 2
STATISTICS = (
    "pass_moves",
    "cards_played",
    "illegal_moves",
    "times_punished",
    "punishment_taken",
    "games_won",
    "hand_value_pts",
    "last_card_pts",
    "points_taken",
)


def last_card_points(calls: int) -> float:
    """Penalty points for calling last card ``calls`` times in one game."""
    return calls / 10 if calls > FREE_CALLS else 0.0


def _json_safe(value: Any) -> Any:
    """What a refused answer is recorded as: a copy if it is JSON data, else its repr."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)[:200]
    return copy.deepcopy(value)


@dataclass
class LastCardState(GameState):
    game: ClassVar[str] = "last-card"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 4

    deck: list[str] = field(default_factory=list, init=False)
    hands: list[list[str]] = field(default_factory=list, init=False)
    #: the played pile in order; its last card is the last played card
    played: list[str] = field(default_factory=list, init=False)
    active_suit: str | None = field(default=None, init=False)
    punishment: int = field(default=0, init=False)
    direction: int = field(default=1, init=False)
    current: int = field(default=0, init=False)
    turns: int = field(default=0, init=False)
    winner: int | None = field(default=None, init=False)
    over: bool = field(default=False, init=False)
    #: whether each seat called last card on its latest turn
    called: list[bool] = field(default_factory=list, init=False)
    calls: list[int] = field(default_factory=list, init=False)
    counts: list[dict[str, int]] = field(default_factory=list, init=False)
    #: what happened, for readable logs: one small dict per event (see games.last_card.logs)
    history: list[dict[str, Any]] = field(default_factory=list, init=False)
    _chance: Chance | None = field(default=None, init=False, repr=False)

    @classmethod
    def default_config(cls) -> dict[str, Any]:
        return {"max_turns": 1000}

    # ---- dealing ------------------------------------------------------------------------
    def start(self, chance: Chance) -> None:
        self._chance = chance
        order = chance.shuffle("deck", FULL_DECK)
        n = self.num_seats
        self.hands = [order[seat : n * HAND_SIZE : n] for seat in range(n)]
        self.played = [order[n * HAND_SIZE]]
        self.deck = order[n * HAND_SIZE + 1 :]
        top = self.played[0]
        self.active_suit = top[1] if top[0] == "A" else None
        self.called = [False] * n
        self.calls = [0] * n
        self.counts = [
            {
                "pass_moves": 0,
                "cards_played": 0,
                "illegal_moves": 0,
                "times_punished": 0,
                "punishment_taken": 0,
            }
            for _ in range(n)
        ]
        self.history.append({"e": "start", "card": top, "hands": [list(h) for h in self.hands]})

    # ---- the runner's questions ---------------------------------------------------------
    def pending(self) -> list[int]:
        return [] if self.over else [self.current]

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` sees: the plain-dict state of the bot contract."""
        return {
            "hand": list(self.hands[seat]),
            "last_played": self.played[-1],
            "active_suit": self.active_suit,
            "punishment": self.punishment,
            "hand_sizes": [len(h) for h in self.hands],
            "seat": seat,
            "direction": self.direction,
            "deck_size": len(self.deck),
            "played_cards": list(self.played),
        }

    def prompt(self, seat: int) -> Prompt:
        return Prompt("play", self.view(seat))

    def verify(self, seat: int, action: Any) -> None:
        if self.over:
            raise IllegalAction("the game is over")
        if seat != self.current:
            raise IllegalAction(f"it is seat {self.current}'s turn, not seat {seat}'s")
        reason = problem(
            self.hands[seat], self.played[-1], self.active_suit, self.punishment, action
        )
        if reason is not None:
            raise IllegalAction(reason)

    def reject(self, seat: int, action: Any, reason: str) -> Fault | None:
        """An illegal move is refused, counted, and treated as a pass."""
        if self.over or seat != self.current:
            return Fault("invalid", reason)
        action = _json_safe(action)
        self.log.append({"type": "rejected", "seat": seat, "action": action, "reason": reason})
        self.counts[seat]["illegal_moves"] += 1
        self.history.append({"e": "illegal", "seat": seat, "move": action, "reason": reason})
        self.turns += 1
        self.called[seat] = False
        self._draw_for_pass(seat)
        self._next(seat, 0)
        self._after_turn()
        return None

    # ---- moves --------------------------------------------------------------------------
    def accept(self, seat: int, action: Any) -> None:
        # The log keeps its own copy: a bot that reuses its move dict cannot rewrite history.
        if isinstance(action, dict) and isinstance(action.get("cards"), list):
            action = dict(action, cards=list(action["cards"]))
        super().accept(seat, action)

    def _apply(self, seat: int, action: Any) -> None:
        cards: list[str] = list(action["cards"])
        suit: str | None = action.get("suit")
        call: bool = bool(action.get("last_card", False))
        self.turns += 1
        if call:
            self.calls[seat] += 1
        if not cards:
            self.counts[seat]["pass_moves"] += 1
            self.history.append({"e": "pass", "seat": seat, "call": call})
            self._draw_for_pass(seat)
            self.called[seat] = call
            self._next(seat, 0)
            self._after_turn()
            return
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)
        self.played.extend(cards)
        self.counts[seat]["cards_played"] += len(cards)
        value, k = cards[0][0], len(cards)
        self.active_suit = suit if value == "A" else None
        self.history.append(
            {"e": "play", "seat": seat, "cards": cards, "suit": self.active_suit, "call": call}
        )
        if value in PUNISHMENT:
            self.punishment += PUNISHMENT[value] * k
        if value == "J" and k % 2:
            self.direction = -self.direction
        skip = k if value == "T" else 0
        if not hand:
            if self.called[seat]:
                self.winner = seat
                self.over = True
                self.history.append({"e": "win", "seat": seat})
                return
            drawn = self._draw(seat, LAST_CARD_PENALTY)
            self.history.append({"e": "no_call", "seat": seat, "drawn": drawn})
        self.called[seat] = call
        self._next(seat, skip)
        self._after_turn()

    def _next(self, seat: int, skip: int) -> None:
        n = self.num_seats
        for i in range(1, skip + 1):
            self.history.append({"e": "skip", "seat": (seat + self.direction * i) % n})
        self.current = (seat + self.direction * (1 + skip)) % n

    def _draw_for_pass(self, seat: int) -> None:
        """A pass (or a refused move): pick up the pending punishment, else one card."""
        if self.punishment:
            owed, self.punishment = self.punishment, 0
            drawn = self._draw(seat, owed)
            self.counts[seat]["times_punished"] += 1
            self.counts[seat]["punishment_taken"] += drawn
            self.history.append({"e": "punished", "seat": seat, "owed": owed, "drawn": drawn})
        else:
            drawn = self._draw(seat, 1)
            self.history.append({"e": "draw", "seat": seat, "drawn": drawn})

    def _draw(self, seat: int, count: int) -> int:
        hand = self.hands[seat]
        drawn = 0
        for _ in range(count):
            if not self.deck:
                if len(self.played) < 2:
                    break  # nothing left to reshuffle: draw what there is
                self._reshuffle()
            hand.append(self.deck.pop(0))
            drawn += 1
        return drawn

    def _reshuffle(self) -> None:
        assert self._chance is not None
        pile, top = self.played[:-1], self.played[-1]
        self.deck = self._chance.shuffle("reshuffle", pile)
        self.played = [top]
        self.history.append({"e": "reshuffle", "cards": len(pile)})

    def _after_turn(self) -> None:
        """The turn cap, then the automatic passes of seats that faulted."""
        while not self.over:
            if self.turns >= self.config["max_turns"]:
                self.over = True
                self.history.append({"e": "cap", "turns": self.turns})
                return
            if self.current not in self.faults:
                return
            seat = self.current
            self.turns += 1
            self.counts[seat]["pass_moves"] += 1
            self.called[seat] = False
            self.history.append({"e": "pass", "seat": seat, "call": False, "auto": True})
            self._draw_for_pass(seat)
            self._next(seat, 0)

    def _forfeit(self, faults: dict[int, Fault]) -> None:
        for seat, fault in faults.items():
            self.history.append(
                {"e": "fault", "seat": seat, "kind": fault.kind, "reason": fault.reason}
            )
        if self.over:
            return
        if len(self.faults) == self.num_seats:
            self.over = True  # nobody is left to play
            return
        self._after_turn()

    # ---- outcome ------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.over

    def seat_stats(self, seat: int) -> dict[str, float]:
        hand_pts = hand_value(self.hands[seat])
        call_pts = last_card_points(self.calls[seat])
        return dict(self.counts[seat]) | {
            "games_won": 1 if self.winner == seat else 0,
            "hand_value_pts": hand_pts,
            "last_card_pts": call_pts,
            "points_taken": hand_pts + call_pts,
            "last_card_calls": self.calls[seat],
        }

    def result(self) -> dict[str, Any]:
        stats = [self.seat_stats(seat) for seat in range(self.num_seats)]
        return {
            "scores": [s["points_taken"] for s in stats],
            "winner": self.winner,
            "turns": self.turns,
            "stats": stats,
            "hands": [list(h) for h in self.hands],
            "faults": {str(s): f.as_dict() for s, f in self.faults.items()},
        }

    def locations(self) -> dict[str, list[str]]:
        """Where every card is now (for checks that no card is lost or duplicated)."""
        return {
            "deck": list(self.deck),
            "hands": [c for h in self.hands for c in h],
            "played": list(self.played),
        }
