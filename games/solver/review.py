"""The solver reviews a match: for each decision of one seat, the equilibrium strategy at its
information set, the value of each action, and what the action taken lost.

The value of an action ``a`` at an information set ``I`` of player ``p`` is its counterfactual
value under a strategy profile ``sigma`` (the solved, average strategy): the expected payoff
to ``p`` of taking ``a`` at ``I`` and then both players following ``sigma``, averaged over the
histories of ``I`` weighted by how likely chance and the *other* player make each of them
(``p``'s own reach is the same for every history of ``I``, by perfect recall, so it cancels).
These are the numbers CFR's regrets are made of; here they are divided by the information
set's counterfactual reach so that they read as an expected payoff, in the game's units.

An information set the other player's equilibrium never leads to (reach 0: e.g. Kuhn's
player 1 holding the king after a bet, if player 0 never bets the queen) still has values
here, its histories weighted by chance alone; :attr:`InfosetValues.by_chance` says so.

Everything is computed once for the whole tree (:func:`action_values`, two passes over the
depths: :meth:`FlatTree.forward` and :meth:`FlatTree.backward`), so a review of a thousand
decisions is a thousand look-ups. A game says which decisions a match record holds by a
function of its own (``SolverSpec.review_moves``, a list of :class:`Move`); this module names no
game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.solver.tree import FlatTree

#: values closer than this are equal (the best action is any of them; nothing is lost)
TIE = 1e-9


@dataclass(frozen=True)
class Move:
    """One decision of a match record, as the game reads it."""

    #: the hand (deal, round) it was in, counted from 0 in the record, and its words
    hand: int
    seat: int
    #: the deciding player's information set key in the solver's game; None when the record
    #: keeps that seat's cards secret from whoever asks (a folded poker hand, for the public)
    key: str | None
    #: the action taken, as the solver's game labels it
    taken: str
    #: what happened so far, in words, for the page (the game's own wording)
    situation: str = ""
    #: the replay's chapter of the hand (``games.replays.chapters``: "Hand 3"), to link to it
    chapter: str = ""
    #: the solver options (``SolverSpec.options``: name, value) this decision's game needs;
    #: a decision is reviewed with a solve of these options only
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class InfosetValues:
    key: str
    player: int
    actions: tuple[str, ...]
    #: the equilibrium's probability of each action
    strategy: dict[str, float]
    #: the counterfactual value of each action for the player who decides
    values: dict[str, float]
    #: the equilibrium's value of the information set: the strategy's mean of ``values``
    value: float
    #: how likely chance and the other player's equilibrium lead here (summed over the
    #: histories of the information set)
    reach: float
    #: the other player's equilibrium never leads here: histories weighted by chance alone
    by_chance: bool

    @property
    def best(self) -> float:
        return max(self.values.values())

    @property
    def best_actions(self) -> tuple[str, ...]:
        top = self.best
        return tuple(a for a in self.actions if self.values[a] >= top - TIE)

    def lost(self, action: str) -> float:
        """What ``action`` loses against the best action here (0 for a best one)."""
        gap = self.best - self.values[action]
        return gap if gap > TIE else 0.0


@dataclass
class ActionValues:
    """The values of every action of every information set of a tree under one profile
    (plain arrays and lists: it can be kept, say in a cache, without the tree)."""

    keys: list[str]
    actions: list[tuple[str, ...]]
    players: np.ndarray
    #: (n_infosets, max_actions): counterfactual values, and the strategy
    q: np.ndarray
    sigma: np.ndarray
    reach: np.ndarray
    by_chance: np.ndarray
    #: how far the profile may be from an equilibrium (a solve's exploitability): a loss no
    #: larger is within the solve's precision, not a mistake (:attr:`Review.mistakes`)
    precision: float = 0.0
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.index = {key: i for i, key in enumerate(self.keys)}

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def at(self, key: str) -> InfosetValues:
        """The information set ``key``; KeyError if the tree has no such key."""
        i = self.index[key]
        actions = self.actions[i]
        n = len(actions)
        strategy = dict(zip(actions, self.sigma[i, :n].tolist(), strict=True))
        values = dict(zip(actions, self.q[i, :n].tolist(), strict=True))
        return InfosetValues(
            key=key,
            player=int(self.players[i]),
            actions=actions,
            strategy=strategy,
            values=values,
            value=float(np.dot(self.sigma[i, :n], self.q[i, :n])),
            reach=float(self.reach[i]),
            by_chance=bool(self.by_chance[i]),
        )


def action_values(tree: FlatTree, sigma: np.ndarray) -> ActionValues:
    """The counterfactual value of every action of every information set under ``sigma``
    (see the module's docstring), from the acting player's side."""
    width = tree.max_actions
    size = tree.n_infosets * width
    value0 = tree.backward(tree.edge_weights(sigma), tree.payoff)  # player 0's, every node
    own = tree.forward(tree.edge_factors(sigma))  # each player's own reach of every node
    total = np.zeros(size)
    total_chance = np.zeros(size)
    reach = np.zeros(tree.n_infosets)
    reach_chance = np.zeros(tree.n_infosets)
    for player in (0, 1):
        sign = 1.0 if player == 0 else -1.0
        kids = tree.chosen_by[player]
        parents = tree.chosen_parent[player]
        slots = tree.chosen_slot[player]
        chance = tree.chosen_parent_chance[player]
        payoff = sign * value0[kids]
        weight = own[1 - player, parents] * chance
        total += np.bincount(slots, weights=weight * payoff, minlength=size)
        total_chance += np.bincount(slots, weights=chance * payoff, minlength=size)
        nodes = tree.decision_nodes[player]
        infosets = tree.decision_infosets[player]
        node_chance = tree.chance_reach[nodes]
        reach += np.bincount(
            infosets, weights=own[1 - player, nodes] * node_chance, minlength=tree.n_infosets
        )
        reach_chance += np.bincount(infosets, weights=node_chance, minlength=tree.n_infosets)
    by_chance = reach <= 0.0
    denominator = np.where(by_chance, reach_chance, reach)[:, None]
    numerator = np.where(
        by_chance[:, None], total_chance.reshape(-1, width), total.reshape(-1, width)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(tree.legal, numerator / denominator, 0.0)
    return ActionValues(
        list(tree.infoset_keys),
        list(tree.infoset_actions),
        tree.infoset_player.copy(),
        q,
        np.array(sigma, dtype=np.float64),
        reach,
        by_chance,
    )


# ----------------------------------------------------------------------------- the review
@dataclass(frozen=True)
class Row:
    """One decision of the reviewed seat, and what the solver says of it."""

    move: Move
    #: the information set's values; None when the decision is not reviewed (``reason``)
    infoset: InfosetValues | None = None
    reason: str = ""

    @property
    def reviewed(self) -> bool:
        return self.infoset is not None

    @property
    def taken_value(self) -> float | None:
        return self.infoset.values[self.move.taken] if self.infoset else None

    @property
    def best_value(self) -> float | None:
        return self.infoset.best if self.infoset else None

    @property
    def lost(self) -> float | None:
        return self.infoset.lost(self.move.taken) if self.infoset else None


@dataclass(frozen=True)
class Review:
    seat: int
    rows: tuple[Row, ...]
    #: losses up to this are within the solve's precision (``ActionValues.precision``)
    precision: float = 0.0

    def is_mistake(self, row: Row) -> bool:
        return (row.lost or 0.0) > self.precision

    @property
    def reviewed(self) -> list[Row]:
        return [row for row in self.rows if row.reviewed]

    @property
    def total_lost(self) -> float:
        return sum(row.lost or 0.0 for row in self.rows)

    @property
    def mistakes(self) -> int:
        """Decisions that lost more than the solve's precision."""
        return sum(1 for row in self.rows if self.is_mistake(row))


def needs_values(move: Move, options: tuple[tuple[str, Any], ...]) -> bool:
    """Whether reviewing ``move`` with a solve of ``options`` reads the solve (a decision
    whose cards are hidden, or made with other options, does not)."""
    return move.key is not None and move.options == options


def review(
    moves: list[Move],
    values: ActionValues | None,
    seat: int,
    options: tuple[tuple[str, Any], ...] = (),
    describe=lambda options: repr(options),
) -> Review:
    """The review of ``seat``'s decisions among ``moves`` with the values of one solve, made
    with the solver ``options``. A decision whose key is hidden, whose game needs other
    options (``describe`` puts options in words), unknown to the solve, or whose action is
    not one of the information set's, is kept with the reason it is not reviewed. ``values``
    may be None when no decision :func:`needs_values`."""
    rows = [_row(move, values, options, describe) for move in moves if move.seat == seat]
    return Review(seat, tuple(rows), values.precision if values is not None else 0.0)


def _row(move: Move, values: ActionValues | None, options, describe) -> Row:
    if move.options != options:
        return Row(
            move,
            reason=f"Not solved yet: the stored solve is for {describe(options)}; "
            f"this decision was made with {describe(move.options)}.",
        )
    if move.key is None:
        return Row(move, reason="The cards of this hand are not shown to you.")
    if values is None:
        raise ValueError("the review of this decision needs the solve's values")
    if move.key not in values:
        return Row(move, reason=f"The solved game has no information set {move.key!r}.")
    infoset = values.at(move.key)
    if move.taken not in infoset.values:
        return Row(move, reason=f"{move.taken!r} is not an action the solved game offers here.")
    return Row(move, infoset)
