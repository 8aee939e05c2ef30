"""JavaScript bots, in the format of the original RPS Poker challenge: a file holding one
object (or assigning ``module.exports``) with the contract's methods in camelCase, run by
``host.js`` under Debian's Node in a fresh V8 realm for every match, with the language's
built-ins and the game's globals only (docs/bot-protocol.md)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bots.languages import Language, camel_case, game_globals

if TYPE_CHECKING:
    from bots.sandbox import SandboxConfig, SandboxLimits

HERE = Path(__file__).resolve().parent
#: V8's tier-up: a function is optimized (TurboFan) once it has run about a million bytes of
#: bytecode, not V8's default of about 68 KB. Every match runs in its lane's realm, and V8
#: optimizes each realm's functions anew: at the default, TurboFan took a sixth of the
#: arena's Node CPU, compiling code that a few more calls would have retired. A bot that
#: computes for long is still optimized within milliseconds (docs/sandbox.md, "V8's
#: tier-up").
TIER_UP = ("--interrupt-budget=1000000",)
#: the bot object's ``name`` property, a plain string (the first one in the file)
_NAME = re.compile(r"""^\s*name\s*:\s*(["'`])([^"'`\n]*)\1""", re.MULTILINE)


@dataclass(frozen=True)
class JavaScript(Language):
    #: a function, a method, or an object's property (draftPick: function ...)
    definition: str = r"\b{name}\s*(\(|:)"
    #: a fresh realm per match, made by the host, whose code alone writes to the pipes
    #: (host.js)
    isolation: str = "realm"

    def method_name(self, method: str) -> str:
        # the one rule host.js applies to every game when it calls the bot
        return camel_case(method)

    def runtime_args(self, limits: SandboxLimits, config: SandboxConfig) -> list[str]:
        return [
            self.runtime(config),
            f"--max-old-space-size={limits.memory_mb}",
            "--v8-pool-size=2",
            "--no-addons",
            *TIER_UP,
        ]

    def bot_args(self, game: str | None) -> list[str]:
        return [json.dumps(game_globals(game), separators=(",", ":"))]

    def plain_argv(
        self, host: Path, bot: Path, game: str | None, interpreter: str | None
    ) -> list[str]:
        node = interpreter or shutil.which("node") or "/usr/bin/node"
        return [node, *TIER_UP, str(host), str(bot), json.dumps(game_globals(game))]

    def memory_extra_mb(self, limits: SandboxLimits) -> int:
        return limits.node_runtime_mb

    def address_space_mb(self, limits: SandboxLimits) -> int:
        # V8 reserves address space far beyond what it uses
        return limits.memory_mb + limits.node_reserve_mb

    def probe_args(self) -> list[str]:
        return ["-e", "0"]

    def runtime_files(self, config: SandboxConfig | None = None) -> list[str]:
        """What the sandbox's copy of the runtime holds (bots.sandbox.mirror, which adds
        the shared libraries it needs): Node's program alone (its JavaScript and ICU data
        are built into it)."""
        return [self.runtime(config)]

    def declared_name(self, text: str) -> str | None:
        found = _NAME.search(text)
        return found.group(2) if found else None

    def methods_text(self, methods: Sequence[str]) -> str:
        """A game's methods as a JavaScript bot names them, for its rules page's line
        (``{methods}`` in :attr:`contract_summary`): an example of the camelCase rule from
        the game's own names, or, where no name has an underscore, the names themselves."""
        renamed = [(m, self.method_name(m)) for m in methods if self.method_name(m) != m]
        if renamed:
            method, name = renamed[0]
            return f"the game's methods in camelCase (<code>{method}</code> is <code>{name}</code>)"
        named = ", ".join(f"<code>{m}</code>" for m in methods)
        return f"the method {named}" if len(methods) == 1 else f"the methods {named}"


LANGUAGE = JavaScript(
    name="javascript",
    title="JavaScript",
    suffixes=(".js",),
    host=HERE / "host.js",
    host_name="js_host.js",
    content_type="text/javascript",
    runtime_default="/usr/bin/node",
    runtime_setting="SANDBOX_NODE",
    bot_shape="the bot object",
    none_defined=" A JavaScript bot file is one object literal, ({...}), as the original "
    "challenge's bots are, or assigns its object to module.exports: code before the object (a "
    "helper function, a constant) makes the file neither. Move that code into the object, or "
    "write module.exports = {...} after it.",
    # {methods}: the game's own, as methods_text gives them
    contract_summary="a file holding one object (or <code>module.exports = {...}</code>) with "
    "{methods}; a new bot is made for every {match}, and its globals never carry into a deal "
    "the bot has seen before",
    marks=(
        # the bot object of the original format, module.exports, const / let, function
        r"^\(\{",
        r"^[ \t]*module\.exports[ \t]*=",
        r"^[ \t]*(?:const|let)[ \t]+[A-Za-z_$][\w$]*[ \t]*=",
        r"^[ \t]*function[ \t]*[A-Za-z_$]?[\w$]*[ \t]*\(",
    ),
)
