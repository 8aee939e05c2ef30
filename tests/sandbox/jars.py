"""The Last Card kit's Java in tests: the arena's runs of a kit strategy, and jars built as
the original kit's ``mvn package`` builds them (the author's strategy compiled against the
kit's classes, with copies of the kit's classes in the jar too), built here with the JDK's
javac, outside the sandbox: this is the author's machine."""

from __future__ import annotations

import io
import json
import subprocess
import zipfile
from pathlib import Path

from django.core.management import call_command

from games.registry import get_game

KIT = get_game("last-card").kits["java"]
NAIVE = get_game("last-card").starters["java"]

#: the kit's move checker as a cheating jar would carry it: every move legal
LAX_CHECKER = """package com.orchestral.shark;

public class LastCardMoveChecker implements MoveChecker {
    @Override
    public boolean isLegalMove(GameState gameState, Move move) {
        return true;
    }
}
"""


def build_jar(
    tmp_path: Path,
    sources: dict[str, str],
    *,
    name: str = "Naive.jar",
    kit: dict[str, str] | None = None,
    extra: dict[str, bytes] | None = None,
) -> Path:
    """A jar of ``sources`` (file name -> Java source) compiled against the kit, holding the
    kit's classes compiled from ``kit``'s sources where given (file name -> source), else
    from Card Arena's, and the ``extra`` entries as they are."""
    work = tmp_path / f"build-{name}"
    (work / "src").mkdir(parents=True)
    files = []
    for path in KIT:
        if "package card_arena;" in path.read_text():
            continue  # the platform's adapter: never in a kit's jar
        text = (kit or {}).get(path.name, path.read_text())
        files.append(work / "src" / path.name)
        files[-1].write_text(text)
    for file, text in sources.items():
        files.append(work / "src" / file)
        files[-1].write_text(text)
    subprocess.run(
        ["javac", "--release", "17", "-nowarn", "-d", str(work / "classes"), *map(str, files)],
        check=True,
        capture_output=True,
    )
    jar = tmp_path / name
    with zipfile.ZipFile(jar, "w", compression=zipfile.ZIP_DEFLATED) as out:
        out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: Maven\r\n\r\n")
        for made in sorted((work / "classes").rglob("*.class")):
            out.write(made, made.relative_to(work / "classes").as_posix())
        for entry, data in (extra or {}).items():
            out.writestr(entry, data)
    return jar


def naive_jar(tmp_path: Path, **options) -> Path:
    """The kit guide's naive AI, built into a jar."""
    return build_jar(tmp_path, {"YourStrategy.java": NAIVE.read_text()}, **options)


def last_card(*args: str, seed: int = 5) -> dict:
    """The arena's results (its ``--json``) of Last Card games with the given bots, the
    tables filled with the built-in naive bot; the first argument is a bot file."""
    out = io.StringIO()
    results = Path(args[0]).parent / "results.json"
    call_command(
        "arena", "--game", "last-card", *args, "--fill", "builtin:naive", "--seed", str(seed),
        "--no-progress", "--json", str(results), stdout=out,
    )  # fmt: skip
    return json.loads(results.read_text())


def mine(data: dict, source: Path) -> dict:
    """The results' row of the bot of file ``source``."""
    return next(b for b in data["bots"] if b["source"] == str(source))
