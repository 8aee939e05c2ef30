"""What a game shows a person at a live table, and what it plays for someone who is away.

A game's engine already knows what each seat may see when it asks for a decision (its
prompts). A live table needs more: the whole table as one seat sees it at any moment (own
cards, the public cards, scores, what the others did), and what a spectator sees. Each game
gives a :class:`TableRules` beside its engine (``games/<game>/table.py``). Views are plain
JSON data and must hold nothing the seat may not see: the tests compare them with the
engine's hidden cards.
"""

from __future__ import annotations

from typing import Any

from games.engine.game import GameState


class TableRules:
    """One game's live-table face. ``seat=None`` is a spectator: public information only."""

    #: the safe move of someone who lets the turn timer run out, in words
    default_action_text: str = "a safe move"

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def default_action(self, state: GameState, seat: int) -> Any:
        """The safe move played for a seat whose person let the timer run out."""
        raise NotImplementedError

    def result(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """The end of the match as ``seat`` may see it (after the match everything the
        result holds is public; games that keep cards secret even then override this)."""
        return state.result()
