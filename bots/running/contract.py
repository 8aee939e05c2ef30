"""Whether a bot has the methods of its game's contract, told before its first match.

A host's hello lists the bot's public methods (docs/bot-protocol.md, 1) so that a bot lacking
one of its game's is refused before any match, rather than faulting on every call: the
arena refuses it (``bots.arena``), and validation and the playground, which play uploaded
code for its author, end with the reason at once (:func:`check_before_play`). The reason
names the missing methods as the bot's own file does, what the game needs, what the file
defines, and the game the file seems to be for when another game's contract is all there.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from pathlib import Path

from bots.languages import (
    LANGUAGES,
    camel_case,
    default_language,
    get_language,
    method_name,
)
from bots.running.playing import (
    LAUNCH_ERRORS,
    SITE,
    CodeFolder,
    Entry,
    Launching,
    ProcessCache,
    seat_agent,
)
from bots.running.process import BotProcess, Hello, PlatformError
from bots.running.which_game import names_game
from games.engine.agents import AgentFault
from games.engine.spec import GameSpec
from games.engine.table import a_title
from games.registry import games


def _parameters(game: GameSpec) -> dict[str, list[str]]:
    """The contract's methods' parameters, as the game's starter in the site's first
    language names them (``act`` -> ``["obs"]``); none for a method it does not define."""
    return _starter_parameters(game.starters.get(default_language().name), game.methods)


@functools.cache
def _starter_parameters(starter: Path | None, methods: tuple[str, ...]) -> dict[str, list[str]]:
    if starter is None:
        return {}
    try:
        tree = ast.parse(starter.read_text())
    except (OSError, SyntaxError):
        return {}
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Bot":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in methods:
                    found[item.name] = [a.arg for a in item.args.args[1:]]
    return found


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def _case_rule(language: str, missing: list[str], defined: list[str]) -> str:
    """The rule of the bot's language (" A Java bot names its methods in camelCase: act, not
    Act.") for a method its file defines (``defined``, as the reasons name them) under the
    name of a ``missing`` one of the contract written otherwise (its case, or underscores);
    "" if it defines none."""
    if language not in LANGUAGES:
        return ""
    own = get_language(language)

    def bare(name: str) -> str:
        return name.replace("_", "").lower()

    for method in missing:
        wanted = own.defined_name(method)
        written = next((d for d in defined if d != wanted and bare(d) == bare(wanted)), None)
        if written is not None:
            a_language = a_title(own.title)
            how = "in camelCase" if own.defined_name("x_y") == "xY" else "as the contract does"
            return (
                f" {a_language[0].upper()}{a_language[1:]} bot names its methods {how}: "
                f"{wanted}, not {written}."
            )
    return ""


def missing_methods(game: GameSpec, hello: Hello, code: str | Callable[[], str] = "") -> str:
    """Why the bot of ``hello`` cannot play ``game`` ("" if it has every method of the
    contract): "class Bot has no method act. A Goofspiel bot needs act(obs); this file
    defines draft_pick, draft_receive, main_play, main_postprocess (RPS Poker's methods): is
    it for another game?". Methods are named as the bot's language names them; only those of
    another game's contract are said to be that game's ("this file defines bestSuit, play
    (play: Last Card's method)"). The bot's file's text (``code``, read, never run) tells
    what its hello cannot: a method defined in the contract's own spelling where its language
    renames it (``draft_pick`` for a JavaScript bot's ``draftPick``, which its host does not
    list), and which of the games whose methods it has its text names; given as a function,
    it is read only for a bot that lacks a method (a bot's every start asks)."""
    missing = [m for m in game.methods if m not in hello.methods]
    if not missing:
        return ""
    if callable(code):
        code = code()
    language = hello.language
    owner = get_language(language).bot_shape if language in LANGUAGES else "the bot"

    def named(method: str) -> str:
        return method_name(language, method)

    parameters = _parameters(game)
    needs = ", ".join(f"{named(m)}({', '.join(parameters.get(m, []))})" for m in game.methods)
    game_bot = a_title(game.title)  # "a Goofspiel", "an RPS Poker": a sentence's start
    reason = (
        f"{owner} has no method {', '.join(named(m) for m in missing)}. "
        f"{game_bot[0].upper()}{game_bot[1:]} bot needs {needs}"
    )
    # a method the file defines under a missing one's name written otherwise (DraftPick for
    # draftPick): its language's rule, naming it
    rule = _case_rule(language, missing, [named(m) for m in hello.methods])
    # else a language that renames the contract's methods (JavaScript's camelCase), whose
    # file defines a missing one as the contract names it (draft_pick): not the one the
    # site calls, nor one its host lists
    if not rule and code and language in LANGUAGES:
        own = get_language(language)
        snake = next(
            (m for m in missing if named(m) == camel_case(m) != m and own.defines(code, m)),
            None,
        )
        if snake is not None:
            a_language = a_title(own.title)  # "a JavaScript"
            rule = (
                f" {a_language[0].upper()}{a_language[1:]} bot names its methods in camelCase: "
                f"{named(snake)}, not {snake}."
            )
    if not hello.methods:
        # (a host may list only the contract's methods: C++'s cannot see the others)
        if rule:
            return f"{reason}; this file defines no method in camelCase.{rule}"
        besides = get_language(language).none_defined if language in LANGUAGES else ""
        return f"{reason}; this file defines none of the game's methods.{besides}"
    defines = f"{reason}; this file defines {', '.join(named(m) for m in hello.methods)}"
    # another game whose whole contract the file defines: it may be that game's bot (of
    # several, those its text names, if any)
    others = [
        other
        for other in games()
        if other.slug != game.slug and other.methods and set(other.methods) <= set(hello.methods)
    ]
    if not others:
        return f"{defines}.{rule}"
    others = [other for other in others if code and names_game(code, other)] or others
    theirs = [m for m in hello.methods if any(m in other.methods for other in others)]
    whose = {tuple(other.methods) for other in others}
    word = "method" if all(len(methods) == 1 for methods in whose) else "methods"
    titles = [other.title for other in others]
    said = f"{titles[0]}'s {word}" if len(titles) == 1 else f"the {word} of {_listed(titles)} bots"
    if theirs != hello.methods:  # (with methods of its own: helpers)
        said = f"{', '.join(named(m) for m in theirs)}: {said}"
    return f"{defines} ({said}): is it for another game?{rule}"


def entry_text(entry: Entry | None) -> str:
    """The text of an entry's bot file (its stored code, or its file's), "" if none."""
    if entry is None:
        return ""
    if entry.path is None:
        return entry.code or ""
    try:
        return entry.path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def check_before_play(
    game: GameSpec,
    entry: Entry,
    *,
    timeout: float,
    cache: ProcessCache | None = None,
    launching: Launching = SITE,
) -> str:
    """Start ``entry``'s bot and read its hello before its first match: why it cannot play
    ``game`` (:func:`missing_methods`), or "" when it has the contract's methods, and also
    when it cannot be launched or started at all (its first match starts it again and
    faults as it should, its log kept). With a ``cache`` (and an entry with a key) the
    started process is kept there for the matches; else it is closed. Raises PlatformError
    (the platform's trouble, as a match would)."""
    folder = CodeFolder()
    owned: list[BotProcess] = []
    try:
        try:
            _, process = seat_agent(
                game, entry, launching=launching, folder=folder, cache=cache, owned=owned
            )
        except PlatformError:
            raise
        except LAUNCH_ERRORS:
            return ""
        if process is None:  # a built-in bot: the game's own
            return ""
        try:
            hello = process.start(timeout)
        except AgentFault:
            process.kill()
            return ""
        reason = missing_methods(game, hello, lambda: entry_text(entry))
        if reason:
            process.kill()
        return reason
    finally:
        for process in owned:
            process.close()
        folder.close()
