"""Goofspiel's replay frames (see games/replays.py for the frame format): a frame for each
deal's first prize, one for each turn once both bids are down (the bids shown together, as
the players saw them; a deal's last two turns share one, the last playing itself), and one
for each fault. The frame of a deal's last bids shows the deal's end (the hands empty, its
prize points); the next deal's first prize is a frame of its own. Each deal is a chapter. A
bid a live table made for a person whose time ran out says so."""

from __future__ import annotations

from typing import Any

from games.engine.table import plural
from games.engine.written import minus_signs
from games.replays import (
    Frame,
    TimerMoves,
    _actor,
    _fault_lines,
    _frame,
    _seat,
    faults_said,
    played_for,
    steps,
    zone,
)


def _cards(cards: list[int]) -> list[str]:
    return [str(c) for c in cards]


def _table(
    label: str,
    lines: list[str],
    scores: list[Any],
    hands: list[list[int]],
    points: list[int],
    prize: int | None,
    to_come: int,
) -> Frame:
    seats = [
        _seat(
            [zone("Hand", _cards(hands[seat]))],
            notes=[f"{plural(points[seat], 'prize point')} this deal"],
        )
        for seat in (0, 1)
    ]
    shared = [
        zone("Prize", [] if prize is None else [str(prize)]),
        zone("Prizes to come", down=to_come),
    ]
    return _frame(label, lines, list(scores), seats, shared)


def _now(state: Any, label: str, lines: list[str]) -> Frame:
    """The table as it is: the prize face up, the hands, this deal's prize points."""
    return _table(
        label, lines, state.scores, state.hands, state.points, state.prize,
        len(state.prizes_left()),
    )  # fmt: skip


def _ended(state: Any, label: str, lines: list[str]) -> Frame:
    """The table at the end of the deal just played (the state has dealt the next one): the
    hands as its last bids left them (empty), its prize points, no prize."""
    last = state.deals_played[-1]
    hands = [list(range(1, state.num_cards + 1)) for _ in (0, 1)]
    for _, first, second in last["turns"]:
        hands[0].remove(first)
        hands[1].remove(second)
    return _table(label, lines, state.scores, hands, last["points"], None, 0)


def _bid_lines(
    turns: list[list[int]], names: list[str], timed: set[int] | None = None
) -> list[str]:
    """The turns' lines; ``timed``: the seats whose bid of the first turn a live table made
    for them, their time having run out (a deal's last turn plays itself)."""
    lines = []
    for number, (prize, first, second) in enumerate(turns):
        if first == second:
            taken = "nobody takes it (equal bids)"
        else:
            taken = f"{names[0 if first > second else 1]} takes it"
        bids = [
            f"{names[seat]} bids {bid}"
            + (played_for(names[seat]) if number == 0 and seat in (timed or ()) else "")
            for seat, bid in ((0, first), (1, second))
        ]
        lines.append(f"Prize {prize}: {bids[0]}, {bids[1]}; {taken}")
    return lines


def _turns_label(deal: int, first: int, count: int) -> str:
    if count == 2:  # the deal's last bids, and the last turn that plays itself
        return f"Deal {deal + 1}, turns {first} and {first + 1}"
    return f"Deal {deal + 1}, turn {first}"


def deal_end(number: int, done: dict[str, Any]) -> str:
    """How deal ``number`` (from 0) ended: its prize points, and what it scored each seat
    (its returns, games.goofspiel.rules.deal_returns); the live table's log says the same
    (the replay, as the pages write figures: a negative with the minus sign)."""
    points, returns = done["points"], done["returns"]
    paid = (
        f"deal score {returns[0]:+g} and {returns[1]:+g}"
        if any(returns)
        else "a draw, neither gains"
    )
    return f"Deal {number + 1} ends {points[0]} to {points[1]} in prize points: {paid}"


def frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    frames: list[Frame] = []
    deal, turns = 0, 0
    state: Any = None
    timer = TimerMoves(record)
    #: the seats whose bid of the turn in play the table made (their time ran out)
    timed: set[int] = set()
    for event, state in steps(record):
        if event is None:
            frame = _now(
                state,
                "The deal",
                [f"Deal 1: the prizes are shuffled; the first is {state.prize}"],
            )
            frame["chapter"] = "Deal 1"
            frames.append(frame)
            continue
        if event in timer:
            timed.add(event["seat"])
        if event["type"] == "action" and state.bids:
            continue  # one bid is down, the other not yet: nothing to show
        chapter = f"Deal {deal + 1}"
        if event["type"] == "fault":
            lines = _fault_lines(event, names)
            if len(state.deals_played) > deal:  # the fault ended the deal (the other won it)
                lines.append(minus_signs(deal_end(deal, state.deals_played[deal])))
            frame = _now(state, "A fault ends the match", lines)
            frame["decision"] = lines[0]
            frame["actor"] = _actor(event)
        elif state.deal == deal and not state.is_over():
            # a turn of the deal in play: the next prize is face up
            shown = state.history[turns:]
            lines = _bid_lines(shown, names, timed)
            frame = _now(state, _turns_label(deal, turns + 1, len(shown)), lines)
            frame["decision"] = lines[0].split("; ")[0] if lines else ""
            turns += len(shown)
        else:
            # the deal's last bids: the deal is over (the state has moved on)
            done = state.deals_played[-1]
            shown = done["turns"][turns:]
            lines = [*_bid_lines(shown, names, timed), minus_signs(deal_end(deal, done))]
            if state.is_over():
                frame = _now(state, _turns_label(deal, turns + 1, len(shown)), lines)
            else:
                frame = _ended(state, _turns_label(deal, turns + 1, len(shown)), lines)
            frame["decision"] = lines[0].split("; ")[0]
        frame["chapter"] = chapter
        frames.append(frame)
        timed = set()
        if state.deal != deal and not state.is_over():
            # the next deal's first prize, a step of its own
            deal, turns = state.deal, 0
            start = _now(
                state,
                f"Deal {deal + 1}, first prize",
                [f"Deal {deal + 1}: the prizes are shuffled; the first is {state.prize}"],
            )
            start["chapter"] = f"Deal {deal + 1}"
            frames.append(start)
    if frames and state is not None and state.is_over():
        result = state.result()
        a, b = result["scores"]
        end = "a draw" if a == b else f"{names[0 if a > b else 1]} wins the match"
        winner = None if a == b else 0 if a > b else 1
        faults = faults_said(type(state), result, names, winner)
        score = minus_signs(f"Final score {a:g} to {b:g}")
        frames[-1]["lines"].append(f"{score}: {end}{faults}")
    return frames
