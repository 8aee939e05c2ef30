"""The language runtimes bots are written for: which file suffix is which language, the host
script that runs a bot of each language, how a bot of each language names the contract's
methods, and what a game's JavaScript bots find as globals.

Both launchers use these: the plain one (``bots.launch``) and the sandbox
(``bots.sandbox``), which sits below ``bots.launch``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from games.registry import get_game

HOSTS = Path(__file__).resolve().parent / "hosts"
LANGUAGES = {".py": "python", ".js": "javascript"}
HOST_SCRIPTS = {"python": "python_host.py", "javascript": "js_host.js"}


class UnsupportedBot(ValueError):
    pass


def language_of(path: Path) -> str:
    try:
        return LANGUAGES[path.suffix.lower()]
    except KeyError:
        known = ", ".join(sorted(LANGUAGES))
        raise UnsupportedBot(
            f"{path}: unsupported bot file type {path.suffix or '(none)'!r} (expected {known})"
        ) from None


def method_name(language: str, method: str) -> str:
    """A method of a game's contract (``draft_pick``) as a bot written in ``language`` names
    it, so that a fault tells its author the name in their own file: the contract's own in
    Python, camelCase in JavaScript (``draftPick``), the one rule ``js_host.js`` applies to
    every game when it calls the bot."""
    if language == "javascript":
        return _CAMEL.sub(lambda m: m.group(1).upper(), method)
    return method


#: what js_host.js turns into an upper-case letter: an underscore and the letter or digit
_CAMEL = re.compile(r"_([a-z0-9])")


def host_script(language: str) -> Path:
    try:
        return HOSTS / HOST_SCRIPTS[language]
    except KeyError:
        raise UnsupportedBot(f"no host for language {language!r}") from None


def js_globals(game: str | None) -> dict[str, Any]:
    """The globals a game's JavaScript bots find (its spec says: the original RPS Poker bots
    rely on ``fullDeck``)."""
    return dict(get_game(game).js_globals) if game is not None else {}
