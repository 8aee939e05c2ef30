"""The standard 52-card deck, written as two characters: rank then suit (``As``, ``Td``, ``2c``)."""

from __future__ import annotations

from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "cdhs"
#: the suit symbols other systems (TextArena) write, by the letter written here
SUIT_OF_SYMBOL = {"\u2663": "c", "\u2666": "d", "\u2665": "h", "\u2660": "s"}
#: how :meth:`Card.read` wants a card, for its error message
NOTATION = (
    "rank 2-9, T (or 10), J, Q, K or A, then suit c, d, h or s (or \u2663 \u2666 \u2665 \u2660),"
    " like 'As', 'Td' or '10\u2666'"
)


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

    @classmethod
    def read(cls, text: str) -> Card:
        """A card written by a person or another system: :meth:`parse`'s ``As`` and ``Td``,
        and also TextArena's ``A\u2660`` and ``10\u2666`` (a suit symbol, ten as ``10``),
        in either case. Only what names one card without doubt is read; the error explains
        the notation."""
        if isinstance(text, str):
            rank, suit = text.strip()[:-1].upper(), text.strip()[-1:]
            rank = "T" if rank == "10" else rank
            suit = SUIT_OF_SYMBOL.get(suit, suit.lower())
            if len(rank) == 1 and rank in RANKS and suit in SUITS:
                return cls(rank, suit)
        raise ValueError(f"not a card: {text!r} (write {NOTATION})")


def standard_deck() -> list[Card]:
    """The 52 cards in a fixed order (suit-major), ready to be shuffled by a Chance."""
    return [Card(rank, suit) for suit in SUITS for rank in RANKS]
