"""The public tree: CFR over what both players see, one vector of private types per node.

Many games hide only one thing from each player: a *type* dealt to it by chance at the start
(its cards), everything after that being seen by both (each action, and every later chance
outcome, whose probabilities do not depend on the types: an infinite deck). Such a game's
tree of histories is its *public tree* times every deal of the two types: Blackjack++ with
3 hits and up cards 6, 6, 2 has 32.6 million histories, 100 deals of the same public
histories. This module builds the public tree and runs CFR on it with, at every public node,
a vector of reach probabilities per type of each player (as the original Blackjack++ project
did, one strategy per down card), so the tree holds about a hundredth of the nodes.

**It is the same game, and the same CFR, not an approximation.** An information set of the
history tree is a player's type and what it has seen; here it is one (public decision node,
type) pair: no two public nodes give one player the same key (checked when the keys are
made). The counterfactual value of an information set's action is the sum, over its
histories, of chance's and the other player's reach times the action's expected payoff;
here it is one entry of a value vector (the other player's types are summed out at the
terminals, each weighted by its reach and chance's), computed bottom-up over the public
tree: the same sums, grouped otherwise. So the regrets, the strategies and every iterate of
CFR, CFR+ and discounted CFR are the history tree's, up to floating-point rounding, and so
are the best response and the exploitability (``tests/solver/test_public.py`` checks them,
and the keys and sizes, against :mod:`games.solver.tree` and :mod:`games.solver.cfr`).

Which types a node holds can depend on the types themselves (a Blackjack++ player who busts
is skipped, and only it knows at once): a :class:`PublicSplit` node sends each part of the
deals (a set of player 0's types times a set of player 1's) to its own child, which is then
that public history for those deals (a decision of one player, or the end). Reach vectors are
0 outside a node's types.

**Building it fast.** A game's public state leaves out the history (the history is written
by the tokens on the edges, :class:`PublicDecision` and :class:`PublicChance`), so equal
states have equal subtrees: the builder asks the game about each distinct state once (a few
thousand, against hundreds of thousands of public nodes and tens of millions of histories),
then unrolls that graph into the tree's arrays with NumPy, a depth at a time. Terminals
below a chance node or a split are folded into it, as :func:`games.solver.tree.build` folds
a chance node's: the node keeps one payoff matrix (their sum times their probabilities, zero
outside their parts), and they are counted, not stored.

A game opts in with ``Game.public_game()`` (:class:`PublicGame`); :func:`solver_for` solves
on the public tree where a game has one, on the history tree otherwise.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from games.solver.cfr import Solver, Training
from games.solver.game import Game
from games.solver.tree import TreeError, build

CHANCE = -1
TERMINAL = -2
SPLIT = -3

#: leaf values are computed in blocks of this many nodes (a block's payoff matrices are
#: gathered at once; the block bounds the memory that takes)
BLOCK = 4096


@dataclass(slots=True)
class PublicChance:
    """Chance picks one of ``outcomes`` (token, probability, next state), seen by both, with
    the same probabilities whatever the types. The token is what the outcome writes into the
    public history ("" for nothing)."""

    outcomes: Sequence[tuple[str, float, Any]]


@dataclass(slots=True)
class PublicDecision:
    """``player`` picks one of ``actions`` (label, token, next state); its information set
    for type ``t`` is ``PublicGame.infoset_key(player, t, history)``, the history being the
    tokens on the way here joined by ``PublicGame.separator``."""

    player: int
    actions: Sequence[tuple[str, str, Any]]


@dataclass(slots=True)
class PublicTerminal:
    """The game is over; ``outcome`` names the payoff matrix (``PublicGame.outcome``)."""

    outcome: Hashable


@dataclass(slots=True)
class PublicSplit:
    """The types decide what happens: each part is (bit mask of player 0's types, bit mask of
    player 1's types, next state). The parts must cover every deal that reaches the node
    once."""

    parts: Sequence[tuple[int, int, Any]]


PublicNode = PublicChance | PublicDecision | PublicTerminal | PublicSplit


class PublicGame(ABC):
    """A game in public-tree form. Its history tree (the :class:`~games.solver.game.Game`)
    must deal player 0's type, then player 1's, by chance before anything else: that is how
    :meth:`PublicTree.sizes` counts its histories. States must be hashable and leave out the
    history: ``public_node`` must give the same answer for equal states."""

    #: per player, the probability of each type (``prior[p][t]``)
    prior: tuple[Sequence[float], Sequence[float]]
    #: what joins the tokens of a public history
    separator: str = ","

    @abstractmethod
    def public_root(self) -> Hashable:
        """The public state once the types are dealt."""

    @abstractmethod
    def public_node(self, state: Any) -> PublicNode:
        """What happens at ``state``."""

    @abstractmethod
    def infoset_key(self, player: int, type_: int, history: str) -> str:
        """The history tree's information set key of ``player`` holding ``type_`` after the
        public ``history``."""

    @abstractmethod
    def outcome(self, outcome: Hashable) -> tuple[np.ndarray, np.ndarray | None]:
        """Player 0's payoff for every deal ``[t0, t1]`` at a terminal, and the game's extra
        figures (``Game.stat_names``), ``[stat, t0, t1]``, or None if it has none."""


def _bools(words: np.ndarray, n: int) -> np.ndarray:
    """Bit masks -> ``(len(words), n)`` booleans."""
    return ((words[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)


@dataclass
class PublicTree:
    """The public tree in arrays, nodes numbered breadth first: each depth is one block, and
    a node's children are consecutive, in the order of their parents."""

    game_name: str
    kind: np.ndarray  # 0/1 (that player decides), CHANCE, TERMINAL or SPLIT
    parent: np.ndarray
    edge_prob: np.ndarray  # chance's probability of the edge into the node (1 elsewhere)
    edge_mask: tuple[np.ndarray, np.ndarray]  # per player: (n_nodes, n_types) types let in
    reach_mask: tuple[np.ndarray, np.ndarray]  # per player: the types that reach the node
    level_starts: np.ndarray
    #: per node: the token its edge writes into the public history (index into ``tokens``,
    #: -1 for none)
    node_token: np.ndarray
    tokens: list[str]
    #: per player: the public decision nodes and their action labels
    decisions: tuple[np.ndarray, np.ndarray]
    decision_actions: tuple[list[tuple[str, ...]], list[tuple[str, ...]]]
    #: the nodes worth a payoff matrix (terminals, and the nodes terminals were folded
    #: into) and the row of their matrix in ``payoffs``
    leaf_nodes: np.ndarray
    leaf_row: np.ndarray
    payoffs: np.ndarray  # (n_matrices, n0, n1): player 0's payoff
    #: the matrices of the game's extra figures, ``stat_matrices(i)`` like ``payoffs``
    stat_matrices: Callable[[int], np.ndarray] | None
    prior: tuple[np.ndarray, np.ndarray]
    public: PublicGame = field(repr=False)
    stat_names: tuple[str, ...] = ()
    #: histories of the terminals folded into their parents (counted, not stored)
    folded_histories: int = 0
    #: distinct states the game was asked about
    states: int = 0
    build_seconds: float = 0.0
    max_actions: int = field(init=False)

    def __post_init__(self) -> None:
        self.max_actions = max((len(a) for acts in self.decision_actions for a in acts), default=1)
        self._index()

    @property
    def n_nodes(self) -> int:
        return int(self.kind.size)

    def _index(self) -> None:
        """Per depth: where each parent's children start (for sums and maxima over them);
        per player: each decision's children by action; chance's reach of every node."""
        self.levels = [
            (int(self.level_starts[d]), int(self.level_starts[d + 1]))
            for d in range(self.level_starts.size - 1)
        ]
        self.groups: list[tuple[np.ndarray, np.ndarray]] = [(np.empty(0), np.empty(0))]
        for lo, hi in self.levels[1:]:
            par = self.parent[lo:hi]
            starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
            self.groups.append((starts, par[starts]))
        # per depth: each (node, type)'s (parent, type) as an offset into the depth above (a
        # sum over children is then one bincount), per number of types
        self._flat_parent: dict[int, list[np.ndarray]] = {}
        for n_types in {mask.shape[1] for mask in self.reach_mask}:
            flat = self._flat_parent[n_types] = [np.empty(0, dtype=np.int64)]
            for d in range(1, len(self.levels)):
                lo, hi = self.levels[d]
                local = self.parent[lo:hi] - self.levels[d - 1][0]
                flat.append((local[:, None] * n_types + np.arange(n_types)[None, :]).ravel())
        width = self.max_actions
        first_child = np.full(self.n_nodes, -1, dtype=np.int64)
        for (lo, _hi), (starts, parents) in zip(self.levels[1:], self.groups[1:], strict=True):
            first_child[parents] = starts + lo
        self.children: list[np.ndarray] = []
        for p in (0, 1):
            dec = self.decisions[p]
            counts = np.array([len(a) for a in self.decision_actions[p]], dtype=np.int64)
            kids = first_child[dec][:, None] + np.arange(width)[None, :]
            legal = np.arange(width)[None, :] < counts.reshape(-1, 1)
            self.children.append(np.where(legal, kids, -1))
        self.legal = [kids >= 0 for kids in self.children]
        #: per player and action: the decisions that have it (None for all) and its children
        self.by_action: list[list[tuple[np.ndarray | None, np.ndarray]]] = []
        for kids, legal in zip(self.children, self.legal, strict=True):
            per_action = []
            for a in range(width):
                rows = None if legal[:, a].all() else np.flatnonzero(legal[:, a])
                per_action.append((rows, kids[:, a] if rows is None else kids[rows, a]))
            self.by_action.append(per_action)
        reach = self.edge_prob.copy()
        for d in range(1, len(self.levels)):
            lo, hi = self.levels[d]
            reach[lo:hi] *= reach[self.parent[lo:hi]]
        self.chance_reach = reach
        self._leaf_chance = reach[self.leaf_nodes, None]

    # -------------------------------------------------------- the history tree's terms
    def sizes(self) -> dict[str, int]:
        """The history tree's sizes (every deal of the types at every public node, the
        folded terminals, and the chance nodes dealing the types), and ``stored_nodes``: the
        public nodes held here."""
        per_node = self.reach_mask[0].sum(axis=1) * self.reach_mask[1].sum(axis=1)
        dealing = 1 + self.reach_mask[0].shape[1]

        def count(kinds: np.ndarray) -> int:
            return int(per_node[kinds].sum())

        decision = count(self.kind >= 0)
        chance = count(self.kind == CHANCE) + dealing
        terminal = count(self.kind == TERMINAL) + self.folded_histories
        return {
            "histories": decision + chance + terminal,
            "decision_nodes": decision,
            "chance_nodes": chance,
            "terminals": terminal,
            "infosets": self.n_infosets,
            "stored_nodes": self.n_nodes,
        }

    @cached_property
    def infoset_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Player 0's information sets, then player 1's: (player, decision row, type) of
        every type that reaches a decision, in that order."""
        players, rows, types = [], [], []
        for p in (0, 1):
            r, t = np.nonzero(self.reach_mask[p][self.decisions[p]])
            players.append(np.full(r.size, p))
            rows.append(r)
            types.append(t)
        return np.concatenate(players), np.stack([np.concatenate(rows), np.concatenate(types)])

    @property
    def n_infosets(self) -> int:
        return int(self.infoset_rows[0].size)

    def histories(self, nodes: np.ndarray) -> list[str]:
        """The public history of each of ``nodes``: its edges' tokens, joined."""
        sep = self.public.separator
        text = [""] * self.n_nodes
        parent = self.parent.tolist()
        token = self.node_token.tolist()
        tokens = self.tokens
        for n in range(1, self.n_nodes):
            above = text[parent[n]]
            t = token[n]
            text[n] = above if t < 0 else (above + sep + tokens[t] if above else tokens[t])
        return [text[n] for n in nodes.tolist()]

    @cached_property
    def infoset_keys(self) -> list[str]:
        """The history tree's key of every information set (``infoset_rows``' order).
        TreeError if two public decisions give one player the same key."""
        key_of = self.public.infoset_key
        players, (rows, types) = self.infoset_rows
        names = [self.histories(self.decisions[p]) for p in (0, 1)]
        for p in (0, 1):
            if len(set(names[p])) != len(names[p]):
                raise TreeError(
                    f"{self.game_name}: player {p} decides at two public nodes of one history"
                )
        return [
            key_of(p, t, names[p][r])
            for p, r, t in zip(players.tolist(), rows.tolist(), types.tolist(), strict=True)
        ]

    @cached_property
    def infoset_actions(self) -> list[tuple[str, ...]]:
        players, (rows, _types) = self.infoset_rows
        acts = self.decision_actions
        return [acts[p][r] for p, r in zip(players.tolist(), rows.tolist(), strict=True)]

    def flatten(self, per_player: Sequence[np.ndarray]) -> np.ndarray:
        """Per-player strategies, ``(actions, decisions, types)`` arrays, as one
        ``(n_infosets, max_actions)`` array in ``infoset_keys``' order (what
        ``strategy_table`` reads)."""
        players, (rows, types) = self.infoset_rows
        out = np.zeros((players.size, self.max_actions))
        for p in (0, 1):
            at = players == p
            out[at] = per_player[p][:, rows[at], types[at]].T
        return out

    def unflatten(self, sigma: np.ndarray) -> list[np.ndarray]:
        """The inverse of :meth:`flatten`: types that reach no decision get uniform rows."""
        players, (rows, types) = self.infoset_rows
        out = [self.uniform(p) for p in (0, 1)]
        for p in (0, 1):
            at = players == p
            out[p][:, rows[at], types[at]] = sigma[at].T
        return out

    def uniform(self, player: int) -> np.ndarray:
        """Every legal action equally likely, ``(actions, decisions, types)``."""
        legal = self.legal[player].T[:, :, None]
        n_types = self.reach_mask[player].shape[1]
        count = np.maximum(legal.sum(axis=0, keepdims=True), 1)
        return np.broadcast_to(legal / count, (*legal.shape[:2], n_types)).copy()

    def strategy_from_table(self, table: dict[str, dict[str, float]]) -> list[np.ndarray]:
        """Per-player strategies from ``{history tree key: {action: probability}}`` (a
        solve's ``infosets``); keys it lacks get the uniform strategy."""
        sigma = np.zeros((self.n_infosets, self.max_actions))
        for i, (key, actions) in enumerate(
            zip(self.infoset_keys, self.infoset_actions, strict=True)
        ):
            row = table.get(key)
            sigma[i, : len(actions)] = (
                [row[a] for a in actions] if row is not None else 1 / len(actions)
            )
        return self.unflatten(sigma)

    # ----------------------------------------------------------------- passes
    def edge_factors(self, player: int, sigma: np.ndarray) -> np.ndarray:
        """Per node and type of ``player``: the types let in by the edge into the node, times
        the probability ``sigma`` (``(actions, decisions, types)``) gives that edge where
        ``player`` chose it."""
        f = self.edge_mask[player].astype(np.float64)
        for a, (rows, kids) in enumerate(self.by_action[player]):
            f[kids] *= sigma[a] if rows is None else sigma[a][rows]
        return f

    def forward(self, player: int, factor: np.ndarray) -> np.ndarray:
        """Reach of each type of ``player`` at every node: its prior times the factors on the
        path."""
        reach = np.empty_like(factor)
        reach[0] = self.prior[player] * factor[0]
        for d in range(1, len(self.levels)):
            lo, hi = self.levels[d]
            np.multiply(np.take(reach, self.parent[lo:hi], axis=0), factor[lo:hi], out=reach[lo:hi])
        return reach

    def leaf_values(self, player: int, other_reach: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Per leaf node (``leaf_nodes``) and type of ``player``: its payoff matrix summed
        over the other player's types weighted by their reach, times chance's reach and its
        own type's prior (so the values are the history tree's counterfactual values).
        ``rows`` is ``payoffs`` or a figure's ``stat_matrices`` (player 0's, as the
        payoff)."""
        nodes = self.leaf_nodes
        out = np.empty((nodes.size, self.reach_mask[player].shape[1]))
        spec = "zij,zj->zi" if player == 0 else "zij,zi->zj"
        # player 1's payoff is minus player 0's
        prior = (self.prior[player] if player == 0 else -self.prior[player])[None, :]
        chance = self._leaf_chance
        for start in range(0, nodes.size, BLOCK):
            stop = start + BLOCK
            mats = np.take(rows, self.leaf_row[start:stop], axis=0)
            reach = np.take(other_reach, nodes[start:stop], axis=0)
            block = out[start:stop]
            np.einsum(spec, mats, reach, out=block)
            block *= chance[start:stop]
            block *= prior
        return out

    def backward(
        self, player: int, weight: np.ndarray, leaves: np.ndarray, best: bool = False
    ) -> np.ndarray:
        """Values of ``player``'s types bottom-up: a leaf node is worth ``leaves`` plus, like
        any other node, the sum of its children's values times ``weight`` (the types let in,
        and its own strategy). With ``best``, a decision of ``player`` is worth the most of
        its actions' values instead (a best response, type by type)."""
        value = np.zeros_like(weight)
        value[self.leaf_nodes] = leaves
        width = weight.shape[1]
        for d in range(len(self.levels) - 1, 0, -1):
            lo, hi = self.levels[d]
            starts, parents = self.groups[d]
            if best:
                w = weight[lo:hi].copy()
                w[self.kind[self.parent[lo:hi]] == player] = 1.0
                sums = np.add.reduceat(w * value[lo:hi], starts, axis=0)
                mine = self.kind[parents] == player
                if mine.any():
                    sums[mine] = np.maximum.reduceat(value[lo:hi], starts, axis=0)[mine]
                value[parents] += sums
            else:
                plo, phi = self.levels[d - 1]
                sums = np.bincount(
                    self._flat_parent[width][d],
                    weights=(weight[lo:hi] * value[lo:hi]).ravel(),
                    minlength=(phi - plo) * width,
                )
                value[plo:phi] += sums.reshape(phi - plo, width)
        return value


