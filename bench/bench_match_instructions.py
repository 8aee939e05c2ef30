"""What a match costs the arena's own process, in instructions: a figure that does not move
with the machine's load, for changes too small for wall time to show on a shared machine.

    .venv/bin/python bench/bench_match_instructions.py [--reference REV] [--rounds R]

Runs ``manage.py arena`` on the original RPS Poker tournament (the five JavaScript bots of
``bench/rps_js_bots/``, as bench/bench_arena_floor.py plays them) under valgrind's callgrind,
which counts the instructions of the arena's process alone (not its bots': they run
unobserved), twice: with 2 rounds and with ``2 + R`` rounds (10 matches a round). The
difference over ``10 R`` matches is the cost of a match, start-up and the end left out. Both
run with ``--jobs 1`` (one process plays every match) and ``--no-sandbox`` (seccomp's filter
cannot be loaded under valgrind); what a match costs the arena's process is the same code
either way. The runner alone is counted too: ``R * 20`` matches between two in-process
minimal bots (``MatchRunner.run``: the match loop and the rules, no process), less 10.

``--reference REV`` measures the code of a git revision beside this checkout (exported with
``git archive``, run with the same Python), and prints the ratio. Counts are repeatable to
within a fraction of a percent (the bots' replies arrive at other points of the arena's
loop from run to run); valgrind runs the arena about fifty times slower, so a measure takes
a minute or so.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BOTS = sorted(str(p) for p in (HERE / "rps_js_bots").glob("*.js"))

#: the runner alone: matches between two in-process minimal bots (argv[1] matches)
RUNNER = """
import sys
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.registry import get_game
from games.rps_poker.botapi import bot_call
from games.rps_poker.bots.minimal import Bot

game = get_game("rps-poker")
runner = MatchRunner(lambda: 0.0)
agents = [InProcessAgent(Bot, bot_call, "a"), InProcessAgent(Bot, bot_call, "b")]
for seed in range(int(sys.argv[1])):
    runner.run(game.state_class.new(seed, num_seats=2, config={}), agents, seed=seed)
"""


def instructions(command: list[str], cwd: Path) -> int:
    """Instructions the command's own process ran (callgrind's count)."""
    env = dict(os.environ, CARD_ARENA_VAR=tempfile.mkdtemp(prefix="bench-instructions-"))
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    shutil.rmtree(env["CARD_ARENA_VAR"], ignore_errors=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or found is None:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    return int(found[1])


def arena(rounds: int) -> list[str]:
    return [
        sys.executable, "manage.py", "arena", "--game", "rps-poker", *BOTS, "--rounds",
        str(rounds), "--seed", "1", "--no-progress", "--jobs", "1", "--no-sandbox",
    ]  # fmt: skip


def per_match(checkout: Path, rounds: int) -> tuple[float, float]:
    """(instructions a match of the arena's process, of the runner alone) in ``checkout``."""
    runner = [sys.executable, "-c", RUNNER]
    jobs = [
        (arena(2), 0),
        (arena(2 + rounds), 10 * rounds),
        ([*runner, "10"], 0),
        ([*runner, str(10 + 20 * rounds)], 20 * rounds),
    ]
    with ThreadPoolExecutor(2) as pool:  # one a CPU: counts do not depend on the machine
        counts = list(pool.map(lambda job: instructions(job[0], checkout), jobs))
    return (counts[1] - counts[0]) / jobs[1][1], (counts[3] - counts[2]) / jobs[3][1]


def export(rev: str, into: Path) -> Path:
    sys.path.insert(0, str(HERE))
    from bench_worker import export as export_rev  # (it imports psycopg: only when asked)

    return export_rev(rev, into)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", help="a git revision measured beside this checkout")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    checkouts = {"this checkout": ROOT}
    with tempfile.TemporaryDirectory(prefix="bench-instructions-ref-") as tmp:
        if args.reference:
            checkouts = {f"reference {args.reference}": export(args.reference, Path(tmp))}
            checkouts["this checkout"] = ROOT
        print(
            f"RPS Poker, 5 JavaScript bots, {10 * args.rounds} matches counted "
            f"(arena --jobs 1 --no-sandbox under callgrind); the runner alone: "
            f"{20 * args.rounds} matches of two in-process minimal bots"
        )
        figures = {}
        for name, checkout in checkouts.items():
            figures[name] = per_match(checkout, args.rounds)
            match, runner = figures[name]
            print(
                f"  {name:24} a match: {match / 1e6:6.2f} M instructions in the arena's "
                f"process; the runner alone {runner / 1e6:5.2f} M"
            )
        if args.reference:
            (before, before_runner), (now, now_runner) = figures.values()
            print(
                f"  this / reference: x{now / before:.3f} (arena's process), "
                f"x{now_runner / before_runner:.3f} (runner alone)"
            )


if __name__ == "__main__":
    main()
