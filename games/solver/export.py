"""What a solve produces, as plain data: the strategy by infoset key, and the JSON document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from games.solver.cfr import Solver
from games.solver.game import Game
from games.solver.tree import FlatTree

if TYPE_CHECKING:
    from games.solver.public import PublicSolver, PublicTree

ALGORITHM_NAMES = {"cfr": "CFR", "cfr+": "CFR+", "dcfr": "discounted CFR"}


def strategy_table(tree: FlatTree | PublicTree, sigma: np.ndarray) -> dict[str, dict[str, float]]:
    """``{infoset key: {action label: probability}}`` for every infoset of the tree (a
    public tree's keys are the history tree's)."""
    # by columns: a list per action, not one per information set (a million of them)
    columns = [sigma[:, a].tolist() for a in range(sigma.shape[1])]
    return {
        key: dict(zip(actions, row, strict=False))  # the row is padded to max_actions
        for key, actions, *row in zip(
            tree.infoset_keys, tree.infoset_actions, *columns, strict=True
        )
    }


def strategy_array(tree: FlatTree, table: dict[str, dict[str, float]]) -> np.ndarray:
    """The inverse of :func:`strategy_table`: a ``(n_infosets, max_actions)`` array. Infosets
    missing from ``table`` get the uniform strategy."""
    sigma = tree.uniform()
    for i, (key, actions) in enumerate(zip(tree.infoset_keys, tree.infoset_actions, strict=True)):
        row = table.get(key)
        if row is not None:
            sigma[i, : len(actions)] = [row[a] for a in actions]
    return sigma


def result_document(
    game: Game, solver: Solver | PublicSolver, infosets: bool = True
) -> dict[str, Any]:
    """The ``--json`` document: the issue's keys first, then the settings, the expectation of
    the game's extra figures (``Game.stat_names``), tree size, timings and the
    convergence record (iteration, exploitability). Without ``infosets``, ``infosets`` is
    left empty (a million keys are time and memory when only the figures are wanted)."""
    tree = solver.tree
    sigma = solver.average_strategy()
    v0 = solver.value()
    return {
        "game": game.name,
        "algorithm": solver.algorithm,
        "iterations": solver.iterations,
        "value": [v0, -v0],
        "exploitability": solver.exploitability(),
        "infosets": strategy_table(tree, sigma) if infosets else {},
        "settings": game.settings(),
        "expected": solver.expected_stats(),
        "tree": tree.sizes(),
        "build_seconds": tree.build_seconds,
        "train_seconds": solver.train_seconds,
        "convergence": [[i, e] for i, e in solver.convergence],
    }


def write_json(path: Path, document: dict[str, Any]) -> None:
    """Written as it is encoded (a million information sets are 70 MB of text: it is never
    all in memory at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        json.dump(document, out, indent=1)
        out.write("\n")
