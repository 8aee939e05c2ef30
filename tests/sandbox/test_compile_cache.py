"""The machine's cache of compiled programs has a size (docs/sandbox.md, "Compiled
languages"): least recently used whole entries are evicted to make room, a program larger
than the largest allowed is refused, and code compiled for one use (a playground run's own)
never has its program kept, only its refusal, for a day. A compile the clock stopped is the
bot's only if it used half its CPU limit. The compiler is faked where only the cache is
looked at; real g++ for the program's size."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bots.languages import get_language
from bots.running import starved
from bots.running.process import PlatformError
from bots.sandbox import compiling
from bots.sandbox.compiling import CompileBusy, CompileError, CompileKilled, CompileLimits
from games.registry import get_game

CPP = get_language("cpp")
GAME = get_game("rps-poker")
KiB = 1024


@dataclass
class Cache:
    path: Path
    compiles: list[bytes]
    #: the limits of each compile
    limits: list[CompileLimits]


@pytest.fixture
def cache(tmp_path, monkeypatch, settings):
    """An empty cache of 1 MiB, and a compiler that makes a program of the size a source
    asks for (``// SIZE <bytes>``), counting its compiles; ``BROKEN`` is a compile error,
    ``SLOW`` a compile stopped at its CPU limit."""
    folder = tmp_path / "compiled"
    monkeypatch.setattr(compiling, "cache_dir", lambda: folder)
    monkeypatch.setattr(type(CPP), "compile_tools", lambda self, config=None: [])
    settings.COMPILE_CACHE_MB = 1
    compiles: list[bytes] = []
    seen: list[CompileLimits] = []

    def fake(language, files, script, config, limits, sandboxed, worker):
        source = next(body for name, body in files.items() if name.startswith("/bot/"))
        compiles.append(source)
        seen.append(limits)
        if b"BROKEN" in source:
            return 1, b"", "error: broken", None
        if b"SLOW" in source:
            return -24, b"", "", f"compiling took over {limits.cpu_s} s of CPU"
        size = int(source.split(b"SIZE ")[1].split()[0])
        if b"ZEROS" in source:  # (a program of a static table of zeros)
            return 0, source[:16].ljust(size, b"\0"), "", None
        # (a program that compression does not make smaller: kept as it is)
        return 0, source[:16] + random.Random(source).randbytes(size - 16), "", None

    monkeypatch.setattr(compiling, "_compile", fake)
    return Cache(folder, compiles, seen)


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
        compiling.program(CPP, "broken.cpp", b"// BROKEN\nclass Bot {};\n", GAME)
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
        broken = b"// BROKEN 2\nclass Bot {};\n"
        with pytest.raises(CompileError, match="broken"), compiling.transient(broken):
            compiling.program(CPP, "bot.cpp", broken, GAME)
    assert len(cache.compiles) == 3
    # no program of its own is kept; a refusal is (see the next test)
    programs = {n: size for n, size in entries(cache.path).items() if "." not in n}
    assert sorted(programs.values()) == [1 * KiB]
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


def test_a_refusal_of_code_for_one_use_is_kept_a_day_within_that_uses_limits(cache):
    """A playground run's code is compiled within the run's limits; the same code refused
    is not compiled again by the next run (on any worker of the machine) for a day."""
    short = CompileLimits(cpu_s=20, wall_s=20.0)
    slow = b"// SLOW\nclass Bot {};\n"
    with compiling.transient(slow, short) as scope, pytest.raises(CompileError) as first:
        compiling.program(CPP, "bot.cpp", slow, GAME)
    assert str(first.value) == "C++ compile error: compiling took over 20 s of CPU"
    assert first.value.took_s == 20 and not first.value.cached
    assert scope.refusal is not None and scope.refusal.took_s == 20
    assert cache.limits == [short]
    (refused,) = entries(cache.path)
    assert refused.endswith(".refused")
    # another use of the same code (a new run): refused as before, not compiled again
    with compiling.transient(slow, short) as scope, pytest.raises(CompileError) as again:
        compiling.program(CPP, "bot.cpp", slow, GAME)
    assert str(again.value) == str(first.value) and again.value.cached
    assert scope.refusal is not None and scope.refusal.cached
    assert len(cache.compiles) == 1
    # other limits (a run with other time left) are another compile
    with (
        compiling.transient(slow, CompileLimits(cpu_s=30, wall_s=30.0)),
        pytest.raises(CompileError, match="over 30 s of CPU"),
    ):
        compiling.program(CPP, "bot.cpp", slow, GAME)
    assert len(cache.compiles) == 2
    # a day later (its time passed), compiled again
    path = cache.path / "cpp" / refused
    said = json.loads(path.read_text())
    assert time.time() + compiling.ONE_USE_REFUSAL_S - 60 < said["until"]
    path.write_text(json.dumps(said | {"until": time.time() - 1}))
    with compiling.transient(slow, short), pytest.raises(CompileError):
        compiling.program(CPP, "bot.cpp", slow, GAME)
    assert len(cache.compiles) == 3


def test_a_compile_stopped_by_the_clock_is_never_the_bots():
    limits = CompileLimits(cpu_s=60, wall_s=240.0)
    with pytest.raises(CompileBusy) as busy:
        compiling._wall_clock_stop(59.9, limits)
    assert isinstance(busy.value, PlatformError)  # the platform's: tried again, never kept
    assert busy.value.cpu_s == 59.9 and busy.value.cpu_limit == 60
    assert str(busy.value) == (
        "the machine was too busy to compile the bot: it was stopped at its 240 s of wall time "
        "having had 59.9 s of CPU of its 60 s; no refusal was kept, and it can be tried again"
    )
    assert compiling.LIMITS.wall_s == 4 * compiling.LIMITS.cpu_s  # (a backstop)


def test_a_program_is_kept_compressed_and_read_back_as_it_was_made(cache):
    # a static table of zeros (char big[7 << 20] = {1};) is kilobytes in the cache, not
    # megabytes: one person's uploads cannot flush everyone's programs for little
    source = code("ZEROS", 900 * KiB)
    made = compiling.program(CPP, "zeros.cpp", source, GAME)
    assert len(made) == 900 * KiB and made.startswith(b"// ZEROS")
    (size,) = entries(cache.path).values()
    assert size < 4 * KiB
    assert compiling.program(CPP, "zeros.cpp", source, GAME) == made  # read back
    assert len(cache.compiles) == 1


def test_a_stop_by_the_clock_kept_before_its_cpu_was_looked_at_is_compiled_again(cache):
    # (such a refusal, "compiling took over 120 s", may have been the machine's load)
    source = code("loaded", 1 * KiB)
    compiling.program(CPP, "loaded.cpp", source, GAME)
    (program,) = [p for p in cache.path.glob("cpp/*") if not p.name.startswith(".")]
    refused = program.with_name(program.name + ".refused")
    program.rename(refused)
    refused.write_text(json.dumps({"why": "compiling took over 120 s", "messages": ""}))
    assert compiling.program(CPP, "loaded.cpp", source, GAME).startswith(b"// loaded")
    assert len(cache.compiles) == 2
    # nor one kept as the code's for the CPU it had ("at least half of its 60 s of CPU")
    program.rename(refused)
    why = "compiling took over 120 s, 39.1 s of it on the CPU: at least half of its 60 s of CPU"
    refused.write_text(json.dumps({"why": f"{why}, so the time is the code's", "messages": ""}))
    assert compiling.program(CPP, "loaded.cpp", source, GAME).startswith(b"// loaded")
    assert len(cache.compiles) == 3


def test_a_compile_that_waits_past_its_wall_clock_without_cpu_is_the_machines():
    # (a compiler kept off the CPU by a loaded machine: here a child that only sleeps,
    # stopped before the first look at whether it computes, LOOK_S)
    limits = CompileLimits(cpu_s=60, wall_s=0.3)
    began = time.monotonic()
    with pytest.raises(CompileBusy, match="having had 0.0 s of CPU"):
        compiling._run(["/bin/sh", "-c", "sleep 30 & sleep 30"], env={}, pass_fds=(), limits=limits)
    assert time.monotonic() - began < 10  # stopped at its deadline, its children too


def test_a_compile_asleep_for_blocked_s_is_stopped_as_the_codes(monkeypatch):
    """Every thread asleep, without CPU, for BLOCKED_S: it waits for something that never
    ends (not for a CPU: a loaded machine keeps it runnable), the code's refusal, long
    before the wall clock."""
    monkeypatch.setattr(compiling, "LOOK_S", 0.1)
    monkeypatch.setattr(compiling, "BLOCKED_S", 0.5)
    limits = CompileLimits(cpu_s=60, wall_s=20.0)
    began = time.monotonic()
    code, _, _, why = compiling._run(
        ["/bin/sh", "-c", "sleep 30 & sleep 30"], env={}, pass_fds=(), limits=limits
    )
    assert time.monotonic() - began < 5
    assert code != 0 and why is not None
    assert why.startswith("the compiler waited ") and "without computing" in why


def test_a_compile_asleep_most_of_its_wall_clock_is_the_codes_not_the_machines(monkeypatch):
    monkeypatch.setattr(compiling, "LOOK_S", 0.1)
    monkeypatch.setattr(compiling, "BLOCKED_S", 1000.0)  # (never reached: the wall clock is)
    limits = CompileLimits(cpu_s=60, wall_s=1.0)
    _, _, _, why = compiling._run(["/bin/sh", "-c", "sleep 30"], env={}, pass_fds=(), limits=limits)
    assert why is not None and why.startswith("the compiler waited ")


def test_a_compile_that_computes_is_never_stopped_for_waiting(monkeypatch):
    monkeypatch.setattr(compiling, "LOOK_S", 0.1)
    monkeypatch.setattr(compiling, "BLOCKED_S", 0.3)
    limits = CompileLimits(cpu_s=60, wall_s=1.5)
    with pytest.raises(CompileBusy):  # (the clock, as before: the machine's)
        compiling._run(["/bin/sh", "-c", "while :; do :; done"], env={}, pass_fds=(), limits=limits)


def test_the_cpu_of_a_compile_is_its_whole_process_trees():
    # the shell started uses no CPU itself; the subshell it waits for burns some, then says so
    spin = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"
    proc = subprocess.Popen(
        ["/bin/sh", "-c", f"( {spin}; echo spun; exec sleep 30 ); true"],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"spun\n"
        assert starved.tree_cpu_s(proc.pid) >= 0.1
        assert starved.tree_cpu_s(2**22 + 1) == 0.0  # no such process: nothing
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
        proc.stdout.close()


def spinning(folder: Path) -> Path:
    """A C++ file whose compile computes for minutes (a constexpr loop of 2e9 steps)."""
    source = folder / "spins.cpp"
    source.write_text(
        "constexpr unsigned long long spin(unsigned long long n) {\n"
        "  unsigned long long x = 0;\n"
        "  for (unsigned long long i = 0; i < n; ++i) x += i * i % 7;\n"
        "  return x;\n"
        "}\n"
        "constexpr unsigned long long v = spin(2000000000ULL);\n"
        "int main() { return (int)v; }\n"
    )
    return source


def syntax_only(source: Path) -> list[str]:
    """g++ checking ``source`` with no limit of its own on the constexpr steps it takes."""
    return [
        "g++", "-fsyntax-only", "-fconstexpr-loop-limit=2147483647",
        "-fconstexpr-ops-limit=100000000000", str(source),
    ]  # fmt: skip


def test_a_compile_whose_compiler_proper_runs_out_of_cpu_is_the_limits(tmp_path):
    """g++ lives on when the CPU limit ends cc1plus and says "internal compiler error: CPU
    time limit exceeded ... Please submit a full bug report": the upload, the arena and the
    playground showed that instead of the limit's reason (an auditor's constexpr bomb)."""
    source = spinning(tmp_path)
    argv = ["prlimit", "--cpu=1:3", *syntax_only(source)]
    limits = CompileLimits(cpu_s=1, wall_s=60)
    code, _, err, why = compiling._run(argv, env=dict(os.environ), pass_fds=(), limits=limits)
    assert code != 0 and "CPU time limit exceeded" in err  # (the driver's words)
    assert why == "compiling took over 1 s of CPU"


def test_a_compiler_killed_from_outside_is_the_platforms_not_the_codes():
    """A compiler SIGKILLed by an operator or the machine's OOM killer, long before the CPU
    limit and not by its memory cgroup, was refused as the code's: "Java compile error:
    compiling took over 60 s of CPU" after 1 s of it."""
    limits = CompileLimits(cpu_s=60, wall_s=20.0)
    killed = ["/bin/sh", "-c", "kill -9 $$"]
    with pytest.raises(CompileKilled, match=r"killed from outside after 0\.\d s of CPU"):
        compiling._run(killed, env={}, pass_fds=(), limits=limits)
    assert issubclass(CompileKilled, PlatformError)
    # the same kill by the compile's memory cgroup is the code's
    _, _, _, why = compiling._run(
        killed, env={}, pass_fds=(), limits=limits, oom_killed=lambda: True
    )
    assert why == f"compiling needed over {limits.memory_mb} MiB of memory"


