"""How a bot file becomes a command line.

Two launchers produce a :class:`Launch` of the same shape, so nothing else changes with the
choice: :func:`plain_launch` runs the language host as an ordinary child process with a
scrubbed environment (trusted bots: built-ins, an author debugging their own file), and
``bots.sandbox.sandbox_launch`` runs it inside bubblewrap with limits (every bot from outside
the project). :func:`bot_launch` picks one. The languages and their hosts are in
``bots.runtimes``.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bots.process import Launch
from bots.runtimes import host_script, js_globals, language_of
from bots.sandbox import SandboxConfig, SandboxLimits, sandbox_launch

if TYPE_CHECKING:
    from games.registry import GameSpec


def base_env() -> dict[str, str]:
    """Only what a language host needs: no secrets, no settings, no project paths."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }


def plain_launch(
    path: Path,
    language: str | None = None,
    *,
    game: str | None = None,
    interpreter: str | None = None,
) -> Launch:
    """An unsandboxed child process: for trusted bots (built-ins, an author's own file).

    ``interpreter`` defaults to the worker's own Python, or ``node`` on the PATH.
    """
    language = language or language_of(path)
    host = str(host_script(language))
    if language == "python":
        argv = [interpreter or sys.executable, "-I", "-B", host, str(path.resolve())]
    else:
        node = interpreter or shutil.which("node") or "/usr/bin/node"
        argv = [node, host, str(path.resolve()), json.dumps(js_globals(game))]
    return Launch(argv=argv, env=base_env(), cwd=str(path.resolve().parent))


def bot_launch(
    path: Path,
    *,
    game: GameSpec | None = None,
    sandboxed: bool = True,
    limits: SandboxLimits | None = None,
    config: SandboxConfig | None = None,
) -> Launch:
    """The launch for a bot file: sandboxed unless told otherwise (``arena --no-sandbox``).

    A sandboxed launch holds a uid slot until its BotProcess is closed.
    """
    if not sandboxed:
        return plain_launch(path, game=game.slug if game else None)
    return sandbox_launch(path, game=game, limits=limits, config=config)
