"""A game tree flattened into NumPy arrays, built once, without recursion.

The builder walks the game depth first with an explicit stack, then numbers the nodes by
depth, so each depth is one contiguous block of indices (``level_starts``), and numbers the
information sets by the depth of their histories, so the infosets of one depth are
contiguous too. Each infoset has a row of ``max_actions`` *slots* (one per action, padded),
and the edge from a decision node to its ``a``-th child uses slot
``infoset * max_actions + a``: strategies and regrets are ``(n_infosets, max_actions)`` arrays.
"""

from __future__ import annotations

import gc
import time
from array import array
from dataclasses import dataclass, field

import numpy as np

from games.solver.game import Chance, Decision, Game, Terminal

CHANCE = -1
TERMINAL = -2


class TreeError(ValueError):
    """The game breaks a rule of the interface (see :mod:`games.solver.game`)."""


@dataclass
class FlatTree:
    game_name: str
    #: per node: 0 or 1 (that player decides), CHANCE or TERMINAL
    kind: np.ndarray
    #: per node: its parent (-1 for the root)
    parent: np.ndarray
    #: per node: who chose the edge into it: 0, 1, or -1 (chance, or the root)
    owner: np.ndarray
    #: per node: the probability of the edge into it if chance chose it, else 1
    edge_prob: np.ndarray
    #: per node: the slot of the edge into it if a player chose it, else -1
    edge_slot: np.ndarray
    #: per node: its infoset if it is a decision node, else -1
    node_infoset: np.ndarray
    #: per node: player 0's payoff at a terminal; at a chance node, the part of its value
    #: that comes from its folded terminal outcomes; 0 at a decision node
    payoff: np.ndarray
    #: node indices where each depth starts, and one past the last node
    level_starts: np.ndarray
    #: per infoset
    infoset_keys: list[str]
    infoset_player: np.ndarray
    infoset_actions: list[tuple[str, ...]]
    infoset_depth: np.ndarray
    max_actions: int
    build_seconds: float = 0.0
    #: terminals reached straight from a chance node, folded into it (see ``build``)
    folded_terminals: int = 0
    #: the game's extra terminal figures (``Game.stat_names``), one row per name, laid out
    #: like ``payoff``
    stat_names: tuple[str, ...] = ()
    stats: np.ndarray | None = None
    #: derived index arrays, filled by ``_index``
    legal: np.ndarray = field(init=False, repr=False)
    n_actions: np.ndarray = field(init=False, repr=False)
    chance_reach: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._index()

    # ----------------------------------------------------------------- sizes
    @property
    def n_nodes(self) -> int:
        return int(self.kind.size)

    @property
    def n_infosets(self) -> int:
        return len(self.infoset_keys)

    @property
    def n_levels(self) -> int:
        return int(self.level_starts.size - 1)

    def sizes(self) -> dict[str, int]:
        return {
            "histories": self.n_nodes + self.folded_terminals,
            "decision_nodes": int(np.count_nonzero(self.kind >= 0)),
            "chance_nodes": int(np.count_nonzero(self.kind == CHANCE)),
            "terminals": int(np.count_nonzero(self.kind == TERMINAL)) + self.folded_terminals,
            "infosets": self.n_infosets,
            "stored_nodes": self.n_nodes,
        }

    # -------------------------------------------------------------- indexing
    def _index(self) -> None:
        width = self.max_actions
        self.n_actions = np.array([len(a) for a in self.infoset_actions], dtype=np.int64)
        self.legal = np.arange(width)[None, :] < self.n_actions[:, None]
        # per level: the children block, their parents as offsets into the level above
        self.levels: list[tuple[int, int]] = [
            (int(self.level_starts[d]), int(self.level_starts[d + 1])) for d in range(self.n_levels)
        ]
        self.local_parent: list[np.ndarray] = [np.empty(0, dtype=np.int64)]
        for d in range(1, self.n_levels):
            lo, hi = self.levels[d]
            self.local_parent.append(self.parent[lo:hi] - self.levels[d - 1][0])
        # per level and player: the children chosen by that player, and the slots they use
        self.player_children: list[list[np.ndarray]] = []
        for d in range(self.n_levels):
            lo, hi = self.levels[d]
            own = self.owner[lo:hi]
            self.player_children.append([np.flatnonzero(own == p) + lo for p in (0, 1)])
        self.level_parent = [self.parent[lo:hi].copy() for lo, hi in self.levels]
        self.slot0 = np.maximum(self.edge_slot, 0)
        self.by_player = np.stack([self.owner == 0, self.owner == 1])
        self.by_decision = self.edge_slot >= 0
        # every decision node of each player, and the infoset it is in
        self.decision_nodes = [np.flatnonzero(self.kind == p) for p in (0, 1)]
        self.decision_infosets = [self.node_infoset[nodes] for nodes in self.decision_nodes]
        # every node reached by an action of each player, and the rows of its infosets
        self.chosen_by = [np.flatnonzero(self.owner == p) for p in (0, 1)]
        self.player_rows = [np.flatnonzero(self.infoset_player == p) for p in (0, 1)]
        # per level: the infosets (contiguous) whose nodes sit at that depth
        self.level_infosets: list[tuple[int, int]] = []
        for d in range(self.n_levels):
            at = np.flatnonzero(self.infoset_depth == d)
            self.level_infosets.append((int(at[0]), int(at[-1]) + 1) if at.size else (0, 0))
        self.slot_action = np.where(self.edge_slot >= 0, self.edge_slot % max(width, 1), -1)
        # chance's contribution to the reach of every node never changes
        self.chance_reach = self.forward(self.edge_prob)
        self.chosen_parent = [self.parent[kids] for kids in self.chosen_by]
        self.chosen_slot = [self.edge_slot[kids] for kids in self.chosen_by]
        self.chosen_parent_chance = [self.chance_reach[par] for par in self.chosen_parent]

    def forward(self, factor: np.ndarray) -> np.ndarray:
        """Products of ``factor`` along the path from the root to every node (``factor`` may
        stack several rows of per-node factors: the last axis is the node)."""
        reach = np.empty_like(factor, dtype=np.float64)
        reach[..., 0] = factor[..., 0]
        for d in range(1, self.n_levels):
            lo, hi = self.levels[d]
            np.multiply(
                np.take(reach, self.level_parent[d], axis=-1),
                factor[..., lo:hi],
                out=reach[..., lo:hi],
            )
        return reach

    def backward(self, weight: np.ndarray, leaf: np.ndarray) -> np.ndarray:
        """Values bottom-up: a terminal is worth ``leaf``, any other node the sum over its
        children of ``weight[child] * value[child]``."""
        value = np.array(leaf, dtype=np.float64)
        for d in range(self.n_levels - 1, 0, -1):
            lo, hi = self.levels[d]
            plo, phi = self.levels[d - 1]
            value[plo:phi] += np.bincount(
                self.local_parent[d], weights=weight[lo:hi] * value[lo:hi], minlength=phi - plo
            )
        return value

    def edge_factors(self, sigma: np.ndarray) -> np.ndarray:
        """A ``(2, n_nodes)`` array: per node, the probability player 0's (row 0) and player
        1's (row 1) strategy gives to the edge into it (1 where the player did not choose)."""
        picked = np.take(sigma.reshape(-1), self.slot0)
        factors = np.ones((2, self.n_nodes))
        np.copyto(factors, picked, where=self.by_player)
        return factors

    def edge_weights(self, sigma: np.ndarray) -> np.ndarray:
        """Per node, the probability of the edge into it: the strategy's where a player chose,
        chance's where chance did."""
        picked = np.take(sigma.reshape(-1), self.slot0)
        return np.where(self.by_decision, picked, self.edge_prob)

    def uniform(self) -> np.ndarray:
        """The strategy that picks every legal action with equal probability."""
        return self.legal / np.maximum(self.n_actions, 1)[:, None]


