"""Template filters that write figures as the pages' own code does (cardsite/written.py):
``{% load figures %}``, then ``{{ rating|floatformat:2|minus }}`` writes a negative with
the minus sign (U+2212), as the tables built in Python do."""

from __future__ import annotations

from typing import Any

from django import template

from cardsite.written import minus_signs

register = template.Library()


@register.filter
def minus(value: Any) -> str:
    """A figure's text (a ``floatformat``'s) with a negative's hyphen as the minus sign:
    ``-3.12`` -> ``\u22123.12``."""
    return minus_signs(str(value))
