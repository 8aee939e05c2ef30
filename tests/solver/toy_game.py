"""A made-up solvable game with options of its own, put among the solvable games for a test:
the solver's command and the strategy explorer must take its options from its spec alone."""

from __future__ import annotations

import dataclasses
from typing import Any

from games.engine.spec import GameSpec, SolverOption, SolverSpec
from games.registry import solvable
from games.solver.game import Decision, Game, Terminal

SLUG = "toy-match"


class Toy(Game):
    """Player 0 guesses a side, player 1 does not see it and guesses too; a match wins
    ``stake`` for player 0, a miss loses it."""

    name = SLUG
    title = "Toy match"

    def __init__(self, stake: int, sides: str) -> None:
        self.stake = stake
        self.sides = sides.split("/")

    def initial_state(self) -> tuple[str, ...]:
        return ()

    def node(self, state: tuple[str, ...]):
        if len(state) < 2:
            return Decision(len(state), f"p{len(state)}", [(s, (*state, s)) for s in self.sides])
        return Terminal(self.stake if state[0] == state[1] else -self.stake)

    def settings(self) -> dict[str, Any]:
        return {"stake": self.stake, "sides": self.sides}


#: what ``make`` was called with, last call first
CALLS: list[dict[str, Any]] = []


def make(stake: int | None = None, sides: str | None = None) -> Toy:
    CALLS.insert(0, {"stake": stake, "sides": sides})
    if stake is not None and stake < 1:
        raise ValueError(f"--stake must be at least 1 (got {stake})")
    return Toy(stake or 1, sides or "h/t")


STAKE = SolverOption(
    name="stake",
    label="Stake",
    help="what a match wins",
    default=1,
    parse=int,
    metavar="N",
    choices=((1, "one"), (5, "five")),
    initial=5,
    web_help="What a match wins.",
    missing="Choose a stake.",
    refused="On the web the stake is one or five.",
    web_note="stake one or five",
    file_name="x{}",
)
SIDES = SolverOption(
    name="sides",
    label="Sides",
    help="the two sides, e.g. h/t",
    default="h/t",
    metavar="A/B",
    choices=(("h", "heads"), ("t", "tails"), ("e", "edge")),
    initial="h/t",
    parts=("First", "Second"),
    separator="/",
    missing="Choose a side.",
)


def toy_spec() -> GameSpec:
    """A spec for the toy (its platform half borrowed from a real game: only the solver's
    half is looked at)."""
    base = next(iter(solvable().values()))
    return dataclasses.replace(
        base,
        slug=SLUG,
        title="Toy match",
        solver=SolverSpec(make=make, web_limit=50, default_iterations=10, options=(STAKE, SIDES)),
    )


def install(monkeypatch) -> GameSpec:
    """Make the toy one of the solvable games (after the real ones) for this test."""
    import games.solver_games

    spec = toy_spec()
    real = solvable

    def with_toy() -> dict[str, GameSpec]:
        return {**real(), SLUG: spec}

    monkeypatch.setattr(games.solver_games, "solvable", with_toy)
    CALLS.clear()
    return spec
