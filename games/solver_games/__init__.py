"""The games ``manage.py solve`` and the strategy explorer can solve, by name: those whose
spec has a solver (``GameSpec.solver``), with the options each takes (``SolverSpec.options``)."""

from __future__ import annotations

from typing import Any

from games.engine.spec import SolverOption, SolverSpec
from games.engine.written import listed
from games.registry import solvable
from games.solver.game import Game


class GameChoiceError(ValueError):
    pass


def titles() -> dict[str, str]:
    """Slug -> title of every solvable game."""
    return {slug: spec.title for slug, spec in solvable().items()}


def solvers() -> dict[str, SolverSpec]:
    """Slug -> the solver's spec of every solvable game."""
    return {slug: spec.solver for slug, spec in solvable().items() if spec.solver is not None}


def canonical(name: str) -> str:
    key = name.strip().lower()
    games = solvers()
    for slug, solver in games.items():
        if key in solver.aliases:
            return slug
    if key not in games:
        raise GameChoiceError(f"unknown game {name!r}: choose one of {', '.join(games)}")
    return key


def options_by_name() -> dict[str, list[tuple[str, SolverOption]]]:
    """Option name -> the games that take it, each with its own declaration, in the
    registry's order."""
    found: dict[str, list[tuple[str, SolverOption]]] = {}
    for slug, solver in solvers().items():
        for option in solver.options:
            found.setdefault(option.name, []).append((slug, option))
    return found


def refuse_foreign(slug: str, given: list[str]) -> None:
    """GameChoiceError when ``slug`` takes none of the options named in ``given``, saying
    which games take them."""
    own = {option.name for option in solvers()[slug].options}
    foreign = [name for name in given if name not in own]
    if not foreign:
        return
    everyone = options_by_name()
    owners = list(dict.fromkeys(g for name in foreign for g, _ in everyone.get(name, [])))
    flags = listed(
        [
            everyone[name][0][1].flag if name in everyone else "--" + name.replace("_", "-")
            for name in foreign
        ]
    )
    if not owners:
        raise GameChoiceError(f"no game takes {flags}")
    # each owner's options this game lacks, so that the message lists what goes with them
    theirs = {
        owner: [o.flag for o in solvers()[owner].options if o.name not in own] for owner in owners
    }
    if len(owners) > 1:
        takes = "; ".join(f"{owner} takes {listed(their)}" for owner, their in theirs.items())
        raise GameChoiceError(f"{slug} takes no {flags}: {takes}")
    (owner, their), *_ = theirs.items()
    verb = "is an option" if len(their) == 1 else "are options"
    raise GameChoiceError(f"{slug} takes no {flags}: {listed(their)} {verb} of {owner} only")


def make_game(name: str, **options: Any) -> Game:
    """A game by name, with its own options (its spec's ``SolverSpec.options``, e.g.
    ``up="6,6,2"``); an option left None takes the game's default."""
    key = canonical(name)
    solver = solvers()[key]
    given = {k: v for k, v in options.items() if v is not None}
    refuse_foreign(key, list(given))
    try:
        return solver.make(**given)
    except ValueError as exc:
        raise GameChoiceError(str(exc)) from None
