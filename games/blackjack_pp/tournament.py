"""Blackjack++ tournaments: the round robin of the chip games, in points per deal
(``games/chips/tournament.py``)."""

from games.chips.tournament import DealsRoundRobin

__all__ = ["DealsRoundRobin"]
