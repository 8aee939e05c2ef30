"""Chance as a player: every random outcome is drawn from a seeded RNG and recorded.

A match asks its :class:`Chance` for each shuffle. :class:`SeededChance` draws from a
``random.Random`` it was given (never the global one) and writes each outcome to the log;
:class:`ReplayChance` hands back the recorded outcomes, so a replay never touches an RNG.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol


class ReplayMismatch(Exception):
    """A replayed match diverged from its record."""


class Chance(Protocol):
    def shuffle(self, label: str, items: Sequence[str]) -> list[str]:
        """Return ``items`` in a random order; items are wire strings (card names)."""
        ...


class SeededChance:
    def __init__(self, rng: random.Random, log: Callable[[dict[str, Any]], None]) -> None:
        self._rng = rng
        self._log = log

    def shuffle(self, label: str, items: Sequence[str]) -> list[str]:
        order = list(items)
        same_shuffle(self._rng, order)
        self._log({"type": "chance", "label": label, "outcome": list(order)})
        return order


def same_shuffle(rng: random.Random, items: list[Any]) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does (the same draws from
    ``rng``, the same order: a seed deals what it always dealt), without a method call for
    each item: Fisher-Yates from the end, each index drawn as the fewest bits that hold it,
    drawn again while it is out of range. A match deals dozens of cards, and every match
    is dealt."""
    draw = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        size = i + 1
        bits = size.bit_length()
        j = draw(bits)
        while j >= size:
            j = draw(bits)
        items[i], items[j] = items[j], items[i]


class ReplayChance:
    def __init__(self, events: Sequence[dict[str, Any]], log: Callable[[dict[str, Any]], None]):
        self._pending: Iterator[dict[str, Any]] = iter(
            [e for e in events if e.get("type") == "chance"]
        )
        self._log = log

    def shuffle(self, label: str, items: Sequence[str]) -> list[str]:
        event = next(self._pending, None)
        if event is None:
            raise ReplayMismatch(f"the record has no chance outcome for {label!r}")
        if event.get("label") != label:
            raise ReplayMismatch(f"expected chance {label!r}, record has {event.get('label')!r}")
        outcome = list(event.get("outcome", []))
        if sorted(outcome) != sorted(items):
            raise ReplayMismatch(f"recorded outcome of {label!r} is not a shuffle of its items")
        self._log({"type": "chance", "label": label, "outcome": list(outcome)})
        return outcome
