"""The CFR solver against OpenSpiel's CFR+ on Leduc hold'em, and Blackjack++ tree sizes.

    .venv/bin/python bench/bench_solver.py [--target 1e-3] [--iterations 1000] [--skip-python]
        [--up 10,10,10] [--max-hits 1,2,3] [--blackjack-iterations 100]

Leduc: for this solver (CFR+, NumPy; on the tree that deals ranks, and on the six-card tree
dealt with suits as OpenSpiel does), OpenSpiel's C++ ``pyspiel.CFRPlusSolver`` and its
Python ``open_spiel.python.algorithms.cfr.CFRPlusSolver``: the time per iteration, and the
iterations and training time until the average strategy's exploitability is at most
``--target`` (measured every 10 iterations, 50 for the slow Python solver; the measuring is
not counted). The time per iteration is the best of 3 runs (1 for OpenSpiel's Python
solver). Every solver's exploitability is measured by its own library's best response.
Blackjack++: for each max hits, the tree size, build time, time per CFR+ iteration and the
exploitability after ``--blackjack-iterations`` iterations. The default up cards 10,10,10
are the ones the original project measured with. Needs the test extras (open_spiel).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")

from rich.console import Console
from rich.table import Table

from games.blackjack_pp.tree import BlackjackPP, parse_up_cards
from games.leduc.tree import Leduc
from games.solver import Solver, build

#: time per iteration is the best of this many runs (the machine may be busy)
REPEATS = 3


def ours_leduc(iterations: int, target: float, suited: bool) -> dict:
    tree = build(Leduc(suited=suited))
    per_iteration = float("inf")
    for _ in range(REPEATS):
        timed = Solver(tree, "cfr+")
        timed.train(iterations, record=False)
        per_iteration = min(per_iteration, timed.train_seconds / iterations)
    solver = Solver(tree, "cfr+")
    while True:
        solver.train(10, record=False)
        e = solver.exploitability()
        if e <= target or solver.iterations >= 100_000:
            break
    return {
        "name": f"this solver (NumPy CFR+), {'suited' if suited else 'ranks'}",
        "per_iteration": per_iteration,
        "iterations": solver.iterations,
        "seconds": solver.train_seconds,
        "exploitability": e,
        "build": tree.build_seconds,
        "size": f"{tree.sizes()['histories']:,} histories, {tree.n_infosets} infosets",
    }


def openspiel_leduc(kind: str, iterations: int, target: float) -> dict:
    import pyspiel
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability as py_exploitability

    game = pyspiel.load_game("leduc_poker")
    if kind == "C++":
        make = lambda: pyspiel.CFRPlusSolver(game)  # noqa: E731
        measure = lambda s: pyspiel.exploitability(game, s.average_policy())  # noqa: E731
        step = 10
    else:
        make = lambda: cfr.CFRPlusSolver(game)  # noqa: E731
        measure = lambda s: py_exploitability.exploitability(game, s.average_policy())  # noqa: E731
        step = 50
        iterations = min(iterations, 20)
    started = time.perf_counter()
    solver = make()
    build = time.perf_counter() - started
    per_iteration = float("inf")
    for _ in range(REPEATS if kind == "C++" else 1):
        started = time.perf_counter()
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        per_iteration = min(per_iteration, (time.perf_counter() - started) / iterations)
    solver = make()
    spent, done = 0.0, 0
    while True:
        started = time.perf_counter()
        for _ in range(step):
            solver.evaluate_and_update_policy()
        spent += time.perf_counter() - started
        done += step
        e = measure(solver)
        if e <= target or done >= 100_000:
            break
    states = "9,457 histories, 936 infosets"
    return {
        "name": f"OpenSpiel CFR+ ({kind})",
        "per_iteration": per_iteration,
        "iterations": done,
        "seconds": spent,
        "exploitability": e,
        "build": build,
        "size": states,
    }


def blackjack(up: tuple[int, int, int], max_hits: int, iterations: int) -> dict:
    game = BlackjackPP(up, max_hits)
    tree = build(game)
    solver = Solver(tree, "cfr+")
    solver.train(iterations, record=False)
    return {
        "max_hits": max_hits,
        "sizes": tree.sizes(),
        "build": tree.build_seconds,
        "per_iteration": solver.train_seconds / iterations,
        "train": solver.train_seconds,
        "iterations": iterations,
        "exploitability": solver.exploitability(),
        "value": solver.value(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=1e-3)
    parser.add_argument("--iterations", type=int, default=1000, help="Leduc iterations timed")
    parser.add_argument("--skip-python", action="store_true", help="skip OpenSpiel's Python CFR+")
    parser.add_argument("--skip-leduc", action="store_true")
    parser.add_argument("--up", default="10,10,10", help="Blackjack++ up cards")
    parser.add_argument("--max-hits", default="1,2,3", help="comma-separated, or '' for none")
    parser.add_argument("--blackjack-iterations", type=int, default=100)
    args = parser.parse_args()
    out = Console(width=120)

    if not args.skip_leduc:
        rows = [ours_leduc(args.iterations, args.target, suited) for suited in (False, True)]
        rows.append(openspiel_leduc("C++", min(args.iterations, 200), args.target))
        if not args.skip_python:
            rows.append(openspiel_leduc("Python", args.iterations, args.target))
        table = Table(title=f"Leduc hold'em, CFR+ to exploitability {args.target:g}")
        for header in (
            "solver",
            "tree",
            "setup s",
            "ms / iteration",
            "iterations",
            "training s",
            "exploitability",
        ):
            table.add_column(header, justify="left" if header in ("solver", "tree") else "right")
        for r in rows:
            table.add_row(
                r["name"],
                r["size"],
                f"{r['build']:.3f}",
                f"{r['per_iteration'] * 1000:.3f}",
                str(r["iterations"]),
                f"{r['seconds']:.2f}",
                f"{r['exploitability']:.2e}",
            )
        out.print(table)

    hits = [int(h) for h in args.max_hits.split(",") if h.strip()]
    if hits:
        up = parse_up_cards(args.up)
        table = Table(
            title=f"Blackjack++ up cards {args.up}, CFR+ {args.blackjack_iterations} iterations"
        )
        for header in (
            "max hits",
            "histories",
            "stored nodes",
            "infosets",
            "build s",
            "ms / iteration",
            "training s",
            "exploitability",
            "value p0",
        ):
            table.add_column(header, justify="right")
        for h in hits:
            r = blackjack(up, h, args.blackjack_iterations)
            s = r["sizes"]
            table.add_row(
                str(h),
                f"{s['histories']:,}",
                f"{s['stored_nodes']:,}",
                f"{s['infosets']:,}",
                f"{r['build']:.2f}",
                f"{r['per_iteration'] * 1000:.1f}",
                f"{r['train']:.1f}",
                f"{r['exploitability']:.2e}",
                f"{r['value']:+.4f}",
            )
        out.print(table)
    out.print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
