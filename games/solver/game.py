"""The extensive-form game interface the solver works on.

A game is a two-player zero-sum game with chance, given by one method: ``node(state)`` says
what happens at a state, as one of

- :class:`Terminal`: the game is over; ``payoff`` is what player 0 wins (player 1 wins the
  negative of it), and ``stats`` any extra figures the game declares in ``stat_names``;
- :class:`Chance`: nature picks one of ``outcomes``, each ``(label, probability, next state)``;
- :class:`Decision`: ``player`` (0 or 1) picks one of ``actions``, each ``(label, next state)``,
  knowing only ``infoset``, a string naming what that player has seen so far. Every state with
  the same ``infoset`` must offer the same action labels in the same order, and the game must
  have perfect recall (a player never forgets what it saw or did).

States are whatever the game likes (tuples work well): the solver never looks inside them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Terminal:
    payoff: float
    #: optional figures to average over the game as well (see ``Game.stat_names``)
    stats: tuple[float, ...] | None = None


@dataclass(slots=True)
class Chance:
    outcomes: Sequence[tuple[str, float, Any]]


@dataclass(slots=True)
class Decision:
    player: int
    infoset: str
    actions: Sequence[tuple[str, Any]]


Node = Terminal | Chance | Decision


class Game(ABC):
    """A two-player zero-sum extensive-form game."""

    #: short machine name, e.g. ``kuhn``
    name: str = ""
    #: what people call it, e.g. ``Kuhn poker``
    title: str = ""
    #: names of extra figures every terminal gives in ``Terminal.stats`` (e.g. the points of
    #: each seat, a dealer's too), whose expectation the solver reports beside the payoffs
    stat_names: tuple[str, ...] = ()

    @abstractmethod
    def initial_state(self) -> Any:
        """The state before anything has happened."""

    @abstractmethod
    def node(self, state: Any) -> Node:
        """What happens at ``state``."""

    def settings(self) -> dict[str, Any]:
        """The options this instance was made with (written to the JSON export)."""
        return {}

    def public_game(self) -> Any:
        """The same game in public-tree form (a :class:`games.solver.public.PublicGame`), if
        each player's hidden information is one type dealt at the start and every later
        chance outcome is seen by both with probabilities that do not depend on the types:
        the solve command then solves it on the public tree, with the same result (see
        :mod:`games.solver.public`). None (the default) for any other game."""
        return None
