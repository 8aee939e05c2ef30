"""How numbers are written for people, wherever they are read (pages, a terminal, a log):
no web framework here, so that every layer may use it (cardsite.written builds on it)."""

from __future__ import annotations


def number(value: float) -> str:
    """Points: two decimals, none for a whole number (what ``floatformat:"-2"`` writes)."""
    text = f"{value:.2f}"
    return text[:-3] if text.endswith(".00") else text


#: a negative number's sign in a pair of scores: the minus sign (U+2212), not the hyphen,
#: which beside the pair's en dash read as one mark ("4 en-dash hyphen 4") or as a range
MINUS = "\u2212"
