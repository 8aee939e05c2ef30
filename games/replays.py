"""Replay frames: a stored match record turned into what a viewer draws, one frame per step.

The record is replayed through the game's own engine, exactly as
``GameState.replay`` does (recorded chance, then every recorded action, refusal and fault),
and each game's frame builder looks at the engine's state after each step. No rule is
re-implemented here: the engines say what is where.

A frame is JSON data::

    {"step": 3, "label": "Game 2 of 10", "chapter": "Game 2", "actor": 1,
     "decision": "plays R7", "lines": ["bob/strong plays R7 ..."], "scores": [1, 1],
     "seats": [{"zones": [ZONE, ...], "notes": ["3 cards"], "turn": false}, ...],
     "shared": [ZONE, ...]}

and a zone ``{"label": "Hand", "cards": ["R3", "S9"], "down": 0, "fan": "row"}`` holds card
codes face up, ``down`` face-down cards after them, and ``fan`` says how to lay them out
(``row``: side by side; ``pile``: the last few, overlapping; ``text``: a zone that only
carries its label, never a card, :func:`text_zone`: no "none" under it when it is empty).
:func:`card_view` describes a code for drawing it (``templates/includes/card.html``,
``static/js/replay.js``).

A frame's ``chapter`` names the part of the match it belongs to, as the game divides it (a
round, a hand, a game of a match, a turn): the viewer's "jump to" lists the chapters
(:func:`chapters`: each run of frames of the same chapter, by its first step). A builder that
sets none gets each frame's label as its chapter.

A frame may name what its ``scores`` count, ``score_label`` (Last Card's "points in hand"
until the game ends): the seats' badges say it instead of the game's ``score_label``.

A game's frames are built in its own package (``games/<game>/replay.py``), named by its spec
(``GameSpec.replay``); a game without a builder still gets its raw events listed on the match
page (``Replay.supported`` is False).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.chance import ReplayMismatch
from games.engine.game import GameState, faults_shown
from games.engine.played_for import events_played_for
from games.engine.table import FAULT_WORDS, shown_names
from games.registry import get_game

#: bump when the frames change, in their format or in what they show (cached replays are
#: keyed by it: 3 keeps a folded UTH round's hole cards, and the down cards of a Blackjack++
#: deal a fault cut short, face down; 4 shows a fault's reason on one line, escaped and cut;
#: 5 gives a Goofspiel deal's end a step of its own, a poker hand's betting a text zone and
#: Last Card's frames their score_label; 6 says a poker hand's betting in the table's words;
#: 7 says which moves a live table played for a person whose time ran out, a fault's line
#: that the seat stopped playing (not that it is out) and the final one what the fault gave
#: the other seat, and writes a negative figure with the minus sign)
FORMAT_VERSION = 7

Frame = dict[str, Any]
Builder = Callable[[dict[str, Any], list[str]], list[Frame]]

# ---- cards ----------------------------------------------------------------------------------
SUIT_SYMBOLS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANK_NAMES = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}
#: RPS Poker's symbols are drawn as their letters, as the game writes them (every font has them)
RPS_SYMBOLS = {"R": "R", "P": "P", "S": "S"}
RPS_NAMES = {"R": "rock", "P": "paper", "S": "scissors"}


def card_view(code: str) -> dict[str, Any]:
    """What a card code means for drawing it: ``Qh`` is the queen of hearts (red), ``R3``
    is RPS Poker's rock 3. Anything else is drawn as its own text."""
    if len(code) == 2 and code[0] in RPS_NAMES and code[1].isdigit():
        kind = RPS_NAMES[code[0]]
        return {
            "code": code,
            "rank": code[1],
            "suit": RPS_SYMBOLS[code[0]],
            "color": kind,
            "label": f"{kind} {code[1]}",
        }
    if len(code) == 2 and code[0] in "23456789TJQKA" and code[1] in SUIT_NAMES:
        rank = "10" if code[0] == "T" else code[0]
        return {
            "code": code,
            "rank": rank,
            "suit": SUIT_SYMBOLS[code[1]],
            "color": "red" if code[1] in "hd" else "black",
            "label": f"{RANK_NAMES.get(code[0], code[0])} of {SUIT_NAMES[code[1]]}",
        }
    return {"code": code, "rank": code, "suit": "", "color": "black", "label": code}


