"""The language runtimes bots are written for: which file suffix is which language, the host
script that runs a bot of each language, and what a game's JavaScript bots find as globals.

Both launchers use these: the plain one (``bots.launch``) and the sandbox
(``bots.sandbox``), which sits below ``bots.launch``.
"""

from __future__ import annotations

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


def host_script(language: str) -> Path:
    try:
        return HOSTS / HOST_SCRIPTS[language]
    except KeyError:
        raise UnsupportedBot(f"no host for language {language!r}") from None


def js_globals(game: str | None) -> dict[str, Any]:
    """The globals a game's JavaScript bots find (its spec says: the original RPS Poker bots
    rely on ``fullDeck``)."""
    return dict(get_game(game).js_globals) if game is not None else {}
