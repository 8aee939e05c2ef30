"""The Kuhn poker engine: a match of many hands between two seats, who take turns to act first.

One hand is the game of ``games/kuhn/tree.py`` (the solver's definition, whose payoffs this
engine reuses): three cards J, Q, K; antes of 1; player 0 (the first *position*) acts first;
``p`` checks, or folds facing a bet; ``b`` bets 1, or calls a bet.

A match is ``hands`` hands (default 100, an even number), each dealt from a fresh shuffle;
seat 0 acts first in odd-numbered hands, seat 1 in even-numbered ones, so each seat holds
each position in half the hands. (Dealing a pair of hands from one shuffle with the seats
swapped, as duplicate bridge does, would not work here: in the second hand each seat would
know the other's card.) A seat's score is the chips it won over the match (zero-sum).

The match itself (hands, positions, forfeits, what may be seen) is
:class:`games.chips.match.HandsMatch`, shared with Leduc hold'em and Blackjack++.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.chips.match import HandsMatch
from games.kuhn.tree import ACTIONS, ENDS, payoff

#: Kuhn's cards as drawn by the site (one suit: only the rank matters)
DECK = ("Js", "Qs", "Ks")


@dataclass
class KuhnState(HandsMatch):
    game: ClassVar[str] = "kuhn"

    history: str = field(default="", init=False)

    def full_deck(self) -> tuple[str, ...]:
        return DECK

    def begin_hand(self) -> None:
        self.history = ""

    def cards(self) -> tuple[str, str]:
        """The cards of position 0 and 1 (codes like ``Ks``)."""
        return self.deck[0], self.deck[1]

    def betting(self) -> str:
        return self.history

    @classmethod
    def card_code(cls, card: str) -> str:
        return card if len(card) == 2 else card + "s"  # a hand's record keeps the rank

    @classmethod
    def action_words(cls, action: str, before: str) -> str:
        facing = before.endswith("b")
        if action == "p":
            return "folds" if facing else "checks"
        return "calls" if facing else "bets 1"

    def to_act(self) -> int:
        return len(self.history) % 2

    def legal(self) -> list[str]:
        return list(ACTIONS)

    def observation(self, seat: int) -> dict[str, Any]:
        position = self.position_of(seat)
        card = self.cards()[position][0]
        return {
            "seat": seat,
            "position": position,
            "card": card,
            "history": self.history,
            "legal": self.legal(),
            "infoset": card + self.history,
            "hand": self.hand + 1,
            "hands": self.hands_total,
            "chips": self.chips[seat],
            "last_hand": self.last_hand(seat),
        }

    def act(self, action: str) -> None:
        self.history += action
        if self.history in ENDS:
            ranks = "".join(c[0] for c in self.cards())
            showdown = self.history in ("pp", "bb", "pbb")
            self._finish_hand(payoff(ranks, self.history), showdown)

    def at_stake(self, position: int) -> float:
        # the ante, plus the bet (or call) of this position so far
        return 1.0 + sum(1 for i, a in enumerate(self.history) if a == "b" and i % 2 == position)

    def hand_record(self) -> dict[str, Any]:
        return {"cards": [c[0] for c in self.cards()], "history": self.history}
