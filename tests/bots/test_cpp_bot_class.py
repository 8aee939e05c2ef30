"""A C++ bot's file must define ``class Bot`` (or make another name ``Bot``): one that does
not is refused before the compiler sees it (``bots.languages.cpp.no_bot_class``, read and
never run), whose words would be about the platform's own files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.languages import get_language
from bots.languages.cpp import no_bot_class
from bots.sandbox.compiling import CompileError
from games.registry import games, get_game

ROOT = Path(__file__).resolve().parents[2]
METHODS = ["draft_pick", "main_play"]


def test_every_cpp_file_of_the_site_defines_its_bot():
    files = [spec.starters["cpp"] for spec in games() if "cpp" in spec.starters]
    files += list((ROOT / "tests" / "sandbox" / "bots").glob("*.cpp"))
    assert files
    for path in files:
        assert no_bot_class(path.read_text(), METHODS) == "", path


@pytest.mark.parametrize(
    "code",
    [
        "class Bot {};",
        "struct Bot : Base {};",
        "class Bot final : public Base {\n};",
        "struct [[maybe_unused]] Bot { int main_play(); };",
        "class MyBot {};\nusing Bot = MyBot;",
        "class MyBot {};\ntypedef MyBot Bot;",
        "class MyBot {};\n#define Bot MyBot",
    ],
)
def test_a_class_bot_or_another_name_made_bot_is_taken(code):
    assert no_bot_class(code, METHODS) == ""


@pytest.mark.parametrize(
    ("code", "named"),
    [
        ("class MyBot {\n public:\n  int main_play() { return 0; }\n};", "class MyBot"),
        # the class with the game's methods, not a helper before it
        ("struct Card {};\nclass Mine { int draft_pick(int c) { return c; } };", "class Mine"),
        ("struct Player {};\nstruct Other {};", "struct Player"),  # none: the first
        # in a comment, a string or a template's parameter, Bot is no class
        (
            '// class Bot {}\n/* struct Bot { */\nconst char* s = "class Bot {";\n'
            "template <class Bot> int f();\nclass Mine {};",
            "class Mine",
        ),
        ("class Bot;\nclass Mine {};", "class Mine"),  # declared only
    ],
)
def test_a_file_with_another_class_is_told_its_name(code, named):
    name = named.split()[1]
    assert no_bot_class(code, METHODS) == (
        f"A C++ bot's file must define class Bot; this file defines {named}: rename it, or "
        f"add `using Bot = {name};`"
    )


@pytest.mark.parametrize(
    "code", ["int main_play() { return 0; }", "enum class Suit { Hearts };", "#error x\n"]
)
def test_a_file_with_no_class_is_told_so(code):
    assert no_bot_class(code) == (
        "A C++ bot's file must define class Bot; this file defines no class."
    )


def test_the_refusal_is_raised_where_the_compile_would_begin():
    """Where the upload's validation, the arena and the playground all compile a bot:
    ``compile_files``, before any compiler runs."""
    with pytest.raises(CompileError, match="this file defines class MyBot: rename it"):
        get_language("cpp").compile_files("mine.cpp", b"class MyBot {};", get_game("rps-poker"))
