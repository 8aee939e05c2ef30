"""A game is one package: outside ``games/<game>/`` and the registry's one line per game, no
code, template or script names a game (it asks the game's spec instead).

What is not there yet is listed in KNOWN, file by file with the count of names: the list may
only shrink (a file that names fewer games than listed fails too, so the list is kept exact).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from games.registry import GAMES, get_game

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("cardsite", "games", "bots", "templates", "static")
SUFFIXES = {".py", ".html", ".js", ".css"}

#: file -> names of games it still holds, until the redesign reaches it
KNOWN: dict[str, int] = {}


def packages() -> dict[str, str]:
    """slug -> the folder of the game's package (games/<game>/)."""
    return {
        slug: module.rsplit(".", 1)[0].replace(".", "/") + "/" for slug, module in GAMES.items()
    }


def named_outside(own: dict[str, str], registry: str) -> Counter[str]:
    """File -> how many times it quotes a name of ``own`` (name -> the folder of its package)
    outside that name's package, over the scanned folders (the registry and migrations
    left out)."""
    names = "|".join(re.escape(name) for name in own)
    quoted = re.compile(rf"""(["'])({names})\1""")
    found: Counter[str] = Counter()
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            relative = path.relative_to(ROOT).as_posix()
            if relative == registry or "/migrations/" in relative:
                continue
            for match in quoted.finditer(path.read_text(encoding="utf-8")):
                if not relative.startswith(own[match.group(2)]):
                    found[relative] += 1
    return found


def named_games() -> Counter[str]:
    return named_outside(packages(), "games/registry.py")


def assert_exactly_known(found: Counter[str], known: dict[str, int], what: str) -> None:
    """No file names more ``what`` than ``known`` allows, and none fewer (the list shrinks)."""
    unexpected = {f: n for f, n in found.items() if n > known.get(f, 0)}
    assert not unexpected, f"{what} names outside their packages: {unexpected}"
    fixed = {f: (n, found.get(f, 0)) for f, n in known.items() if found.get(f, 0) < n}
    assert not fixed, f"fewer {what} names than KNOWN says (shrink KNOWN): {fixed}"


def test_no_game_is_named_outside_its_own_package():
    assert_exactly_known(named_games(), KNOWN, "game")


#: the solver's command and the strategy explorer: every game's solver options, limits and
#: export come from its spec (``SolverSpec``), so these name no game at all, in any form
SOLVER_FILES = (
    "games/explorer.py",
    "games/solves.py",
    "games/management/commands/solve.py",
    "games/solver_games/__init__.py",
    "templates/solver/explorer.html",
    "templates/solver/job.html",
    "static/js/explorer.js",
    "static/css/explorer.css",
)


def names_of_games() -> set[str]:
    """Every way a game is named: slug, title, the solver's aliases and the package."""
    names: set[str] = set()
    for slug, module in GAMES.items():
        spec = get_game(slug)
        names |= {slug, spec.title, module.split(".")[1]}
        if spec.solver is not None:
            names |= set(spec.solver.aliases)
    return names


def test_the_solver_command_and_the_explorer_name_no_game():
    words = "|".join(re.escape(name) for name in sorted(names_of_games(), key=len, reverse=True))
    pattern = re.compile(rf"(?<!\w)({words})(?!\w)", re.IGNORECASE)
    found = {
        f: sorted(set(pattern.findall((ROOT / f).read_text(encoding="utf-8"))))
        for f in SOLVER_FILES
    }
    assert {f: names for f, names in found.items() if names} == {}


def test_the_registry_lists_each_game_once_and_each_spec_is_its_own():
    for slug, module in GAMES.items():
        spec = get_game(slug)
        assert spec.slug == slug
        assert spec.state_class.__module__.startswith(module.rsplit(".", 1)[0])
