"""Kuhn poker's decisions in a match record, for the solver's review
(``SolverSpec.review_moves``; games/solver/review.py): each hand of the record's hand log is
replayed action by action, each action one decision of the seat in the acting position, at
the information set the solver names it by (the card, then the betting so far)."""

from __future__ import annotations

from typing import Any

from games.engine.played_for import actions_played_for
from games.kuhn.strategy import CARD_WORD, KUHN_HISTORIES
from games.solver.review import Move, Verb, Words, cut_short_moves, decided


def hand_log(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The record's finished hands (a hand cut short by a fault is not in it)."""
    result = record.get("result")
    log = result.get("hand_log") if isinstance(result, dict) else None
    return [hand for hand in log if isinstance(hand, dict)] if isinstance(log, list) else []


def review_moves(record: dict[str, Any]) -> list[Move]:
    """Every decision of every finished hand: position ``i % 2`` made the ``i``-th action,
    and position 0 is seat ``first`` of the hand. Each action is one of the record's action
    events, in order: those a live table played for a person are marked ``played_for``.
    Then those of a hand a fault cut short, which are not reviewed (``cut_short_moves``)."""
    played_for = actions_played_for(record)
    moves = []
    actions = 0  # the actions of the hands before
    finished = hand_log(record)
    for number, hand in enumerate(finished):
        cards, history, first = hand.get("cards"), hand.get("history"), hand.get("first")
        done, actions = actions, actions + (len(history) if isinstance(history, str) else 0)
        if not isinstance(history, str) or first not in (0, 1) or not isinstance(cards, list):
            continue
        for i, action in enumerate(history):
            position = i % 2
            card = cards[position] if position < len(cards) else None
            before = history[:i]
            seat = (position + first) % 2
            # the actions before it the table played for a seat whose time ran out
            defaulted = tuple(
                j for j in range(i) if played_for.get(done + j) == (j % 2 + first) % 2
            )
            by_table = played_for.get(done + i) == seat
            verbs = FACING if before.endswith("b") else OPEN
            verb = verbs[action].past if action in verbs else action
            moves.append(
                Move(
                    hand=number,
                    seat=seat,
                    key=card[0] + before if isinstance(card, str) and card else None,
                    taken=action,
                    situation=decided(verb, seen_words(before, defaulted), by_table),
                    chapter=f"Hand {number + 1}",
                    played_for=by_table,
                    defaulted=defaulted,
                )
            )
    number = len(finished)
    return moves + cut_short_moves(record, actions, number, f"Hand {number + 1}", _said)


def _said(
    actions: list[Any], positions: list[int], i: int, defaulted: tuple[int, ...]
) -> tuple[str, str]:
    """The ``i``-th action of a hand in words (``cut_short_moves``)."""
    before = "".join(str(a) for a in actions[:i])
    verbs = FACING if before.endswith("b") else OPEN
    action = actions[i]
    return (verbs[action].past if action in verbs else str(action)), seen_words(before, defaulted)


def describe_infoset(key: str) -> str:
    """``"Qpb"`` -> ``"queen; player 0, checked and faces a bet"``."""
    card, history = key[:1], key[1:]
    return f"{CARD_WORD.get(card, card)}; {KUHN_HISTORIES.get(history, history)}"


#: the actions where no bet is faced, and facing one
OPEN = {"p": Verb("checked", "checks", "checking"), "b": Verb("bet", "bets", "betting")}
FACING = {"p": Verb("folded", "folds", "folding"), "b": Verb("called", "calls", "calling")}


def seen_words(before: str, defaulted: tuple[int, ...] = ()) -> str:
    """The betting before a decision, from the deciding seat's side: "first to act", "after
    you checked and the opponent bet"; an action the table played for a seat whose time ran
    out (``defaulted``: its place in ``before``) is "the table checked for you"."""
    if not before:
        return "first to act"
    mine = len(before) % 2
    parts = []
    for i, action in enumerate(before):
        verbs = FACING if before[:i].endswith("b") else OPEN
        verb = verbs[action].past if action in verbs else action
        who = "you" if i % 2 == mine else "the opponent"
        parts.append(f"the table {verb} for {who}" if i in defaulted else f"{who} {verb}")
    return "after " + " and ".join(parts)


def review_words(move: Move) -> Words:
    """``Move(key="Jpb", taken="p")`` -> held "the jack", seen "after you checked and the
    opponent bet", p a fold and b a call."""
    key = move.key or ""
    card, history = key[:1], key[1:]
    return Words(
        held=f"the {CARD_WORD.get(card, card)}",
        seen=seen_words(history, move.defaulted),
        verbs=FACING if history.endswith("b") else OPEN,
    )
