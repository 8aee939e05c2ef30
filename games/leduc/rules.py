"""The Leduc hold'em engine: a match of many hands, the seats taking turns to act first
(like Kuhn poker: ``games/chips/match.py``).

One hand follows ``games/leduc/tree.py`` (the solver's definition, whose betting rules and
payoffs this engine reuses): six cards, J, Q and K in two suits (``Js``, ``Jh``...); antes
of 1; one private card each; a betting round; a public card; a second betting round. The
first position acts first in each round; ``c`` checks or calls, ``r`` raises (2 in the first
round, 4 in the second; at most two raises a round), ``f`` folds (only facing a raise).
A seat's score is the chips it won over the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.chips.match import HandsMatch
from games.leduc.tree import RAISES, Leduc, contributions, legal_actions, round_over

DECK = ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")


@dataclass
class LeducState(HandsMatch):
    game: ClassVar[str] = "leduc"

    rounds: list[str] = field(default_factory=lambda: [""], init=False)

    def full_deck(self) -> tuple[str, ...]:
        return DECK

    def begin_hand(self) -> None:
        self.rounds = [""]

    def private(self) -> tuple[str, str]:
        return self.deck[0], self.deck[1]

    def board(self) -> str | None:
        """The public card once it is turned."""
        return self.deck[2] if len(self.rounds) == 2 else None

    has_board: ClassVar[bool] = True

    def betting(self) -> str:
        return "/".join(self.rounds)

    def public_card(self) -> str | None:
        return self.board()

    @classmethod
    def action_words(cls, action: str, before: str) -> str:
        facing = before.endswith("r")
        if action == "f":
            return "folds"
        if action == "c":
            return "calls" if facing else "checks"
        return "re-raises" if facing else "raises"

    @classmethod
    def action_said(cls, action: str, before: str, round_number: int) -> str:
        """As the buttons name it, with what a raise puts in: "raises 2", "re-raises by 4"."""
        word = cls.action_words(action, before)
        if action == "r":
            size = RAISES[min(round_number, len(RAISES) - 1)]
            word += f" by {size}" if word == "re-raises" else f" {size}"
        return word

    def to_act(self) -> int:
        return len(self.rounds[-1]) % 2

    def legal(self) -> list[str]:
        return list(legal_actions(self.rounds[-1]))

    def infoset(self, position: int) -> str:
        key = self.private()[position][0] + self.rounds[0]
        board = self.board()
        if board is not None:
            key += "/" + board[0] + self.rounds[1]
        return key

    def pot(self) -> list[int]:
        """What position 0 and position 1 have put in so far."""
        return contributions(tuple(self.rounds))

    def observation(self, seat: int) -> dict[str, Any]:
        position = self.position_of(seat)
        return {
            "seat": seat,
            "position": position,
            "card": self.private()[position],
            "board": self.board(),
            "round": len(self.rounds),
            "history": "/".join(self.rounds),
            "legal": self.legal(),
            "infoset": self.infoset(position),
            "pot": self.pot(),
            "hand": self.hand + 1,
            "hands": self.hands_total,
            "chips": self.chips[seat],
            "last_hand": self.last_hand(seat),
        }

    def act(self, action: str) -> None:
        self.rounds[-1] += action
        history = self.rounds[-1]
        if not round_over(history):
            return
        if history.endswith("f") or len(self.rounds) == 2:
            ranks = tuple(c[0] for c in self.deck[:3])
            won = Leduc._payoff(ranks, tuple(self.rounds))
            self._finish_hand(won, showdown=not history.endswith("f"))
        else:
            self.rounds.append("")

    def at_stake(self, position: int) -> float:
        return float(self.pot()[position])

    @classmethod
    def seen_hand(cls, done: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """As in Kuhn poker, and the public card only if it was turned (a second round)."""
        seen = super().seen_hand(done, seat)
        return seen if "/" in done["history"] else seen | {"board": None}

    def hand_record(self) -> dict[str, Any]:
        return {
            "cards": list(self.private()),
            "board": self.deck[2],
            "history": "/".join(self.rounds),
        }
