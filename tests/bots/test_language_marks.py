"""Code pasted or uploaded under the wrong language is refused before anything runs, by a
look at its text (``Language.marks``, ``bots.languages.looks_foreign``) that names both
languages; the site's own starters and built-in bots raise no false alarm."""

from __future__ import annotations

import pytest

from bots.competition.uploads import UploadError, check_code
from bots.languages import _first_mark, get_language, languages, looks_foreign
from games.registry import games

STARTERS = [
    pytest.param(spec, name, path, id=f"{spec.slug}-{name}")
    for spec in games()
    for name, path in spec.starters.items()
]


@pytest.mark.parametrize(("spec", "own", "path"), STARTERS)
def test_every_starter_passes_as_its_own_language_and_is_named_under_another(spec, own, path):
    text = path.read_text(encoding="utf-8")
    assert looks_foreign(text, own) is None
    assert check_code(text.encode(), language=own) == text
    mine = get_language(own)
    assert _first_mark(mine, text) is not None, f"{path.name} shows no mark of {mine.title}"
    for other in languages():
        if other is mine:
            continue
        said = looks_foreign(text, other.name)
        assert said is not None, f"{path.name} passes as {other.title}"
        assert said.startswith(f"This looks like {mine.title} (line ")
        assert said.endswith(
            f"but the language chosen is {other.title}: choose {mine.title}, or give "
            f"{other.title} code."
        )
        with pytest.raises(UploadError, match="This looks like"):
            check_code(text.encode(), language=other.name)


@pytest.mark.parametrize("spec", games(), ids=lambda spec: spec.slug)
def test_no_built_in_bot_raises_a_false_alarm(spec):
    for name in spec.builtin_names:
        path = spec.builtin_path(name)
        own = next(lang.name for lang in languages() if path.suffix in lang.suffixes)
        assert looks_foreign(path.read_text(encoding="utf-8"), own) is None, path


def test_the_javascript_starter_pasted_as_python_is_refused_naming_both():
    starter = {spec.slug: spec for spec in games()}["rps-poker"].starters["javascript"]
    text = starter.read_text(encoding="utf-8")
    line = text.splitlines().index("({") + 1
    assert looks_foreign(text, "python") == (
        f"This looks like JavaScript (line {line}: “({{”), but the language chosen is Python: "
        "choose JavaScript, or give Python code."
    )


@pytest.mark.parametrize(
    ("text", "chosen", "seen"),
    [
        ("#include <vector>\nint main() {}\n", "python", "C++ (line 1: “#include <vector>”)"),
        ("public class Mine {\n}\n", "cpp", "Java (line 1: “public class Mine”)"),
        ("module.exports = {\n};\n", "python", "JavaScript (line 1: “module.exports =”)"),
        ("class Bot:\n    pass\n", "javascript", "Python (line 1: “class Bot:”)"),
        ("\n\nclass Bot:\n    def act(self, x):\n", "java", "Python (line 3: “class Bot:”)"),
    ],
)
def test_a_mark_of_another_language_is_named_with_its_line(text, chosen, seen):
    said = looks_foreign(text, chosen)
    assert said is not None and said.startswith(f"This looks like {seen}, but")


@pytest.mark.parametrize(
    ("text", "chosen"),
    [
        # a mark in a comment or a string, beside the chosen language's own
        ("# a C++ bot would say\n#include <vector>\nclass Bot:\n    pass\n", "python"),
        ("// class Bot:\n({\n  draftPick(cards) { return 0; },\n})\n", "javascript"),
        ("plain words, no mark of any language\n", "cpp"),
        ("(function () { return 1; })\n", "java"),  # nothing unmistakable
    ],
)
def test_no_alarm_without_a_mark_or_beside_a_mark_of_its_own(text, chosen):
    assert looks_foreign(text, chosen) is None