def build_public(game: PublicGame, name: str = "", stat_names: tuple[str, ...] = ()) -> PublicTree:
    """Build the public tree of ``game`` (TreeError if the game breaks a rule: chance
    probabilities, parts that do not cover a split's deals once, a decision without actions,
    an outcome without its stats)."""
    started = time.perf_counter()
    graph = _Graph(game, name, stat_names)
    graph.walk()
    tree = graph.unroll()
    tree.build_seconds = time.perf_counter() - started
    return tree


class _LeafMatrices:
    """Each leaf's matrix: the sum of its parts' outcome matrices (the payoff, or one of the
    game's extra figures) times their probabilities, zero outside their masks. The payoffs'
    are made with the tree; a figure's when asked for (once, at the end of a solve)."""

    def __init__(
        self,
        leaf_parts: list[tuple],
        outcomes: list[tuple[np.ndarray, np.ndarray | None]],
        n_types: tuple[int, int],
    ) -> None:
        self.leaf_parts = leaf_parts
        self.outcomes = outcomes
        self.n_types = n_types

    def __call__(self, stat: int | None = None) -> np.ndarray:
        """The payoff matrices, or those of figure ``stat`` (in blocks of leaves, to bound
        the memory this takes)."""
        n0, n1 = self.n_types
        out = np.zeros((len(self.leaf_parts), n0, n1))
        if not self.outcomes:
            return out
        rows = np.stack(
            [pay if stat is None else figures[stat] for pay, figures in self.outcomes]  # type: ignore[index]
        )
        for lo in range(0, len(self.leaf_parts), BLOCK):
            block = self.leaf_parts[lo : lo + BLOCK]
            sizes = np.array([len(parts) for parts in block], dtype=np.int64)
            flat = [part for parts in block for part in parts]
            row, prob, m0, m1 = (np.array(column) for column in zip(*flat, strict=True))
            weight = (
                _bools(m0.astype(np.int64), n0)[:, :, None]
                & _bools(m1.astype(np.int64), n1)[:, None, :]
            ) * prob[:, None, None]
            starts = np.cumsum(sizes) - sizes
            out[lo : lo + len(block)] = np.add.reduceat(weight * rows[row], starts, axis=0)
        return out


