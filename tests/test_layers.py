"""The layers point one way (docs/architecture.md, "Layers").

The project's modules (``cardsite``, ``games``, ``bots``) are read with ``ast``, never
imported, and every import is collected: at module level and inside functions (a lazy import
that hides a circle is a circle too), ``import x`` and ``from x import y``, relative ones
resolved (an import under ``if TYPE_CHECKING:`` counts as well: the layers are about what
a module knows). Then:

- no two modules may import each other, directly or around a longer circle;
- no module may import one of a higher layer. From the bottom: **engine** (the pure games:
  everything under ``games/`` but the web modules and the Django glue), **platform**
  (``bots`` but its web modules; ``games``' models, app config, migrations and management
  commands), **web** (views, URLs, forms, admin, consumers, live tables, ``cardsite``);
- an engine module imports no web or database framework, and the engine layer as a whole
  imports with no Django settings.

What still breaks these rules and is someone else's to mend is in :data:`KNOWN_VIOLATIONS`,
which must be exact: a known violation that no longer happens fails the test too, so that the
list only shrinks.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cardsite", "games", "bots")

ENGINE, PLATFORM, WEB = 1, 2, 3
LAYER_NAMES = {ENGINE: "engine", PLATFORM: "platform", WEB: "web"}

#: the web layer: a module named here, or anything under it
WEB_MODULES = (
    "cardsite",
    "games.views",
    "games.people_views",
    "games.api",
    "games.matchpages",
    "games.explorer",
    "games.live",
    "games.consumers",
    "games.templatetags",
    "bots.pages",
    "bots.urls",
    "bots.admin",
)
#: the platform layer (what is not web above): the Django glue of ``games`` (the solve queue
#: the workers run, the match reviews made from its results and the cache of what is built
#: once, included) and all of
#: ``bots``. Everything else under ``games/`` is the engine layer, ``games.registry`` and
#: ``games.replays`` included (neither needs Django).
PLATFORM_MODULES = (
    "bots",
    "games.models",
    "games.apps",
    "games.migrations",
    "games.management",
    "games.solves",
    "games.reviews",
    "games.replaycache",
)
#: what an engine module may not import, even indirectly through another project module
#: (the check below): frameworks of the web and of the database
SERVER_LIBRARIES = ("django", "channels", "asgiref", "daphne", "redis", "psycopg", "psycopg2")

#: Violations left to mend elsewhere, each with its reason. The test fails if one of these no
#: longer happens (remove it here) as well as on any violation not listed.
KNOWN_VIOLATIONS: set[str] = set()

#: The rooms of ``bots/`` (docs/architecture.md, "The rooms of bots/"), floor by floor from
#: the bottom: a module of a room imports only rooms of its own floor or lower ones. A bot's
#: process, its sandbox and its languages are one floor (each names pieces of the others:
#: the sandbox wraps a language's host, which speaks the process's protocol). A module of
#: ``bots`` not under a room named here is on the floor of the longest prefix named.
BOT_FLOORS: tuple[tuple[str, ...], ...] = (
    ("bots.running", "bots.sandbox", "bots.languages"),
    ("bots.models", "bots.names", "bots.outages", "bots.clock"),
    ("bots.ladder",),
    ("bots.competition",),
    ("bots.playground",),
    ("bots.worker", "bots.arena"),
    ("bots.pages", "bots.urls", "bots.admin", "bots.management", "bots.migrations", "bots"),
)
#: what a language's package may import of the project besides the engine layer: the
#: registry and its base class, the sandbox's pieces, and the process's protocol
LANGUAGE_MAY_IMPORT = ("bots.languages", "bots.sandbox", "bots.running.process")


# ---- the import graph -----------------------------------------------------------------------
@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``file:line`` (the first such line)."""

    source: str
    target: str
    file: str
    line: int

    def where(self) -> str:
        return f"{self.file}:{self.line}"


