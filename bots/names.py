"""The site's rule for the names people choose, as Django validation: no control or format
character (a right-to-left override, a zero-width joiner...), said by name.

It sits on the platform layer so that both the sign-up form (``cardsite.accounts``) and
``manage.py upload_bot --create-user`` apply it to usernames.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePath

from django.core.exceptions import ValidationError

from games.engine import untrusted


def plain_username(value: str) -> None:
    """Refuse a username holding a control or format character (a right-to-left override, a
    zero-width joiner...), naming it: the rule of every name on the site."""
    problem = untrusted.name_problem(value, "username")
    if problem is not None:
        raise ValidationError(problem[0].upper() + problem[1:] + ".", code="not_plain")


#: a JavaScript bot's ``name`` property, a plain string (the first one in the file)
_JS_NAME = re.compile(r"""^\s*name\s*:\s*(["'`])([^"'`\n]*)\1""", re.MULTILINE)


def declared_name(filename: str, code: bytes) -> str:
    """The name a bot file gives its bot, read without running it: the ``name`` its class
    ``Bot`` sets to a plain string (Python), or its object's ``name`` property (JavaScript);
    else the file's stem (``rps_mine.py``: ``rps_mine``). The one rule of ``manage.py arena``
    and ``manage.py upload_bot`` (without ``--name``), so that a bot has the same name in both."""
    stem = PurePath(filename).stem
    text = code.decode("utf-8", "replace")
    found: object = None
    if filename.endswith(".js"):
        match = _JS_NAME.search(text)
        found = match.group(2) if match else None
    else:
        try:
            module = ast.parse(text)
        except (SyntaxError, ValueError):
            return stem
        for node in module.body:
            if isinstance(node, ast.ClassDef) and node.name == "Bot":
                for item in node.body:
                    targets = (
                        item.targets
                        if isinstance(item, ast.Assign)
                        else [item.target]
                        if isinstance(item, ast.AnnAssign)
                        else []
                    )
                    if any(isinstance(t, ast.Name) and t.id == "name" for t in targets):
                        value = getattr(item, "value", None)
                        found = value.value if isinstance(value, ast.Constant) else None
    if not isinstance(found, str) or not found.strip():
        return stem
    return found.strip()[:60]
