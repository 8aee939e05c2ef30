"""How numbers are written for people, wherever they are read (pages, a terminal, a log):
no web framework here, so that every layer may use it (cardsite.written builds on it)."""

from __future__ import annotations

import re


def number(value: float) -> str:
    """Points: two decimals, none for a whole number (what ``floatformat:"-2"`` writes)."""
    text = f"{value:.2f}"
    return text[:-3] if text.endswith(".00") else text


#: a negative number's sign in a pair of scores: the minus sign (U+2212), not the hyphen,
#: which beside the pair's en dash read as one mark ("4 en-dash hyphen 4") or as a range;
#: the pages write every negative figure with it
MINUS = "\u2212"


def figure(value: float) -> str:
    """Points as the pages write them: as :func:`number` does, a negative with the minus
    sign (``\u2212174``), never a negative zero."""
    # adding 0.0 turns a negative zero (a rounded -0.001 too) into 0
    return number(round(value, 2) + 0.0).replace("-", MINUS)


#: a hyphen written as a number's sign: at the start, or after a space or a bracket
_SIGN = re.compile(r"(?<![\w.)-])-(?=[0-9.])")


def minus_signs(text: str) -> str:
    """A text of figures as the pages show it: each negative number's hyphen the minus sign,
    ``+0.07 (-0.01 to +0.16)`` -> ``+0.07 (\u22120.01 to +0.16)``; a hyphen between
    figures (``15-0-5``, a date) stays. For the site's own words only: a bot's (a fault's
    reason) are shown as it wrote them."""
    return _SIGN.sub(MINUS, text)


def listed(words: list[str]) -> str:
    """Words as a sentence lists them: ``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def sentence(text: str) -> str:
    """A text that begins a sentence (a heading, a page's line): its first letter a capital,
    the rest as written (``completed 10 rounds`` -> ``Completed 10 rounds``)."""
    return text[:1].upper() + text[1:]