def project_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``: dotted name -> file."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module that importing ``name`` runs: itself, or its longest prefix that
    is a module (``games.kuhn.rules.KuhnState`` -> ``games.kuhn.rules``); None if not ours."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imported_names(module: str, path: Path) -> list[tuple[str, int]]:
    """Every name ``module`` imports (anywhere in it), absolute, with its line. For
    ``from x import y`` both ``x.y`` (in case ``y`` is a module) and ``x`` are given."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            found += [(f"{origin}.{alias.name}", node.lineno) for alias in node.names]
            found.append((origin, node.lineno))
    return found


def import_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> list[Edge]:
    """One edge per (importing module, imported project module), at its first line."""
    modules = project_modules(root, packages)
    edges: dict[tuple[str, str], Edge] = {}
    for module, path in modules.items():
        for name, line in imported_names(module, path):
            target = _resolve(name, modules)
            if target is None or target == module:
                continue
            if (module, target) not in edges or line < edges[module, target].line:
                edges[module, target] = Edge(module, target, _file(root, path), line)
    return sorted(edges.values(), key=lambda e: (e.source, e.target))


def _file(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def third_party_imports(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> list[Edge]:
    """Edges to modules outside the project (``target`` is the top-level name)."""
    modules = project_modules(root, packages)
    out = []
    for module, path in modules.items():
        for name, line in imported_names(module, path):
            if name and _resolve(name, modules) is None:
                out.append(Edge(module, name.split(".")[0], _file(root, path), line))
    return out


def circles(edges: Iterable[Edge]) -> list[list[str]]:
    """The groups of modules that import one another (strongly connected components of more
    than one module), each sorted, found with Tarjan's algorithm (iteratively)."""
    graph: dict[str, list[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, []).append(edge.target)
        graph.setdefault(edge.target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def _under(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def layer_of(module: str) -> int:
    if _under(module, WEB_MODULES):
        return WEB
    if _under(module, PLATFORM_MODULES):
        return PLATFORM
    return ENGINE


def circle_key(group: list[str]) -> str:
    return "cycle: " + " <-> ".join(group)


def upward_key(edge: Edge) -> str:
    return (
        f"upward: {edge.source} ({LAYER_NAMES[layer_of(edge.source)]}) imports "
        f"{edge.target} ({LAYER_NAMES[layer_of(edge.target)]})"
    )


def violations(edges: list[Edge]) -> dict[str, list[Edge]]:
    """Every violation, as a key like those of :data:`KNOWN_VIOLATIONS`, with the imports
    that make it."""
    found: dict[str, list[Edge]] = {}
    for group in circles(edges):
        members = set(group)
        found[circle_key(group)] = [e for e in edges if e.source in members and e.target in members]
    for edge in edges:
        if layer_of(edge.target) > layer_of(edge.source):
            found[upward_key(edge)] = [edge]
    return found


def _report(found: dict[str, list[Edge]], keys: Iterable[str]) -> str:
    lines = []
    for key in sorted(keys):
        lines.append(key)
        lines += [f"    {e.source} -> {e.target}  ({e.where()})" for e in found[key]]
    return "\n".join(lines)


def floor_of(module: str) -> int:
    """The floor of a ``bots`` module's room: the longest room name it is under."""
    best, floor = -1, -1
    for number, rooms in enumerate(BOT_FLOORS):
        for room in rooms:
            if _under(module, (room,)) and len(room) > best:
                best, floor = len(room), number
    return floor


def room_violations(edges: Iterable[Edge]) -> list[str]:
    """Imports from a room of ``bots`` to a room of a higher floor."""
    return [
        f"{e.source} (floor {floor_of(e.source)}) imports {e.target} (floor "
        f"{floor_of(e.target)})  ({e.where()})"
        for e in edges
        if _under(e.source, ("bots",))
        and _under(e.target, ("bots",))
        and e.target != "bots"  # the app's package, empty: ``from bots import <room>``
        and floor_of(e.target) > floor_of(e.source)
    ]


def language_package(module: str) -> str | None:
    """``bots.languages.<name>`` for a module of a language's package, else None."""
    parts = module.split(".")
    if parts[:2] == ["bots", "languages"] and len(parts) > 2:
        return ".".join(parts[:3])
    return None


def language_violations(edges: Iterable[Edge]) -> list[str]:
    """A language's package imported from outside it (only the registry names it, as a
    string), or importing more of the project than :data:`LANGUAGE_MAY_IMPORT` and the
    engine layer: what would make the next language touch other code."""
    found = []
    for e in edges:
        source, target = language_package(e.source), language_package(e.target)
        if target is not None and source != target:
            found.append(f"{e.source} imports the language package {target}  ({e.where()})")
        elif (
            source is not None
            and target is None
            and layer_of(e.target) != ENGINE
            and not _under(e.target, LANGUAGE_MAY_IMPORT)
        ):
            found.append(f"the language package {source} imports {e.target}  ({e.where()})")
    return found


# ---- the project --------------------------------------------------------------------------
def test_no_import_cycles_or_upward_imports_but_the_known_ones():
    found = violations(import_graph())
    new = set(found) - KNOWN_VIOLATIONS
    assert not new, (
        "imports that break the layers (a circle, or a lower layer importing a higher one);"
        " move the shared piece down into a module both can import:\n" + _report(found, new)
    )


def test_every_known_violation_still_happens():
    found = violations(import_graph())
    gone = KNOWN_VIOLATIONS - set(found)
    assert not gone, (
        "these known violations no longer happen: take them out of KNOWN_VIOLATIONS:\n"
        + "\n".join(sorted(gone))
    )


def test_the_rooms_of_bots_import_only_their_floor_or_lower_ones():
    edges = import_graph()
    assert all(floor_of(m) >= 0 for m in project_modules(ROOT, ("bots",)))
    bad = room_violations(edges)
    assert not bad, "a room of bots/ imports one of a higher floor:\n" + "\n".join(bad)


def test_a_language_is_one_package_that_nothing_else_imports():
    """The next language is a package and the registry's line: nothing else imports a
    language's package, and a language's package builds only on the registry, the sandbox
    and the process's protocol (and the engine layer, for its games)."""
    edges = import_graph()
    assert {language_package(e.source) for e in edges} >= {
        "bots.languages.python",
        "bots.languages.javascript",
        "bots.languages.java",
        "bots.languages.cpp",
    }
    bad = language_violations(edges)
    assert not bad, "a language reaches beyond its package:\n" + "\n".join(bad)


def test_the_engine_layer_names_no_web_or_database_framework():
    offending = [
        e
        for e in third_party_imports()
        if layer_of(e.source) == ENGINE and e.target in SERVER_LIBRARIES
    ]
    assert not offending, "engine modules importing a server framework:\n" + "\n".join(
        f"    {e.source} imports {e.target}  ({e.where()})" for e in offending
    )


def test_the_engine_layer_imports_without_django_settings():
    """Every engine module, imported in a fresh interpreter with no settings module named:
    nothing reads a setting (that would raise), and no model, database or project module
    of a higher layer is loaded."""
    engine = sorted({m for m in project_modules(ROOT, PACKAGES) if layer_of(m) == ENGINE})
    assert {"games.engine.runner", "games.chips.match", "games.kuhn.rules"} <= set(engine)
    script = textwrap.dedent(
        """
        import importlib, json, sys
        for name in json.loads(sys.argv[1]):
            importlib.import_module(name)
        loaded = sorted(sys.modules)
        import django.conf
        print(json.dumps({"configured": django.conf.settings.configured, "loaded": loaded}))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(engine)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["configured"] is False
    higher = [
        name
        for name in seen["loaded"]
        if _under(name, ("django.db", "django.apps", "django.contrib", "channels", "bots"))
        or _under(name, ("cardsite",))
        or (name.startswith("games.") and layer_of(name) != ENGINE)
    ]
    assert not higher, f"importing the engine layer loaded: {higher}"


# ---- the checker itself -------------------------------------------------------------------
def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_the_checker_finds_lazy_relative_and_module_imports(tmp_path):
    _write(
        tmp_path,
        {
            "games/__init__.py": "",
            "games/engine/__init__.py": "",
            "games/engine/a.py": """
                from . import b

                def later():
                    from games.views import page  # upward, inside a function
                    return page
            """,
            "games/engine/b.py": """
                def later():
                    from .a import later  # a circle only a lazy import hides
                    return later
            """,
            "games/views.py": "page = 1\n",
            "bots/__init__.py": "",
            "bots/models.py": "from games.engine import b as engine_b\n",
        },
    )
    edges = import_graph(tmp_path, ("games", "bots"))
    pairs = {(e.source, e.target): e.line for e in edges}
    assert pairs[("games.engine.a", "games.engine.b")] == 2
    assert pairs[("games.engine.b", "games.engine.a")] == 3
    assert pairs[("games.engine.a", "games.views")] == 5
    assert ("bots.models", "games.engine.b") in pairs
    found = violations(edges)
    assert set(found) == {
        "cycle: games.engine.a <-> games.engine.b",
        "upward: games.engine.a (engine) imports games.views (web)",
    }
    assert [
        e.where() for e in found["upward: games.engine.a (engine) imports games.views (web)"]
    ] == ["games/engine/a.py:5"]


def test_the_room_and_language_rules_catch_what_they_forbid():
    edge = Edge  # short names for the cases below
    cases = [
        edge("bots.running.process", "bots.competition.leases", "a.py", 1),
        edge("bots.ladder.people", "bots.management.commands.seed_builtins", "b.py", 2),
        edge("bots.competition.uploads", "bots.ladder.ratings", "c.py", 3),  # down: fine
        edge("bots.pages.views", "bots.worker", "d.py", 4),  # down: fine
    ]
    assert [v.split(" ")[0] for v in room_violations(cases)] == [
        "bots.running.process",
        "bots.ladder.people",
    ]
    assert floor_of("bots.worker.display") == floor_of("bots.arena")
    assert floor_of("bots.models") == 1 and floor_of("bots.apps") == len(BOT_FLOORS) - 1
    languages = [
        edge("bots.running.launch", "bots.languages.cpp", "e.py", 5),
        edge("bots.languages.java", "bots.competition.uploads", "f.py", 6),
        edge("bots.languages.cpp", "bots.languages", "g.py", 7),  # the registry: fine
        edge("bots.languages.python", "bots.running.process", "h.py", 8),  # protocol: fine
        edge("bots.languages.java", "games.registry", "i.py", 9),  # engine: fine
        edge("bots.languages.cpp", "bots.languages.java", "j.py", 10),
    ]
    assert [v.split("  (")[1] for v in language_violations(languages)] == [
        "e.py:5)",
        "f.py:6)",
        "j.py:10)",
    ]


def test_the_layers_are_assigned_by_module_path():
    assert layer_of("games.chips.replay") == ENGINE
    assert layer_of("games.kuhn.rules") == ENGINE
    assert layer_of("games.registry") == ENGINE
    assert layer_of("games.models") == PLATFORM
    assert layer_of("games.management.commands.solve") == PLATFORM
    assert layer_of("bots.ladder.ratings") == PLATFORM
    assert layer_of("bots.pages.views") == WEB
    assert layer_of("games.live.host") == WEB
    assert layer_of("games.livestock") == ENGINE  # a prefix of a name is not its package
    assert layer_of("cardsite.settings") == WEB
