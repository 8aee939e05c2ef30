"""The games ``manage.py solve`` and the strategy explorer can solve, by name: those whose
spec has a solver (``GameSpec.solver``)."""

from __future__ import annotations

from typing import Any

from games.registry import get_game, solvable
from games.solver.game import Game


class GameChoiceError(ValueError):
    pass


def titles() -> dict[str, str]:
    """Slug -> title of every solvable game."""
    return {slug: spec.title for slug, spec in solvable().items()}


def canonical(name: str) -> str:
    key = name.strip().lower()
    games = solvable()
    for slug, spec in games.items():
        assert spec.solver is not None
        if key in spec.solver.aliases:
            return slug
    if key not in games:
        raise GameChoiceError(f"unknown game {name!r}: choose one of {', '.join(games)}")
    return key


def make_game(name: str, **options: Any) -> Game:
    """A game by name, with its own options (Blackjack++: ``up``, e.g. ``"6,6,2"``, and
    ``max_hits``); an option left None takes the game's default."""
    key = canonical(name)
    solver = get_game(key).solver
    assert solver is not None
    given = {k: v for k, v in options.items() if v is not None}
    foreign = [k for k in given if k not in solver.options]
    if foreign:
        owners = {
            slug: spec.solver.options
            for slug, spec in solvable().items()
            if spec.solver is not None and set(foreign) & set(spec.solver.options)
        }
        named = [o for options in owners.values() for o in options if o not in solver.options]
        flags = " and ".join("--" + k.replace("_", "-") for k in dict.fromkeys(named))
        raise GameChoiceError(f"{flags} are options of {', '.join(owners)} only")
    try:
        return solver.make(**given)
    except ValueError as exc:
        raise GameChoiceError(str(exc)) from None
