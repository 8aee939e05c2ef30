"""Blackjack++ at the original's full size: ``manage.py solve`` to an exploitability target.

    .venv/bin/python bench/bench_blackjack_full.py [--runs 3] [--reference-runs 3]
        [--target 1e-3] [--case UP/HITS/ALGORITHM ...] [--json]

For each case (up cards, max hits, algorithm) it runs the whole command as a user would,

    manage.py solve blackjack-pp --up UP --max-hits HITS --algorithm ALGORITHM
                    --target 1e-3 --iterations 1000 --no-progress

``--runs`` times, each in a fresh process, and prints the min and median wall time and peak
memory (the child's maximum resident set size, from ``os.wait4``), the iterations it took
and the exploitability it reached (what the command printed: an exact best response).
Side by side, the reference: the same command with ``--history-tree``, the solver on the
tree of every history as it was before the public tree (``--reference-runs`` times; 0 to
skip; cases marked ``*`` by default skip it, as it takes minutes and gigabytes there: give
``--reference-runs`` to run it anyway). The ratio is the reference's median over this
solver's. ``--json`` adds ``--json`` to every run (the strategy by key: up to a million keys
written). Default cases: 10,10,10 (the original's setting) and 6,6,2 with 2 and 3 hits, and
A,A,A with 3 hits (the largest tree: 95 million histories), with CFR+ and discounted CFR.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"

#: (up cards, max hits, algorithm); ``*``: the reference is skipped unless asked for
CASES = [
    "10,10,10/2/cfr+",
    "6,6,2/2/cfr+",
    "10,10,10/3/cfr+",
    "10,10,10/3/dcfr",
    "*6,6,2/3/cfr+",
    "*6,6,2/3/dcfr",
    "*A,A,A/3/cfr+",
    "*A,A,A/3/dcfr",
]


@dataclass
class Run:
    seconds: float
    peak_mb: float
    iterations: int
    exploitability: float


def solve(up: str, hits: str, algorithm: str, target: float, extra: list[str]) -> Run:
    """One run of the whole command in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            str(PYTHON),
            "manage.py",
            "solve",
            "blackjack-pp",
            "--up",
            up,
            "--max-hits",
            hits,
            "--algorithm",
            algorithm,
            "--target",
            str(target),
            "--iterations",
            "1000",
            "--no-progress",
            *[str(Path(tmp) / "s.json") if a == "JSON" else a for a in extra],
        ]
        started = time.perf_counter()
        with open(Path(tmp) / "out", "w+") as out:
            child = subprocess.Popen(
                args,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.DEVNULL,
                env=os.environ | {"PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "200"},
            )
            _pid, status, usage = os.wait4(child.pid, 0)
            seconds = time.perf_counter() - started
            out.seek(0)
            text = out.read()
    if status != 0:
        raise SystemExit(f"the command failed for {up} {hits} {algorithm}:\n{text}")
    iterations = re.search(r"(\d+) iterations", text)
    exploitability = re.search(r"exploitability\s*│\s*(\S+)", text)
    assert iterations and exploitability, text
    return Run(
        seconds=seconds,
        peak_mb=usage.ru_maxrss / 1024,
        iterations=int(iterations.group(1)),
        exploitability=float(exploitability.group(1)),
    )


def figures(runs: list[Run]) -> tuple[str, str, str, str]:
    if not runs:
        return "-", "-", "-", "-"
    times = [r.seconds for r in runs]
    return (
        f"{min(times):.1f} / {statistics.median(times):.1f}",
        f"{max(r.peak_mb for r in runs):,.0f}",
        ", ".join(sorted({str(r.iterations) for r in runs})),
        f"{max(r.exploitability for r in runs):.2e}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--reference-runs",
        type=int,
        default=None,
        help="runs of the reference (default: --runs, and none for cases marked *)",
    )
    parser.add_argument("--target", type=float, default=1e-3)
    parser.add_argument("--case", action="append", help="UP/HITS/ALGORITHM, e.g. 6,6,2/3/dcfr")
    parser.add_argument("--json", action="store_true", help="also write the JSON strategy")
    args = parser.parse_args()
    extra = ["--json", "JSON"] if args.json else []
    out = Console(width=160)
    table = Table(
        title=f"manage.py solve blackjack-pp --target {args.target:g} (whole command; "
        "wall s min / median, peak MB the most of the runs)"
    )
    for header in (
        "up cards / hits / algorithm",
        "s",
        "peak MB",
        "iterations",
        "exploitability",
        "--history-tree s (ref)",
        "ref peak MB",
        "ref iterations",
        "ref exploitability",
        "ratio",
    ):
        table.add_column(header, justify="left" if header.startswith("up") else "right")
    for case in args.case or CASES:
        heavy = case.startswith("*")
        up, hits, algorithm = case.lstrip("*").split("/")
        ours = [solve(up, hits, algorithm, args.target, extra) for _ in range(args.runs)]
        reference_runs = args.reference_runs
        if reference_runs is None:
            reference_runs = 0 if heavy else args.runs
        reference = [
            solve(up, hits, algorithm, args.target, [*extra, "--history-tree"])
            for _ in range(reference_runs)
        ]
        ratio = "-"
        if reference:
            slower = statistics.median(r.seconds for r in reference)
            ratio = f"{slower / statistics.median(r.seconds for r in ours):.1f}x"
        table.add_row(f"{up} / {hits} / {algorithm}", *figures(ours), *figures(reference), ratio)
        out.print(f"done: {case}", style="dim")
    out.print(table)
    out.print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
