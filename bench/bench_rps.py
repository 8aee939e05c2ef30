"""RPS Poker matches per second with built-in bots: in-process and through child processes.

    .venv/bin/python bench/bench_rps.py [--matches N] [--repeat K]

Both modes play the same seeded round robin through the arena (simple vs minimal: cheap bots,
so the figures measure the platform, not the bots); the
child-process mode runs each bot in its own process speaking the JSON-lines protocol, one
process per bot serving every match. Prints the best of K runs of each mode.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")

from bots.arena import Arena
from games.registry import get_game

BOTS = ["builtin:simple", "builtin:minimal"]


def measure(in_process: bool, matches: int) -> tuple[float, float]:
    """(matches per second, protocol calls per second) for one run."""
    game = get_game("rps-poker")
    with Arena(game, BOTS, in_process_builtins=in_process) as arena:
        started = time.perf_counter()
        summary = arena.run(rounds=matches, seed=1)
        elapsed = time.perf_counter() - started
        calls = sum(e.standing.calls for e in arena.entrants)
    assert summary["matches"] == matches
    return matches / elapsed, calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"RPS Poker, simple vs minimal, {args.matches} matches, best of {args.repeat}, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores"
    )
    results = {}
    for label, in_process in (("in-process", True), ("child processes", False)):
        runs = [measure(in_process, args.matches) for _ in range(args.repeat)]
        best = max(runs)
        results[label] = best[0]
        print(
            f"  {label:16s} {best[0]:9.0f} matches/s  {1000 / best[0]:7.3f} ms/match  "
            f"{best[1]:9.0f} bot calls/s"
        )
    ratio = results["in-process"] / results["child processes"]
    print(f"  child processes cost {ratio:.1f}x in-process")


if __name__ == "__main__":
    main()
