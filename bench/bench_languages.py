"""The same bot in each language, side by side: RPS Poker's starter, which plays one strategy
in Python (``starter.py``), C++ (``starter.cpp``) and Java (``RpsPokerStarter.java``); and a
Last Card jar built with the original kit (its guide's naive AI), compiled and started.

    .venv/bin/python bench/bench_languages.py [--runs K] [--starts N] [--matches M]

For each language, in each run:

- compile (a compiled language): the first compile on the machine, in the sandbox (its cache
  emptied first), and a cache hit (what every later start of the version costs);
- start: a sandboxed process of the bot started and its hello read, ``N`` times (the slot, the
  cgroups and bubblewrap included: what a worker pays for a process it does not keep);
- a match: milliseconds a match of RPS Poker against an in-process built-in bot, ``M``
  matches on one kept process (each of its 20 calls and 20 notices a round trip or a write;
  not for the jar, which plays Last Card).

Prints each run, then min and median of each figure. Its own ``CARD_ARENA_VAR`` (a temporary
folder) keeps its compiles apart from the machine's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAR = Path(tempfile.mkdtemp(prefix="bench-languages-"))
os.environ["CARD_ARENA_VAR"] = str(VAR)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")

import django  # noqa: E402

django.setup()

from bots.languages import language_of  # noqa: E402
from bots.running.launch import bot_launch  # noqa: E402
from bots.running.process import BotProcess, ProcessAgent  # noqa: E402
from bots.sandbox import compiling, read_bot, safe_name  # noqa: E402
from games.engine.agents import InProcessAgent  # noqa: E402
from games.engine.runner import MatchRunner  # noqa: E402
from games.registry import get_game  # noqa: E402
from tests.sandbox.jars import naive_jar  # noqa: E402  (built as the kit's mvn package does)

GAME = get_game("rps-poker")
BOTS = [GAME.starters["python"], GAME.starters["cpp"], GAME.starters["java"]]
KIT_GAME = get_game("last-card")
#: what each may cost (docs/sandbox.md, "Each language's start and compile: budgets"): the
#: start to hello as a multiple of the Python bot's, measured beside it, by title; and a
#: first compile in s
START_BUDGET_X = {"C++": 0.75, "Java": 4.0, "Java jar": 4.0}
COMPILE_BUDGET_S = {"C++": 10.0, "Java": 5.0, "Java jar": 5.0}


def compile_s(path: Path, game=GAME) -> tuple[float, float] | None:
    """(seconds of a first compile, seconds of a cache hit), or None for a language that does
    not compile."""
    language = language_of(path)
    if not language.compiled:
        return None
    shutil.rmtree(compiling.cache_dir(), ignore_errors=True)
    source = read_bot(path)
    started = time.perf_counter()
    compiling.program(language, safe_name(path), source, game)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    compiling.program(language, safe_name(path), source, game)
    return cold, time.perf_counter() - started


def start_ms(path: Path, starts: int, game=GAME) -> float:
    """Median milliseconds from a launch to the bot's hello."""
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        with BotProcess(bot_launch(path, game=game), label=path.stem) as process:
            process.start(10.0)
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def match_ms(path: Path, matches: int) -> float:
    """Milliseconds a match on one kept process (after one match to start it)."""
    with BotProcess(bot_launch(path, game=GAME), label=path.stem) as process:
        agent = ProcessAgent(process, GAME.bot_call)
        other = InProcessAgent(GAME.builtin_class("minimal"), GAME.bot_call, "minimal")
        runner = MatchRunner(time.monotonic, GAME.time_control)
        runner.run(GAME.state_class.new(-1), [agent, other], seed=-1)
        started = time.perf_counter()
        for seed in range(matches):
            outcome = runner.run(GAME.state_class.new(seed), [agent, other], seed=seed)
            if outcome.faults:
                raise SystemExit(f"{path.name}: {outcome.faults}")
        return (time.perf_counter() - started) / matches * 1e3


def describe(values: list[float], unit: str) -> str:
    return f"min {min(values):7.2f} {unit} median {statistics.median(values):7.2f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--matches", type=int, default=300)
    args = parser.parse_args()
    print(f"RPS Poker starters; {args.starts} starts and {args.matches} matches a run; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    figures: dict[tuple[str, str], list[float]] = {}
    (VAR / "kit").mkdir()
    # (title, bot file, its game, whether its matches are timed: not the jar's, Last Card)
    cases = [(language_of(path).title, path, GAME, True) for path in BOTS]
    cases.append(("Java jar", naive_jar(VAR / "kit"), KIT_GAME, False))
    try:
        for run in range(1, args.runs + 1):
            for title, path, game, timed in cases:
                said = []
                compiled = compile_s(path, game)
                if compiled is not None:
                    figures.setdefault((title, "compile, first (s)"), []).append(compiled[0])
                    figures.setdefault((title, "compile, cache hit (ms)"), []).append(
                        compiled[1] * 1e3
                    )
                    said.append(f"compile {compiled[0]:.2f} s (hit {compiled[1] * 1e3:.2f} ms)")
                start = start_ms(path, args.starts, game)
                figures.setdefault((title, "start to hello (ms)"), []).append(start)
                said.append(f"start {start:.1f} ms")
                if timed:
                    match = match_ms(path, args.matches)
                    figures.setdefault((title, "a match (ms)"), []).append(match)
                    said.append(f"a match {match:.3f} ms")
                print(f"run {run}: {title:10s} {', '.join(said)}")
        print(f"\nover {args.runs} runs:")
        for (title, figure), values in figures.items():
            unit = figure.rsplit("(", 1)[1].rstrip(")")
            verdict = ""
            if figure == "compile, first (s)" and title in COMPILE_BUDGET_S:
                budget = COMPILE_BUDGET_S[title]
                within = statistics.median(values) <= budget
                verdict = f"\n{'':13s}budget {budget:g} s: {'within' if within else 'OVER'}"
            elif figure == "start to hello (ms)" and title in START_BUDGET_X:
                python = figures[("Python", figure)]
                ratios = [v / p for v, p in zip(values, python, strict=True)]
                budget = START_BUDGET_X[title]
                within = statistics.median(ratios) <= budget
                verdict = (
                    f"\n{'':13s}{min(ratios):.2f}x / {statistics.median(ratios):.2f}x Python's"
                    f" (min / median); budget {budget:g}x: {'within' if within else 'OVER'}"
                )
            print(f"  {title:9s} {figure:24s} {describe(values, unit)}{verdict}")
    finally:
        shutil.rmtree(VAR, ignore_errors=True)


if __name__ == "__main__":
    main()
