"""The games Card Arena knows: one line each. What a game brings is its own package's
business (``games/<game>/spec.py``, see games/engine/spec.py)."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from games.engine.spec import GameSpec, SolverSpec

__all__ = [
    "GAMES",
    "GameSpec",
    "SolverSpec",
    "add_game_argument",
    "game_slugs",
    "games",
    "get_game",
    "solvable",
]


#: every game, one line each: its slug and the module whose ``spec()`` describes it
GAMES = {
    "rps-poker": "games.rps_poker.spec",
    "last-card": "games.last_card.spec",
    "uth": "games.uth.spec",
    "kuhn": "games.kuhn.spec",
    "leduc": "games.leduc.spec",
    "blackjack-pp": "games.blackjack_pp.spec",
    "goofspiel": "games.goofspiel.spec",
}
_CACHE: dict[str, GameSpec] = {}


def game_slugs() -> list[str]:
    return list(GAMES)


def add_game_argument(parser: argparse.ArgumentParser, help_text: str, **kwargs: Any) -> None:
    """A command's ``--game``, one of the games' slugs, which ``help_text`` lists where it
    says ``{games}``: GAME in the usage line, as the seven slugs there make it wider than a
    terminal of 80 columns."""
    slugs = game_slugs()
    listed = f"{', '.join(slugs[:-1])} or {slugs[-1]}"
    parser.add_argument(
        "--game", choices=slugs, metavar="GAME", help=help_text.format(games=listed), **kwargs
    )


def get_game(slug: str) -> GameSpec:
    if slug not in GAMES:
        raise KeyError(f"unknown game {slug!r} (known: {', '.join(GAMES)})")
    if slug not in _CACHE:
        spec = importlib.import_module(GAMES[slug]).spec()
        if spec.slug != slug:
            raise ImportError(f"{GAMES[slug]} describes {spec.slug!r}, listed as {slug!r}")
        _CACHE[slug] = spec
    return _CACHE[slug]


def games() -> list[GameSpec]:
    return [get_game(slug) for slug in GAMES]


def solvable() -> dict[str, GameSpec]:
    """The games the solver can solve, by slug."""
    return {spec.slug: spec for spec in games() if spec.solver is not None}
