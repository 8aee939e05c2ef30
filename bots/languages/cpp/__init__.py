"""C++ bots: one ``.cpp`` file with a class ``Bot`` whose public methods have the contract's
names (``draft_pick``), taking the call's arguments as types JSON converts to and returning
one, through Debian's nlohmann-json (``json``). The platform compiles it with Debian's g++
in the sandbox (bots.sandbox.compiling: once per machine, kept by hash) together with
``card_arena.hpp``, the host that speaks the protocol, and a table of the game's methods it
writes for the bot's class; the program runs in the sandbox like any bot
(docs/bot-protocol.md, "C++"). A file that never names ``Bot`` outside its comments and
strings, and so cannot define it (read, never run: :func:`no_bot_class`), is refused before
the compiler sees it, whose words would be about the platform's own files."""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
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
#: what a file says that the compiler does not read as code: comments, string and character
#: literals (a raw string too: ``R"`` starting a token, ``BAR"(`` is no raw string; a quote
#: after a digit is a digit separator, ``1'000``, no character)
_NOT_CODE = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)"  # comments
    r'|(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"([^(\s"]{0,16})\((?:.*?\)\1"|.*)'  # a raw string
    r'|"(?:\\.|[^"\\\n])*"'  # a string
    r"|(?<![A-Za-z0-9_])(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*'",  # a character
    re.DOTALL,
)
#: the name ``Bot`` in code (a file without it cannot define it)
_BOT = re.compile(r"(?<![A-Za-z0-9_$])Bot(?![A-Za-z0-9_$])")
#: what may make a name ``Bot`` without writing it: a macro's ``##``, a universal character
#: name (``\u0042``); such a file is left to the compiler
_MADE_NAME = re.compile(r"##|%:%:|\\[uU]")
#: a class (or struct) defined, not only declared: its name, then its base classes or body
_CLASS = re.compile(
    r"\b(enum\s+)?(class|struct)\s+(?:\[\[[^\]\n]{0,200}\]\]\s*|alignas\s*\([^)\n]{0,200}\)\s*)*"
    r"([A-Za-z_]\w*)\s*(?:final\b\s*)?(?=[:{])(?!::)"
)
#: the classes of a file whose bodies are read for the game's methods (:func:`no_bot_class`)
CLASSES_READ = 100


@dataclass(frozen=True)
class Cpp(Language):
    compiled: bool = True
    #: g++ runs without /proc in its sandbox (bots.sandbox.compiling): an ``#include`` of
    #: ``/proc/self/fd/1`` would read the compiler's own pipe, which never ends
    compile_proc = False

    def runtime_args(self, limits: Any, config: Any) -> list[str]:
        return []  # the host is the program itself

    def plain_argv(
        self, host: Path, bot: Path, game: str | None, interpreter: str | None
    ) -> list[str]:
        return [str(host), str(bot)]

    def seccomp_data(self) -> dict[str, bytes]:
        # no pipe or socket of its own (bots.sandbox.seccomp.INODE_CALLS): a bot's program
        # needs none
        from bots.sandbox.seccomp import filter_bpf

        return {"{seccomp}": filter_bpf(inodes=False)}

    def probe_args(self) -> list[str]:
        # the dynamic loader, which every program of the sandbox runs through
        return ["/lib64/ld-linux-x86-64.so.2", "--version"]

    def runtime_files(self, config: Any = None) -> list[str]:
        """What the sandbox's copy of the runtime holds (bots.sandbox.mirror, which adds
        what these need and the dynamic loader): the libraries a program g++ builds with
        :data:`FLAGS` links, as the compiler finds them (never read off a bot's program)."""
        return [_library(self.runtime(config), name) for name in RUNTIME_LIBRARIES]

    def declared_name(self, text: str) -> str | None:
        found = _NAME.search(text)
        return found.group(1) if found else None

    def compile_files(self, bot_name: str, source: bytes, game: Any) -> dict[str, bytes]:
        refusal = no_bot_class(source.decode("utf-8", "replace"), _methods(game))
        if refusal:
            from bots.sandbox.compiling import CompileError

            raise CompileError(refusal)
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


#: what a program g++ links by default (the C++ library, its support library, libm, libc)
RUNTIME_LIBRARIES = ("libstdc++.so.6", "libgcc_s.so.1", "libm.so.6", "libc.so.6")


@cache
def _library(compiler: str, name: str) -> str:
    """Where ``compiler`` finds the shared library ``name`` (``-print-file-name``)."""
    import subprocess

    said = subprocess.run(
        [compiler, f"-print-file-name={name}"], capture_output=True, text=True, timeout=30,
        check=False,
    )  # fmt: skip
    path = said.stdout.strip()
    if said.returncode != 0 or not os.path.isabs(path):
        raise FileNotFoundError(f"{compiler} does not find {name}")
    return os.path.normpath(path)


def _methods(game: Any) -> list[str]:
    spec = game_spec(game)
    return [] if spec is None else list(spec.methods)


def no_bot_class(text: str, methods: Sequence[str] = ()) -> str:
    """Why a bot's file cannot be compiled into a bot, read and never run: it never names
    ``Bot`` outside its comments and strings, so it cannot define it (nor make another name
    ``Bot``). A file that names it (a class, a ``typedef``, ``using Bot = MyBot;``, a macro)
    is the compiler's to judge; so is one that may make the name without writing it (a
    macro's ``##``, a universal character name). The words name the class with the most of
    the game's ``methods``, if one has any; "" for a file that may be a bot (the compiler
    then says what else is wrong)."""
    spliced = re.sub(r"\\[ \t]*\r?\n", "", text)  # ``Bo\`` + a new line + ``t`` is Bot
    code = _NOT_CODE.sub(lambda found: " " + "\n" * found.group(0).count("\n"), spliced)
    if _BOT.search(code) or _MADE_NAME.search(code):
        return ""
    refusal = "A C++ bot's file must define class Bot; this file never names Bot"
    classes = [
        (found.group(2), found.group(3), found.end())
        for found in _CLASS.finditer(code)
        if not found.group(1)  # (an enum class is no class)
    ][:CLASSES_READ]
    if classes and methods:
        counter = _methods_counter(code, methods)
        best = max(classes, key=counter)
        if counter(best):
            keyword, name, _ = best
            return (
                f"{refusal} (it defines {keyword} {name}: rename it, or add `using Bot = {name};`)."
            )
    return f"{refusal}."


def _methods_counter(code: str, methods: Sequence[str]) -> Callable[[tuple[str, str, int]], int]:
    """How many of the game's ``methods`` the body of a class defines (or calls), the class
    given as :func:`no_bot_class` finds it (its name ending at its third item). Each brace
    and each method's name is read once, whatever the file's size."""
    closes: dict[int, int] = {}
    opened: list[int] = []
    for brace in re.finditer(r"[{}]", code):
        if brace.group(0) == "{":
            opened.append(brace.start())
        elif opened:
            closes[opened.pop()] = brace.start()
    closes.update((start, len(code)) for start in opened)  # (never closed: to the file's end)
    starts = sorted(closes)
    named = (
        [
            (m.start(), m.group(1))
            for m in re.finditer(rf"\b({'|'.join(map(re.escape, methods))})\s*\(", code)
        ]
        if methods
        else []
    )
    at = [position for position, _ in named]

    def count(found: tuple[str, str, int]) -> int:
        i = bisect_left(starts, found[2])
        if i == len(starts):
            return 0
        start = starts[i]
        return len({m for _, m in named[bisect_left(at, start) : bisect_left(at, closes[start])]})

    return count


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
