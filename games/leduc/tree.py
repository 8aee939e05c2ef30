"""Leduc hold'em as an extensive-form game for the solver.

A six-card deck: J, Q and K in two suits. Both players ante 1 and get one private card; a
betting round follows, then one public card is turned and a second betting round follows.
In each round player 0 acts first; ``c`` checks or calls, ``r`` raises (by 2 in the first
round, by 4 in the second; at most two raises per round), ``f`` folds (only when facing a
raise). A round ends on check-check or on a call of a raise. At the showdown a player whose
card pairs the public card wins; otherwise the higher card wins; equal ranks split the pot.

Suits never matter, so cards are dealt as ranks, with the probabilities of a six-card deck
(a rank already dealt is less likely to come again).

Information set keys: the player's card, the first round's actions, then, once the public
card is out, ``/``, the public card and the second round's actions. For example ``Q`` is
player 0 holding a queen before anyone acted; ``Kcr`` is player 0 with a king who checked and
faces a raise; ``Jrc/Qc`` is player 1 with a jack, after a raise and a call, with the queen
turned and player 0 checking. Player 0's value of the game is about -0.0856.
"""

from __future__ import annotations

from games.solver.game import Chance, Decision, Game, Terminal

RANKS = "JQK"
SUITS = 2
ANTE = 1
RAISES = (2, 4)
MAX_RAISES = 2


def round_over(history: str) -> bool:
    return history.endswith("f") or history == "cc" or (history.endswith("c") and "r" in history)


def contributions(rounds: tuple[str, ...]) -> list[int]:
    """What each player has put in the pot after the actions of ``rounds``."""
    put = [ANTE, ANTE]
    for number, history in enumerate(rounds):
        for i, action in enumerate(history):
            actor = i % 2
            if action == "c":
                put[actor] = max(put)
            elif action == "r":
                put[actor] = max(put) + RAISES[number]
    return put


def legal_actions(history: str) -> tuple[str, ...]:
    facing = history.endswith("r")
    actions = ("f", "c") if facing else ("c",)
    if history.count("r") < MAX_RAISES:
        actions += ("r",)
    return actions


def showdown(private: tuple[str, str], public: str) -> int:
    """+1 if player 0 wins the showdown, -1 if player 1 does, 0 for a split."""
    a, b = private
    if a == public and b != public:
        return 1
    if b == public and a != public:
        return -1
    return (RANKS.index(a) > RANKS.index(b)) - (RANKS.index(a) < RANKS.index(b))


def deal(dealt: tuple[str, ...], suited: bool) -> list[tuple[str, float]]:
    """Cards that can come next and their probabilities, after ``dealt`` left the deck: ranks
    (``J``), or with ``suited`` the six cards themselves (``J1``, ``J2``, ...)."""
    if suited:
        left = [f"{r}{s}" for r in RANKS for s in range(1, SUITS + 1) if f"{r}{s}" not in dealt]
        return [(card, 1 / len(left)) for card in left]
    counts = {r: SUITS - dealt.count(r) for r in RANKS}
    total = sum(counts.values())
    return [(r, n / total) for r, n in counts.items() if n]


class Leduc(Game):
    """Leduc hold'em. ``suited=True`` deals the six cards as OpenSpiel does (936 infosets,
    keys with the suit after each card, e.g. ``K2cr``): the same game, a bigger tree, used by
    the benchmark to compare like with like."""

    name = "leduc"
    title = "Leduc hold'em"

    def __init__(self, suited: bool = False) -> None:
        self.suited = suited

    def initial_state(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        # cards dealt (player 0, player 1, public), then the actions of each round so far
        return ((), ("",))

    def node(self, state: tuple[tuple[str, ...], tuple[str, ...]]):
        dealt, rounds = state
        if len(dealt) < 2:
            return Chance([(c, p, ((*dealt, c), rounds)) for c, p in deal(dealt, self.suited)])
        history = rounds[-1]
        if round_over(history):
            if history.endswith("f") or len(rounds) == 2:
                return Terminal(self._payoff(dealt, rounds))
            if len(dealt) == 2:
                return Chance([(c, p, ((*dealt, c), rounds)) for c, p in deal(dealt, self.suited)])
            return self.node((dealt, (*rounds, "")))
        player = len(history) % 2
        key = dealt[player] + rounds[0]
        if len(rounds) == 2:
            key += "/" + dealt[2] + rounds[1]
        return Decision(
            player,
            key,
            [(a, (dealt, (*rounds[:-1], history + a))) for a in legal_actions(history)],
        )

    @staticmethod
    def _payoff(dealt: tuple[str, ...], rounds: tuple[str, ...]) -> float:
        put = contributions(rounds)
        last = rounds[-1]
        if last.endswith("f"):
            folder = (len(last) - 1) % 2
            return float(-put[0] if folder == 0 else put[1])
        # both put the same in by a showdown
        return float(showdown((dealt[0][0], dealt[1][0]), dealt[2][0]) * put[0])
