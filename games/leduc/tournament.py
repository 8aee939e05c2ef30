"""Leduc hold'em tournaments: the chips round robin of Kuhn poker (``games/kuhn/tournament.py``)."""

from games.kuhn.tournament import ChipsRoundRobin

__all__ = ["ChipsRoundRobin"]
