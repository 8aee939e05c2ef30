"""The standard 52-card deck, written as two characters: rank then suit (``As``, ``Td``, ``2c``)."""

from __future__ import annotations

from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "cdhs"


@dataclass(frozen=True, order=True, slots=True)
class Card:
    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS or self.suit not in SUITS:
            raise ValueError(f"not a card: {self.rank}{self.suit}")

    def __str__(self) -> str:
        return self.rank + self.suit

    @property
    def value(self) -> int:
        """2 for a deuce ... 14 for an ace."""
        return RANKS.index(self.rank) + 2

    @classmethod
    def parse(cls, text: str) -> Card:
        if not isinstance(text, str) or len(text) != 2:
            raise ValueError(f"not a card: {text!r} (expected rank then suit, like 'As' or 'Td')")
        rank, suit = text[0].upper(), text[1].lower()
        if rank == "1":
            raise ValueError(f"not a card: {text!r} (write ten as 'T')")
        return cls(rank, suit)


def standard_deck() -> list[Card]:
    """The 52 cards in a fixed order (suit-major), ready to be shuffled by a Chance."""
    return [Card(rank, suit) for suit in SUITS for rank in RANKS]
