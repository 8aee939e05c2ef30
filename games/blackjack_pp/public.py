"""Blackjack++ in public-tree form (:mod:`games.solver.public`): the same game as
:class:`games.blackjack_pp.tree.BlackjackPP`, walked once per public history instead of once
per deal of the two down cards.

A player's type is its down card (``A``..``T``, type ``value - 1``, with the infinite deck's
probabilities); everything else is seen by both: the up cards, every stand, every hit card
(drawn with the same probabilities whatever the down cards). What the down cards decide is
who is still in: a player who has neither stood nor used its hits is *live* for the down
cards that keep its hard total at 21 or less, and busted for the others. At a public history
with player ``turn`` due, the deals therefore split three ways: ``turn`` live (it decides);
``turn`` busted and the other live (the other decides, and so learns that ``turn`` busted);
both done (the end). Each part keeps the history tree's information set keys ``PD:H``.

The terminal payoff of a deal is the history tree's (the expectation over the dealer's
final total), as one 10 x 10 matrix per pair of public hands (the up cards and hit cards of
each player): every end with the same public hands shares it.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cached_property

import numpy as np

from games.blackjack_pp.tree import NAMES, PROBABILITY, VALUES, _total, expected_points
from games.solver.public import (
    PublicChance,
    PublicDecision,
    PublicGame,
    PublicNode,
    PublicSplit,
    PublicTerminal,
)

#: every down card (type t is the card value t + 1)
ALL = (1 << len(VALUES)) - 1
ROLE_SPLIT, ROLE_END = -1, 2
#: the highest total a payoff matrix names
TOP = 40


class PublicBlackjackPP(PublicGame):
    prior = (
        tuple(PROBABILITY[v] for v in VALUES),
        tuple(PROBABILITY[v] for v in VALUES),
    )

    def __init__(self, up: tuple[int, int, int], max_hits: int) -> None:
        self.up = up
        self.max_hits = max_hits
        self._hit_tokens = [["", *(f"{p}h{NAMES[v]}" for v in VALUES)] for p in (0, 1)]

    # A state: (hands, hits, stood, turn, hitting, role). hands: the public cards of each
    # player (up card and hit cards) as (hard total, holds an ace); hits, stood: per player;
    # turn: who is due; hitting: the player whose hit card is being drawn, or -1; role: who
    # decides (0, 1), the end (ROLE_END), or not yet split by the down cards (ROLE_SPLIT).
    # The history is not in it: the tokens on the edges write it.
    def public_root(self) -> tuple:
        u0, u1 = self.up[0], self.up[1]
        hands = ((u0, u0 == 1), (u1, u1 == 1))
        return (hands, (0, 0), (False, False), 0, -1, ROLE_SPLIT)

    def _live(self, state: tuple, player: int) -> int:
        """The down cards for which ``player`` is not done (bit ``t`` is card ``t + 1``)."""
        hands, hits, stood = state[0], state[1], state[2]
        if stood[player] or hits[player] >= self.max_hits:
            return 0
        room = 21 - hands[player][0]  # the most a down card can add without busting
        return (1 << max(0, min(room, 10))) - 1

    def public_node(self, state: tuple) -> PublicNode:
        hands, hits, stood, turn, hitting, role = state
        if hitting >= 0:
            tokens = self._hit_tokens[hitting]
            return PublicChance(
                [(tokens[v], PROBABILITY[v], self._drawn(state, v)) for v in VALUES]
            )
        if role == ROLE_SPLIT:
            other = 1 - turn
            due, next_ = self._live(state, turn), self._live(state, other)
            base = state[:-1]
            parts = [
                (due, ALL, (*base, turn)),
                (ALL & ~due, next_, (*base, other)),
                (ALL & ~due, ALL & ~next_, (*base, ROLE_END)),
            ]
            if turn == 1:  # masks are (player 0's, player 1's)
                parts = [(m1, m0, s) for m0, m1, s in parts]
            return PublicSplit(parts)
        if role == ROLE_END:
            return PublicTerminal(hands)
        player = role
        stood_now = (True, stood[1]) if player == 0 else (stood[0], True)
        return PublicDecision(
            player,
            (
                ("h", "", (hands, hits, stood, player, player, ROLE_SPLIT)),
                ("s", f"{player}s", (hands, hits, stood_now, 1 - player, -1, ROLE_SPLIT)),
            ),
        )

    def _drawn(self, state: tuple, v: int) -> tuple:
        hands, hits, stood, _turn, player, _role = state
        hard, ace = hands[player]
        hand = (hard + v, ace or v == 1)
        if player == 0:
            return ((hand, hands[1]), (hits[0] + 1, hits[1]), stood, 1, -1, ROLE_SPLIT)
        return ((hands[0], hand), (hits[0], hits[1] + 1), stood, 0, -1, ROLE_SPLIT)

    def infoset_key(self, player: int, type_: int, key: str) -> str:
        return f"{player}{NAMES[type_ + 1]}:{key}"

    def outcome(self, outcome: Hashable) -> tuple[np.ndarray, np.ndarray]:
        """Player 0's payoff and the three seats' expected points for every pair of down
        cards, given the public hands ``outcome``."""
        (h0, a0), (h1, a1) = outcome  # type: ignore[misc]
        totals0 = [_total(h0 + d, a0 or d == 1) for d in VALUES]
        totals1 = [_total(h1 + d, a1 or d == 1) for d in VALUES]
        points = self._points[:, totals0][:, :, totals1]
        return points[0] - points[1], points

    @cached_property
    def _points(self) -> np.ndarray:
        """``[seat, t0, t1]``: the expected points of each seat for final totals t0 and t1,
        over the dealer's final total. A public hand reaches 30 (hits while it could still
        not bust), a total 40 (its down card too: deals the public tree holds but no history
        reaches, whose entries are never used)."""
        out = np.zeros((3, TOP + 1, TOP + 1))
        for t0 in range(2, TOP + 1):
            for t1 in range(2, TOP + 1):
                out[:, t0, t1] = expected_points(t0, t1, self.up[2])
        return out
