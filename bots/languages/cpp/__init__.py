"""C++ bots: one ``.cpp`` file with a class ``Bot`` whose public methods have the contract's
names (``draft_pick``), taking the call's arguments as types JSON converts to and returning
one, through Debian's nlohmann-json (``json``). The platform compiles it with Debian's g++
in the sandbox (bots.sandbox.compiling: once per machine, kept by hash) together with
``card_arena.hpp``, the host that speaks the protocol, and a table of the game's methods it
writes for the bot's class; the program runs in the sandbox like any bot
(docs/bot-protocol.md, "C++")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.languages import Language, game_spec, tool_version

HERE = Path(__file__).resolve().parent
#: the compiler's flags (the program is built for this machine's workers, once)
FLAGS = ("-std=c++17", "-O2", "-pipe", "-fmax-errors=10")
#: a bot's name as its class declares it: ``static constexpr const char* name = "...";``
#: (or a ``std::string``/``std::string_view``, ``inline``), the first in the file
_NAME = re.compile(
    r"""static\s+(?:(?:constexpr|inline|const)\s+)*"""
    r"""(?:char\s*(?:const\s*)?\*|std::string(?:_view)?|auto)\s*(?:const\s+)?name\s*"""
    r"""(?:=\s*|\{\s*)"([^"\\\n]*)\"""",
)


@dataclass(frozen=True)
class Cpp(Language):
    compiled: bool = True

    def runtime_args(self, limits: Any, config: Any) -> list[str]:
        return []  # the host is the program itself

    def plain_argv(
        self, host: Path, bot: Path, game: str | None, interpreter: str | None
    ) -> list[str]:
        return [str(host), str(bot)]

    def probe_args(self) -> list[str]:
        # the dynamic loader, which every program of the sandbox runs through
        return ["/lib64/ld-linux-x86-64.so.2", "--version"]

    def declared_name(self, text: str) -> str | None:
        found = _NAME.search(text)
        return found.group(1) if found else None

    def compile_files(self, bot_name: str, source: bytes, game: Any) -> dict[str, bytes]:
        return {
            "/src/card_arena.hpp": self.host_source,
            "/src/main.cpp": contract_source(bot_name, _methods(game)).encode(),
            f"/bot/{bot_name}": source,
        }

    def compile_script(self, files: list[str], config: Any = None, root: str = "/") -> str:
        compiler = self.runtime(config)
        # the bot's file is found as /bot/NAME (-iquote): its messages name it so
        return (
            f"{compiler} {' '.join(FLAGS)} -I{root}src -iquote {root}bot {root}src/main.cpp "
            f"-o {root}tmp/program"
        )

    def compile_tools(self, config: Any = None) -> list[str]:
        compiler = self.runtime(config)
        # g++ runs the assembler and (through collect2, under /usr/lib/gcc) the linker
        return [compiler, "/usr/bin/as", "/usr/bin/ld", "/usr/include/nlohmann/json.hpp"]

    def compile_binds(self) -> list[str]:
        # the system's headers (the compiler's own and libstdc++'s are under /usr/lib/gcc
        # and /usr/include/c++); /usr/local/include, which g++ also searches, is not there
        return ["--ro-bind", "/usr/include", "/usr/include"]

    def toolchain(self, config: Any = None) -> str:
        return tool_version((self.runtime(config), "--version"))


def _methods(game: Any) -> list[str]:
    spec = game_spec(game)
    return [] if spec is None else list(spec.methods)


def contract_source(bot_name: str, methods: list[str]) -> str:
    """The file the platform compiles: the host, the bot's file, and the table of the game's
    methods the bot's class has (one it lacks is left out: the arena and validation then
    say which)."""
    checks = "\n".join(
        f"template <class B, class = void> struct has_{m} : std::false_type {{}};\n"
        f"template <class B> struct has_{m}<B, std::void_t<decltype(&B::{m})>> "
        ": std::true_type {};"
        for m in methods
    )
    adds = "\n".join(
        f'  if constexpr (has_{m}<B>::value) table.add("{m}", &B::{m});' for m in methods
    )
    return f"""// written by Card Arena for {bot_name}: the host, the bot, the game's methods
#include "card_arena.hpp"
#include "{bot_name}"

namespace card_arena_contract {{
{checks}
template <class B>
void methods(card_arena::Table<B>& table) {{
{adds}
  (void)table;
}}
}}  // namespace card_arena_contract

int main() {{ return card_arena::serve<Bot>(card_arena_contract::methods<Bot>, RUNTIME); }}
""".replace("RUNTIME", '"g++ " __VERSION__')


LANGUAGE = Cpp(
    name="cpp",
    title="C++",
    suffixes=(".cpp", ".cc", ".cxx"),
    host=HERE / "card_arena.hpp",
    host_name="bot",
    content_type="text/x-c++src",
    runtime_default="/usr/bin/g++",
    runtime_setting="SANDBOX_CXX",
    bot_shape="class Bot",
    contract_summary="one <code>.cpp</code> file with a class <code>Bot</code> whose methods "
    "have the contract's names and take and return what <code>json</code> (nlohmann-json) "
    "converts; compiled once with g++ -O2; a new <code>Bot()</code> for every {match}",
    marks=(
        r"^[ \t]*#[ \t]*include[ \t]*(?:<[^>\n]*>|\"[^\"\n]*\")",
        r"^[ \t]*using[ \t]+namespace[ \t]+[\w:]+[ \t]*;",
    ),
)
