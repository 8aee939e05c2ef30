"""A general CFR solver for two-player zero-sum extensive-form games (docs/solver.md).

- :mod:`games.solver.game`: the interface a game implements (chance, decisions, terminals);
- :mod:`games.solver.tree`: the game tree flattened into NumPy arrays;
- :mod:`games.solver.cfr`: CFR, CFR+ and discounted CFR, best response and exploitability;
- :mod:`games.solver.public`: the same on a game's public tree (one vector of private types
  per public node), for games that have one (``Game.public_game``);
- :mod:`games.solver.export`: the strategy by infoset key, and the JSON document.
"""

from games.solver.cfr import ALGORITHMS, Solver, expected_value, exploitability
from games.solver.game import Chance, Decision, Game, Terminal
from games.solver.tree import FlatTree, TreeError, build

__all__ = [
    "ALGORITHMS",
    "Chance",
    "Decision",
    "FlatTree",
    "Game",
    "Solver",
    "Terminal",
    "TreeError",
    "build",
    "expected_value",
    "exploitability",
]
