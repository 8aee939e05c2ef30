"""What a game shows a person at a live table, and what it plays for someone who is away.

A game's engine already knows what each seat may see when it asks for a decision (its
prompts). A live table needs more: the whole table as one seat sees it at any moment (own
cards, the public cards, scores, what the others did), and what a spectator sees. Each game
gives a :class:`TableRules` beside its engine (``games/<game>/table.py``). Views are plain
JSON data and must hold nothing the seat may not see: the tests compare them with the
engine's hidden cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from games.engine.game import GameState


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

    def config(self, asked: dict[str, Any]) -> dict[str, Any]:
        """The match config of a new table from what was asked (each option checked, a
        missing one at its default); ValueError says what is wrong."""
        config = dict(self.sitting)
        for option in self.options:
            config[option.name] = option.check(asked.get(option.name, option.default))
        return config

    def describe(self, config: dict[str, Any]) -> list[str]:
        """The table's chosen options in words, for its page."""
        return [o.shown.format(config[o.name]) for o in self.options if o.name in config]

    def summary(self, result: dict[str, Any], names: list[str], mine: int | None) -> str:
        """The end of a match in one sentence, for ``mine`` (the reader's seat, or None)."""
        scores = result.get("scores") or []
        winner = result.get("winner")
        score = " to ".join(f"{s:g}" for s in scores)
        if winner is None:
            return f"A draw, {score}."
        who = "You win" if winner == mine else f"{names[winner]} wins"
        return f"{who}, {score}."

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def default_action(self, state: GameState, seat: int) -> Any:
        """The safe move played for a seat whose person let the timer run out."""
        raise NotImplementedError

    def result(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """The end of the match as ``seat`` may see it (after the match everything the
        result holds is public; games that keep cards secret even then override this)."""
        return state.result()
