"""Kuhn poker as an extensive-form game for the solver.

Three cards J < Q < K; each player antes 1 and gets one card, the third is unseen. Player 0
acts first: ``p`` passes (checks, or folds facing a bet), ``b`` bets 1 (or calls a bet).
After ``pp`` the higher card wins 1; after ``bp`` or ``pbp`` the bettor wins 1; after ``bb``
or ``pbb`` the higher card wins 2.

Information set keys are the player's card followed by the betting so far, e.g. ``K`` (player
0 holding the king, first to act) or ``Qpb`` (player 0 with the queen, who checked and faces a
bet). The game's value for player 0 is -1/18.
"""

from __future__ import annotations

from games.solver.game import Chance, Decision, Game, Terminal

CARDS = "JQK"
ACTIONS = ("p", "b")
ENDS = {"pp", "bp", "bb", "pbp", "pbb"}


def payoff(cards: str, history: str) -> float:
    """Player 0's winnings at the end of ``history`` with hands ``cards`` (two letters)."""
    if history in ("bp", "pbp"):
        bettor = 0 if history == "bp" else 1
        return 1.0 if bettor == 0 else -1.0
    stake = 1.0 if history == "pp" else 2.0
    return stake if CARDS.index(cards[0]) > CARDS.index(cards[1]) else -stake


class Kuhn(Game):
    name = "kuhn"
    title = "Kuhn poker"

    def initial_state(self) -> tuple[str, str]:
        return ("", "")

    def node(self, state: tuple[str, str]):
        cards, history = state
        if len(cards) < 2:
            left = [c for c in CARDS if c not in cards]
            p = 1.0 / len(left)
            return Chance([(c, p, (cards + c, "")) for c in left])
        if history in ENDS:
            return Terminal(payoff(cards, history))
        player = len(history) % 2
        return Decision(
            player,
            cards[player] + history,
            [(a, (cards, history + a)) for a in ACTIONS],
        )
