"""What a game shows a person at a live table, and what it plays for someone who is away.

A game's engine already knows what each seat may see when it asks for a decision (its
prompts). A live table needs more: the whole table as one seat sees it at any moment (own
cards, the public cards, scores, what the others did), and what a spectator sees. Each game
gives a :class:`TableRules` beside its engine (``games/<game>/table.py``). What it builds is
plain JSON data and must hold nothing the seat may not see: the tests search it for the
engine's hidden cards, and change those cards to check that nothing depends on them.

The page draws a table from two things the game builds here, in Python, for each seat (and
for spectators, ``seat=None``):

* :meth:`TableRules.frame`: the table as a replay frame (``games/replays.py``: label, seats
  with zones of cards, shared zones, lines, scores) with a few things only a live table has::

      {"label": "Hand 3 of 10", "lines": ["Betting: check"], "scores": [2, -2],
       "seats": [{"zones": [ZONE], "notes": ["acts first"], "turn": true,
                  "turn_text": "to act", "score": "+2 chips", "badges": [],
                  "done_text": "bid in"}, ...],  # (optional) a seat whose move is in
       "shared": [ZONE, ...],
       "hand": [ZONE, ...],       # the seat's own cards, drawn apart (none for a spectator)
       "pick": "Your hand",       # the title of the cards the seat chooses among
       "hand_first": True,        # (optional) on a phone the hand is drawn before "shared"
       "status": "Hand 3 of 10.", # the turn line while the seat is not asked
       "prompt": "Your turn: check or bet.",  # ... and while it is
       # (optional) once the table has the seat's move and awaits others' (a "taken"
       # message: a simultaneous turn), "taken: waiting for NAMES."
       "taken": "Your bid is in", "waiting": "waiting for {names}'s bid",
       "log": [{"key": "hand3", "text": "Hand 3 (pb): ...", "mine": false}, ...]}

  ``log`` holds the latest entries; the page adds those whose ``key`` it has not shown yet.
* :meth:`TableRules.actions`: the seat's choices now, each
  ``{"value": ..., "label": "Bet 1", "key": "B"}`` (``value`` is sent as the action as it
  is) with, optionally, ``"card": "Qs"`` (the action plays that card: the page lets the
  person choose it among the hand, then confirm with Enter), ``"number": 13`` (with
  ``card``, where every card of the hand is a number of its own, as Goofspiel's 1 to 13: the
  digit keys then type a card's number, rather than name its place in the hand),
  ``"secondary": true`` (a cautious choice, drawn plainer) and ``"also": ["Enter"]`` (more
  keys for it).
  An action with ``"several"`` takes several cards of the hand, chosen in order, and sends
  ``value`` with the chosen cards under ``several["field"]``::

      "several": {"field": "cards", "cards": ["7h", "7s", "Ac"],
                  "many": "Play {n} cards",   # the button's label for more than one card
                  "empty": "choose cards first",  # the hint when none is chosen
                  # asked when the last card chosen is one of when_last; sent under field
                  "choice": {"field": "suit", "legend": "Suit to follow your ace",
                             "when_last": ["Ac"], "missing": "choose the suit",
                             "options": [{"value": "s", "label": "spades",
                                          "symbol": "\u2660", "tone": "black"}, ...]},
                  # a yes/no sent under field, on by itself when the cards chosen leave
                  # ``left`` cards in the hand (unless the person set it)
                  "toggle": {"field": "last_card", "label": "Last card!", "key": "L",
                             "left": 1},
                  # (optional) the cards the rules allow, in the order they are played: the
                  # page offers only a card that makes, with those chosen before it, one of
                  # these or its beginning (without it, any card, and the server judges)
                  "moves": [["7h"], ["7h", "7s"], ["Ac"]]}

The page's one renderer (``static/js/table.js``) draws every game from these: the wording of
a game is written once, here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar

from games.engine.game import GameState
from games.engine.written import MINUS


@dataclass(frozen=True)
class TableOption:
    """A setting a person chooses when opening a table (UTH: the rounds of a sitting)."""

    #: the key of the match's config it sets
    name: str
    label: str
    #: (value, what the menu says) pairs; the value must be one of them
    choices: tuple[tuple[Any, str], ...]
    default: Any
    help: str = ""
    #: how the table's description names a chosen value ("{} rounds")
    shown: str = "{}"
    #: how it names the value 1, where ``shown`` would write a plural ("at most 1 hit")
    shown_one: str = ""

    def check(self, value: Any) -> Any:
        """``value`` if it is one of the choices, else ValueError saying what may be chosen."""
        for v, _ in self.choices:
            if value == v and type(value) is type(v):
                return v
        raise ValueError(self.refusal)

    @property
    def refusal(self) -> str:
        allowed = ", ".join(str(v) for v, _ in self.choices)
        return f"{self.label.lower()}: choose one of {allowed}"


class TableRules:
    """One game's live-table face. ``seat=None`` is a spectator: public information only."""

    #: the safe move of someone who lets the turn timer run out, in words
    default_action_text: str = "a safe move"
    #: what a person may choose when opening a table
    options: ClassVar[Sequence[TableOption]] = ()
    #: the config of every table's match besides the options (a chip game: a sitting of a few
    #: hands, not a tournament match of a hundred)
    sitting: ClassVar[dict[str, Any]] = {}
    #: the scores are gains and losses (chips won or lost): the end line says "+7", so the
    #: final scores beside it say "+7" too (:meth:`score_text`), not "7"
    signed_scores: ClassVar[bool] = False

    def config(self, asked: dict[str, Any]) -> dict[str, Any]:
        """The match config of a new table from what was asked (each option checked, a
        missing one at its default); ValueError says what is wrong."""
        config = dict(self.sitting)
        for option in self.options:
            config[option.name] = option.check(asked.get(option.name, option.default))
        return config

    def describe(self, config: dict[str, Any]) -> list[str]:
        """The table's chosen options in words, for its page."""
        return [
            (o.shown_one if o.shown_one and config[o.name] == 1 else o.shown).format(config[o.name])
            for o in self.options
            if o.name in config
        ]

    def score_text(self, score: float) -> str:
        """A seat's final score as the end of a table lists it beside :meth:`summary` (the
        page's script writes it the same way): ``+7`` for a gain where scores are gains and
        losses, else ``7``; two decimals at most, never ``-0``."""
        text = signed(score)
        return text if self.signed_scores else text.removeprefix("+")

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        """The end of a match in one sentence, for ``mine`` (the reader's seat, or None)."""
        scores = result.get("scores") or []
        winner = result.get("winner")
        # the winner's score first ("X wins, 8 to 2."), then the others' in seat order
        order = list(range(len(scores)))
        if winner is not None and 0 <= winner < len(scores):
            order = [winner] + [s for s in order if s != winner]
        # (as the pages write figures: a negative with the minus sign)
        score = " to ".join(signed(scores[s]).removeprefix("+") for s in order)
        if winner is None:
            return f"A draw, {score}."
        who = "You win" if winner == mine else f"{names[winner]} wins"
        return f"{who}, {score}."

    def ending(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        """:meth:`summary`, and who faulted and how ("frank/slow ran out of time."): a
        match a bot's fault cut short or decided says why, in a word a player reads (its
        match page gives the reason in full)."""
        text = self.summary(result, names, mine)
        faults = result.get("faults")
        if not isinstance(faults, dict):
            return text
        said = []
        for seat, fault in sorted(faults.items(), key=lambda item: str(item[0])):
            kind = fault.get("kind") if isinstance(fault, dict) else None
            try:
                index = int(seat)
            except (TypeError, ValueError):
                continue
            if not 0 <= index < len(names) or kind not in FAULT_WORDS:
                continue
            who = "You" if index == mine else names[index]
            said.append(f"{who} {FAULT_WORDS[kind]}.")
        return " ".join([text, *said])

    def fault_log(self, state: GameState, names: list[str]) -> list[dict[str, Any]]:
        """The log's lines of the faults that stopped seats playing (``names``: the seats'
        names as the log writes them): who faulted, and its kind, as the replay's line says
        it ("bob/slowgoof faults and plays no further: crash."; the replay adds the reason,
        which the table's log leaves to the match's page, as its end line does); then, once
        the match is over, what the rules gave for what was left unplayed
        (:meth:`fault_given`). A game logs them where they happened (Goofspiel: before the
        end of the deal its fault ended)."""
        lines = [
            {"key": f"fault{seat}", "text": f"{names[seat]} faults and plays no further: "
                                            f"{fault.kind}."}
            for seat, fault in sorted(state.faults.items())
            if 0 <= seat < len(names)
        ]  # fmt: skip
        if lines and state.is_over():
            given = self.fault_given(state, names)
            if given:
                lines.append({"key": "fault-given", "text": given})
        return lines

    def fault_given(self, state: GameState, names: list[str]) -> str:
        """What the rules gave for the rest of a match a fault ended, in a sentence: the
        game's own words (:meth:`GameState.fault_words`, as the replay says them: "The 7
        unplayed games went to bob."), which a game completes with what that gave each seat;
        "" where they gave nothing (both seats faulted at once)."""
        given = state.fault_words(state.result(), names)
        return f"{given[:1].upper()}{given[1:]}." if given else ""

    def frame(self, state: GameState, seat: int | None, names: list[str]) -> dict[str, Any]:
        """The table as ``seat`` sees it, as a frame (see the module's docstring); ``names``
        are the seats' names."""
        raise NotImplementedError

    def actions(self, state: GameState, seat: int) -> list[dict[str, Any]]:
        """What ``seat`` may do now (none while it is not asked)."""
        raise NotImplementedError

    def default_action(self, state: GameState, seat: int) -> Any:
        """The safe move played for a seat whose person let the timer run out."""
        raise NotImplementedError

    def result(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """The end of the match as ``seat`` may see it (after the match everything the
        result holds is public; games that keep cards secret even then override this)."""
        return state.result()


def shown_names(names: Sequence[str]) -> list[str]:
    """The seats' names as a page shows them: seats of the same name (three copies of one
    bot) say which seat they are."""
    return [f"{n} (seat {i + 1})" if list(names).count(n) > 1 else n for i, n in enumerate(names)]


#: a fault's kind (games.engine.game.Fault) as the end of a table says it, after the name
FAULT_WORDS = {
    "timeout": "ran out of time",
    "crash": "crashed",
    "exception": "raised an error",
    "invalid": "gave answers the rules do not allow",
    "output": "wrote more than a bot may",
    "protocol": "broke the bots' protocol",
    "startup": "could not start",
    "memory": "ran out of memory",
}


def name_of(names: Sequence[str], seat: int, viewer: int | None) -> str:
    """A seat's name as ``viewer`` reads it: "(you)" after the viewer's own."""
    name = shown_names(names)[seat] if seat < len(names) else f"seat {seat + 1}"
    return f"{name} (you)" if seat == viewer else name


def plural(n: int, word: str) -> str:
    """``1 bot``, ``2 bots``, ``1 match``, ``3 matches``: ``word`` is the singular."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("ch", "s")) else f"{n} {word}s"


def minutes(seconds: float) -> str:
    """A wait as a person is told it: in whole minutes, rounded up, never less than one
    ("1 minute", "12 minutes")."""
    return plural(max(1, math.ceil(seconds / 60)), "minute")


def hour_wait(times: Sequence[datetime], per_hour: int, now: datetime) -> float | None:
    """Of the ``times`` something was done in the last hour, oldest first: the seconds until
    it may be done again if it was done ``per_hour`` times or more, else None."""
    if len(times) < per_hour:
        return None
    return (times[len(times) - per_hour] + timedelta(hours=1) - now).total_seconds()


def a_title(title: str) -> str:
    """A title with its article: "an RPS Poker", "a Goofspiel", "a Python", "a C++" (a first
    word in capitals is read letter by letter)."""
    first = title.split()[0]
    initialism = first.isupper() and len(first) > 1
    sounds = "AEFHILMNORSX" if initialism else "AEIO"
    return f"{'an' if first[0].upper() in sounds else 'a'} {title}"


def signed(value: float) -> str:
    """A gain or loss as the pages write it: +3, \u22121.5 (the minus sign, as
    games.engine.written.figure writes a negative), 0."""
    value = round(value, 2) + 0.0  # never "-0": adding 0.0 turns a negative zero into 0
    text = f"{value:g}".replace("-", MINUS)
    return f"+{text}" if value > 0 else text
