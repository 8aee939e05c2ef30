"""RPS Poker cards: a symbol R, P or S and a number 0-9, written symbol first (``R0``, ``S3``)."""

from __future__ import annotations

SYMBOLS = "RPS"
#: symbol -> the symbol it beats
BEATS = {"R": "S", "S": "P", "P": "R"}
FULL_DECK: tuple[str, ...] = tuple(s + str(n) for s in SYMBOLS for n in range(10))
DRAFT_STEPS = 5
GAMES = 10
HAND_SIZE = 3


def is_card(card: object) -> bool:
    return isinstance(card, str) and card in FULL_DECK


def number(card: str) -> int:
    return int(card[1])


def beats(card: str, other: str, base: str) -> bool:
    """True if ``card`` beats ``other`` when both are played against the shared ``base``.

    A pair (same number as the base) beats a non-pair; otherwise the higher number wins;
    otherwise the symbols decide: R beats S, S beats P, P beats R.
    """
    if card == other:
        raise ValueError(f"the same card {card} cannot be played twice")
    card_pair = card[1] == base[1]
    other_pair = other[1] == base[1]
    if card_pair != other_pair:
        return card_pair
    if card[1] != other[1]:
        return card[1] > other[1]
    return BEATS[card[0]] == other[0]
