"""The Goofspiel engine: sealed bids for prize cards, a match of several deals.

One deal: each player holds the cards 1..N, and a prize deck 1..N is shuffled (by chance).
Each turn the next prize is turned face up and both players bid one of their cards at the same
time; the higher bid takes the prize's value in points, equal bids discard the prize (nobody
scores it). Bids are shown to both players once both are down, and bid cards are gone for the
rest of the deal. The last turn has no choice (one card each) and plays itself, as in
OpenSpiel. The deal's returns follow ``returns_type``: ``win_loss`` gives +1 / -1 (0 for a
tie) by the prize points, ``point_difference`` gives each player its points minus the mean of
both players' points (half the difference), both exactly as OpenSpiel's goofspiel.

A match is ``deals`` deals (default 3), each from a fresh shuffle of the prize deck; a seat's
score is the sum of its returns (zero-sum). The game is symmetric, so seats never swap.

A seat that breaks down (an exception, a timeout, an illegal bid) gives the other seat every
prize left in the current deal, and every prize of each deal not yet played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.engine.chance import Chance
from games.engine.game import Fault, GameState, IllegalAction, Prompt, one_fault

MIN_CARDS, MAX_CARDS = 2, 13
DEFAULT_CARDS = 13
DEFAULT_DEALS = 3
MAX_DEALS = 1000
RETURNS_TYPES = ("win_loss", "point_difference")


def check_config(config: dict[str, Any]) -> tuple[int, int, str]:
    """``num_cards``, ``deals`` and ``returns_type`` of a config, or ValueError saying why."""
    cards, deals, kind = config.get("num_cards"), config.get("deals"), config.get("returns_type")
    if type(cards) is not int or not MIN_CARDS <= cards <= MAX_CARDS:
        raise ValueError(
            f"num_cards must be a whole number from {MIN_CARDS} to {MAX_CARDS}, not {cards!r}"
        )
    if type(deals) is not int or not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"deals must be a whole number from 1 to {MAX_DEALS}, not {deals!r}")
    if kind not in RETURNS_TYPES:
        raise ValueError(f"returns_type must be one of {', '.join(RETURNS_TYPES)}, not {kind!r}")
    return cards, deals, kind


def deal_returns(points: list[int], returns_type: str) -> list[int | float]:
    """What each seat gets for a deal that ended with these prize points, as OpenSpiel's
    goofspiel returns them: ``win_loss`` +1, -1 or 0 each; ``point_difference`` a seat's
    points minus the mean of both (half the difference: 7 and 2 give +2.5 and -2.5)."""
    diff = points[0] - points[1]
    if returns_type == "win_loss":
        sign = (diff > 0) - (diff < 0)
        return [sign, -sign]
    half = diff / 2
    return [int(half), -int(half)] if half.is_integer() else [half, -half]


def most_returned(num_cards: int, returns_type: str) -> float:
    """The most a deal can pay a seat, and take from it (:func:`deal_returns` of a deal
    where one seat took every prize): 1 with ``win_loss``, half of all the prize points
    with ``point_difference``."""
    return 1 if returns_type == "win_loss" else num_cards * (num_cards + 1) / 4


def _cards(cards: list[int]) -> str:
    return ", ".join(map(str, cards)) if cards else "none"


@dataclass
class GoofspielState(GameState):
    game: ClassVar[str] = "goofspiel"
    independent_moves: ClassVar[bool] = True

    num_cards: int = field(default=DEFAULT_CARDS, init=False)
    deals_total: int = field(default=DEFAULT_DEALS, init=False)
    returns_type: str = field(default="win_loss", init=False)
    #: the current deal's number, from 0
    deal: int = field(default=0, init=False)
    #: this deal's prize order (hidden beyond ``turn``: chance not yet revealed)
    prizes: list[int] = field(default_factory=list, init=False)
    #: the index in ``prizes`` of the prize face up now
    turn: int = field(default=0, init=False)
    hands: list[list[int]] = field(default_factory=lambda: [[], []], init=False)
    #: the sealed bids of this turn so far (seat -> card)
    bids: dict[int, int] = field(default_factory=dict, init=False)
    #: this deal's turns so far: [prize, seat 0's bid, seat 1's bid]
    history: list[list[int]] = field(default_factory=list, init=False)
    #: this deal's prize points
    points: list[int] = field(default_factory=lambda: [0, 0], init=False)
    scores: list[int] = field(default_factory=lambda: [0, 0], init=False)
    deals_played: list[dict[str, Any]] = field(default_factory=list, init=False)
    forfeited_deals: int = field(default=0, init=False)
    #: prize points credited for deals never played (after a fault)
    forfeited_points: list[int] = field(default_factory=lambda: [0, 0], init=False)
    over: bool = field(default=False, init=False)
    _chance: Chance | None = field(default=None, init=False, repr=False)

    @classmethod
    def default_config(cls) -> dict[str, Any]:
        return {"num_cards": DEFAULT_CARDS, "deals": DEFAULT_DEALS, "returns_type": "win_loss"}

    # ---- dealing ------------------------------------------------------------------------
    def start(self, chance: Chance) -> None:
        self.num_cards, self.deals_total, self.returns_type = check_config(self.config)
        self._chance = chance
        self._deal()

    def _deal(self) -> None:
        assert self._chance is not None
        cards = [str(c) for c in range(1, self.num_cards + 1)]
        self.prizes = [int(c) for c in self._chance.shuffle(f"prizes-{self.deal + 1}", cards)]
        self.turn = 0
        self.hands = [list(range(1, self.num_cards + 1)) for _ in (0, 1)]
        self.bids = {}
        self.history = []
        self.points = [0, 0]

    @property
    def prize(self) -> int | None:
        """The prize face up now (None once the match is over)."""
        return None if self.over else self.prizes[self.turn]

    def prizes_left(self) -> list[int]:
        """Prizes of this deal not turned up yet (the set is public, never the order)."""
        return sorted(self.prizes[self.turn + 1 :]) if not self.over else []

    # ---- the runner's questions ---------------------------------------------------------
    def pending(self) -> list[int]:
        if self.over:
            return []
        return [seat for seat in (0, 1) if seat not in self.bids]

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` knows when asked to bid (the bot contract's ``obs``)."""
        other = 1 - seat
        last = self.deals_played[-1] if self.deals_played else None
        return {
            "seat": seat,
            "prize": self.prize,
            "hand": list(self.hands[seat]),
            "opponent_hand": list(self.hands[other]),
            "prizes_left": self.prizes_left(),
            "history": [[p, b[seat], b[other]] for p, *b in self.history],
            "points": [self.points[seat], self.points[other]],
            "legal": list(self.hands[seat]),
            "deal": self.deal + 1,
            "deals": self.deals_total,
            "num_cards": self.num_cards,
            "returns_type": self.returns_type,
            "score": self.scores[seat],
            "last_deal": None if last is None else seen_deal(last, seat),
        }

    def prompt(self, seat: int) -> Prompt:
        if self.over:
            raise IllegalAction("the match is over")
        return Prompt("act", self.observation(seat))

    def verify(self, seat: int, action: Any) -> None:
        if self.over:
            raise IllegalAction("the match is over")
        if seat not in (0, 1):
            raise IllegalAction(f"there is no seat {seat!r}")
        if seat in self.bids:
            raise IllegalAction(f"seat {seat} has already bid on this prize")
        hand = self.hands[seat]
        # bool is an int in Python; True is not a card
        if type(action) is not int:
            raise IllegalAction(f"a bid is one of your cards ({_cards(hand)}), got {action!r:.40}")
        if action not in hand:
            played = [turn[1 + seat] for turn in self.history]
            why = "already bid this deal" if action in played else "not a card of this game"
            raise IllegalAction(
                f"card {action} is not in your hand ({why}); you hold {_cards(hand)}"
            )

    def _apply(self, seat: int, action: Any) -> None:
        self.bids[seat] = action
        if len(self.bids) == 2:
            self._resolve(self.bids[0], self.bids[1])

    def _resolve(self, first: int, second: int) -> None:
        """Both bids are down: the prize goes to the higher bid, or nobody on a tie."""
        prize = self.prizes[self.turn]
        self.hands[0].remove(first)
        self.hands[1].remove(second)
        if first != second:
            self.points[0 if first > second else 1] += prize
        self.history.append([prize, first, second])
        self.bids = {}
        self.turn += 1
        if self.turn == self.num_cards - 1:
            # one card each: the last turn has no choice and plays itself
            self._resolve(self.hands[0][0], self.hands[1][0])
        elif self.turn == self.num_cards:
            self._finish_deal(forfeit=None)

    def _finish_deal(self, forfeit: int | None) -> None:
        returns = deal_returns(self.points, self.returns_type)
        for seat in (0, 1):
            self.scores[seat] += returns[seat]
        self.deals_played.append(
            {
                "prizes": list(self.prizes),
                "turns": [list(t) for t in self.history],
                "points": list(self.points),
                "returns": returns,
                "forfeit": forfeit,
            }
        )
        self.deal += 1
        if self.deal >= self.deals_total or forfeit is not None:
            self.over = True
            self.bids = {}
        else:
            self._deal()

    def _forfeit(self, faults: dict[int, Fault]) -> None:
        if self.over:
            return
        if len(faults) == 1:
            (loser,) = faults
            winner = 1 - loser
            # every prize not yet won in this deal goes to the other seat
            self.points[winner] += sum(self.prizes[self.turn :])
            left = self.deals_total - self.deal - 1
            self._finish_deal(forfeit=loser)
            # and so does every prize of each deal never played
            whole = [0, 0]
            whole[winner] = self.num_cards * (self.num_cards + 1) // 2
            returns = deal_returns(whole, self.returns_type)
            for seat in (0, 1):
                self.scores[seat] += left * returns[seat]
                self.forfeited_points[seat] += left * whole[seat]
            self.forfeited_deals = left
        # both at the same moment: the match stops, and nobody is credited with the rest
        self.over = True
        self.bids = {}

    # ---- outcome ------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.over

    @classmethod
    def fault_words(cls, result: dict[str, Any], names: Sequence[str]) -> str:
        log = result.get("deal_log")
        cut = log[-1] if isinstance(log, list) and log else None
        faulted = one_fault(result)
        if not isinstance(cut, dict) or cut.get("forfeit") is None or faulted is None:
            return ""
        left = result.get("forfeited_deals") or 0
        deals = (
            "" if not left else " and the deal not played" if left == 1
            else f" and the {left} deals not played"
        )  # fmt: skip
        return f"the prizes left in deal {len(log)}{deals} went to {names[1 - faulted]}"

    @classmethod
    def without_deals(cls, record: dict[str, Any]) -> dict[str, Any]:
        """As every game's, and a deal a fault cut short lists in the result's ``deal_log``
        only the prizes turned up before the fault (the others' order is the shuffle's, which
        deals them again in the deal's other seating)."""
        sealed = super().without_deals(record)
        result = sealed.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("deal_log"), list):
            return sealed
        log = [
            done | {"prizes": done["prizes"][: len(done["turns"]) + 1]}
            if isinstance(done, dict) and done.get("forfeit") is not None
            and isinstance(done.get("prizes"), list) and isinstance(done.get("turns"), list)
            else done
            for done in result["deal_log"]
        ]  # fmt: skip
        return sealed | {"result": result | {"deal_log": log}}

    def result(self) -> dict[str, Any]:
        a, b = self.scores
        points = [
            sum(d["points"][seat] for d in self.deals_played) + self.forfeited_points[seat]
            for seat in (0, 1)
        ]
        won = [sum(1 for d in self.deals_played if d["returns"][seat] > 0) for seat in (0, 1)]
        tied = sum(1 for d in self.deals_played if d["returns"][0] == 0)
        if self.forfeited_deals:
            loser = self.deals_played[-1]["forfeit"]
            won[1 - loser] += self.forfeited_deals
        return {
            "scores": list(self.scores),
            "winner": None if a == b else (0 if a > b else 1),
            "num_cards": self.num_cards,
            "returns_type": self.returns_type,
            "deals": len(self.deals_played),
            "forfeited_deals": self.forfeited_deals,
            "deals_won": won,
            "deals_tied": tied,
            "points": points,
            "deal_log": [dict(d) for d in self.deals_played],
            "faults": {str(s): f.as_dict() for s, f in self.faults.items()},
        }


def seen_deal(done: dict[str, Any], seat: int) -> dict[str, Any]:
    """A finished deal from ``seat``'s side: turns as [prize, your bid, their bid], and
    points and returns as [yours, theirs]."""
    other = 1 - seat
    forfeit = done["forfeit"]
    return {
        "turns": [[p, b[seat], b[other]] for p, *b in done["turns"]],
        "points": [done["points"][seat], done["points"][other]],
        "returns": [done["returns"][seat], done["returns"][other]],
        "forfeit": None if forfeit is None else ("you" if forfeit == seat else "opponent"),
    }