class _Graph:
    """The distinct (state, types held) of a game's public tree and their edges: a node per
    state, however many histories lead to it."""

    def __init__(self, game: PublicGame, name: str, stat_names: tuple[str, ...]) -> None:
        self.game = game
        self.name = name
        self.stat_names = stat_names
        self.n_types = (len(game.prior[0]), len(game.prior[1]))
        self.full = ((1 << self.n_types[0]) - 1, (1 << self.n_types[1]) - 1)
        #: (state, types held) -> its graph node, or a terminal's (outcome row, masks)
        self.index: dict[tuple, int | tuple[int, int, int]] = {}
        self.pending: list[tuple[int, PublicNode, tuple | None]] = []
        # per graph node
        self.kind: list[int] = []
        self.held: tuple[list[int], list[int]] = ([], [])
        self.first: list[int] = []
        self.count: list[int] = []
        self.actions: list[tuple[str, ...]] = []
        self.leaf: list[int] = []
        self.folded: list[int] = []
        # per graph edge (a node's edges are consecutive)
        self.edge_child: list[int] = []
        self.edge_prob: list[float] = []
        self.edge_in: tuple[list[int], list[int]] = ([], [])
        self.edge_token: list[int] = []
        self.token_index: dict[str, int] = {}
        self.tokens: list[str] = []
        # payoff matrices: each outcome the game names, and each leaf's sum of them
        self.outcome_row: dict[Hashable, int] = {}
        self.outcomes: list[tuple[np.ndarray, np.ndarray | None]] = []
        self.leaf_index: dict[tuple, int] = {}
        self.leaf_parts: list[tuple] = []

    # ------------------------------------------------------------------ walking
    def resolve(self, state: Any, held0: int, held1: int) -> tuple[PublicNode, tuple | None]:
        """The node at ``state`` for the deals held; a split whose one part holds them all
        is no split (the part's node is returned). With a split, its parts (masks narrowed
        to the deals held, empty ones dropped)."""
        spec = self.game.public_node(state)
        while type(spec) is PublicSplit:
            parts = tuple(
                (m0 & held0, m1 & held1, s) for m0, m1, s in spec.parts if m0 & held0 and m1 & held1
            )
            if sum((m0.bit_count() * m1.bit_count() for m0, m1, _ in parts)) != (
                held0.bit_count() * held1.bit_count()
            ):
                raise TreeError(f"{self.name}: a split's parts do not cover its deals once")
            if len(parts) != 1 or parts[0][0] != held0 or parts[0][1] != held1:
                return spec, parts
            spec = self.game.public_node(parts[0][2])
        return spec, None

    def node(self, state: Any, held0: int, held1: int) -> int | tuple[int, int, int]:
        """The graph node of ``state`` for the deals held, or, if it is a terminal, its
        outcome row and the masks (to be folded into its parent)."""
        key = (state, held0, held1)
        found = self.index.get(key)
        if found is not None:
            return found
        spec, parts = self.resolve(state, held0, held1)
        if type(spec) is PublicTerminal:
            found = self.index[key] = (self.outcome(spec.outcome), held0, held1)
            return found
        number = self.index[key] = len(self.kind)
        self.kind.append(0)
        self.held[0].append(held0)
        self.held[1].append(held1)
        self.pending.append((number, spec, parts))
        return number

    def token(self, text: str) -> int:
        if not text:
            return -1
        found = self.token_index.get(text)
        if found is None:
            found = self.token_index[text] = len(self.tokens)
            self.tokens.append(text)
        return found

    def outcome(self, outcome: Hashable) -> int:
        row = self.outcome_row.get(outcome)
        if row is None:
            pay, figures = self.game.outcome(outcome)
            if np.shape(pay) != self.n_types:
                raise TreeError(
                    f"{self.name}: outcome {outcome!r} gives a {np.shape(pay)} payoff matrix, "
                    f"not {self.n_types} (player 0's types by player 1's)"
                )
            if self.stat_names and (figures is None or len(figures) != len(self.stat_names)):
                raise TreeError(f"{self.name}: an outcome must give {len(self.stat_names)} stats")
            row = self.outcome_row[outcome] = len(self.outcomes)
            self.outcomes.append(
                (
                    np.asarray(pay, dtype=np.float64),
                    np.asarray(figures, dtype=np.float64) if self.stat_names else None,
                )
            )
        return row

    def walk(self) -> None:
        full0, full1 = self.full
        root = self.game.public_root()
        spec, parts = self.resolve(root, full0, full1)
        if type(spec) is PublicTerminal:
            raise TreeError(f"{self.name}: the game ends before anyone acts")
        self.index[(root, full0, full1)] = 0
        self.kind.append(0)
        self.held[0].append(full0)
        self.held[1].append(full1)
        self.pending.append((0, spec, parts))
        expanded: dict[int, tuple] = {}
        while self.pending:
            number, spec, parts = self.pending.pop()
            if spec is None:  # a terminal a player's action leads to
                expanded[number] = (TERMINAL, [], (), list(parts), 0)
            else:
                expanded[number] = self._expand(number, spec, parts)
        # a node's edges are consecutive
        size = len(self.kind)
        self.first = [0] * size
        self.count = [0] * size
        self.actions = [()] * size
        self.leaf = [-1] * size
        self.folded = [0] * size
        for number in range(size):
            kind, edges, actions, folded, histories = expanded[number]
            if kind == CHANCE:
                # a split below chance is worth its terminals' matrix times the other
                # player's reach, which is the chance node's: its terminals are folded into
                # the chance node (times the outcome's probability), one matrix fewer to apply
                folded = folded + [
                    (row, prob * p, m0, m1)
                    for child, prob, *_ in edges
                    if expanded[child][0] == SPLIT
                    for row, p, m0, m1 in expanded[child][3]
                ]
            self.kind[number] = kind
            self.first[number] = len(self.edge_child)
            self.count[number] = len(edges)
            self.actions[number] = actions
            self.folded[number] = histories
            if folded:
                self.leaf[number] = self.leaf_row(folded)
            for child, prob, in0, in1, token in edges:
                self.edge_child.append(child)
                self.edge_prob.append(prob)
                self.edge_in[0].append(in0)
                self.edge_in[1].append(in1)
                self.edge_token.append(token)

    def _expand(self, number: int, spec: PublicNode, parts: tuple | None) -> tuple:
        """(kind, edges (child, probability, masks let in, token), action labels, folded
        terminals (outcome row, probability, masks), their histories)."""
        held0, held1 = self.held[0][number], self.held[1][number]
        full0, full1 = self.full
        edges: list[tuple] = []
        folded: list[tuple] = []
        kind = type(spec)
        if kind is PublicChance:
            total = 0.0
            for token, p, state in spec.outcomes:
                total += p
                child = self.node(state, held0, held1)
                if type(child) is tuple:
                    folded.append((child[0], p, held0, held1))
                else:
                    edges.append((child, p, full0, full1, self.token(token)))
            if abs(total - 1.0) > 1e-9:
                raise TreeError(f"{self.name}: chance probabilities add up to {total}")
            code, actions = CHANCE, ()
        elif kind is PublicSplit:
            assert parts is not None
            for m0, m1, state in parts:
                child = self.node(state, m0, m1)
                if type(child) is tuple:
                    folded.append((child[0], 1.0, m0, m1))
                else:
                    edges.append((child, 1.0, m0, m1, -1))
            code, actions = SPLIT, ()
        elif kind is PublicDecision:
            if not spec.actions:
                raise TreeError(f"{self.name}: a decision of player {spec.player} has no actions")
            for _label, token, state in spec.actions:
                child = self.node(state, held0, held1)
                if type(child) is tuple:  # a terminal chosen by a player is stored
                    child = self._terminal(child)
                edges.append((child, 1.0, full0, full1, self.token(token)))
            code, actions = spec.player, tuple(label for label, _t, _s in spec.actions)
        else:
            raise TreeError(f"{self.name}: public_node() returned {spec!r}")
        histories = sum(p[2].bit_count() * p[3].bit_count() for p in folded)
        return code, edges, actions, folded, histories

    def _terminal(self, found: tuple[int, int, int]) -> int:
        """A graph node for a terminal a player's action leads to."""
        row, held0, held1 = found
        key = (("terminal", row), held0, held1)
        number = self.index.get(key)
        if number is None:
            number = self.index[key] = len(self.kind)
            self.kind.append(TERMINAL)
            self.held[0].append(held0)
            self.held[1].append(held1)
            self.pending.append((number, None, ((row, 1.0, held0, held1),)))
        return number

    def leaf_row(self, parts: list[tuple[int, float, int, int]] | tuple) -> int:
        key = tuple(parts)
        row = self.leaf_index.get(key)
        if row is None:
            row = self.leaf_index[key] = len(self.leaf_parts)
            self.leaf_parts.append(key)
        return row

    # ---------------------------------------------------------------- unrolling
    def unroll(self) -> PublicTree:
        """The tree: every path through the graph, a depth at a time."""
        n0, n1 = self.n_types
        kind = np.array(self.kind, dtype=np.int8)
        first = np.array(self.first, dtype=np.int64)
        count = np.array(self.count, dtype=np.int64)
        edge_child = np.array(self.edge_child, dtype=np.int64)
        edge_prob = np.array(self.edge_prob, dtype=np.float64)
        edge_in = [np.array(m, dtype=np.int64) for m in self.edge_in]
        edge_token = np.array(self.edge_token, dtype=np.int64)
        full = np.array(self.full, dtype=np.int64)
        ids = [np.zeros(1, dtype=np.int64)]
        parents = [np.full(1, -1, dtype=np.int64)]
        edges = [np.full(1, -1, dtype=np.int64)]
        start = 0
        while True:
            level = ids[-1]
            counts = count[level]
            total = int(counts.sum())
            if not total:
                break
            if len(ids) > len(self.kind):  # deeper than there are states: a state repeats
                raise TreeError(f"{self.name}: a public state is its own descendant")
            offsets = np.cumsum(counts) - counts
            edge = np.arange(total) - np.repeat(offsets - first[level], counts)
            parents.append(np.repeat(np.arange(start, start + level.size), counts))
            start += level.size
            ids.append(edge_child[edge])
            edges.append(edge)
        node = np.concatenate(ids)
        edge = np.concatenate(edges)
        has_edge = edge >= 0
        at = np.maximum(edge, 0)
        held = [np.array(h, dtype=np.int64)[node] for h in self.held]
        edge_mask = [np.where(has_edge, edge_in[p][at], full[p]) for p in (0, 1)]
        leaf = np.array(self.leaf, dtype=np.int64)[node]
        tree_kind = kind[node]
        parent = np.concatenate(parents)
        # a split's terminals below a chance node are in the chance node's matrix (walk)
        below_chance = np.r_[False, tree_kind[parent[1:]] == CHANCE]
        leaf[below_chance & (tree_kind == SPLIT)] = -1
        leaf_nodes = np.flatnonzero(leaf >= 0)
        decisions = tuple(np.flatnonzero(kind[node] == p) for p in (0, 1))
        matrices = _LeafMatrices(self.leaf_parts, self.outcomes, self.n_types)
        game = self.game
        return PublicTree(
            game_name=self.name,
            kind=tree_kind,
            parent=parent,
            edge_prob=np.where(has_edge, edge_prob[at], 1.0),
            edge_mask=(_bools(edge_mask[0], n0), _bools(edge_mask[1], n1)),
            reach_mask=(_bools(held[0], n0), _bools(held[1], n1)),
            level_starts=np.cumsum([0] + [a.size for a in ids]).astype(np.int64),
            node_token=np.where(has_edge, edge_token[at], -1),
            tokens=list(self.tokens),
            decisions=decisions,  # type: ignore[arg-type]
            decision_actions=tuple(
                [self.actions[i] for i in node[dec].tolist()] for dec in decisions
            ),  # type: ignore[arg-type]
            leaf_nodes=leaf_nodes,
            leaf_row=leaf[leaf_nodes],
            payoffs=matrices(),
            stat_matrices=matrices if self.stat_names else None,
            prior=(np.asarray(game.prior[0], dtype=float), np.asarray(game.prior[1], dtype=float)),
            public=game,
            stat_names=tuple(self.stat_names),
            folded_histories=int(np.array(self.folded, dtype=np.int64)[node].sum()),
            states=len(self.kind),
        )


