"""Python bots: a file with a class ``Bot``, run by ``host.py`` under Debian's Python 3.11
with the standard library only. The host's first process (the zygote) never runs the bot's
code; it forks the process that plays (a fresh one before a deal the bot has been dealt),
which loads a seccomp filter of its own (no process, no thread) before the bot's code runs
(docs/bot-protocol.md, docs/sandbox.md)."""

from __future__ import annotations

import ast
import glob
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bots.languages import Language

if TYPE_CHECKING:
    from bots.sandbox import SandboxConfig, SandboxLimits

HERE = Path(__file__).resolve().parent
#: where the filter each match's process loads sits in the sandbox
PROCESS_FILTER = "/sandbox/process.bpf"
#: the environment variable that tells the host to guard file access (``--no-sandbox``); the
#: host takes it out of the environment before the bot is loaded
FILE_GUARD_ENV = "CARD_ARENA_FILE_GUARD"


#: a bot's class, at the start of a line: a file without one is a helper module
_BOT_CLASS = re.compile(rb"^class Bot\b", re.MULTILINE)


@dataclass(frozen=True)
class Python(Language):
    definition: str = r"\bdef\s+{name}\s*\("
    #: a fresh child process per deal, forked by a zygote that never runs the bot's code
    #: and that says on a control pipe no child holds when each child is gone (host.py)
    isolation: str = "process"

    def is_bot_file(self, data: bytes) -> bool:
        return _BOT_CLASS.search(data) is not None

    def runtime_args(self, limits: SandboxLimits, config: SandboxConfig) -> list[str]:
        # -I: no environment or user site; -S: no site-packages (the system's .pth files
        # stay out); -B: no bytecode files.
        return [self.runtime(config), "-I", "-S", "-B"]

    def host_args(self, *, control: str, wipe: str | None, sandboxed: bool) -> list[str]:
        args = ["--control", control]
        if sandboxed:
            args += ["--process-filter", PROCESS_FILTER]
        if wipe is not None:
            args += ["--wipe", wipe]
        return args

    def plain_argv(
        self, host: Path, bot: Path, game: str | None, interpreter: str | None
    ) -> list[str]:
        from bots.running.process import CONTROL_FD

        return [
            interpreter or sys.executable,
            "-I",
            "-B",
            str(host),
            "--control",
            CONTROL_FD,
            str(bot),
        ]

    def seccomp_data(self) -> dict[str, bytes]:
        # bwrap's filter, and the one each match's process adds (the host forks them)
        from bots.sandbox.seccomp import filter_bpf, process_filter_bpf

        return {"{seccomp}": filter_bpf(processes=False), "{process-seccomp}": process_filter_bpf()}

    def sandbox_binds(self) -> list[str]:
        return ["--perms", "0444", "--ro-bind-data", "{process-seccomp}", PROCESS_FILTER]

    def runtime_files(self, config: SandboxConfig | None = None) -> list[str]:
        """What the sandbox's copy of the runtime holds (bots.sandbox.mirror, which adds
        the shared libraries its ELF files need): the interpreter and its standard library,
        lib-dynload and the ``__pycache__`` folders with it."""
        runtime = self.runtime(config)
        version = os.path.basename(os.path.realpath(runtime))  # python3.11
        return [runtime, f"/usr/lib/{version}"]

    def runtime_left_out(self, config: SandboxConfig | None = None) -> list[str]:
        """Folders of the standard library no bot needs: ``config-3.11-x86_64-linux-gnu``
        (where libpython3.11-dev is installed), the static libraries and Makefile for
        building C programs that embed Python (32 MiB with the shared libpython they link
        to: 8,000 of the copy's 21,000 pages, each one a worker touches before a seating)."""
        version = os.path.basename(os.path.realpath(self.runtime(config)))
        return sorted(glob.glob(f"/usr/lib/{version}/config-*"))

    def debug_env(self, root: Path) -> dict[str, str]:
        return {FILE_GUARD_ENV: str(root)}

    def probe_args(self) -> list[str]:
        return ["-c", "0"]

    def declared_name(self, text: str) -> str | None:
        """The ``name`` the module's class ``Bot`` sets to a plain string."""
        try:
            module = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        for node in module.body:
            if isinstance(node, ast.ClassDef) and node.name == "Bot":
                for item in node.body:
                    if isinstance(item, ast.Assign):
                        targets = item.targets
                    elif isinstance(item, ast.AnnAssign):
                        targets = [item.target]
                    else:
                        continue
                    if any(isinstance(t, ast.Name) and t.id == "name" for t in targets):
                        value = getattr(item, "value", None)
                        found = value.value if isinstance(value, ast.Constant) else None
                        return found if isinstance(found, str) else None
        return None


LANGUAGE = Python(
    name="python",
    title="Python",
    suffixes=(".py",),
    host=HERE / "host.py",
    host_name="python_host.py",
    content_type="text/x-python",
    runtime_default="/usr/bin/python3",
    runtime_setting="SANDBOX_PYTHON",
    bot_shape="class Bot",
    contract_summary="a file with a class <code>Bot</code>; a new <code>Bot()</code> for "
    "every {match}; standard library only",
    uses_toolkit=True,
    marks=(
        # a class or a def line ending in a colon; imports without a semicolon
        r"^class[ \t]+[A-Za-z_]\w*[ \t]*(?:\([^)\n]*\))?[ \t]*:[ \t]*(?:#.*)?$",
        r"^[ \t]*def[ \t]+[A-Za-z_]\w*[ \t]*\([^\n]*\)[ \t]*(?:->[^\n]*)?:[ \t]*(?:#.*)?$",
        r"^from[ \t]+[\w.]+[ \t]+import[ \t]+[\w*(]",
        r"^import[ \t]+[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*$",
    ),
)
