"""The machine's cache of compiled programs has a size (docs/sandbox.md, "Compiled
languages"): least recently used whole entries are evicted to make room, a program larger
than the largest allowed is refused, and code compiled for one use (a playground run's own)
is never kept. The compiler is faked where only the cache is looked at; real g++ for the
program's size."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bots.languages import get_language
from bots.sandbox import compiling
from bots.sandbox.compiling import CompileError
from games.registry import get_game

CPP = get_language("cpp")
GAME = get_game("rps-poker")
KiB = 1024


@dataclass
class Cache:
    path: Path
    compiles: list[bytes]


@pytest.fixture
def cache(tmp_path, monkeypatch, settings):
    """An empty cache of 1 MiB, and a compiler that makes a program of the size a source
    asks for (``// SIZE <bytes>``), counting its compiles."""
    folder = tmp_path / "compiled"
    monkeypatch.setattr(compiling, "cache_dir", lambda: folder)
    monkeypatch.setattr(type(CPP), "compile_tools", lambda self, config=None: [])
    settings.COMPILE_CACHE_MB = 1
    compiles: list[bytes] = []

    def fake(language, files, script, config, limits, sandboxed, worker):
        source = next(body for name, body in files.items() if name.startswith("/bot/"))
        compiles.append(source)
        if b"BROKEN" in source:
            return 1, b"", "error: broken", None
        size = int(source.split(b"SIZE ")[1].split()[0])
        return 0, source[:16].ljust(size, b"\0"), "", None

    monkeypatch.setattr(compiling, "_compile", fake)
    return Cache(folder, compiles)


def code(name: str, size: int) -> bytes:
    return f"// {name}\n// SIZE {size}\nclass Bot {{}};\n".encode()


def entries(folder: Path) -> dict[str, int]:
    """The cache's entries (not its temporaries or locks) and their sizes."""
    found = {}
    for path in folder.glob("*/*"):
        if not path.name.startswith("."):
            found[path.name] = path.stat().st_size
    return found


def age(folder: Path, seconds: float) -> None:
    """Make every entry ``seconds`` older (as if last used that long ago)."""
    for path in folder.glob("*/*"):
        info = path.stat()
        os.utime(path, (info.st_atime - seconds, info.st_mtime - seconds))


def test_a_new_entry_evicts_the_least_recently_used_whole_entries(cache):
    a, b, c = code("a", 400 * KiB), code("b", 400 * KiB), code("c", 400 * KiB)
    compiling.program(CPP, "a.cpp", a, GAME)
    age(cache.path, 300)
    compiling.program(CPP, "b.cpp", b, GAME)
    age(cache.path, 300)
    # a is used again (a bot's start): touched, so b is now the least recently used
    assert compiling.program(CPP, "a.cpp", a, GAME).startswith(b"// a")
    assert len(cache.compiles) == 2
    compiling.program(CPP, "c.cpp", c, GAME)
    sizes = entries(cache.path)
    assert sorted(sizes.values()) == [400 * KiB, 400 * KiB]
    assert sum(sizes.values()) <= compiling.cache_limit() == 1024 * KiB
    # a and c are kept: neither is compiled again; b was evicted: compiled again
    compiling.program(CPP, "a.cpp", a, GAME)
    compiling.program(CPP, "c.cpp", c, GAME)
    assert len(cache.compiles) == 3
    compiling.program(CPP, "b.cpp", b, GAME)
    assert len(cache.compiles) == 4


def test_a_program_larger_than_the_whole_cache_is_used_but_not_kept(cache):
    big = code("big", 2048 * KiB)
    small = code("small", 10 * KiB)
    compiling.program(CPP, "small.cpp", small, GAME)
    assert len(compiling.program(CPP, "big.cpp", big, GAME)) == 2048 * KiB
    assert sorted(entries(cache.path).values()) == [10 * KiB]  # nothing evicted for it either
    assert not list(cache.path.glob("*/.part-*"))


def test_an_entry_evicted_while_read_is_read_whole(cache):
    compiling.program(CPP, "a.cpp", code("a", 600 * KiB), GAME)
    (kept,) = [p for p in cache.path.glob("cpp/*") if not p.name.startswith(".")]
    with open(kept, "rb") as reading:
        first = reading.read(1000)
        age(cache.path, 300)
        compiling.program(CPP, "b.cpp", code("b", 600 * KiB), GAME)  # evicts a
        assert not kept.exists()
        assert len(first + reading.read()) == 600 * KiB


def test_lock_files_and_refusals_do_not_pile_up(cache):
    for n in range(5):
        compiling.program(CPP, f"n{n}.cpp", code(f"n{n}", 1 * KiB), GAME)
    with pytest.raises(CompileError, match="broken"):
        compiling.program(CPP, "broken.cpp", b"// BROKEN\n", GAME)
    names = [p.name for p in cache.path.glob("cpp/*")]
    assert not [n for n in names if n.endswith(".lock")], names
    # a refusal is an entry like a program: counted, and evicted like one
    assert len([n for n in names if n.endswith(".refused")]) == 1


def test_a_dead_writers_temporaries_are_swept(cache):
    compiling.program(CPP, "a.cpp", code("a", 1 * KiB), GAME)
    stale = cache.path / "cpp" / ".part-dead"
    stale.write_bytes(b"x" * 100)
    os.utime(stale, (time.time() - 2 * compiling.STALE_S,) * 2)
    fresh = cache.path / "cpp" / ".part-writing"
    fresh.write_bytes(b"x")
    compiling.program(CPP, "b.cpp", code("b", 1 * KiB), GAME)
    assert not stale.exists() and fresh.exists()


def test_code_compiled_for_one_use_is_never_kept_and_compiled_once_in_it(cache):
    mine = code("mine", 100 * KiB)
    with compiling.transient(mine):
        first = compiling.program(CPP, "bot.cpp", mine, GAME)
        assert compiling.program(CPP, "bot.cpp", mine, GAME) == first  # restarted: no compile
        # another bot at the same table (an uploaded opponent) is kept as always
        compiling.program(CPP, "opponent.cpp", code("opponent", 1 * KiB), GAME)
        broken = b"// BROKEN 2\n"
        with pytest.raises(CompileError, match="broken"), compiling.transient(broken):
            compiling.program(CPP, "bot.cpp", broken, GAME)
    assert len(cache.compiles) == 3
    assert sorted(entries(cache.path).values()) == [1 * KiB]
    assert not list(cache.path.glob("*/.*lock")) and not list(cache.path.glob("*/.part-*"))
    # the same code as an uploaded version's, already in the cache, is taken from it
    opponent = code("opponent", 1 * KiB)
    with compiling.transient(opponent):
        compiling.program(CPP, "opponent.cpp", opponent, GAME)
    assert len(cache.compiles) == 3


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_program_over_the_largest_size_is_refused_and_no_program_kept(tmp_path, monkeypatch):
    """A static array of 60 MiB (a guest could fill the disk with such programs) is over the
    largest program, 8 MiB; the starters are about 0.2 MiB. Only the refusal is kept."""
    monkeypatch.setattr(compiling, "cache_dir", lambda: tmp_path / "compiled")
    starter = GAME.starters["cpp"].read_text()
    big = starter + "\nstatic char big[60 << 20] = {1};\nchar* keep_big() { return big; }\n"
    with pytest.raises(CompileError) as refused:
        compiling.program(CPP, "big.cpp", big.encode(), GAME)
    assert str(refused.value) == "C++ compile error: the compiled program is over 8 MiB"
    kept = [p for p in (tmp_path / "compiled").glob("cpp/*") if not p.name.startswith(".")]
    assert [p.suffix for p in kept] == [".refused"] and kept[0].stat().st_size < 4096
