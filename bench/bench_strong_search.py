"""CPU of RPS Poker's ``builtin:strong`` look-ahead: this checkout's against another's, side
by side, on the same positions.

    .venv/bin/python bench/bench_strong_search.py --before DIR [--positions 20] [--runs 7]

The look-ahead (``Bot._search``, every hand and draw of its last eight cards) is most of the
bot's thinking, and the bot is asked on a live table's event loop: its CPU is the server's.
Each run times both checkouts' search (process CPU time, so other work on the machine counts
less) on the same random positions of eight cards, taking turns; the bench checks that both
choose the same cards and prints min and median milliseconds per search and the ratio of the
medians.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
MODULE = Path("games/rps_poker/bots/strong.py")


def load(checkout: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, checkout / MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def positions(module: ModuleType, count: int, size: int = 8) -> list[tuple]:
    """Random positions: ``size`` cards of mine (three in hand), five the opponent may hold
    with random chances, a random law of the bases to come."""
    rng = random.Random(1)
    found = []
    for _ in range(count):
        deck = module.FULL_DECK[:]
        rng.shuffle(deck)
        mine, opponent = deck[:size], deck[size : size + 5]
        weights = [rng.random() for _ in opponent]
        rand = {c: w / sum(weights) for c, w in zip(opponent, weights, strict=True)}
        pi = [rng.random() for _ in range(10)]
        pi = [p / sum(pi) for p in pi]
        found.append((mine[:3], int(deck[-1][1]), mine, dict(rand), rand, pi))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    variants = {"before": load(args.before, "strong_before"), "after": load(ROOT, "strong_after")}
    cases = positions(variants["after"], args.positions)
    times: dict[str, list[float]] = {name: [] for name in variants}
    choices: dict[str, list[int]] = {}
    for _ in range(args.runs):
        for name, module in variants.items():
            bot = module.Bot()
            started = time.process_time()
            choices[name] = [bot._search(*case) for case in cases]
            times[name].append((time.process_time() - started) / len(cases) * 1000)
    if choices["before"] != choices["after"]:
        sys.exit("the two checkouts choose different cards")
    for name, values in times.items():
        print(f"{name:>6}: min {min(values):.2f} ms, median {statistics.median(values):.2f} ms "
              f"of CPU per search ({args.positions} positions, {args.runs} runs)")  # fmt: skip
    ratio = statistics.median(times["after"]) / statistics.median(times["before"])
    print(f"after / before (medians): {ratio:.2f}; the same cards chosen")


if __name__ == "__main__":
    main()
