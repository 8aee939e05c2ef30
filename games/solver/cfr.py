"""CFR, CFR+ and discounted CFR over a :class:`~games.solver.tree.FlatTree`, vectorised.

One iteration is, for each player in turn (alternating updates): regret matching for every
infoset at once, a forward pass over the depths computing both players' reach probabilities,
a backward pass computing player 0's expected value of every node, then the counterfactual
regrets of all that player's actions (one ``bincount`` over the slots) and the weighted
average strategy. No Python loop runs over nodes or infosets.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from games.solver.tree import FlatTree

ALGORITHMS = ("cfr", "cfr+", "dcfr")


def regret_matching(regret: np.ndarray, legal: np.ndarray, n_actions: np.ndarray) -> np.ndarray:
    """Each infoset's strategy in proportion to its positive regrets (uniform if none)."""
    positive = np.where(legal, np.maximum(regret, 0.0), 0.0)
    total = positive.sum(axis=1, keepdims=True)
    uniform = legal / np.maximum(n_actions, 1)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0.0, positive / total, uniform)


def normalise(strategy_sum: np.ndarray, legal: np.ndarray, n_actions: np.ndarray) -> np.ndarray:
    """Average strategy from the accumulated weights (uniform where nothing accumulated)."""
    total = strategy_sum.sum(axis=1, keepdims=True)
    uniform = legal / np.maximum(n_actions, 1)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0.0, strategy_sum / total, uniform)


def expected_value(tree: FlatTree, sigma: np.ndarray) -> float:
    """Player 0's expected payoff when both players follow ``sigma``."""
    return float(tree.backward(tree.edge_weights(sigma), tree.payoff)[0])


def expected_stats(tree: FlatTree, sigma: np.ndarray) -> dict[str, float]:
    """The expectation of each of the game's extra terminal figures under ``sigma``."""
    if tree.stats is None:
        return {}
    weights = tree.edge_weights(sigma)
    return {
        name: float(tree.backward(weights, row)[0])
        for name, row in zip(tree.stat_names, tree.stats, strict=True)
    }


def infoset_reach(tree: FlatTree, sigma: np.ndarray) -> np.ndarray:
    """Per infoset: the probability that chance and the *other* player lead play into it when
    both follow ``sigma`` (its counterfactual reach). An infoset with reach 0 is never met
    against that opponent, so its strategy there does not matter."""
    reach = tree.forward(tree.edge_factors(sigma))
    out = np.zeros(tree.n_infosets)
    for player in (0, 1):
        nodes = tree.decision_nodes[player]
        cf = reach[1 - player, nodes] * tree.chance_reach[nodes]
        out += np.bincount(tree.decision_infosets[player], weights=cf, minlength=tree.n_infosets)
    return out


def best_response_value(tree: FlatTree, sigma: np.ndarray, player: int) -> float:
    """What ``player`` wins at best against the other player's part of ``sigma``.

    Bottom-up over the depths: at each of ``player``'s infosets it picks the action with the
    highest counterfactual value (summed over the infoset's histories, weighted by the
    opponent's and chance's reach), so the response respects what the player can see.
    """
    opponent = 1 - player
    width = tree.max_actions
    f = tree.edge_factors(sigma)[opponent]  # 1 wherever the opponent did not choose
    reach_opp = tree.forward(f * tree.edge_prob)
    weight = np.where(tree.owner == opponent, f, tree.edge_prob)
    sign = 1.0 if player == 0 else -1.0
    value = sign * tree.payoff
    for d in range(tree.n_levels - 1, 0, -1):
        lo, hi = tree.levels[d]
        plo, phi = tree.levels[d - 1]
        w = weight[lo:hi]
        mine = tree.player_children[d][player]
        if mine.size:
            ilo, ihi = tree.level_infosets[d - 1]
            par = tree.parent[mine]
            q = np.bincount(
                tree.edge_slot[mine] - ilo * width,
                weights=reach_opp[par] * value[mine],
                minlength=(ihi - ilo) * width,
            ).reshape(ihi - ilo, width)
            q[~tree.legal[ilo:ihi]] = -np.inf
            best = np.argmax(q, axis=1)
            w = w.copy()
            w[mine - lo] = tree.slot_action[mine] == best[tree.node_infoset[par] - ilo]
        value[plo:phi] += np.bincount(
            tree.local_parent[d], weights=w * value[lo:hi], minlength=phi - plo
        )
    return float(value[0])


def exploitability(tree: FlatTree, sigma: np.ndarray) -> float:
    """Mean over the two players of what a best response wins against ``sigma`` (NashConv / 2,
    as OpenSpiel's ``exploitability``): 0 exactly at a Nash equilibrium."""
    return (best_response_value(tree, sigma, 0) + best_response_value(tree, sigma, 1)) / 2


def checkpoints(iterations: int, every: int | None = None) -> list[int]:
    """Iterations at which to measure exploitability: 1, 2, 5, 10, 20, 50, ... and the last
    (and every ``every``-th if given)."""
    marks = set(range(every, iterations + 1, every)) if every else set()
    step = 1
    while step <= iterations:
        for m in (1, 2, 5):
            if m * step <= iterations:
                marks.add(m * step)
        step *= 10
    marks.add(iterations)
    return sorted(marks)