def test_a_compiler_killed_at_its_cpu_limit_is_the_codes():
    # (one that ignores SIGXCPU is SIGKILLed at the hard limit: it had the CPU the limit allows)
    limits = CompileLimits(cpu_s=1, wall_s=30.0)
    spin = ["prlimit", "--cpu=1:1", "/bin/sh", "-c", "trap '' XCPU; while :; do :; done"]
    code, _, _, why = compiling._run(spin, env=dict(os.environ), pass_fds=(), limits=limits)
    assert code in (-9, 137) and why == "compiling took over 1 s of CPU"


def test_a_compiler_proper_killed_from_outside_under_g_plus_plus_is_the_platforms(tmp_path):
    """g++ lives on when cc1plus is killed and says "fatal error: Killed signal terminated
    program cc1plus": a sound upload was refused as a "C++ compile error" for it."""
    source = spinning(tmp_path)
    argv = syntax_only(source)
    done = threading.Event()

    def kill_cc1plus() -> None:  # (an operator, once the compiler proper runs)
        while not done.is_set():
            for comm in Path("/proc").glob("[0-9]*/comm"):
                with contextlib.suppress(OSError):
                    if comm.read_text().strip() == "cc1plus" and str(source) in (
                        comm.with_name("cmdline").read_text()
                    ):
                        os.kill(int(comm.parent.name), signal.SIGKILL)
                        return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_cc1plus)
    killer.start()
    try:
        with pytest.raises(CompileKilled, match="killed from outside"):
            compiling._run(argv, env=dict(os.environ), pass_fds=(), limits=CompileLimits())
    finally:
        done.set()
        killer.join()
