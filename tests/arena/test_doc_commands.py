"""The README and the user docs, read as a newcomer reads them: every command is copied as
written, one after the other. A bot file that a command of a page plays or uploads must be
one that page has the reader make first (a ``cp`` of a starter, a ``solve ... --bot``), or
one the page tells the reader to write under that name; every link between the documents
reaches a file and a heading that are there, and every path of the repository they name
exists."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS += sorted((ROOT / "docs" / "games").glob("*.md"))
BOT_SUFFIXES = (".py", ".js", ".cpp", ".cc", ".cxx", ".java", ".jar")
#: files a page names as the reader's own, never made by one of its commands
THE_READERS_OWN = {
    "upi1234.jar": "the jar the original Last Card kit builds (its `mvn package`)",
}


def code_blocks(text: str) -> list[str]:
    """The page's commands, in order: its indented blocks and its fenced ones."""
    commands = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    "):
            commands.append(line.strip())
    return commands


def joined(lines: list[str]) -> list[str]:
    """Lines ending in a backslash joined to the next, as a shell reads them."""
    out: list[str] = []
    for line in lines:
        if out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1] + " " + line
        else:
            out.append(line)
    return out


def bot_files(words: list[str]) -> list[str]:
    """The bot files an ``arena`` or ``upload_bot`` command plays or uploads."""
    found = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        if word in ("--json", "--logs", "--config", "--bot", "--user", "--name", "--game"):
            skip_next = True
            continue
        if word.endswith(BOT_SUFFIXES) and word != "manage.py" and not word.startswith("-"):
            found.append(word)
    return found


def made(words: list[str]) -> list[str]:
    """The files a command makes: a ``cp``'s copy, a ``solve``'s ``--bot``, a ``sed -i``."""
    if words[:1] == ["cp"] and len(words) >= 3:
        return [words[-1]]
    if "solve" in words and "--bot" in words:
        return [words[words.index("--bot") + 1]]
    return []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bot_file_a_command_plays_is_one_the_page_had_you_make(doc):
    text = doc.read_text()
    have: set[str] = set()
    for command in joined(code_blocks(text)):
        try:
            words = shlex.split(command.split(" #", 1)[0])
        except ValueError:
            continue
        have.update(made(words))
        if "manage.py" not in words or not {"arena", "upload_bot"} & set(words):
            continue
        for name in bot_files(words):
            if name in THE_READERS_OWN or (ROOT / name).exists():
                continue
            said = re.search(rf"(save|write|put)[^.]*`{re.escape(name)}`", text)
            assert name in have or said, (
                f"{doc.relative_to(ROOT)}: `{command}` plays {name}, which no command before it"
                f" makes (made so far: {sorted(have) or 'none'})"
            )


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    heading = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return heading.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, flags=re.M)}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_reaches_a_file_and_a_heading_that_are_there(doc):
    text = doc.read_text()
    broken = []
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        if link.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = link.partition("#")
        target = (doc.parent / path).resolve() if path else doc
        if not target.exists():
            broken.append(f"{link} (no such file)")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{link} (no such heading in {target.name})")
    assert not broken, f"{doc.relative_to(ROOT)}: {broken}"


TOP = "games|bots|cardsite|tests|scripts|templates|static|bench|docs"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_of_the_repository_a_page_names_is_there(doc):
    named = re.findall(rf"`((?:{TOP})/[\w./-]+)`", doc.read_text())
    missing = [p for p in named if not (ROOT / p).exists()]
    assert not missing, f"{doc.relative_to(ROOT)} names {missing}"


@pytest.mark.parametrize(
    "doc", sorted((ROOT / "docs" / "games").glob("*.md")), ids=lambda p: p.stem
)
def test_a_games_page_opens_with_the_game_not_the_state_of_its_code(doc):
    # the site shows this page as the game's rules: Goofspiel's opened with "Status: the
    # package (games/goofspiel/) is complete, ... the registry lists it with one line"
    opening = doc.read_text().split("\n## ", 1)[0]
    assert not re.search(r"(?i)\bstatus:|registry|spec\(\)", opening), opening


def test_the_checks_see_what_they_look_for():
    # a command that plays a file nothing made, and a link to a heading that is not there
    page = "    cp games/kuhn/starter.py kuhn_mine.py\n    manage.py arena --game kuhn my_bot.py\n"
    words = shlex.split(joined(code_blocks(page))[1])
    assert bot_files(words) == ["my_bot.py"]
    assert made(shlex.split(joined(code_blocks(page))[0])) == ["kuhn_mine.py"]
    assert slug("Compiled languages (C++, Java)") == "compiled-languages-c-java"
    assert "compiled-languages-c-java" in anchors(ROOT / "docs" / "sandbox.md")
