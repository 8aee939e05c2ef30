"""The Blackjack++ engine: a match of many deals between two seats, who take turns to be
player 0.

One deal follows the spec (``shared/specs/blackjack-pp.md``) and the solver's model in
``games/blackjack_pp/tree.py``, whose totals and ranking this engine reuses: an infinite
deck (every card is drawn uniformly from the 52, so a ten-valued card comes 4 times in 13);
player 0, player 1 and the dealer each get an up card and a down card; the players act
alternately, player 0 first, ``hit`` or ``stand``; a player is done when it stands, busts or
has hit ``max_hits`` times, and a done player is skipped; then the dealer turns its down
card and draws to 17 or more (standing on soft 17). Hands rank by total, any hand that did
not bust above any bust hand; places earn 2, 1 and 0 points, tied hands share. A player's
payoff is its points minus the other player's.

A match is ``hands`` deals (default 50, an even number) with ``max_hits`` (1-3, default 1 for
matches so the built-in CFR bot can solve each deal within the move deadline), each dealt
fresh; seat 0 is player 0 in odd-numbered deals, seat 1 in even-numbered ones. A seat's
score is its total payoff over the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.blackjack_pp.tree import NAMES, points, total
from games.chips.match import HandsMatch

RANKS = "A23456789TJQK"
SUITS = "shdc"
#: the card codes drawn: one shuffle of the 52 per card drawn would bloat the record, so a
#: card is one of these 13 (rank uniform, as with an infinite deck) with a fixed suit
CARDS = tuple(f"{r}{SUITS[i % 4]}" for i, r in enumerate(RANKS))
ACTIONS = ("hit", "stand")
DEFAULT_DEALS = 50
#: the most a deal can cost a player: last place (0 points) behind the other player's first
#: (2 points), a payoff of -2 and the other's +2. A bot that breaks down loses it for the deal
#: in play and for each deal left unplayed, so breaking down never costs less than playing on.
WORST_DEAL = 2.0


def value(card: str) -> int:
    """A card's value: A is 1 (totals count it 11 where that does not bust), T-K are 10."""
    return 1 if card[0] == "A" else 10 if card[0] in "TJQK" else int(card[0])


def hand_total(cards: list[str]) -> int:
    return total(tuple(value(c) for c in cards))


def is_soft(cards: list[str]) -> bool:
    values = [value(c) for c in cards]
    return 1 in values and sum(values) + 10 <= 21


@dataclass
class BlackjackPPState(HandsMatch):
    game: ClassVar[str] = "blackjack-pp"
    #: no ante to lose: a deal not played costs the most a deal can cost
    forfeit_per_hand: ClassVar[float] = WORST_DEAL
    hand_word: ClassVar[str] = "deal"

    #: this deal's up cards (player 0, player 1, dealer), down cards, and the cards each
    #: position (2: the dealer) drew, drawn one at a time when needed
    up: list[str] = field(default_factory=list, init=False)
    down: list[str] = field(default_factory=list, init=False)
    streams: list[list[str]] = field(default_factory=lambda: [[], [], []], init=False)
    hits: list[list[str]] = field(default_factory=lambda: [[], []], init=False)
    dealer: list[str] = field(default_factory=list, init=False)
    done: list[bool] = field(default_factory=lambda: [False, False], init=False)
    turn: int = field(default=0, init=False)
    tokens: list[str] = field(default_factory=list, init=False)
    last_points: list[float] = field(default_factory=list, init=False)

    @classmethod
    def default_config(cls) -> dict[str, Any]:
        return {"hands": DEFAULT_DEALS, "max_hits": 1}

    def start(self, chance) -> None:
        max_hits = self.config.get("max_hits")
        if type(max_hits) is not int or max_hits not in (1, 2, 3):
            raise ValueError(f"max_hits must be 1, 2 or 3, not {max_hits!r}")
        super().start(chance)

    def full_deck(self) -> tuple[str, ...]:
        return CARDS

    def _draw(self) -> str:
        assert self._chance is not None
        return self._chance.shuffle("card", CARDS)[0]

    def _card(self, stream: int, index: int) -> str:
        cards = self.streams[stream]
        while len(cards) <= index:
            cards.append(self._draw())
        return cards[index]

    def begin_hand(self) -> None:
        self.up = [self._draw() for _ in range(3)]
        self.down = [self._draw() for _ in range(3)]
        self.streams = [[], [], []]
        self.hits = [[], []]
        self.dealer = []
        self.done = [False, False]
        self.turn = 0
        self.tokens = []

    def _deal(self) -> None:
        # every card comes from _draw: no whole-deck shuffle
        self.begin_hand()

    # ---- a deal -------------------------------------------------------------------------
    def cards_of(self, position: int) -> list[str]:
        return [self.up[position], self.down[position], *self.hits[position]]

    def total_of(self, position: int) -> int:
        return hand_total(self.cards_of(position))

    def to_act(self) -> int:
        return self.turn if not self.done[self.turn] else 1 - self.turn

    def legal(self) -> list[str]:
        return list(ACTIONS)

    def infoset(self, position: int) -> str:
        return f"{position}{NAMES[value(self.down[position])]}:{','.join(self.tokens)}"

    def observation(self, seat: int) -> dict[str, Any]:
        position = self.position_of(seat)
        mine = self.cards_of(position)
        return {
            "seat": seat,
            "position": position,
            "up": list(self.up),
            "down": self.down[position],
            "hits": [list(h) for h in self.hits],
            "total": hand_total(mine),
            "soft": is_soft(mine),
            "history": ",".join(self.tokens),
            "max_hits": self.config["max_hits"],
            "legal": self.legal(),
            "infoset": self.infoset(position),
            "hand": self.hand + 1,
            "hands": self.hands_total,
            "chips": self.chips[seat],
            "last_hand": self.last_hand(seat),
        }

    def act(self, action: str) -> None:
        player = self.to_act()
        if action == "stand":
            self.done[player] = True
            self.tokens.append(f"{player}s")
        else:
            card = self._card(player, len(self.hits[player]))
            self.hits[player].append(card)
            self.tokens.append(f"{player}h{NAMES[value(card)]}")
            if self.total_of(player) > 21 or len(self.hits[player]) >= self.config["max_hits"]:
                self.done[player] = True
        self.turn = 1 - player
        if all(self.done):
            self._settle()

    def _settle(self) -> None:
        self.dealer = [self.up[2], self.down[2]]
        while hand_total(self.dealer) < 17:
            self.dealer.append(self._card(2, len(self.dealer) - 2))
        pts = points((self.total_of(0), self.total_of(1), hand_total(self.dealer)))
        self.last_points = list(pts)
        self._finish_hand(pts[0] - pts[1], showdown=True)

    def at_stake(self, position: int) -> float:
        # no pot: what a deal puts at stake is the most it can cost
        return WORST_DEAL

    def hand_record(self) -> dict[str, Any]:
        return {
            "cards": [self.down[0], self.down[1]],
            "up": list(self.up),
            "hits": [list(h) for h in self.hits],
            "dealer": list(self.dealer),
            "totals": [self.total_of(0), self.total_of(1), hand_total(self.dealer)],
            "points": list(self.last_points),
            "history": ",".join(self.tokens),
        }
