"""Seven-card poker hand values, computed by phevaluator's C evaluator.

``value(cards)`` is phevaluator's rank of the best five of the cards: 1 (a royal flush) to
7462 (seven-high), so a *smaller* value is a *stronger* hand and equal values tie. The rank
classes are contiguous, which gives each hand its category.
"""

from __future__ import annotations

from collections.abc import Sequence

from phevaluator import _pheval

from games.engine.cards import RANKS, SUITS

# phevaluator's card id: 4 * rank index (deuce 0 ... ace 12) + suit index (c, d, h, s).
CARD_IDS: dict[str, int] = {
    rank + suit: 4 * r + s for r, rank in enumerate(RANKS) for s, suit in enumerate(SUITS)
}

ROYAL_FLUSH = "royal_flush"
STRAIGHT_FLUSH = "straight_flush"
FOUR_OF_A_KIND = "four_of_a_kind"
FULL_HOUSE = "full_house"
FLUSH = "flush"
STRAIGHT = "straight"
THREE_OF_A_KIND = "three_of_a_kind"
TWO_PAIR = "two_pair"
ONE_PAIR = "one_pair"
HIGH_CARD = "high_card"

#: category -> the weakest (largest) value it covers, strongest category first
_CEILINGS: tuple[tuple[str, int], ...] = (
    (ROYAL_FLUSH, 1),
    (STRAIGHT_FLUSH, 10),
    (FOUR_OF_A_KIND, 166),
    (FULL_HOUSE, 322),
    (FLUSH, 1599),
    (STRAIGHT, 1609),
    (THREE_OF_A_KIND, 2467),
    (TWO_PAIR, 3325),
    (ONE_PAIR, 6185),
    (HIGH_CARD, 7462),
)
#: categories from the weakest (0) to the strongest (9)
CATEGORIES: tuple[str, ...] = tuple(name for name, _ in reversed(_CEILINGS))
LABELS = {name: name.replace("_", " ") for name in CATEGORIES}

_EVALUATE = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards, 7: _pheval.evaluate_7cards}


def value(cards: Sequence[str]) -> int:
    """The value of the best five of 5-7 cards (``As``, ``Td``...): smaller is stronger."""
    try:
        ids = [CARD_IDS[c] for c in cards]
    except KeyError as exc:
        raise ValueError(f"not a card: {exc.args[0]!r}") from None
    if len(set(ids)) != len(ids):
        raise ValueError(f"a card appears twice in {list(cards)}")
    try:
        evaluate = _EVALUATE[len(ids)]
    except KeyError:
        raise ValueError(f"expected 5 to 7 cards, got {len(ids)}") from None
    return evaluate(*ids)


def category(hand_value: int) -> str:
    """The category of a value returned by :func:`value`."""
    for name, ceiling in _CEILINGS:
        if hand_value <= ceiling:
            return name
    raise ValueError(f"not a hand value: {hand_value}")


def category_index(hand_value: int) -> int:
    """0 for a high card ... 9 for a royal flush."""
    return CATEGORIES.index(category(hand_value))
