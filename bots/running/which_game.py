"""Whether an uploaded bot file is clearly for another game than the one chosen: read, never
run, before anything is stored or counted against a person's limits.

A file is for another game when it has the whole contract of another game
(``Language.may_play``, the check the arena's configuration files use) and nothing of the
chosen game's: none of its methods is even named, as a definition or an assignment would
name it. A bot of the chosen game is never refused here: one that defines its methods in a
way the check cannot read is left to its validation, which starts it in the sandbox. Games
that share a contract (every ``act`` game) cannot be told apart by their methods; where the
file's text names some of them (a starter's first line does), those are the ones said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bots.languages import Language, UnsupportedBot, get_language, language_of, spoken
from games.engine.spec import GameSpec
from games.engine.table import a_title
from games.registry import games

#: what to do with a file for another game, where it was given (:meth:`OtherGame.advice`):
#: the verb, the way for one game ("{title}", "{place}") and the way for several, which the
#: games' places follow
_ADVICE = {
    "form": ("enter", "choose {title} as its game", "choose the game it is for"),
    "upload": ("enter", "upload it with {place}", "upload it with the game it is for"),
    "arena": ("play", "run the arena with {place}", "run the arena with the game it is for"),
    "playground": ("try", "use {place}", "use the playground of the game it is for"),
}


@dataclass(frozen=True)
class OtherGame:
    """Why a file looks like a bot of another game (``why``: the first sentence of its
    refusal) and the games it may be for."""

    why: str
    games: tuple[GameSpec, ...]

    def advice(self, way: str) -> str:
        """What to do, in the words of where the file was given (``way``): the upload form's
        (choose the game), ``upload_bot``'s and the arena's (``--game``), or the playground's
        (that game's playground: :meth:`place`)."""
        verb, one, several = _ADVICE[way]
        if len(self.games) == 1:
            title = self.games[0].title
            how = one.format(title=title, place=self.place(self.games[0], way))
            return f"To {verb} it in {title}, {how}."
        places = [self.place(game, way) for game in self.games]
        return f"To {verb} it, {several}: {spoken(places)}."

    @staticmethod
    def place(game: GameSpec, way: str) -> str:
        """Where ``game`` is chosen, in the words of ``way`` (:meth:`advice`): its title,
        ``--game SLUG``, or "Kuhn poker's playground" (which the playground's page links)."""
        if way == "playground":
            return f"{game.title}'s playground"
        if way in ("upload", "arena"):
            return f"--game {game.slug}"
        return game.title


def _names_a_method(text: str, language: Language, spec: GameSpec) -> bool:
    """Whether ``text`` names a method of ``spec``'s contract where code would define it
    (``act(``, ``act:``, ``act =``), as the contract or the language writes it."""
    for method in spec.methods:
        for name in {method, language.method_name(method), language.defined_name(method)}:
            if re.search(rf"\b{re.escape(name)}\s*[(:=]", text):
                return True
    return False


def names_game(text: str, spec: GameSpec) -> bool:
    """Whether ``text`` names the game: its title, or its slug as a word."""
    return bool(
        re.search(re.escape(spec.title), text, re.IGNORECASE)
        or re.search(rf"(?<![\w-]){re.escape(spec.slug)}(?![\w-])", text, re.IGNORECASE)
    )


def _methods(language: Language, spec: GameSpec) -> list[str]:
    return [language.method_name(method) for method in spec.methods]


def _whose(titles: list[str], count: int) -> str:
    """Whose methods they are: "Kuhn poker's method", "the method of Kuhn poker and Leduc
    hold'em bots"."""
    word = "method" if count == 1 else "methods"
    if len(titles) == 1:
        return f"{titles[0]}'s {word}"
    return f"the {word} of {spoken(titles, 'and')} bots"


def file_for_another_game(path: Path, data: bytes, spec: GameSpec) -> OtherGame | None:
    """:func:`for_another_game` for a bot file (the arena's), of the language its suffix
    says: read as text, never run; None where it is no bot file or no UTF-8 text (its start
    says what is wrong)."""
    try:
        language = language_of(path)
        code = data.decode("utf-8")
    except (UnsupportedBot, UnicodeDecodeError):
        return None
    return for_another_game(code, language.name, spec)


def for_another_game(code: str, language: str, spec: GameSpec) -> OtherGame | None:
    """Why ``code`` (a version's text, of ``language``) looks like a bot of another game than
    ``spec``, and which games; None where it may be one of ``spec``'s."""
    own = get_language(language)
    data = code.encode("utf-8")
    if own.may_play(data, spec) or _names_a_method(code, own, spec):
        return None
    others = [game for game in games() if game.slug != spec.slug and own.may_play(data, game)]
    if not others:
        return None
    named = [game for game in others if names_game(code, game)]
    shown = tuple(named or others)
    what = f"{a_title(shown[0].title)} bot" if len(shown) == 1 else "a bot for another game"
    head = f"This file looks like {what}, not {a_title(spec.title)} bot"
    # how it fits them: by defining their methods, or (Java) through a game's kit
    groups: dict[tuple[str, ...], list[str]] = {}
    for game in shown:
        if Language.may_play(own, data, game):
            groups.setdefault(tuple(_methods(own, game)), []).append(game.title)
    kits = spoken([f"{game.title}'s" for game in shown], "or")
    if not groups and own.kept_file(code) is not None:  # a built jar: no methods to read
        only = spoken([game.title for game in shown], "or")
        return OtherGame(
            f"{head}: it is a jar built with {kits} kit, and jars are for {only} only.", shown
        )
    if groups:
        fits = [f"{spoken(list(m), 'and')} ({_whose(t, len(m))})" for m, t in groups.items()]
        how = f"it defines {spoken(fits, 'and')}"
    else:
        how = f"it is written with {kits} kit"
    if named:
        how += f", its text names {spoken([game.title for game in named], 'and')}"
    mine = _methods(own, spec)
    if len(mine) > 1:
        needs = f"none of {spoken(mine, 'and')}, the methods {a_title(spec.title)} bot needs"
    else:
        needs = f"no {mine[0]}, the method {a_title(spec.title)} bot needs"
    return OtherGame(f"{head}: {how}, and it has {needs}.", shown)