def _normalise(weights: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Each information set's strategy in proportion to ``weights`` (``(actions, decisions,
    types)``, 0 for illegal actions), ``uniform`` where they add up to 0."""
    total = weights[0].copy()
    for row in weights[1:]:
        total += row
    out = uniform.copy()
    np.divide(weights, total, out=out, where=total > 0.0)
    return out


def _regret_matching(regret: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Each information set's strategy in proportion to its positive regrets (``uniform``
    where none is positive). Illegal actions' regrets stay 0."""
    return _normalise(np.maximum(regret, 0.0), uniform)


def value_of(
    tree: PublicTree, sigma: Sequence[np.ndarray], rows: np.ndarray | None = None
) -> float:
    """Player 0's expected payoff (or figure ``rows``) when both follow ``sigma``."""
    f0 = tree.edge_factors(0, sigma[0])
    reach1 = tree.forward(1, tree.edge_factors(1, sigma[1]))
    leaves = tree.leaf_values(0, reach1, tree.payoffs if rows is None else rows)
    return float(tree.backward(0, f0, leaves)[0].sum())


def best_response_value(tree: PublicTree, sigma: Sequence[np.ndarray], player: int) -> float:
    """What ``player`` wins at best against the other player's part of ``sigma``: at each of
    its decisions, each of its types takes the action worth most (its information set is
    that decision and that type, so the response sees what the player sees)."""
    other = 1 - player
    reach = tree.forward(other, tree.edge_factors(other, sigma[other]))
    leaves = tree.leaf_values(player, reach, tree.payoffs)
    weight = tree.edge_mask[player].astype(np.float64)
    return float(tree.backward(player, weight, leaves, best=True)[0].sum())


