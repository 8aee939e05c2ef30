"""The bot author's loop, timed on ``manage.py arena`` as an author runs it: whole commands,
start-up included.

    .venv/bin/python bench/bench_author_loop.py [--runs K] [--before DIR] [--seed S]

Four commands, each run K times (interleaved with the ``--before`` checkout's, when given):

- ``rps``: 100 rounds of RPS Poker with three bots: the RPS Poker Python starter as a bot
  file (in the sandbox, as an author's bot runs) and the built-ins ``strong`` and ``simple``;
- ``rps-debug``: the same with ``--no-sandbox`` (the debug mode: the starter as a plain child
  process, but with the sandbox's interpreter and files, see docs/sandbox.md);
- ``last-card``: 1000 Last Card games with the built-in bots ``heuristic``, ``naive``,
  ``naive``, ``naive``;
- ``config``: ``--config`` with ``--logs``: the original kit's configuration file, written
  into a temporary folder, for 1000 Last Card games of two copies of the Last Card starter
  (bot files, in an ``ai_dirs`` folder, sandboxed) and the built-ins ``heuristic`` and
  ``naive``; a fresh logs folder each run, whose size is printed too.

It prints the min, median and max wall time of each (and the median CPU time of the command
and every process it waited for, bots included: the steadier figure on a shared machine).
``--before DIR`` runs the arena of another checkout (e.g. ``git worktree add /tmp/before
main``) side by side: its ``manage.py`` from its own folder, with this virtualenv's
interpreter, on the same bot files, so that before and after are measured in the same
minutes. The bot files are copied from this checkout once, so both arenas play the same ones.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the workloads: label -> what it plays (printed with the figures)
WORKLOADS = {
    "rps": "RPS Poker, 100 rounds: starter.py (sandboxed), builtin:strong, builtin:simple",
    "rps-debug": "the same with --no-sandbox",
    "last-card": "Last Card, 1000 games: builtin:heuristic and three builtin:naive",
    "config": "--config with --logs: Last Card, 1000 games, two starters (sandboxed), "
    "builtin:heuristic, builtin:naive",
}


def prepare(folder: Path) -> dict[str, Path]:
    """The bot files and the configuration file, written into ``folder``."""
    rps = folder / "rps_starter.py"
    shutil.copy(ROOT / "games" / "rps_poker" / "starter.py", rps)
    bots = folder / "ai-bots"
    bots.mkdir()
    for name in ("alice.py", "bob.py"):
        shutil.copy(ROOT / "games" / "last_card" / "starter.py", bots / name)
    config = folder / "config.json"
    config.write_text(
        json.dumps(
            {
                "game": "last-card",
                "ai_dirs": ["ai-bots"],
                "ai": ["builtin:heuristic", "builtin:naive"],
                "num_games": 1000,
            }
        )
    )
    return {"rps": rps, "config": config}


def command(checkout: Path, workload: str, files: dict[str, Path], seed: int) -> list[str]:
    """The arena command of one workload, for the checkout's ``manage.py`` (``--logs`` is
    added at each run)."""
    arena = [sys.executable, str(checkout / "manage.py"), "arena"]
    common = ["--seed", str(seed), "--no-progress"]
    if workload in ("rps", "rps-debug"):
        bots = [str(files["rps"]), "builtin:strong", "builtin:simple"]
        debug = ["--no-sandbox"] if workload == "rps-debug" else []
        return [*arena, "--game", "rps-poker", *bots, "--rounds", "100", *common, *debug]
    if workload == "last-card":
        bots = ["builtin:heuristic", *["builtin:naive"] * 3]
        return [*arena, "--game", "last-card", *bots, "--games", "1000", *common]
    return [*arena, "--config", str(files["config"]), *common]


def cpu_s() -> float:
    """CPU seconds of the commands run so far and of every process they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def timed(argv: list[str], checkout: Path, logs: Path | None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, bytes of logs) of one run, from the checkout's folder so
    that its own code is imported."""
    if logs is not None:
        argv = [*argv, "--logs", str(logs)]
    started, cpu = time.perf_counter(), cpu_s()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=checkout)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {shlex.join(argv)}\n{done.stderr[-2000:]}")
    size = 0
    if logs is not None:
        size = folder_bytes(logs)
        shutil.rmtree(logs)
    return elapsed, cpu_s() - cpu, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", type=Path, help="another checkout's arena, run alongside")
    args = parser.parse_args()
    os.environ.setdefault("CARD_ARENA_VAR", "/tmp/bench-author-loop-var")
    checkouts = {"now": ROOT}
    if args.before:
        checkouts = {"before": args.before.resolve(), "now": ROOT}
    folder = Path(tempfile.mkdtemp(prefix="bench-author-loop-"))
    try:
        files = prepare(folder)
        print(f"{args.runs} runs each (interleaved), seed {args.seed}, {os.cpu_count()} cores")
        for label, checkout in checkouts.items():
            print(f"  {label}: {checkout}")
        results: dict[tuple[str, str], list[tuple[float, float, int]]] = {}
        for run in range(args.runs):
            line = []
            for workload in WORKLOADS:
                for label, checkout in checkouts.items():
                    argv = command(checkout, workload, files, args.seed)
                    logs = folder / "logs" if workload == "config" else None
                    result = timed(argv, checkout, logs)
                    results.setdefault((workload, label), []).append(result)
                    line.append(f"{workload} {label} {result[0]:.2f} s")
            print(f"  run {run + 1}: {'  '.join(line)}", flush=True)
        for workload, title in WORKLOADS.items():
            print(f"{workload}: {title}")
            for label in checkouts:
                runs = results[(workload, label)]
                walls = [r[0] for r in runs]
                cpu = statistics.median(r[1] for r in runs)
                logs = ""
                if workload == "config":
                    logs = f"  logs {statistics.median(r[2] for r in runs) / 1e6:.1f} MB"
                print(
                    f"  {label:6s} wall min {min(walls):6.2f} s  median "
                    f"{statistics.median(walls):6.2f} s  max {max(walls):6.2f} s  "
                    f"CPU median {cpu:6.2f} s{logs}"
                )
            if "before" in checkouts:
                before = statistics.median(r[0] for r in results[(workload, "before")])
                now = statistics.median(r[0] for r in results[(workload, "now")])
                print(f"  now / before (median wall): {now / before:.2f}x")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
