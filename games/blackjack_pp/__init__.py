"""Blackjack++: two players and a rule-driven dealer (see docs/solver.md)."""
