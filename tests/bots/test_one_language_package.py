"""A language is one package: outside ``bots/languages/<name>/`` and the registry's one line
per language (``bots/languages/__init__.py``), no code, template or script names a language
or quotes one of its file suffixes (it asks the registry: ``get_language``, ``language_of``,
``by_suffix``), so that the next language touches no other code.

Where a name is still allowed is listed in KNOWN, file by file with the count of names: a
game's spec names the languages of its own starter files (``starters``) and of the classes
it gives a language's bots (``kits``: Last Card's Java kit), which are its to write. The
list grows only with a game's starter or kit (a file that names fewer languages than listed
fails too, so the list is kept exact).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bots.languages import LANGUAGES, get_language, languages
from tests.engine.test_one_package import assert_exactly_known, named_outside

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = "bots/languages/__init__.py"

#: file -> names of languages it holds: a game's starters and kits, by language
KNOWN: dict[str, int] = {
    "games/blackjack_pp/spec.py": 4,
    "games/goofspiel/spec.py": 4,
    "games/kuhn/spec.py": 4,
    "games/last_card/spec.py": 6,
    "games/leduc/spec.py": 4,
    "games/rps_poker/spec.py": 4,
    "games/uth/spec.py": 4,
}


def package(name: str) -> str:
    return LANGUAGES[name].replace(".", "/") + "/"


def named_languages() -> Counter[str]:
    """Names of languages, and their file suffixes (``".py"``), quoted outside their
    packages."""
    own = {name: package(name) for name in LANGUAGES}
    own |= {
        suffix: package(language.name) for language in languages() for suffix in language.suffixes
    }
    return named_outside(own, REGISTRY)


def test_no_language_is_named_outside_its_own_package():
    assert_exactly_known(named_languages(), KNOWN, "language")


def test_each_language_is_its_own_package_with_its_host():
    suffixes: set[str] = set()
    for language in languages():
        assert get_language(language.name) is language
        assert type(language).__module__ == LANGUAGES[language.name]
        assert language.host.is_file()
        assert language.host.resolve().is_relative_to(ROOT / package(language.name))
        assert not suffixes & set(language.suffixes), "two languages claim one suffix"
        suffixes |= set(language.suffixes)
