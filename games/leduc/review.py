"""Leduc hold'em's decisions in a match record, for the solver's review
(``SolverSpec.review_moves``; games/solver/review.py): each hand of the record's hand log is
replayed round by round, each action one decision of the seat in the acting position (the
first position acts first in each round), at the information set the solver names it by:
the card, the first round's betting, then ``/``, the public card and the second round's."""

from __future__ import annotations

from typing import Any

from games.engine.played_for import actions_played_for
from games.engine.written import listed
from games.leduc.strategy import CARD_WORD
from games.leduc.tree import round_over
from games.solver.review import Move, Verb, Words, cut_short_moves, decided

ACTION_WORDS = {"c": "check/call", "r": "raise", "f": "fold"}


def hand_log(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The record's finished hands (a hand cut short by a fault is not in it)."""
    result = record.get("result")
    log = result.get("hand_log") if isinstance(result, dict) else None
    return [hand for hand in log if isinstance(hand, dict)] if isinstance(log, list) else []


def _rank(card: Any) -> str | None:
    return card[0] if isinstance(card, str) and card else None


def review_moves(record: dict[str, Any]) -> list[Move]:
    """Every decision of every finished hand of the record. Each action is one of the
    record's action events, in order: those a live table played for a person are marked
    ``played_for``. Then those of a hand a fault cut short, which are not reviewed
    (``cut_short_moves``)."""
    played_for = actions_played_for(record)
    moves = []
    actions = 0  # the actions of the hands before
    finished = hand_log(record)
    for number, hand in enumerate(finished):
        cards, history, first = hand.get("cards"), hand.get("history"), hand.get("first")
        made = len(history.replace("/", "")) if isinstance(history, str) else 0
        done, actions = actions, actions + made
        if not isinstance(history, str) or first not in (0, 1) or not isinstance(cards, list):
            continue
        rounds = history.split("/")
        board = _rank(hand.get("board"))
        # the hand's actions the table played for a seat whose time ran out (each round's
        # first position acts first: seat (position + first) % 2)
        starts = (0, len(rounds[0]))  # each round's first action, in the hand's actions
        defaulted = tuple(
            starts[turn] + i
            for turn, betting in enumerate(rounds[:2])
            for i in range(len(betting))
            if played_for.get(done + starts[turn] + i) == (i % 2 + first) % 2
        )
        for turn, betting in enumerate(rounds[:2]):
            for i, action in enumerate(betting):
                position = i % 2
                seat = (position + first) % 2
                at = starts[turn] + i
                card = _rank(cards[position]) if position < len(cards) else None
                key = None
                if card is not None:
                    key = card + rounds[0][: i if turn == 0 else None]
                    if turn == 1:
                        key = None if board is None else f"{key}/{board}{betting[:i]}"
                verbs = FACING if betting[:i].endswith("r") else OPEN
                before = tuple(j for j in defaulted if j < at)
                moves.append(
                    Move(
                        hand=number,
                        seat=seat,
                        key=key,
                        taken=action,
                        situation=decided(
                            verbs[action].past if action in verbs else action,
                            seen_words(
                                rounds[0][:i] if turn == 0 else rounds[0],
                                None if turn == 0 else betting[:i],
                                before,
                            ),
                            played_for.get(done + at) == seat,
                        ),
                        chapter=f"Hand {number + 1}",
                        played_for=played_for.get(done + at) == seat,
                        defaulted=before,
                    )
                )
    number = len(finished)
    return moves + cut_short_moves(record, actions, number, f"Hand {number + 1}", _said)


def _said(
    actions: list[Any], positions: list[int], i: int, defaulted: tuple[int, ...]
) -> tuple[str, str]:
    """The ``i``-th action of a hand in words (``cut_short_moves``): in the first round
    until its betting is over, then in the second."""
    history = "".join(str(a) for a in actions)
    first = next((n for n in range(1, len(history) + 1) if round_over(history[:n])), None)
    if first is None or i < first:
        betting, seen = history[:i], seen_words(history[:i], None, defaulted)
    else:
        betting = history[first:i]
        seen = seen_words(history[:first], betting, defaulted)
    verbs = FACING if betting.endswith("r") else OPEN
    action = actions[i]
    return (verbs[action].past if action in verbs else str(action)), seen


def describe_infoset(key: str) -> str:
    """``"Kcr/Jr"`` -> ``"king; round 1: cr; public jack; round 2: r"``."""
    first, _, second = key.partition("/")
    card, betting = first[:1], first[1:]
    words = f"{CARD_WORD.get(card, card)}; round 1: {betting or 'first to act'}"
    if second:
        public, betting2 = second[:1], second[1:]
        words += f"; public {CARD_WORD.get(public, public)}; round 2: {betting2 or 'first to act'}"
    return words


#: the actions as the table's buttons and the replay's log name them (games/leduc/table.py):
#: ``r`` is a raise where none is faced, a re-raise where one is
OPEN = {"c": Verb("checked", "checks", "checking"), "r": Verb("raised", "raises", "raising")}
FACING = {
    "c": Verb("called", "calls", "calling"),
    "r": Verb("re-raised", "re-raises", "re-raising"),
    "f": Verb("folded", "folds", "folding"),
}


def _round_words(
    betting: str, mine: int, defaulted: tuple[int, ...] = (), start: int = 0
) -> list[str]:
    """A round's actions from the side of the seat in position ``mine``: ``["you raised",
    "the opponent re-raised"]``; an action the table played for a seat whose time ran out
    (``defaulted``: its place in the hand's actions, the round's first at ``start``) is "the
    table checked for you"."""
    said = []
    for i, action in enumerate(betting):
        verbs = FACING if betting[:i].endswith("r") else OPEN
        who = "you" if i % 2 == mine else "the opponent"
        verb = verbs.get(action, Verb(action, action, action)).past
        said.append(f"the table {verb} for {who}" if start + i in defaulted else f"{who} {verb}")
    return said


def seen_words(first: str, second: str | None, defaulted: tuple[int, ...] = ()) -> str:
    """The betting before a decision, from the deciding seat's side: ``first`` the first
    round's actions so far (all of them once ``second``, the second round's, is given);
    ``defaulted`` the places, in the hand's actions, of those the table played for a seat
    whose time ran out."""
    if second is None:
        mine = len(first) % 2
        before = _round_words(first, mine, defaulted)
        return f"in the first round, after {listed(before)}" if before else "first to act"
    mine = len(second) % 2
    earlier = listed(_round_words(first, mine, defaulted))
    before = _round_words(second, mine, defaulted, len(first))
    now = f"after {listed(before)}" if before else "first to act"
    return f"in the second round, {now} (in the first round {earlier})"


def review_words(move: Move) -> Words:
    """``Move(key="Kcr/Qc", ...)``: held "the king, the queen on the board", seen "in the
    second round, after the opponent checked (in the first round ...)"."""
    key = move.key or ""
    first, slash, second = key.partition("/")
    card = CARD_WORD.get(first[:1], first[:1])
    held = f"the {card}"
    betting = first[1:]
    now = betting
    if slash:
        board = CARD_WORD.get(second[:1], second[:1])
        pair = " (a pair)" if second[:1] == first[:1] else ""
        held = f"the {card} and the {board} on the board{pair}"
        now = second[1:]
    return Words(
        held=held,
        seen=seen_words(betting, second[1:] if slash else None, move.defaulted),
        verbs=FACING if now.endswith("r") else OPEN,
    )
