"""Replay frames of the chip games: Kuhn poker, Leduc hold'em and Blackjack++.

Each game's spec names its builder here (``GameSpec.replay``): a frame for the start of the
match, then one per action, showing the cards of the hand in play; the game's engine words
the betting (``HandsMatch.action_words`` and its neighbours), so nothing here names a game.
Each hand (each deal of Blackjack++) is a chapter.

A replay is public and watched after the match, so it shows the hole cards of a poker hand
only if that hand reached a showdown: the cards of a folded hand (or of a hand cut short by a
fault, at any game: Blackjack++'s down cards) stay face down in every frame, as they did at
the table. A move a live table played for a person whose time ran out says so.
"""

from __future__ import annotations

from typing import Any

from games.chips.match import HandsMatch
from games.engine.table import signed
from games.engine.written import minus_signs
from games.replays import (
    Frame,
    TimerMoves,
    _actor,
    _fault_lines,
    _frame,
    _seat,
    played_for,
    steps,
    text_zone,
    zone,
)

#: a fault's step's label (its first line, its decision, says who faulted and why)
FAULT_LABEL = "A fault ends the match"


def _scores(state: HandsMatch) -> list[Any]:
    return [round(c, 4) for c in state.chips]


def _poker_frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    frames: list[Frame] = []
    #: the hand (its index in ``hands_played``) each frame's table shows, if any
    hands: list[int | None] = []
    before = ""
    state: Any = None
    timer = TimerMoves(record)
    for event, state in steps(record):
        if event is None:
            frame = _frame(
                "The start",
                [f"{state.hands_total} hands; the seats take turns to act first."],
                _scores(state),
                [],
                [],
            )
        elif event["type"] == "fault":
            frame = _fault_frame(event, state, names)
        else:
            seat = event["seat"]
            words = state.action_said(event["action"], before.split("/")[-1], before.count("/"))
            if event in timer:
                words += played_for(names[seat])
            line = f"{names[seat]} {words}"
            frame = _frame("", [line], _scores(state), [], [])
            frame["actor"], frame["decision"] = seat, words
        ended = event is not None and state.hand_done_now
        if ended:
            done = state.hands_played[-1]
            won = done["won"] if done["first"] == 0 else -done["won"]
            how = "at the showdown" if done["showdown"] else "uncontested"
            frame["lines"].append(
                f"Hand {len(state.hands_played)} is over: "
                f"{names[0]} {minus_signs(signed(won))}, {names[1]} "
                f"{minus_signs(signed(-won))} {how}"
            )
            frame["label"] = f"Hand {len(state.hands_played)}: the end"
            frame["chapter"] = f"Hand {len(state.hands_played)}"
            _poker_table(frame, state, done, names)
            hands.append(len(state.hands_played) - 1)
        else:
            frame["label"] = frame["label"] or f"Hand {state.hand + 1}"
            if not state.is_over():
                _poker_table(frame, state, None, names)
            hands.append(None if state.is_over() else state.hand)
        before = state.betting()
        frames.append(frame)
    if state is not None:
        shown = {i for i, done in enumerate(state.hands_played) if done["showdown"]}
        _face_down(frames, hands, shown)
    return frames


def _fault_frame(event: dict[str, Any], state: HandsMatch, names: list[str]) -> Frame:
    """The step of a fault: who faulted and why, and what the rules gave the other seat
    ("The hand in play and the 40 hands not played went to house/cfr.")."""
    lines = _fault_lines(event, names)
    given = state.fault_words(state.result(), names)
    if given:
        lines.append(f"{given[:1].upper()}{given[1:]}.")
    frame = _frame(FAULT_LABEL, lines, _scores(state), [], [])
    frame["actor"], frame["decision"] = _actor(event), lines[0]
    return frame


def _face_down(frames: list[Frame], hands: list[int | None], shown: set[int]) -> None:
    """Turn the seats' cards face down in the frames of every hand not in ``shown`` (the
    hands whose cards were shown at the table)."""
    for frame, hand in zip(frames, hands, strict=True):
        if hand is None or hand in shown:
            continue
        for seat in frame["seats"]:
            for part in seat["zones"]:
                part["down"] += len(part["cards"])
                part["cards"] = []


