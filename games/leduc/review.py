"""Leduc hold'em's decisions in a match record, for the solver's review
(``SolverSpec.review_moves``; games/solver/review.py): each hand of the record's hand log is
replayed round by round, each action one decision of the seat in the acting position (the
first position acts first in each round), at the information set the solver names it by:
the card, the first round's betting, then ``/``, the public card and the second round's."""

from __future__ import annotations

from typing import Any

from games.leduc.strategy import CARD_WORD
from games.solver.review import Move

ACTION_WORDS = {"c": "check/call", "r": "raise", "f": "fold"}


def hand_log(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The record's finished hands (a hand cut short by a fault is not in it)."""
    result = record.get("result")
    log = result.get("hand_log") if isinstance(result, dict) else None
    return [hand for hand in log if isinstance(hand, dict)] if isinstance(log, list) else []


def _rank(card: Any) -> str | None:
    return card[0] if isinstance(card, str) and card else None


def review_moves(record: dict[str, Any]) -> list[Move]:
    """Every decision of every finished hand of the record."""
    moves = []
    for number, hand in enumerate(hand_log(record)):
        cards, history, first = hand.get("cards"), hand.get("history"), hand.get("first")
        if not isinstance(history, str) or first not in (0, 1) or not isinstance(cards, list):
            continue
        rounds = history.split("/")
        board = _rank(hand.get("board"))
        for turn, betting in enumerate(rounds[:2]):
            for i, action in enumerate(betting):
                position = i % 2
                card = _rank(cards[position]) if position < len(cards) else None
                key = None
                if card is not None:
                    key = card + rounds[0][: i if turn == 0 else None]
                    if turn == 1:
                        key = None if board is None else f"{key}/{board}{betting[:i]}"
                moves.append(
                    Move(
                        hand=number,
                        seat=(position + first) % 2,
                        key=key,
                        taken=action,
                        situation=_betting(rounds, turn, i),
                        chapter=f"Hand {number + 1}",
                    )
                )
    return moves


def _betting(rounds: list[str], turn: int, i: int) -> str:
    before = rounds[turn][:i]
    text = f"round {turn + 1}, " + (f"after {before}" if before else "first to act")
    return text if turn == 0 else f"{text} (round 1: {rounds[0]})"


def describe_infoset(key: str) -> str:
    """``"Kcr/Jr"`` -> ``"king; round 1: cr; public jack; round 2: r"``."""
    first, _, second = key.partition("/")
    card, betting = first[:1], first[1:]
    words = f"{CARD_WORD.get(card, card)}; round 1: {betting or 'first to act'}"
    if second:
        public, betting2 = second[:1], second[1:]
        words += f"; public {CARD_WORD.get(public, public)}; round 2: {betting2 or 'first to act'}"
    return words
