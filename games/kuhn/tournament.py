"""Kuhn poker tournaments: the chips round robin of the chip games
(``games/chips/tournament.py``)."""

from games.chips.tournament import ChipsRoundRobin

__all__ = ["ChipsRoundRobin"]
