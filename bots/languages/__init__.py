"""The languages bots are written in. A language is one package, ``bots/languages/<name>/``,
as a game is one package of ``games/``: its host (the program that runs a bot file and speaks
the JSON-lines protocol, docs/bot-protocol.md), how a bot of it is started (its runtime, the
runtime's flags, the host's arguments: plain, in the debug folder and in the sandbox), the
share of the limits its runtime needs, the seccomp filters it runs under, how it names a
contract's methods, its file suffixes and how the pages name it. Nothing outside its package
names a language (tests/bots/test_one_language_package.py): the rest of the platform asks
this registry.

:data:`LANGUAGES` holds one line per language; :func:`get_language` and :func:`language_of`
(by a bot file's suffix) find one.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: name -> the module of the language's package (its ``LANGUAGE``), in the order the pages
#: offer them (the first is the default)
LANGUAGES: dict[str, str] = {
    "python": "bots.languages.python",
    "javascript": "bots.languages.javascript",
    "cpp": "bots.languages.cpp",
    "java": "bots.languages.java",
}


class UnsupportedBot(ValueError):
    pass


@dataclass(frozen=True)
class Language:
    """One language: what every language says of itself (the attributes) and the ways it is
    started that differ from one to the next (the methods, which its package's subclass
    gives). ``limits`` and ``config`` are ``bots.sandbox``'s SandboxLimits and
    SandboxConfig (not imported here: the sandbox asks this module)."""

    name: str
    #: how the pages name it ("JavaScript")
    title: str
    #: a bot file's suffixes; the first is the one a stored version's file gets
    suffixes: tuple[str, ...]
    #: the host, in the language's package
    host: Path
    #: the host's file name where it runs (the sandbox's /sandbox/, the debug folder): the
    #: name a bot's tracebacks show
    host_name: str
    #: the content type of its files, as downloads give them
    content_type: str
    #: the runtime the sandbox runs (Debian's, never the worker's virtualenv), and the
    #: setting that names another (``SandboxConfig.runtimes``)
    runtime_default: str
    runtime_setting: str
    #: what a bot of it is, in a fault's words ("class Bot", "the bot object")
    bot_shape: str
    #: the contract's shape in it, one line for the rules pages
    contract_summary: str
    #: whether the game's toolkit modules (its spec's helper files) sit beside the bot
    uses_toolkit: bool = False
    #: whether a bot's file is compiled into the program that runs (bots.sandbox.compiling:
    #: :meth:`compile_files`, :meth:`compile_script`, :meth:`toolchain`), which then takes
    #: the host's place
    compiled: bool = False
    #: whether a bot's file must be named after its public class (Java's rule): a starter
    #: is downloaded under its own name then
    named_by_class: bool = False
    #: suffixes of its files that are not text (Java's built jars): a version keeps them as
    #: text, wrapped by :meth:`stored_code`, and its compile unwraps them
    binary_suffixes: tuple[str, ...] = ()
    #: what a file in which its host finds no method at all is told besides (its shapes a bot
    #: file must have, where a likely mistake makes a file none of them); "" for nothing
    none_defined: str = ""
    #: how a bot's file defines a method, as a regex around its name (``{name}``, as
    #: :meth:`defined_name` gives it): what :meth:`defines` and :meth:`may_play` look for
    definition: str = r"\b{name}\s*\("
    #: unmistakable marks of its code, as regexes (``re.MULTILINE``: ``^`` starts a line),
    #: each matching only the telling words: what :func:`looks_foreign` finds in text said to
    #: be of another language (read, never run). None may match the site's starters or
    #: built-in bots of another language (tests/bots/test_language_marks.py)
    marks: tuple[str, ...] = ()
    #: how its host keeps a bot's matches apart (``Hello.isolation`` in
    #: bots.running.process: "process", "realm", or "" for none, a fresh start for every
    #: deal the bot has been dealt): the one a hello may claim. A hello is the bot's process
    #: speaking, and a compiled bot's own code (C++ compiled into the host, a Java static
    #: initialiser run before the host's hello) can write one of its own: it says what the
    #: platform trusts only where its language's host is the only code that could speak first.
    isolation: str = ""

    @property
    def suffix(self) -> str:
        return self.suffixes[0]

    def stored_code(self, suffix: str, data: bytes) -> bytes:
        """An uploaded file's bytes as the text a version keeps: the file itself, but for a
        file of :attr:`binary_suffixes`, which the language wraps in text. Raises ValueError,
        saying why, for a file that is not of the kind its suffix says."""
        return data

    @property
    def host_source(self) -> bytes:
        return _source(self.host)

    def method_name(self, method: str) -> str:
        """A method of a game's contract (``draft_pick``) as a bot of this language names it,
        so that a fault tells its author the name in their own file."""
        return method

    def runtime(self, config: Any = None) -> str:
        """The runtime the sandbox (and ``--no-sandbox``) runs: Debian's, never the project's
        (``config``'s, else the language's own default)."""
        return (
            config.runtimes.get(self.name, self.runtime_default) if config else self.runtime_default
        )

    def runtime_args(self, limits: Any, config: Any) -> list[str]:
        """The runtime and its flags, before the host."""
        raise NotImplementedError

    def host_args(self, *, control: str, wipe: str | None, sandboxed: bool) -> list[str]:
        """The host's options, between the host and the bot file: its control pipe's
        descriptor (a placeholder BotProcess fills in), the folder it empties between
        matches (None: none), and whether it runs in the sandbox (with the files of
        :meth:`sandbox_binds`)."""
        return []

    def bot_args(self, game: str | None) -> list[str]:
        """What follows the bot file on the host's command line (the game's globals...)."""
        return []

    def plain_argv(
        self, host: Path, bot: Path, game: str | None, interpreter: str | None
    ) -> list[str]:
        """An unsandboxed command line for a trusted bot file (the project's built-ins)."""
        raise NotImplementedError

    def memory_extra_mb(self, limits: Any) -> int:
        """Memory the runtime needs beyond the bot's own ``memory_mb`` (its memory cgroup)."""
        return 0

    def address_space_mb(self, limits: Any) -> int:
        """The address-space limit (RLIMIT_AS), which a runtime may need far above its memory."""
        # the heap and a full /tmp stay within memory_mb, even with no memory cgroup
        return max(limits.memory_mb - limits.tmp_mb, 16)

    def seccomp_data(self) -> dict[str, bytes]:
        """The seccomp filters, by the placeholder the sandbox's command line names them with."""
        from bots.sandbox.seccomp import filter_bpf

        return {"{seccomp}": filter_bpf()}

    def sandbox_binds(self) -> list[str]:
        """bwrap's arguments for files of the language's own in the sandbox, besides the host."""
        return []

    def without_proc(self, runtime: list[str]) -> list[str] | None:
        """For a runtime that runs without /proc (bots.sandbox.proc_args): bwrap's arguments
        in its place (what the runtime would have read there, told another way), else None:
        the sandbox has its /proc."""
        return None

    def debug_env(self, root: Path) -> dict[str, str]:
        """Environment of ``--no-sandbox`` runs beyond the common one."""
        return {}

    def probe_args(self) -> list[str]:
        """Arguments to the runtime that run nothing: the sandbox's self-test."""
        raise NotImplementedError

    def declared_name(self, text: str) -> str | None:
        """The name a bot's file gives its bot, read without running it (bots.names), or
        None."""
        return None

    def traced_file(self, code: str) -> str | None:
        """The name the runtime's stack traces give the bot's file where it is not the name
        the version stores it by (the bot's), or None; :attr:`traced_after` says why."""
        return None

    #: what :meth:`traced_file` names the file after, in words
    traced_after = ""

    def kept_file(self, code: str) -> tuple[str, bytes] | None:
        """A version's code that :meth:`stored_code` wrapped, as the file it was: its suffix
        and bytes (a download gives the jar back); None for a text file."""
        return None

    def is_bot_file(self, data: bytes) -> bool:
        """Whether a file of the language's suffix is a bot rather than a helper beside one
        (read, never run): a folder of bots (the arena's ``ai_dirs``) skips helpers."""
        return True

    def defined_name(self, method: str) -> str:
        """A method of a game's contract as a bot's file defines it (its :meth:`method_name`
        unless the language says otherwise)."""
        return self.method_name(method)

    def defines(self, text: str, name: str) -> bool:
        """Whether a bot's ``text`` defines a method called ``name`` as it is written there
        (:attr:`definition`; read, never run)."""
        return re.search(self.definition.format(name=re.escape(name)), text) is not None

    def may_play(self, data: bytes, game: Any) -> bool:
        """Whether a bot file could be one of ``game``'s (read, never run): it defines every
        method of the game's contract (:meth:`defines`, :meth:`defined_name`)."""
        text = data.decode("utf-8", "replace")
        return all(
            self.defines(text, self.defined_name(method)) for method in game_spec(game).methods
        )

    def compile_files(self, bot_name: str, source: bytes, game: Any) -> dict[str, bytes]:
        """A compiled language: the files its compiler reads, by their path in its sandbox
        (the bot's own at ``/bot/NAME``). May raise the bot's CompileError
        (bots.sandbox.compiling) for a file its text shows cannot be a bot, before any
        compile (C++: one that defines no class ``Bot``)."""
        raise NotImplementedError

    def compile_script(self, files: list[str], config: Any = None, root: str = "/") -> str:
        """A compiled language: the shell script that compiles :meth:`compile_files` (their
        paths under ``root``: ``/`` in the sandbox) into ``{root}tmp/program`` (its messages
        on its output)."""
        raise NotImplementedError

    def compile_tools(self, config: Any = None) -> list[str]:
        """A compiled language: the files its compile needs on the machine (its compiler, its
        libraries' headers): one missing is the platform's trouble, never a bot's refusal."""
        return []

    def compile_binds(self) -> list[str]:
        """A compiled language: bwrap's arguments for folders its compiler needs (read-only)
        besides what every compile sees: the system's libraries and the files of
        :meth:`compile_tools` (bots.sandbox.compiling.compile_mounts), never the rest of
        /usr."""
        return []

    def toolchain(self, config: Any = None) -> str:
        """A compiled language: its compiler's version, as part of a program's cache key."""
        return ""


_SNAKE_JOIN = re.compile(r"_([a-z0-9])")


def camel_case(method: str) -> str:
    """A contract's method in camelCase (``draft_pick`` -> ``draftPick``), as JavaScript and
    Java bots name it: host.js's rule, an underscore and the letter or digit after it made
    one upper-case letter."""
    return _SNAKE_JOIN.sub(lambda m: m.group(1).upper(), method)


@cache
def _source(path: Path) -> bytes:
    return path.read_bytes()


@cache
def get_language(name: str) -> Language:
    try:
        module = LANGUAGES[name]
    except KeyError:
        raise UnsupportedBot(f"no host for language {name!r}") from None
    language = importlib.import_module(module).LANGUAGE
    assert language.name == name, f"{module} holds {language.name}, not {name}"
    return language


def languages() -> list[Language]:
    return [get_language(name) for name in LANGUAGES]


def default_language() -> Language:
    return get_language(next(iter(LANGUAGES)))


def by_suffix() -> dict[str, str]:
    """A bot file's suffix -> its language's name."""
    return {suffix: lang.name for lang in languages() for suffix in lang.suffixes}


def file_accept() -> str:
    """What a file input takes for a bot's code (its ``accept``): every language's
    suffixes and content type."""
    taken = [suffix for lang in languages() for suffix in lang.suffixes]
    return ",".join(taken + [lang.content_type for lang in languages()])


def suffix_list() -> str:
    """Every suffix a language takes (its files that are not text too), for a person: ``.py,
    .js, .cpp, .cc, .cxx, .java or .jar`` (it named each language's first only: an upload's
    help left out the .cc and .cxx that C++ takes)."""
    taken = [s for lang in languages() for s in (*lang.suffixes, *lang.binary_suffixes)]
    return spoken(list(dict.fromkeys(taken)))


def title_list() -> str:
    """Every language's title, for a person: ``Python, JavaScript, C++ or Java``."""
    return spoken([lang.title for lang in languages()])


def spoken(items: list[str], last: str = "or") -> str:
    """``a, b or c`` (``last="and"``: ``a, b and c``)."""
    return ", ".join(items[:-1]) + (f" {last} " if len(items) > 1 else "") + items[-1]


def language_of(path: Path) -> Language:
    """The language of a bot file, by its suffix; raises UnsupportedBot."""
    suffixes = by_suffix()
    try:
        return get_language(suffixes[path.suffix.lower()])
    except KeyError:
        known = ", ".join(sorted(suffixes))
        raise UnsupportedBot(
            f"{path}: unsupported bot file type {path.suffix or '(none)'!r} (expected {known})"
        ) from None


def method_name(language: str, method: str) -> str:
    """A method of a game's contract as a bot in ``language`` names it (the contract's own
    name for a language the site does not know)."""
    return get_language(language).method_name(method) if language in LANGUAGES else method


def game_spec(game: Any) -> Any:
    """A game's spec from what the launchers pass: a GameSpec, a slug, or None."""
    if isinstance(game, str):
        from games.registry import get_game

        return get_game(game)
    return game


def game_globals(game: Any) -> dict[str, Any]:
    """The globals a game gives its bots where their language has globals (its spec's
    ``js_globals``: the original RPS Poker bots rely on ``fullDeck``)."""
    spec = game_spec(game)
    return {} if spec is None else dict(spec.js_globals)


@cache
def tool_version(argv: tuple[str, ...], *, stderr: bool = False) -> str:
    """The first line a compiler (or runtime) prints of its version (``argv``: its command
    line, such as ``("/usr/bin/g++", "--version")``), on stdout or ``stderr``: part of a
    compiled program's cache key."""
    import subprocess

    try:
        said = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return f"{argv[0]}: missing"
    return ((said.stderr if stderr else said.stdout).splitlines() or [""])[0]


def _first_mark(language: Language, text: str) -> tuple[int, str] | None:
    """Where ``text`` shows ``language``'s first mark: its line and the words."""
    found = [m for mark in language.marks if (m := re.search(mark, text, re.MULTILINE))]
    if not found:
        return None
    first = min(found, key=lambda m: m.start())
    words = " ".join(first.group(0).split())
    return text.count("\n", 0, first.start()) + 1, words[:60]


def looks_foreign(text: str, chosen: str) -> str | None:
    """Why code said to be of the language ``chosen`` looks like another language's, or None.
    Read, never run: the text shows a mark of another language (:attr:`Language.marks`)
    and none of its own, so that a bot pasted under the wrong language is refused with
    words that name both, before a sandbox meets it."""
    if chosen not in LANGUAGES:
        return None
    own = get_language(chosen)
    if _first_mark(own, text) is not None:
        return None
    seen = [
        (where, other)
        for other in languages()
        if other is not own and (where := _first_mark(other, text)) is not None
    ]
    if not seen:
        return None
    (line, words), other = min(seen, key=lambda item: item[0][0])
    return (
        f"This looks like {other.title} (line {line}: “{words}”), but the language chosen is "
        f"{own.title}: choose {other.title}, or give {own.title} code."
    )


def language_title(name: str) -> str:
    """How the pages name a language ("JavaScript"); its stored name if the site no longer
    runs it."""
    return get_language(name).title if name in LANGUAGES else name