def exploitability(tree: PublicTree, sigma: Sequence[np.ndarray]) -> float:
    """NashConv / 2, as :func:`games.solver.cfr.exploitability` (the same figure)."""
    return (best_response_value(tree, sigma, 0) + best_response_value(tree, sigma, 1)) / 2


@dataclass
class PublicSolver(Training):
    """CFR, CFR+ or discounted CFR on a public tree, alternating updates (player 0 first):
    the same iterates as :class:`games.solver.cfr.Solver` on the history tree, and the same
    interface (``average_strategy()`` is one row per ``tree.infoset_keys``)."""

    tree: PublicTree
    algorithm: str = "cfr+"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    iterations: int = 0
    train_seconds: float = 0.0
    convergence: list[tuple[int, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.check_algorithm()
        tree = self.tree
        self._uniform = [tree.uniform(p) for p in (0, 1)]
        self.regret = [np.zeros_like(u) for u in self._uniform]
        self.strategy_sum = [np.zeros_like(u) for u in self._uniform]
        self._current = [u.copy() for u in self._uniform]

    def current(self) -> list[np.ndarray]:
        """Regret matching's strategies (kept up to date as the regrets change)."""
        return self._current

    def average(self) -> list[np.ndarray]:
        return [_normalise(self.strategy_sum[p], self._uniform[p]) for p in (0, 1)]

    def average_strategy(self) -> np.ndarray:
        return self.tree.flatten(self.average())

    def iterate(self) -> None:
        """One iteration, player 0's update then player 1's (each against the other's
        current strategy, player 1 against player 0's updated one)."""
        tree = self.tree
        t = self.iterations + 1
        sigma = self._current
        factor = [tree.edge_factors(p, sigma[p]) for p in (0, 1)]
        reach = [tree.forward(p, factor[p]) for p in (0, 1)]
        for player in (0, 1):
            other = 1 - player
            if player == 1:  # player 0's strategy changed
                factor[0] = tree.edge_factors(0, sigma[0])
                reach[0] = tree.forward(0, factor[0])
            leaves = tree.leaf_values(player, reach[other], tree.payoffs)
            value = tree.backward(player, factor[player], leaves)
            dec = tree.decisions[player]
            here = value[dec]
            # (actions, decisions, types): each action's value minus the decision's
            instant = np.zeros_like(sigma[player])
            for a, (rows, kids) in enumerate(tree.by_action[player]):
                if rows is None:
                    np.subtract(value[kids], here, out=instant[a])
                else:
                    instant[a][rows] = value[kids] - here[rows]
            contribution = reach[player][dec][None, :, :] * sigma[player]
            regret = self.regret[player]
            if self.algorithm == "cfr":
                regret += instant
                self.strategy_sum[player] += contribution
            elif self.algorithm == "cfr+":
                np.maximum(regret + instant, 0.0, out=regret)
                contribution *= t
                self.strategy_sum[player] += contribution
            else:  # dcfr
                r = regret + instant
                pos = t**self.alpha / (t**self.alpha + 1.0)
                neg = t**self.beta / (t**self.beta + 1.0)
                self.regret[player] = np.where(r > 0.0, r * pos, r * neg)
                keep = (t / (t + 1.0)) ** self.gamma
                self.strategy_sum[player] = self.strategy_sum[player] * keep + contribution
            sigma[player] = _regret_matching(self.regret[player], self._uniform[player])
        self.iterations = t

    def value(self) -> float:
        return value_of(self.tree, self.average())

    def exploitability(self) -> float:
        return exploitability(self.tree, self.average())

    def expected_stats(self) -> dict[str, float]:
        """The expectation of each of the game's extra terminal figures."""
        tree = self.tree
        if tree.stat_matrices is None:
            return {}
        sigma = self.average()
        return {
            name: value_of(tree, sigma, tree.stat_matrices(i))
            for i, name in enumerate(tree.stat_names)
        }


AnySolver = Solver | PublicSolver


def solver_for(game: Game, algorithm: str = "cfr+", history_tree: bool = False) -> AnySolver:
    """A solver for ``game``: on its public tree if it has one (``Game.public_game``) and
    ``history_tree`` is not asked for, else on the tree of every history. TreeError if the
    game breaks a rule of the interface."""
    public = None if history_tree else game.public_game()
    if public is None:
        return Solver(build(game), algorithm)
    return PublicSolver(build_public(public, game.name, tuple(game.stat_names)), algorithm)
