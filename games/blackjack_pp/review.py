"""Blackjack++'s decisions in a match record, for the solver's review
(``SolverSpec.review_moves``; games/solver/review.py).

The solver solves one set of up cards at a time (``--up``), and each deal of a match deals
its own, so a decision is reviewed only with a solve of its deal's up cards: each decision
carries them in its options, and the review is made with the solve of the default up cards
(``UP.default``) and the match's most hits (:func:`review_options`); decisions of other
deals say they are not solved yet. A match of 2 or more hits is not reviewed: the review
builds the solver's tree on the page, a million histories for 2 hits (docs/solver.md).
"""

from __future__ import annotations

from typing import Any

from games.blackjack_pp.rules import value
from games.blackjack_pp.solving import HITS, UP
from games.blackjack_pp.strategy import describe_token
from games.blackjack_pp.tree import NAMES, parse_card, total
from games.engine.played_for import actions_played_for
from games.engine.written import listed
from games.solver.review import Move, Verb, Words, cut_short_moves, decided

#: the engine's actions as the solver's keys write them
LETTERS = {"hit": "h", "stand": "s"}
#: the most hits a reviewed match may allow (see the module's docstring)
REVIEWED_HITS = (1,)


def _max_hits(record: dict[str, Any]) -> Any:
    config = record.get("config")
    return config.get("max_hits") if isinstance(config, dict) else None


def review_options(record: dict[str, Any]) -> tuple[tuple[str, Any], ...] | str:
    """The solve a match is reviewed with, or why it is not."""
    hits = _max_hits(record)
    if hits not in REVIEWED_HITS:
        reviewed = " or ".join(str(h) for h in REVIEWED_HITS)
        plural = "" if REVIEWED_HITS == (1,) else "s"
        allowed = (
            f"this match allowed {hits}"
            if isinstance(hits, int)
            else "this match does not say how many it allowed"
        )
        return (
            f"The solver reviews Blackjack++ matches of {reviewed} hit{plural} per deal only; "
            f"{allowed}."
        )
    return ((UP.name, UP.default), (HITS.name, hits))


def _name(card: Any) -> str | None:
    return NAMES[value(card)] if isinstance(card, str) and card else None


def review_moves(record: dict[str, Any]) -> list[Move]:
    """Every decision of every finished deal: the history's tokens (``0s``, ``1h5``) are the
    actions in order, each of the player its first character names. Each token is one of the
    record's action events, in order: those a live table played for a person are marked
    ``played_for``. Then those of a deal a fault cut short, which are not reviewed
    (``cut_short_moves``)."""
    result = record.get("result")
    log = result.get("hand_log") if isinstance(result, dict) else None
    log = log if isinstance(log, list) else []
    hits = _max_hits(record)
    played_for = actions_played_for(record)
    moves = []
    actions = 0  # the actions of the deals before
    for number, hand in enumerate(log):
        if not isinstance(hand, dict):
            continue
        cards, history, first, up = (hand.get(k) for k in ("cards", "history", "first", "up"))
        made = len(history.split(",")) if isinstance(history, str) and history else 0
        done, actions = actions, actions + made
        if not all(isinstance(x, list) for x in (cards, up)) or not isinstance(history, str):
            continue
        if first not in (0, 1) or len(up) != 3 or len(cards) != 2:
            continue
        ups = [_name(card) for card in up]
        options = ((UP.name, ",".join(str(u) for u in ups)), (HITS.name, hits))
        tokens = history.split(",") if history else []
        # the deal's actions the table played for a seat whose time ran out
        defaulted = tuple(
            i
            for i, token in enumerate(tokens)
            if token[:1] in ("0", "1") and played_for.get(done + i) == (int(token[0]) + first) % 2
        )
        for i, token in enumerate(tokens):
            if len(token) < 2 or token[0] not in "01" or token[1] not in "hs":
                break
            position = int(token[0])
            down = _name(cards[position])
            before = ",".join(tokens[:i])
            seat = (position + first) % 2
            by_table = played_for.get(done + i) == seat
            earlier = tuple(j for j in defaulted if j < i)
            moves.append(
                Move(
                    hand=number,
                    seat=seat,
                    key=None if down is None else f"{position}{down}:{before}",
                    taken=token[1],
                    situation=decided(
                        VERBS[token[1]].past, _seen(tokens[:i], position, earlier), by_table
                    ),
                    chapter=f"Deal {number + 1}",
                    options=options,
                    played_for=by_table,
                    defaulted=earlier,
                )
            )
    return moves + cut_short_moves(record, actions, len(log), f"Deal {len(log) + 1}", _said)


