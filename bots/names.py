"""The site's rule for the names people choose, as Django validation: no control or format
character (a right-to-left override, a zero-width joiner...), said by name, not only dots,
and not a guest's name ("guest-...").

It sits on the platform layer so that both the sign-up form (``cardsite.accounts``) and
``manage.py upload_bot --create-user`` apply it to usernames.
"""

from __future__ import annotations

from pathlib import PurePath

from django.core.exceptions import ValidationError

from bots.languages import UnsupportedBot, language_of
from games.engine import untrusted

#: how the name of a guest at a table starts (``games.live.tables``: "guest-" and 5 hex
#: digits), which no username may start with, in any letter case, lest someone pass for one
GUEST_PREFIX = "guest-"


def plain_username(value: str) -> None:
    """Refuse a username holding a control or format character (a right-to-left override, a
    zero-width joiner...), naming it: the rule of every name on the site; one made only of
    dots, whose profile's address (``/people/../``) a browser would turn into another; and
    one starting with "guest-", as guests at tables are named. Checked when an account is
    made: existing accounts keep their names."""
    problem = untrusted.name_problem(value, "username")
    if problem is not None:
        raise ValidationError(problem[0].upper() + problem[1:] + ".", code="not_plain")
    if value and set(value) == {"."}:  # /people/../ is not a profile's address
        raise ValidationError(
            "A username cannot be only dots: your page's address would not work.", code="dots"
        )
    if value.casefold().startswith(GUEST_PREFIX):  # a guest at a table is "guest-3f2a1"
        raise ValidationError(
            f"Usernames starting with “{GUEST_PREFIX}” are kept for guests at tables.",
            code="guest",
        )


def declared_name(filename: str, code: bytes) -> str:
    """The name a bot file gives its bot, read without running it, as its language reads it
    (``Language.declared_name``: the ``name`` a Python class ``Bot`` sets to a plain
    string, a JavaScript object's ``name`` property...); else the file's stem
    (``rps_mine.py``: ``rps_mine``). The one rule of ``manage.py arena`` and ``manage.py
    upload_bot`` (without ``--name``), so that a bot has the same name in both."""
    stem = PurePath(filename).stem
    try:
        language = language_of(PurePath(filename))
    except UnsupportedBot:
        return stem
    found = language.declared_name(code.decode("utf-8", "replace"))
    if not isinstance(found, str) or not found.strip():
        return stem
    return found.strip()[:60]
