"""A C++ bot's file must define ``class Bot`` (or make another name ``Bot``): one that never
names ``Bot`` outside its comments and strings, and so cannot, is refused before the
compiler sees it (``bots.languages.cpp.no_bot_class``, read and never run), whose words would
be about the platform's own files. Any file that names it is the compiler's to judge."""

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
        # refused until the check read only what it could parse: each compiles into a bot
        "typedef struct {\n  int main_play() { return 0; }\n} Bot;",
        "struct alignas(alignof(double)) Bot {\n  int main_play() { return 0; }\n};",
        'class __attribute__((visibility("default"))) Bot {\n};',
        "class Bot \\\n{\n};",  # a line spliced
        "class B\\\not {};",  # the name itself spliced
        'const char* s = BAR"(x";\nclass Bot {};',  # BAR"( is no raw string
        "int n = 1'000;\nclass Bot {};\nchar c = 'x';",  # a digit separator, no character
        "#define NAME(a, b) a##b\nclass NAME(B, ot) {};",  # a name made by the macro
        # a declaration only, or a template's parameter: the compiler says what is wrong
        "class Bot;\nclass Mine {};",
        "template <class Bot> int f();\nclass Mine {};",
    ],
)
def test_a_file_that_names_bot_is_left_to_the_compiler(code):
    assert no_bot_class(code, METHODS) == ""


NEVER = "A C++ bot's file must define class Bot; this file never names Bot"


@pytest.mark.parametrize(
    ("code", "named"),
    [
        ("class MyBot {\n public:\n  int main_play() { return 0; }\n};", "class MyBot"),
        # the class with the game's methods, not a helper before it
        ("struct Card {};\nclass Mine { int draft_pick(int c) { return c; } };", "class Mine"),
        # in a comment, a string or a raw string, Bot is not named
        (
            '// class Bot {}\n/* struct Bot { */\nconst char* s = "class Bot {";\n'
            'auto r = u8R"x(class Bot {)x";\nclass Mine { void main_play(); };',
            "class Mine",
        ),
    ],
)
def test_a_file_with_the_games_methods_in_another_class_is_told_its_name(code, named):
    name = named.split()[1]
    assert no_bot_class(code, METHODS) == (
        f"{NEVER} (it defines {named}: rename it, or add `using Bot = {name};`)."
    )


@pytest.mark.parametrize(
    "code",
    [
        "int main_play() { return 0; }",
        "enum class Suit { Hearts };",
        "#error x\n",
        "struct Player {};\nstruct Other {};",  # none with the game's methods
        "// class Bot {};\nstruct Mine {};",
    ],
)
def test_a_file_that_never_names_bot_is_told_so(code):
    assert no_bot_class(code, METHODS) == f"{NEVER}."


def test_the_refusal_is_raised_where_the_compile_would_begin():
    """Where the upload's validation, the arena and the playground all compile a bot:
    ``compile_files``, before any compiler runs."""
    with pytest.raises(CompileError, match="it defines class MyBot: rename it"):
        get_language("cpp").compile_files(
            "mine.cpp", b"class MyBot { int main_play(); };", get_game("rps-poker")
        )
