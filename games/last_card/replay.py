"""Last Card's replay frames (see games/replays.py for the frame format)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from games.last_card.movecheck import hand_value
from games.last_card.rules import last_card_points
from games.replays import (
    SUIT_NAMES,
    Frame,
    TimerMoves,
    _actor,
    _frame,
    _seat,
    played_for,
    steps,
    zone,
)


def way_of_play(direction: int) -> str:
    """Which way play goes (``direction`` 1 or -1), as the live table and the replay both say
    it: the seats' numbers, which every seat shows, rather than "clockwise", which a table
    drawn in rows has no way to show."""
    return (
        "up the seats (1 \u2192 2 \u2192 3\u2026)"
        if direction == 1
        else ("down the seats (\u2026 3 \u2192 2 \u2192 1)")
    )


def frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for the deal and one per turn (a move, a refused move or a fault), with the
    lines of the kit's readable log (``games.last_card.logs``) that the step wrote. Until the
    game ends a seat's score is the value of the hand it holds ("points in hand", the frame's
    ``score_label``); at the end, the points it took (the hand's and its last card calls').
    A move a live table played for a person whose time ran out says so, on the first of its
    step's lines that names them."""
    from games.last_card.logs import readable

    frames: list[Frame] = []
    counts: list[int] = []
    #: the frames of the moves the table played (their seat's time ran out)
    timed: set[int] = set()
    timer = TimerMoves(record)
    seen = 0
    for event, state in steps(record):
        if event in timer:
            timed.add(len(frames))
        # the lines this step's history makes: counted on the step alone, worded by the
        # story of the whole game below (a pass and its draw read as one line there)
        new, seen = state.history[seen:], len(state.history)
        counts.append(len(readable(SimpleNamespace(history=new, over=False), names)))  # type: ignore[arg-type]
        if event is None:
            label = "The deal"
        elif event["type"] == "fault":
            label = "Out of the game"
        else:
            label = f"Turn {state.turns}"
        frame = _frame(label, [], [], [], [])
        frame["actor"] = _actor(event)
        _last_card_table(frame, state, names)
        frames.append(frame)
    story = readable(state, names) if frames else []
    told = 0
    for number, (frame, count) in enumerate(zip(frames, counts, strict=True)):
        frame["lines"], told = story[told : told + count], told + count
        if number in timed and frame["lines"]:
            _note_played_for(frame["lines"], names[frame["actor"]])
        frame["decision"] = (
            frame["lines"][0] if frame["lines"] and frame["actor"] is not None else ""
        )
    if frames:
        frames[-1]["lines"] += story[told:]  # how the game ended, seat by seat
    return frames


def _note_played_for(lines: list[str], name: str) -> None:
    """Say that the move of a step's ``lines`` was played for ``name`` (their time ran out):
    on its first line that starts with their name (the move's; a reshuffle may come first),
    else on its first."""
    at = next((n for n, line in enumerate(lines) if line.startswith(f"{name} ")), 0)
    lines[at] += played_for(name)


def _last_card_table(frame: Frame, state: Any, names: list[str]) -> None:
    seats = []
    for seat, hand in enumerate(state.hands):
        notes = [f"{len(hand)} card" + ("" if len(hand) == 1 else "s")]
        if state.called[seat]:
            notes.append("called last card")
        if seat in state.faults:
            notes.append(f"out of the game ({state.faults[seat].kind})")
        if state.winner == seat:
            notes.append("winner")
        calls = last_card_points(state.calls[seat])
        if calls and not state.over:
            notes.append(f"{calls:g} last card points so far")
        turn = not state.over and state.current == seat
        seats.append(_seat([zone("Hand", hand)], notes, turn=turn))
    shared = [
        zone("Played", state.played, fan="pile"),
        zone("Deck", down=len(state.deck), fan="pile"),
    ]
    table_notes = [f"play goes {way_of_play(state.direction)}"]
    if state.active_suit:
        table_notes.append(f"suit chosen: {SUIT_NAMES[state.active_suit]}")
    if state.punishment:
        table_notes.append(f"next player picks up {state.punishment} unless it adds to it")
    frame["seats"], frame["shared"], frame["notes"] = seats, shared, table_notes
    if state.over:
        frame["scores"] = [state.seat_stats(s)["points_taken"] for s in range(state.num_seats)]
        frame["score_label"] = "points taken"
    else:
        # nobody takes points before the game ends: what each hand would cost if it ended now
        frame["scores"] = [hand_value(hand) for hand in state.hands]
        frame["score_label"] = "points in hand"
