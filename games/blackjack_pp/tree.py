"""Blackjack++ as an extensive-form game for the solver, for given up cards and max hits.

The rules are in ``shared/specs/blackjack-pp.md``; what this module adds:

- Cards are card *values*: an infinite deck gives A, 2, ..., 9 with probability 1/13 each
  and a ten-valued card (10, J, Q, K, written ``T``) with probability 4/13.
- The up cards are given; chance deals player 0's then player 1's down card at the root, and
  the card of every hit. The dealer's down card and draws come after the last decision, so
  they are not in the tree: each terminal's payoff is the exact expectation over the dealer's
  final total (standing on all 17s, soft ones too).
- Bust hands rank below every other hand and, among themselves, by total as the spec says
  (which matters only when two or three hands bust).
- A player sees the up cards, its own down card and everything done so far, including who
  acted (so a player who busted is known to have busted once it is skipped), never the other
  player's down card.

Information set keys are ``PD:H``: ``P`` is the player to act (``0`` or ``1``), ``D`` its own
down card (``A``, ``2``..``9``, ``T``) and ``H`` the history so far, comma-separated tokens
``<player>s`` (stood) or ``<player>h<card>`` (hit and drew that card). ``07:`` is player 0
holding a 7 down, first to act; ``1T:0h5`` is player 1 holding a ten-valued card down after
player 0 hit and drew a 5. (The player is part of the key because the history alone does not
always tell who acts next: a player who busted is skipped.) The actions are ``h`` (hit) and
``s`` (stand).

:class:`PublicBlackjackPP` is the same game in public-tree form (one node per public history,
every deal of the down cards at once: :mod:`games.solver.public`), what ``manage.py solve``
solves; :class:`BlackjackPP` is the tree of every history, which the explorer, the review and
the tests walk.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache, cached_property

import numpy as np

from games.solver.game import Chance, Decision, Game, Terminal
from games.solver.public import (
    PublicChance,
    PublicDecision,
    PublicGame,
    PublicNode,
    PublicSplit,
    PublicTerminal,
)

VALUES = tuple(range(1, 11))
PROBABILITY = {v: (4 if v == 10 else 1) / 13 for v in VALUES}
NAMES = {v: ("A" if v == 1 else "T" if v == 10 else str(v)) for v in VALUES}
CARD_WORDS = {"A": 1, "ACE": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
MAX_HITS = (1, 2, 3)


def parse_card(text: str) -> int:
    """A card value from ``A``, ``2``..``10``, ``T``, ``J``, ``Q``, ``K`` (or ``1`` for an ace)."""
    word = text.strip().upper()
    if word in CARD_WORDS:
        return CARD_WORDS[word]
    if word.isdigit() and 1 <= int(word) <= 10:
        return int(word)
    raise ValueError(f"{text.strip()!r} is not a card: use A, 2-10, J, Q or K")


def parse_up_cards(text: str) -> tuple[int, int, int]:
    """``"6,6,2"`` -> the up cards of player 0, player 1 and the dealer."""
    parts = text.split(",")
    if len(parts) != 3:
        raise ValueError(
            f"up cards {text!r}: give three, for player 0, player 1 and the dealer, e.g. 6,6,2"
        )
    a, b, c = (parse_card(p) for p in parts)
    return a, b, c


def total(cards: tuple[int, ...]) -> int:
    """A hand's total, counting one ace as 11 when that does not bust it."""
    hard = sum(cards)
    return hard + 10 if 1 in cards and hard + 10 <= 21 else hard


def soft(cards: tuple[int, ...]) -> bool:
    hard = sum(cards)
    return 1 in cards and hard + 10 <= 21


@cache
def dealer_totals(up: int) -> tuple[tuple[int, float], ...]:
    """The dealer's final total and its probability, from its up card (down card unseen)."""
    out: dict[int, float] = {}

    def draw(cards: tuple[int, ...], p: float) -> None:
        t = total(cards)
        if t >= 17:
            out[t] = out.get(t, 0.0) + p
            return
        for v in VALUES:
            draw((*cards, v), p * PROBABILITY[v])

    for v in VALUES:
        draw((up, v), PROBABILITY[v])
    return tuple(sorted(out.items()))


def rank_key(t: int) -> tuple[bool, int]:
    return (t <= 21, t)


def points(totals: tuple[int, int, int]) -> tuple[float, float, float]:
    """Points of player 0, player 1 and the dealer for final totals: 2, 1, 0 by place, tied
    hands sharing the points of the places they tie for."""
    keys = [rank_key(t) for t in totals]
    return tuple(
        sum(
            1.0 if keys[i] > keys[j] else 0.5 if keys[i] == keys[j] else 0.0
            for j in range(3)
            if j != i
        )
        for i in range(3)
    )  # type: ignore[return-value]