def cards_text(cards: Sequence[str]) -> str:
    return ", ".join(card_view(c)["label"] for c in cards)


def zone(label: str, cards: Sequence[str] = (), down: int = 0, fan: str = "row") -> dict:
    return {"label": label, "cards": list(cards), "down": down, "fan": fan}


def text_zone(label: str) -> dict:
    """A zone made only to carry a text, its label ("Betting: bp"): it never holds a card,
    so it is drawn without the "none" of an empty zone."""
    return zone(label, fan="text")


# ---- stepping through a record ------------------------------------------------------------
def steps(record: dict[str, Any]) -> Iterator[tuple[dict[str, Any] | None, GameState]]:
    """The engine's state after the deal (event None), then after each recorded action,
    refusal or fault (:meth:`GameState.replay_steps`). Raises :class:`ReplayMismatch` if
    the record does not reproduce itself."""
    spec = get_game(record["game"])
    yield from spec.state_class.replay_steps(
        record["events"], len(record["seats"]), record["config"]
    )


class TimerMoves:
    """The moves of a record that a live table played for a person whose turn timer ran out
    (the record's ``played_for``, games/engine/played_for.py), asked of the events
    :func:`steps` yields: ``event in moves``. Those are the record's own event objects, so
    they are known by identity (two moves alike, one the person's, one the timer's, differ)."""

    def __init__(self, record: dict[str, Any]) -> None:
        events = record.get("events") or []
        self._ids = {id(events[index]) for index in events_played_for(record)}

    def __contains__(self, event: object) -> bool:
        return event is not None and id(event) in self._ids


def played_for(name: str) -> str:
    """What a replay's line adds to a move the table played for ``name``, whose turn timer
    ran out: "bob bids 4 (played for bob: time ran out)"."""
    return f" (played for {name}: time ran out)"


def _fault_lines(event: dict[str, Any], names: list[str]) -> list[str]:
    # (the reason as shown: build() gives the builders the record of faults_shown). A fault
    # stops the seat playing; it need not lose the match (what it had won still counts)
    return [
        f"{names[int(seat)]} faults and plays no further: {fault['kind']}: {fault['reason']}"
        for seat, fault in event["faults"].items()
    ]


def faults_said(
    state_class: type[GameState] | None,
    result: dict[str, Any],
    names: Sequence[str],
    winner: int | None = None,
) -> str:
    """What a finished match's faults did, for the sentence that says who won: " (it ran
    out of time: the 2 unplayed games went to alice/firstcard)", the seat ``winner`` called
    "it", what the fault gave the other seat in its game's words
    (:meth:`GameState.fault_words`); "" for a match without a fault. A fault stops a seat
    playing, and the rules give the other what was left to play, but what it had won still
    counts: it may still win the match."""
    faults = result.get("faults")
    if not isinstance(faults, dict) or not faults:
        return ""
    said = []
    for seat, fault in sorted(faults.items(), key=lambda item: str(item[0])):
        try:
            number = int(seat)
            kind = str(fault["kind"])
        except (TypeError, ValueError, KeyError):
            continue
        if not 0 <= number < len(names):
            continue
        who = "it" if number == winner else names[number]
        said.append(f"{who} {FAULT_WORDS.get(kind, f'faulted ({kind})')}")
    if not said:
        return ""
    given = state_class.fault_words(result, names) if state_class is not None else ""
    return f" ({' and '.join(said)}{': ' + given if given else ''})"


def _actor(event: dict[str, Any] | None) -> int | None:
    if event is None:
        return None
    if "seat" in event:
        return event["seat"]
    faulted = sorted(int(s) for s in event.get("faults", {}))
    return faulted[0] if len(faulted) == 1 else None


# ---- chapters and windows ---------------------------------------------------------------
def chapters(frames: Sequence[Frame], start: int = 0) -> list[dict[str, Any]]:
    """The chapters of consecutive frames (the first numbered ``start``): each run of frames
    of the same ``chapter``, as its label and its first step."""
    found: list[dict[str, Any]] = []
    for number, frame in enumerate(frames, start):
        if not found or frame["chapter"] != found[-1]["label"]:
            found.append({"label": frame["chapter"], "step": number})
    return found


