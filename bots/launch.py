"""How a bot file becomes a command line.

The plain launcher runs the language host as an ordinary child process with a scrubbed
environment. The sandbox launcher (bubblewrap) produces a :class:`Launch` of the same
shape, so nothing else changes when it is used.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bots.process import Launch

HOSTS = Path(__file__).resolve().parent / "hosts"
LANGUAGES = {".py": "python"}


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


def base_env() -> dict[str, str]:
    """Only what a language host needs: no secrets, no settings, no project paths."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }


def plain_launch(path: Path, language: str | None = None) -> Launch:
    """An unsandboxed child process: for trusted bots (built-ins, an author's own file)."""
    language = language or language_of(path)
    if language != "python":
        raise UnsupportedBot(f"{path}: no host for language {language!r}")
    argv = [sys.executable, "-I", "-B", str(HOSTS / "python_host.py"), str(path.resolve())]
    return Launch(argv=argv, env=base_env(), cwd=str(path.resolve().parent))
