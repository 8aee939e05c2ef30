"""How a bot file becomes a command line.

Three launchers produce a :class:`Launch` of the same shape, so nothing else changes with the
choice: :func:`plain_launch` runs the language host as an ordinary child process with a
scrubbed environment (trusted built-in bots), ``bots.sandbox.sandbox_launch`` runs it inside
bubblewrap with limits (every bot from outside the project), and :func:`debug_launch` runs an
author's own file as the sandbox would, without the sandbox (``arena --no-sandbox``).
:func:`bot_launch` picks one. The languages and their hosts are in ``bots.languages``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bots.languages import get_language, language_of
from bots.running.process import CONTROL_FD, BotStartError, Launch
from bots.sandbox import (
    SandboxConfig,
    SandboxLimits,
    compiling,
    limits_for,
    read_bot,
    rlimit_args,
    safe_name,
    sandbox_launch,
    toolkit_sources,
)

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
    """An unsandboxed child process of the project's own files: for trusted bots (built-ins).

    ``interpreter`` defaults to the language's own choice (the worker's Python, the Node on
    the PATH).
    """
    lang = get_language(language) if language else language_of(path)
    argv = lang.plain_argv(lang.host, path.resolve(), game, interpreter)
    return Launch(
        argv=argv, env=base_env(), cwd=str(path.resolve().parent), isolation=lang.isolation
    )


def bot_launch(
    path: Path,
    *,
    game: GameSpec | None = None,
    sandboxed: bool = True,
    limits: SandboxLimits | None = None,
    config: SandboxConfig | None = None,
    worker: bool = True,
) -> Launch:
    """The launch for a bot file: sandboxed unless told otherwise (``arena --no-sandbox``).

    A sandboxed launch holds a uid slot until its BotProcess is closed: ``worker`` False (a
    live table's) may not take the slots reserved for the workers (``bots.sandbox``).
    """
    if not sandboxed:
        return debug_launch(path, game=game, limits=limits, config=config)
    made = None
    language = language_of(path)
    if language.compiled:  # compiled first, in a sandbox of its own (once per machine)
        config = config or SandboxConfig.from_settings()
        made = compiling.program(
            language, safe_name(path), read_bot(path), game, config=config, worker=worker
        )
    return sandbox_launch(
        path, game=game, limits=limits, config=config, worker=worker, program=made
    )


def debug_launch(
    path: Path,
    *,
    game: GameSpec | None = None,
    limits: SandboxLimits | None = None,
    config: SandboxConfig | None = None,
) -> Launch:
    """An author's bot file run as the sandbox runs it, without the sandbox (``arena
    --no-sandbox``), so that what passes here passes there and what fails there fails here
    with the same error.

    The same interpreter and flags (the language's runtime, ``Language.runtime``: Debian's, standard
    library only, never the project's virtualenv), the same files: a private folder holding
    only what the sandbox mounts (``bot/NAME`` a copy of the file, read as the sandbox reads
    it, the game's toolkit modules beside it, ``sandbox/`` the host) and an empty ``tmp/``
    that is the working folder, HOME and TMPDIR. The same output cap and, where ``prlimit``
    is installed, the same resource limits. A language's host may also refuse to open or
    list files outside what the sandbox shows, with the errors the sandbox gives (its
    ``debug_env``: the Python host does). It is a debugging aid, not a security boundary: no
    namespaces, no seccomp, no memory cgroup (docs/sandbox.md). Raises BotStartError.
    """
    config = config or SandboxConfig.from_settings()
    limits = limits or limits_for(game)
    language = language_of(path)
    runtime = language.runtime(config)
    if not os.access(runtime, os.X_OK):
        raise BotStartError(
            f"{runtime} is missing: --no-sandbox runs bots with the sandbox's interpreter "
            f"(the setting {language.runtime_setting}, see docs/sandbox.md)"
        )
    source = read_bot(path)
    toolkit = toolkit_sources(game) if language.uses_toolkit else {}
    name = safe_name(path)
    host_source = language.host_source
    if language.compiled:  # the same compiler and flags, outside the sandbox; kept apart
        host_source = compiling.program(
            language, name, source, game, config=config, sandboxed=False
        )
    root = Path(tempfile.mkdtemp(prefix="arena-debug-"))
    try:
        host = _place(root / "sandbox", language.host_name, host_source)
        if language.compiled:
            host.chmod(0o555)
        for module, data in toolkit.items():
            if module != name:  # the bot wins a clash, as in the sandbox
                _place(root / "bot", module, data)
        bot = _place(root / "bot", name, source)
        (root / "tmp").mkdir()
    except OSError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise BotStartError(f"cannot prepare {root} for {path}: {exc.strerror}") from None
    argv = [*language.runtime_args(limits, config), str(host)]
    argv += language.host_args(control=CONTROL_FD, wipe=str(root / "tmp"), sandboxed=False)
    argv.append(str(bot))
    argv += language.bot_args(game.slug if game else None)
    if os.access(config.prlimit, os.X_OK):
        argv = [config.prlimit, *rlimit_args(limits, language, None), "--", *argv]
    home = str(root / "tmp")
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "TMPDIR": home}
    env.update(language.debug_env(root))
    return Launch(
        argv=argv,
        env=env,
        cwd=home,
        cleanup=lambda: shutil.rmtree(root, ignore_errors=True),
        max_output=limits.output_bytes,
        recycle_cpu_s=limits.recycle_cpu_s,
        cpu_limit_s=limits.cpu_s + 5 if os.access(config.prlimit, os.X_OK) else None,
        isolation=language.isolation,
    )


def _place(folder: Path, name: str, data: bytes) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    path.chmod(0o444)
    return path