def _stats_of(game: Game, spec: Terminal, n_stats: int) -> tuple[float, ...]:
    if spec.stats is None or len(spec.stats) != n_stats:
        raise TreeError(f"{game.name}: a terminal must give {n_stats} stats ({spec!r})")
    return spec.stats


def build(game: Game, max_nodes: int | None = None) -> FlatTree:
    """Walk the whole game and flatten it. ``max_nodes`` guards memory.

    Python's cyclic garbage collector is paused meanwhile: the walk makes millions of small
    tuples and array entries, and the collector would scan the live ones over and over
    (anything cyclic a game makes is collected once it is back on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(game, max_nodes)
    finally:
        if was_enabled:
            gc.enable()


def _build(game: Game, max_nodes: int | None) -> FlatTree:
    started = time.perf_counter()
    kind = array("b")
    parent = array("q")
    owner = array("b")
    edge_prob = array("d")
    edge_infoset = array("q")
    edge_action = array("b")
    node_infoset = array("q")
    payoff = array("d")
    depth_of = array("H")
    infoset_index: dict[str, int] = {}
    infoset_keys: list[str] = []
    infoset_player: list[int] = []
    infoset_actions: list[tuple[str, ...]] = []
    infoset_depth: list[int] = []
    node_of = game.node
    n_stats = len(game.stat_names)
    stats = array("d")
    zeros = (0.0,) * n_stats
    # the stats of terminals folded into chance nodes: added to those nodes at the end
    fold_parent = array("q")
    fold_prob = array("d")
    fold_stats = array("d")

    folded = 0
    # Depth first with an explicit stack (memory stays small: the stack holds one path and
    # its siblings), then the nodes are sorted by depth below. Each entry: (node spec,
    # parent, owner, probability, infoset of the parent, action index, depth).
    stack: list[tuple] = [(node_of(game.initial_state()), -1, -1, 1.0, -1, -1, 0)]
    push = stack.append
    pop = stack.pop
    while stack:
        spec, par, own, prob, par_inf, act, depth = pop()
        index = len(kind)
        parent.append(par)
        owner.append(own)
        edge_prob.append(prob)
        edge_infoset.append(par_inf)
        edge_action.append(act)
        depth_of.append(depth)
        if type(spec) is Terminal:
            kind.append(TERMINAL)
            node_infoset.append(-1)
            payoff.append(spec.payoff)
            if n_stats:
                stats.extend(_stats_of(game, spec, n_stats))
        elif type(spec) is Chance:
            # a terminal chance outcome is folded into its chance node: the node keeps
            # sum(probability * payoff) of those outcomes as a constant, and the terminal
            # is not stored (nothing about it depends on the strategies)
            kind.append(CHANCE)
            node_infoset.append(-1)
            total = 0.0
            constant = 0.0
            below = depth + 1
            for _label, p, child in reversed(spec.outcomes):
                total += p
                sub = node_of(child)
                if type(sub) is Terminal:
                    constant += p * sub.payoff
                    folded += 1
                    if n_stats:
                        fold_parent.append(index)
                        fold_prob.append(p)
                        fold_stats.extend(_stats_of(game, sub, n_stats))
                else:
                    push((sub, index, -1, p, -1, -1, below))
            payoff.append(constant)
            if n_stats:
                stats.extend(zeros)
            if abs(total - 1.0) > 1e-9:
                raise TreeError(f"{game.name}: chance probabilities add up to {total}")
        elif type(spec) is Decision:
            player = spec.player
            key = spec.infoset
            actions = spec.actions
            inf = infoset_index.get(key)
            if inf is None:
                inf = len(infoset_keys)
                infoset_index[key] = inf
                infoset_keys.append(key)
                infoset_player.append(player)
                infoset_actions.append(tuple(label for label, _ in actions))
                infoset_depth.append(depth)
                if not actions:
                    raise TreeError(f"{game.name}: infoset {key!r} has no actions")
            elif (
                infoset_player[inf] != player
                or len(infoset_actions[inf]) != len(actions)
                or infoset_depth[inf] != depth
            ):
                raise TreeError(
                    f"{game.name}: infoset {key!r} is not consistent (player, actions, or "
                    "depth differ between its histories)"
                )
            kind.append(player)
            node_infoset.append(inf)
            payoff.append(0.0)
            if n_stats:
                stats.extend(zeros)
            below = depth + 1
            for a in range(len(actions) - 1, -1, -1):
                push((node_of(actions[a][1]), index, player, 1.0, inf, a, below))
        else:
            raise TreeError(f"{game.name}: node() returned {spec!r}")
        if max_nodes is not None and index >= max_nodes:
            raise TreeError(f"{game.name}: more than {max_nodes} histories")

    # Renumber: nodes by depth (depth-first order within a depth), infosets by depth (order
    # of first meeting within a depth), so that each depth is one contiguous block of both.
    depths = np.frombuffer(depth_of, dtype=np.uint16)
    order = np.argsort(depths, kind="stable")
    new_index = np.empty(order.size, dtype=np.int64)
    new_index[order] = np.arange(order.size)
    old_parent = np.frombuffer(parent, dtype=np.int64)[order]
    new_parent = np.where(old_parent >= 0, new_index[np.maximum(old_parent, 0)], -1)
    inf_depth = np.array(infoset_depth, dtype=np.int64)
    inf_order = np.argsort(inf_depth, kind="stable")
    new_inf = np.empty(inf_order.size, dtype=np.int64)
    new_inf[inf_order] = np.arange(inf_order.size)

    def renumbered(infosets: np.ndarray) -> np.ndarray:
        return np.where(infosets >= 0, new_inf[np.maximum(infosets, 0)], -1)

    width = max((len(a) for a in infoset_actions), default=1)
    inf_arr = renumbered(np.frombuffer(edge_infoset, dtype=np.int64)[order])
    act_arr = np.frombuffer(edge_action, dtype=np.int8)[order].astype(np.int64)
    edge_slot = np.where(inf_arr >= 0, inf_arr * width + act_arr, -1)
    counts = np.bincount(depths, minlength=int(depths.max()) + 1)
    tree = FlatTree(
        game_name=game.name,
        kind=np.frombuffer(kind, dtype=np.int8)[order],
        parent=new_parent,
        owner=np.frombuffer(owner, dtype=np.int8)[order],
        edge_prob=np.frombuffer(edge_prob, dtype=np.float64)[order],
        edge_slot=edge_slot,
        node_infoset=renumbered(np.frombuffer(node_infoset, dtype=np.int64)[order]),
        payoff=np.frombuffer(payoff, dtype=np.float64)[order],
        level_starts=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        infoset_keys=[infoset_keys[i] for i in inf_order],
        infoset_player=np.array(infoset_player, dtype=np.int8)[inf_order],
        infoset_actions=[infoset_actions[i] for i in inf_order],
        infoset_depth=inf_depth[inf_order],
        max_actions=width,
    )
    tree.folded_terminals = folded
    if n_stats:
        tree.stat_names = tuple(game.stat_names)
        rows = np.frombuffer(stats, dtype=np.float64).reshape(-1, n_stats).T.copy()
        folded_rows = np.frombuffer(fold_stats, dtype=np.float64).reshape(-1, n_stats).T
        where = np.frombuffer(fold_parent, dtype=np.int64)
        prob = np.frombuffer(fold_prob, dtype=np.float64)
        for row, extra in zip(rows, folded_rows, strict=True):
            row += np.bincount(where, weights=prob * extra, minlength=row.size)
        tree.stats = rows[:, order]
    tree.build_seconds = time.perf_counter() - started
    return tree
