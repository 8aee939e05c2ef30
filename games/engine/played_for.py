"""Which moves of a stored match a live table played for a person whose turn timer ran out.

When a person's timer runs out, the table plays the game's safe move for them
(docs/live-tables.md, "The turn timer"). The record of the match says which moves those were
under one top-level key, :data:`KEY`::

    "played_for": [[0, 12], [0, 15]]

a list of ``[seat, event]`` pairs in the order of the events: ``event`` is the index, in the
record's ``events``, of the ``action`` event the table played for ``seat``. Only a table's
record with such a move has the key: the record of a match of bots, or of a table where every
move was its person's own, is as it always was, and so is a record stored before the key
existed (it says nothing of its moves, which are then all taken as their players' own).

It is not secret: everyone at the table, spectators included, saw the seat marked *away* when
its timer ran out and the move made, and the mark cleared only by a move of the person's own,
so which moves were the timer's is what anyone watching was shown. The words of the person's
log ("Time ran out, so this was played for you: fold.") are shown again to that seat alone
(:func:`games.live.host.final_messages`). The solver's review lists such a move without
judging it (``Move.played_for``): it was no decision of the person's. The public replay's
line of it says so ("bob bids 4 (played for bob: time ran out)", ``games.replays``), and
the match page's facts how many of whose moves the timer played.
"""

from __future__ import annotations

from typing import Any

#: the record's key
KEY = "played_for"


def events_played_for(record: dict[str, Any]) -> dict[int, int]:
    """The moves of ``record`` the table played for a seat: event index -> seat. Only pairs
    that name an ``action`` event of that very seat count; a record without the key (or with
    one this site did not write) has none."""
    pairs = record.get(KEY)
    events = record.get("events")
    if not isinstance(pairs, list) or not isinstance(events, list):
        return {}
    found: dict[int, int] = {}
    for pair in pairs:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            continue
        seat, index = pair
        if not all(type(x) is int for x in (seat, index)) or not 0 <= index < len(events):
            continue
        event = events[index]
        if isinstance(event, dict) and event.get("type") == "action" and event.get("seat") == seat:
            found[index] = seat
    return found


def actions_played_for(record: dict[str, Any]) -> dict[int, int]:
    """:func:`events_played_for` by the number of the action among the record's ``action``
    events (counted from 0, in order): action number -> seat. A game whose result lists its
    hands' actions in order (the chip games' ``hand_log``) finds its decisions by it."""
    played = events_played_for(record)
    if not played:
        return {}
    found: dict[int, int] = {}
    number = 0
    for index, event in enumerate(record["events"]):
        if isinstance(event, dict) and event.get("type") == "action":
            if index in played:
                found[number] = played[index]
            number += 1
    return found


def action_from(events: list[dict[str, Any]], seat: int, at: int) -> int | None:
    """The index of the first ``action`` event of ``seat`` in ``events`` from ``at`` on: the
    move a default chosen for ``seat`` when the log was ``at`` events long became (None: it
    was not played, the match being decided meanwhile)."""
    for index in range(at, len(events)):
        event = events[index]
        if event.get("type") == "action" and event.get("seat") == seat:
            return index
    return None
