"""Blackjack++ tournaments: the round robin of Kuhn poker, in points per deal
(``games/kuhn/tournament.py``)."""

from games.kuhn.tournament import DealsRoundRobin

__all__ = ["DealsRoundRobin"]