def cards_of(frames: Sequence[Frame]) -> dict[str, dict[str, Any]]:
    """Every card code the frames use, described for drawing."""
    codes: set[str] = set()
    for frame in frames:
        for part in [*frame["shared"], *(z for s in frame["seats"] for z in s["zones"])]:
            codes.update(part["cards"])
    return {code: card_view(code) for code in sorted(codes)}


def answer(
    head: dict[str, Any],
    frames: Sequence[Frame],
    start: int,
    chapter_list: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """The JSON of ``frames`` (steps ``start`` on) of a replay: ``head`` says the game, its
    title, the seats' names, whether it has frames (``supported``, ``error``) and how many
    (``total``); ``chapter_list`` is the whole replay's (:func:`chapters`), left out if None."""
    data = {
        "format": FORMAT_VERSION,
        "game": head["game"],
        "title": head["title"],
        "seats": head["names"],
        "supported": head["supported"],
        "error": head["error"],
        "total": head["total"],
        "from": start,
        "count": len(frames),
        "chapters": chapter_list,
        "cards": cards_of(frames),
        "frames": list(frames),
    }
    if chapter_list is None:
        del data["chapters"]
    return data


# ---- the replay of a match ----------------------------------------------------------------
@dataclass
class Replay:
    game: str
    title: str
    names: list[str]
    frames: list[Frame] = field(default_factory=list)
    #: False: no frame builder for this game (the page lists the raw events)
    supported: bool = True
    #: why the record could not be replayed, if it could not
    error: str = ""

    def cards(self) -> dict[str, dict[str, Any]]:
        """Every card code the frames use, described for drawing."""
        return cards_of(self.frames)

    def chapters(self) -> list[dict[str, Any]]:
        return chapters(self.frames)

    def head(self) -> dict[str, Any]:
        """What :func:`answer` says of the replay besides its frames."""
        return {
            "game": self.game,
            "title": self.title,
            "names": self.names,
            "supported": self.supported,
            "error": self.error,
            "total": len(self.frames),
        }

    def as_json(self, start: int = 0, count: int | None = None) -> dict[str, Any]:
        """The frames from step ``start`` on (``count`` of them, or all the rest)."""
        stop = len(self.frames) if count is None else start + count
        return answer(self.head(), self.frames[start:stop], start, self.chapters())


def build(record: dict[str, Any], names: list[str] | None = None) -> Replay:
    """The replay of a match record; ``names`` label the seats (default: the record's). Its
    faults' reasons are shown as every page shows them (:func:`faults_shown`: a bot wrote
    them), whoever asks for the replay."""
    record = faults_shown(record)
    slug = record.get("game", "")
    try:
        spec = get_game(slug)
    except KeyError:
        spec = None
    names = list(names or [s.get("name", f"seat {i}") for i, s in enumerate(record["seats"])])
    # seats of the same name (three copies of one bot at a Last Card table) say which seat
    names = shown_names(names)
    replay = Replay(game=slug, title=spec.title if spec else slug, names=names)
    builder = spec.replay if spec else None
    if builder is None:
        replay.supported = False
        return replay
    try:
        frames = builder(record, names)
    except (ReplayMismatch, KeyError, ValueError, TypeError) as exc:
        replay.supported = False
        replay.error = str(exc) or type(exc).__name__
        return replay
    for number, frame in enumerate(frames):
        frame["step"] = number
        frame["chapter"] = frame.get("chapter") or frame["label"]
    replay.frames = frames
    return replay


def _frame(label: str, lines: list[str], scores: list[Any], seats: list[dict], shared: list):
    return {
        "step": 0,
        "label": label,
        "actor": None,
        "decision": "",
        "lines": lines,
        "scores": scores,
        "seats": seats,
        "shared": shared,
    }


def _seat(zones: list[dict], notes: Sequence[str] = (), turn: bool = False) -> dict[str, Any]:
    return {"zones": zones, "notes": list(notes), "turn": turn}
