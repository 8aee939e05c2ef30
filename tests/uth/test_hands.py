"""Hand values from phevaluator, checked against a second, independent evaluator (eval7)."""

from __future__ import annotations

import random
import warnings

import pytest

from games.uth import hands
from games.uth.rules import DECK

with warnings.catch_warnings():
    # eval7's hand-range module calls a pyparsing method that newer pyparsing deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

EVAL7_CATEGORY = {
    "High Card": hands.HIGH_CARD,
    "Pair": hands.ONE_PAIR,
    "Two Pair": hands.TWO_PAIR,
    "Trips": hands.THREE_OF_A_KIND,
    "Straight": hands.STRAIGHT,
    "Flush": hands.FLUSH,
    "Full House": hands.FULL_HOUSE,
    "Quads": hands.FOUR_OF_A_KIND,
    "Straight Flush": hands.STRAIGHT_FLUSH,
}
EVAL7_CARDS = {name: eval7.Card(name) for name in DECK}


def is_royal(cards: list[str]) -> bool:
    return any({r + suit for r in "AKQJT"} <= set(cards) for suit in "cdhs")


def seven_card_hands(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    found = [rng.sample(DECK, 7) for _ in range(n)]
    # rare categories, made on purpose: every royal and steel wheel, quads, full houses
    for suit in "cdhs":
        for top in ("AKQJT", "5432A", "98765"):
            straight = [r + suit for r in top]
            rest = [c for c in DECK if c not in straight]
            found.append(straight + rng.sample(rest, 2))
    for rank in "23456789TJQKA":
        quads = [rank + s for s in "cdhs"]
        found.append(quads + rng.sample([c for c in DECK if c not in quads], 3))
        trips = quads[:3]
        other = next(c for c in DECK if c[0] != rank)
        pair = [other, next(c for c in DECK if c[0] == other[0] and c != other)]
        found.append(trips + pair + rng.sample([c for c in DECK if c[0] not in rank + other[0]], 2))
    return found


def test_it_agrees_with_eval7_on_categories_and_comparisons_of_100000_hands():
    sample = seven_card_hands(100_000, seed=11)
    ours = [hands.value(h) for h in sample]
    theirs = [eval7.evaluate([EVAL7_CARDS[c] for c in h]) for h in sample]
    seen = set()
    for cards, mine, their in zip(sample, ours, theirs, strict=True):
        category = hands.category(mine)
        expected = EVAL7_CATEGORY[eval7.handtype(their)]
        if expected == hands.STRAIGHT_FLUSH and is_royal(cards):
            expected = hands.ROYAL_FLUSH
        assert category == expected, cards
        seen.add(category)
    assert seen == set(hands.CATEGORIES)
    # every neighbouring pair compared both ways: smaller values are stronger in phevaluator
    for i in range(len(sample) - 1):
        mine = (ours[i + 1] > ours[i]) - (ours[i + 1] < ours[i])
        their = (theirs[i] > theirs[i + 1]) - (theirs[i] < theirs[i + 1])
        assert mine == their, (sample[i], sample[i + 1])


def test_it_names_known_hands():
    assert hands.category(hands.value(["As", "Ks", "Qs", "Js", "Ts", "2c", "2d"])) == "royal_flush"
    assert hands.category(hands.value(["5h", "4h", "3h", "2h", "Ah", "Kc", "Kd"])) == (
        "straight_flush"
    )
    assert hands.category(hands.value(["Ac", "2d", "3h", "4s", "5c", "9d", "Jh"])) == "straight"
    assert hands.category(hands.value(["Ac", "Ad", "3h", "4s", "8c", "9d", "Jh"])) == "one_pair"
    assert hands.category(hands.value(["Ac", "Kd", "3h", "4s", "8c", "9d", "Jh"])) == "high_card"
    # a wheel loses to a six-high straight; a board pair plays for both
    assert hands.value(["Ac", "2d", "3h", "4s", "5c"]) > hands.value(["6c", "2d", "3h", "4s", "5c"])


def test_it_refuses_what_is_not_a_hand():
    with pytest.raises(ValueError, match="not a card"):
        hands.value(["As", "Ks", "Qs", "Js", "1s"])
    with pytest.raises(ValueError, match="twice"):
        hands.value(["As", "As", "Qs", "Js", "Ts"])
    with pytest.raises(ValueError, match="5 to 7"):
        hands.value(["As", "Ks", "Qs", "Js"])
