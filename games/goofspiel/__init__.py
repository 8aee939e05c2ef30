"""Goofspiel: sealed bids for prize cards (the game's spec is in ``games/goofspiel/spec.py``)."""
