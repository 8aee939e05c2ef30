from __future__ import annotations

from games.last_card.rules import LastCardState


def table(
    hands: list[list[str]],
    top: str,
    *,
    deck: list[str] | None = None,
    played: list[str] | None = None,
    active_suit: str | None = None,
    punishment: int = 0,
    current: int = 0,
    direction: int = 1,
    called: list[bool] | None = None,
    max_turns: int = 1000,
) -> LastCardState:
    """A game set up by hand: given hands, top card and deck (not a replayable deal)."""
    state = LastCardState.new(0, num_seats=len(hands), config={"max_turns": max_turns})
    state.hands = [list(h) for h in hands]
    state.played = [*(played or []), top]
    state.deck = list(deck if deck is not None else ["9c", "9d", "9h", "9s", "3c", "3d"])
    state.active_suit = active_suit
    state.punishment = punishment
    state.current = current
    state.direction = direction
    state.called = list(called or [False] * len(hands))
    return state


def move(*cards: str, suit: str | None = None, last_card: bool = False) -> dict:
    return {"cards": list(cards), "suit": suit, "last_card": last_card}