@cache
def expected_points(t0: int, t1: int, dealer_up: int) -> tuple[float, float, float]:
    """The expected points of player 0, player 1 and the dealer, over the dealer's final
    total, when the players end on totals ``t0`` and ``t1``."""
    out = [0.0, 0.0, 0.0]
    for d, p in dealer_totals(dealer_up):
        for seat, x in enumerate(points((t0, t1, d))):
            out[seat] += p * x
    return out[0], out[1], out[2]


def expected_payoff(t0: int, t1: int, dealer_up: int) -> float:
    """Player 0's expected points minus player 1's, over the dealer's final total."""
    a, b, _ = expected_points(t0, t1, dealer_up)
    return a - b


def _total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


def _unroll(history: tuple | None) -> str:
    tokens: list[str] = []
    while history is not None:
        history, token = history
        tokens.append(token)
    return ",".join(reversed(tokens))


class BlackjackPP(Game):
    name = "blackjack-pp"
    title = "Blackjack++"
    stat_names = ("player 0 points", "player 1 points", "dealer points")

    def __init__(self, up: tuple[int, int, int] = (6, 6, 2), max_hits: int = 2) -> None:
        if max_hits not in MAX_HITS:
            raise ValueError(f"max hits must be 1, 2 or 3 (got {max_hits})")
        for card in up:
            if card not in VALUES:
                raise ValueError(f"up card {card!r} is not a card value 1-10")
        self.up = tuple(up)
        self.max_hits = max_hits
        self._hit_tokens = [["", *(f"{p}h{NAMES[v]}" for v in VALUES)] for p in (0, 1)]

    def settings(self) -> dict:
        return {"up": [NAMES[c] for c in self.up], "max_hits": self.max_hits}

    def public_game(self) -> PublicBlackjackPP:
        """The same game walked once per public history (:class:`PublicBlackjackPP`)."""
        return PublicBlackjackPP(self.up, self.max_hits)

    # A state is a tuple:
    #   (hands, downs, hits, done, turn, history, hitting)
    # hands: ((hard total, holds an ace) for player 0, for player 1); downs: the down cards
    # (0 = not dealt yet); hits and done: per player; turn: who is due; history: the tokens
    # so far as a linked list (previous, token) or None; hitting: the player whose hit card is
    # being drawn, or -1.
    def initial_state(self) -> tuple:
        u0, u1 = self.up[0], self.up[1]
        hands = ((u0, u0 == 1), (u1, u1 == 1))
        return (hands, (0, 0), (0, 0), (False, False), 0, None, -1)

    def node(self, state: tuple):
        hands, downs, hits, done, turn, history, hitting = state
        if downs[1] == 0:
            who = 0 if downs[0] == 0 else 1
            outcomes = []
            for v in VALUES:
                hard, ace = hands[who]
                hand = (hard + v, ace or v == 1)
                new_hands = (hand, hands[1]) if who == 0 else (hands[0], hand)
                new_downs = (v, 0) if who == 0 else (downs[0], v)
                outcomes.append(
                    (NAMES[v], PROBABILITY[v], (new_hands, new_downs, hits, done, 0, None, -1))
                )
            return Chance(outcomes)
        if hitting >= 0:
            return Chance([(NAMES[v], PROBABILITY[v], self._drawn(state, v)) for v in VALUES])
        if done[0] and done[1]:
            pts = expected_points(_total(*hands[0]), _total(*hands[1]), self.up[2])
            return Terminal(pts[0] - pts[1], pts)
        player = turn if not done[turn] else 1 - turn
        stood = (True, done[1]) if player == 0 else (done[0], True)
        return Decision(
            player,
            f"{player}{NAMES[downs[player]]}:{_unroll(history)}",
            (
                ("h", (hands, downs, hits, done, player, history, player)),
                ("s", (hands, downs, hits, stood, 1 - player, (history, f"{player}s"), -1)),
            ),
        )

    def _drawn(self, state: tuple, v: int) -> tuple:
        hands, downs, hits, done, _turn, history, player = state
        hard, ace = hands[player]
        hard += v
        ace = ace or v == 1
        count = hits[player] + 1
        over = hard > 21 or count >= self.max_hits
        history = (history, self._hit_tokens[player][v])
        if player == 0:
            return (
                ((hard, ace), hands[1]),
                downs,
                (count, hits[1]),
                (over, done[1]),
                1,
                history,
                -1,
            )
        return ((hands[0], (hard, ace)), downs, (hits[0], count), (done[0], over), 0, history, -1)


#: every down card (type t is the card value t + 1)
ALL = (1 << len(VALUES)) - 1
ROLE_SPLIT, ROLE_END = -1, 2
#: the highest total a payoff matrix names
TOP = 40


class PublicBlackjackPP(PublicGame):
    """Blackjack++ in public-tree form (:mod:`games.solver.public`): the same game as
    :class:`BlackjackPP`, walked once per public history instead of once
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
    each player): every end with the same public hands shares it."""

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