def _poker_table(frame: Frame, state: Any, done: dict | None, names: list[str]) -> None:
    """Each seat's card, the board and the betting in the tables' words ("Betting: ann
    checks, bob bets 1"): of a finished hand (``done``), or the live one."""
    if done is not None:
        first, history = done["first"], done["history"]
        cards = [state.card_code(c) for c in done["cards"]]
        board = done.get("board") if "/" in history else None
    else:
        first = state.seat_of(0)
        cards, history, board = list(state.hole_cards()), state.betting(), state.public_card()
    seats = []
    for seat in (0, 1):
        position = (seat + first) % 2
        notes = ["acts first" if position == 0 else "acts second"]
        seats.append(_seat([zone("Card", [cards[position]])], notes))
    betting = state.betting_words(history, [names[first], names[1 - first]])
    shared = [text_zone(f"Betting: {betting}.")]
    if state.has_board:
        shared.append(zone("Board", [board] if board else [], down=0 if board else 1))
    frame["seats"], frame["shared"] = seats, shared


def kuhn_frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for the start, each action (the cards of the hand in play) and each fault."""
    return _poker_frames(record, names)


def leduc_frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """As Kuhn poker's, with the board."""
    return _poker_frames(record, names)


def blackjack_pp_frames(record: dict[str, Any], names: list[str]) -> list[Frame]:
    """A frame for the start, each hit or stand, and each fault; a deal's last action shows
    the dealer's draws and the points. The players' down cards are turned over at the end
    of every deal, so the replay shows them from its start, but for a deal a fault cut
    short: they stay face down in every frame of it (:func:`_down_cards_face_down`)."""
    frames: list[Frame] = []
    #: the deal (its index) each frame's table shows, if any
    deals: list[int | None] = []
    state: Any = None
    timer = TimerMoves(record)
    for event, state in steps(record):
        if event is None:
            frame = _frame(
                "The start",
                [f"{state.hands_total} deals, max hits {state.config['max_hits']}."],
                _scores(state),
                [],
                [],
            )
            _blackjack_table(frame, state, None)
            deals.append(state.hand)
        elif event["type"] == "fault":
            frame = _fault_frame(event, state, names)
            deals.append(None)
        else:
            seat = event["seat"]
            words = f"{event['action']}s"
            if event in timer:
                words += played_for(names[seat])
            frame = _frame("", [f"{names[seat]} {words}"], _scores(state), [], [])
            frame["actor"], frame["decision"] = seat, words
            deals.append(len(state.hands_played) - 1 if state.hand_done_now else state.hand)
            if state.hand_done_now:
                done = state.hands_played[-1]
                t0, t1, dealer = done["totals"]
                pts = done["points"]
                order = [done["first"], 1 - done["first"]]
                frame["lines"].append(
                    f"Deal {len(state.hands_played)}: totals {names[order[0]]} {t0}, "
                    f"{names[order[1]]} {t1}, dealer {dealer}; "
                    + minus_signs(f"points {pts[0]:g}, {pts[1]:g}, {pts[2]:g}")
                )
                frame["label"] = f"Deal {len(state.hands_played)}: the end"
                frame["chapter"] = f"Deal {len(state.hands_played)}"
                _blackjack_table(frame, state, done)
            else:
                frame["label"] = frame["chapter"] = f"Deal {state.hand + 1}"
                _blackjack_table(frame, state, None)
        frames.append(frame)
    if state is not None:
        _down_cards_face_down(frames, deals, len(state.hands_played))
    return frames


def _down_cards_face_down(frames: list[Frame], deals: list[int | None], finished: int) -> None:
    """Turn the players' down cards face down in the frames of the deals that never finished
    (from ``finished`` on: one a fault cut short), whose down cards no one else saw."""
    for frame, deal in zip(frames, deals, strict=True):
        if deal is None or deal < finished:
            continue
        for seat in frame["seats"]:
            for part in seat["zones"]:
                up, _down, *hits = part["cards"]
                part["cards"], part["down"] = [up, *hits], part["down"] + 1


def _blackjack_table(frame: Frame, state: Any, done: dict | None) -> None:
    if done is not None:
        first, up, down, hits, dealer = (
            done["first"], done["up"], done["cards"], done["hits"], done["dealer"]
        )  # fmt: skip
    else:
        first, up, down, hits = state.seat_of(0), state.up, state.down, state.hits
        dealer = [up[2]]
    seats = []
    for seat in (0, 1):
        position = (seat + first) % 2
        cards = [up[position], down[position], *hits[position]]
        order = "acts first" if position == 0 else "acts second"
        seats.append(_seat([zone(f"Cards, {order}", cards)]))
    frame["seats"] = seats
    frame["shared"] = [zone("Dealer", dealer, down=0 if done is not None else 1)]