class Training:
    """The training loop of a solver (:class:`Solver`, and the public tree's
    ``games.solver.public.PublicSolver``): the solver gives one ``iterate()`` and the
    ``exploitability()`` of its average strategy, and keeps ``iterations``,
    ``train_seconds`` and ``convergence``."""

    algorithm: str
    iterations: int
    train_seconds: float
    convergence: list[tuple[int, float]]

    def check_algorithm(self) -> None:
        """ValueError for an algorithm the solvers do not run."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"unknown algorithm {self.algorithm!r}: one of {', '.join(ALGORITHMS)}"
            )

    def iterate(self) -> None:
        raise NotImplementedError

    def exploitability(self) -> float:
        raise NotImplementedError

    def train(
        self,
        iterations: int,
        progress: Callable[[int], None] | None = None,
        record: bool = True,
        target: float | None = None,
        every: int | None = None,
    ) -> None:
        """Run ``iterations`` more iterations. With ``record``, measure the average strategy's
        exploitability at log-spaced iterations (1, 2, 5, 10, ...; the time this takes is not
        counted as training time), and also every ``every`` iterations if given. With
        ``target``, stop early once it is at most ``target`` (measured at those
        iterations)."""
        start = self.iterations
        marks = {start + m for m in checkpoints(iterations, every)}
        for _ in range(iterations):
            began = time.perf_counter()
            self.iterate()
            self.train_seconds += time.perf_counter() - began
            if progress is not None:
                progress(self.iterations - start)
            if (record or target is not None) and self.iterations in marks:
                e = self.exploitability()
                if record:
                    self.convergence.append((self.iterations, e))
                if target is not None and e <= target:
                    break


@dataclass
class Solver(Training):
    """Runs one regret-minimisation algorithm on a tree and keeps its state between calls."""

    tree: FlatTree
    algorithm: str = "cfr+"
    #: discounted CFR's parameters (Brown & Sandholm's recommended 3/2, 0, 2)
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    iterations: int = 0
    train_seconds: float = 0.0
    #: (iteration, exploitability of the average strategy) measured along the way
    convergence: list[tuple[int, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.check_algorithm()
        shape = (self.tree.n_infosets, self.tree.max_actions)
        self.regret = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)

    # ------------------------------------------------------------- strategies
    def current_strategy(self) -> np.ndarray:
        return regret_matching(self.regret, self.tree.legal, self.tree.n_actions)

    def average_strategy(self) -> np.ndarray:
        return normalise(self.strategy_sum, self.tree.legal, self.tree.n_actions)

    # --------------------------------------------------------------- training
    def iterate(self) -> None:
        """One iteration: both players update, player 0 first."""
        tree = self.tree
        t = self.iterations + 1
        size = tree.n_infosets * tree.max_actions
        for player in (0, 1):
            sigma = self.current_strategy()
            reach = tree.forward(tree.edge_factors(sigma))
            value = tree.backward(tree.edge_weights(sigma), tree.payoff)
            kids = tree.chosen_by[player]
            par = tree.chosen_parent[player]
            gain = np.take(value, kids) - np.take(value, par)
            if player == 1:
                gain = -gain
            cf_reach = np.take(reach[1 - player], par) * tree.chosen_parent_chance[player]
            instant = np.bincount(
                tree.chosen_slot[player], weights=cf_reach * gain, minlength=size
            ).reshape(tree.n_infosets, tree.max_actions)
            own = np.bincount(
                tree.decision_infosets[player],
                weights=np.take(reach[player], tree.decision_nodes[player]),
                minlength=tree.n_infosets,
            )
            rows = tree.player_rows[player]
            contribution = own[rows, None] * sigma[rows]
            if self.algorithm == "cfr":
                self.regret[rows] += instant[rows]
                self.strategy_sum[rows] += contribution
            elif self.algorithm == "cfr+":
                self.regret[rows] = np.maximum(self.regret[rows] + instant[rows], 0.0)
                self.strategy_sum[rows] += t * contribution
            else:  # dcfr
                r = self.regret[rows] + instant[rows]
                pos = t**self.alpha / (t**self.alpha + 1.0)
                neg = t**self.beta / (t**self.beta + 1.0)
                self.regret[rows] = np.where(r > 0.0, r * pos, r * neg)
                keep = (t / (t + 1.0)) ** self.gamma
                self.strategy_sum[rows] = self.strategy_sum[rows] * keep + contribution
        self.iterations = t

    # ---------------------------------------------------------------- results
    def value(self) -> float:
        return expected_value(self.tree, self.average_strategy())

    def exploitability(self) -> float:
        return exploitability(self.tree, self.average_strategy())

    def expected_stats(self) -> dict[str, float]:
        """The expectation of each of the game's extra terminal figures."""
        return expected_stats(self.tree, self.average_strategy())


def solve(tree: FlatTree, algorithm: str = "cfr+", iterations: int = 1000, **kwargs) -> Solver:
    solver = Solver(tree, algorithm)
    solver.train(iterations, **kwargs)
    return solver