def _said(
    actions: list[Any], positions: list[int], i: int, defaulted: tuple[int, ...]
) -> tuple[str, str]:
    """The ``i``-th action of a deal in words (``cut_short_moves``): the cards drawn are
    not said (no finished deal holds them)."""
    tokens = [f"{p}{LETTERS.get(str(a), '?')}" for p, a in zip(positions, actions, strict=True)]
    verb = VERBS.get(LETTERS.get(str(actions[i]), ""))
    return (verb.past if verb else str(actions[i])), _seen(tokens[:i], positions[i], defaulted)


def _situation(before: list[str]) -> str:
    return "; ".join(describe_token(t) for t in before) or "first to act"


def describe_infoset(key: str) -> str:
    """``"1T:0h5"`` -> ``"player 1, down card 10; player 0 hit, drew 5"``."""
    head, _, history = key.partition(":")
    down = "10" if head[1:] == "T" else head[1:]
    tokens = history.split(",") if history else []
    return f"player {head[:1]}, down card {down}; {_situation(tokens)}"


VERBS = {"h": Verb("hit", "hits", "hitting"), "s": Verb("stood", "stands", "standing")}
#: the unit of the values: a player's payoff is its points minus the other player's
#: (games/blackjack_pp/rules.py), never the 2, 1 or 0 points of its place alone
UNIT = "points over the opponent"


def _a(name: str) -> str:
    """A card value by name with its article: ``an ace``, ``a ten``, ``an 8``, ``a 6``."""
    word = {"A": "ace", "T": "ten"}.get(name, name)
    return f"an {word}" if word in ("ace", "8") else f"a {word}"


def _seen(tokens: list[str], position: int, defaulted: tuple[int, ...] = ()) -> str:
    """The deal's actions before a decision, from the side of the player in ``position``:
    ``after the opponent hit and drew a 5``; an action the table played for a player whose
    time ran out (``defaulted``: its place in ``tokens``) is "the table stood for you"."""
    parts = []
    for i, token in enumerate(tokens):
        who = "you" if token[:1] == str(position) else "the opponent"
        # (the card drawn, where the record holds it: a deal a fault cut short holds none)
        drew = f" and drew {_a(token[2:])}" if token[2:] else ""
        if i in defaulted:
            who = f"the table {VERBS['s' if token[1:2] == 's' else 'h'].past} for {who}"
            parts.append(who if token[1:2] == "s" else f"{who}{drew}")
            continue
        parts.append(f"{who} stood" if token[1:2] == "s" else f"{who} hit{drew}")
    if not parts:
        return "first to act"
    return f"after {listed(parts)}"


def review_words(move: Move) -> Words:
    """``Move(key="07:", options=(("up", "6,6,2"), ...))``: held "13 (a 7 down and a 6 up;
    the opponent shows a 6, the dealer a 2)", seen "first to act"."""
    key = move.key or ""
    head, _, history = key.partition(":")
    position, down = int(head[:1] or 0), head[1:]
    ups = str(dict(move.options).get(UP.name, "")).split(",")
    tokens = history.split(",") if history else []
    drawn = [t[2:] for t in tokens if t[:2] == f"{position}h"]
    own_up = ups[position] if len(ups) == 3 else ""
    try:
        cards = tuple(parse_card(c) for c in [down, own_up, *drawn])
        held = f"{total(cards)} ("
    except ValueError:
        cards, held = (), "("
    held += f"{_a(down)} down and {_a(own_up)} up"
    if drawn:
        held += ", then " + ", ".join(_a(c) for c in drawn)
    if len(ups) == 3:
        held += f"; the opponent shows {_a(ups[1 - position])}, the dealer {_a(ups[2])}"
    return Words(
        held=held + ")",
        seen=_seen(tokens, position, move.defaulted),
        verbs=VERBS,
        unit=UNIT,
        round="deal",
    )
