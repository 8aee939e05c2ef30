"""The site's rule for the names people choose, as Django validation: no control or format
character (a right-to-left override, a zero-width joiner...), said by name.

It sits on the platform layer so that both the sign-up form (``cardsite.accounts``) and
``manage.py upload_bot --create-user`` apply it to usernames.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from games.engine import untrusted


def plain_username(value: str) -> None:
    """Refuse a username holding a control or format character (a right-to-left override, a
    zero-width joiner...), naming it: the rule of every name on the site."""
    problem = untrusted.name_problem(value, "username")
    if problem is not None:
        raise ValidationError(problem[0].upper() + problem[1:] + ".", code="not_plain")
