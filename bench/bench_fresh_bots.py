"""Kept bot processes against the old warm process, in the arena: ``manage.py arena`` of
this checkout and of another (``--before DIR``, e.g. a worktree of the commit before the
change, with its own .venv or a link to this one), on the same sandboxed bot files, run
interleaved so that the machine's load falls on both alike. (The arena deals every table
anew, so a bot's process plays all its matches warm, a new bot instance each: see
docs/sandbox.md, "Kept processes, fresh before a deal seen"; bench/bench_renew.py measures
starting afresh.)

    .venv/bin/python bench/bench_fresh_bots.py --before DIR [--runs K] [--rounds R] [--jobs N]
        [--set js|python|both|thinking|js-thinking|all]

The bot sets: ``js``, the five original-contract RPS Poker bots of bench/rps_js_bots;
``python``, RPS Poker's three built-in bots played as files, so that they run in the sandbox
as uploads do; ``thinking``, bots whose matches take longer, as files too: Kuhn's and Leduc's
``cfr`` against their ``simple``, and Goofspiel's ``matching`` against itself (a cheap bot
of another game), and the ``js-thinking`` set: bench/rps_js_thinking/montecarlo.js, a
JavaScript bot that estimates every move by drawing cards at random in a loop, against two
of the micro-bots (a new realm starts its code cold: V8 compiles it anew).
``both`` is the first two, ``all`` every set. It prints each run, then
min and median per command of the arena's own matches per second (its --json
``elapsed_s``: first match to last, start-up left out) and of the whole command's wall and
CPU time (bots included), and the ratio before / after: the goal is at most 1.25.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JS_BOTS = sorted(str(p) for p in (ROOT / "bench" / "rps_js_bots").glob("*.js"))
#: a JavaScript bot that thinks (a Monte Carlo estimate on every move), against two micro-bots
JS_THINKING = [
    str(ROOT / "bench" / "rps_js_thinking" / "montecarlo.js"),
    str(ROOT / "bench" / "rps_js_bots" / "highest.js"),
    str(ROOT / "bench" / "rps_js_bots" / "counter.js"),
]
RPS_PY = [
    str(ROOT / "games" / "rps_poker" / "bots" / f"{n}.py") for n in ("minimal", "simple", "strong")
]


def builtin(game: str, name: str) -> str:
    return str(ROOT / "games" / game.replace("-", "_") / "bots" / f"{name}.py")


#: bots that think (CFR bots) and a cheap one of another game, played as files: a fresh
#: bot's cost beside matches that take longer than the micro-bots'
THINKING = [
    ("kuhn", ["--game", "kuhn", builtin("kuhn", "cfr"), builtin("kuhn", "simple")]),
    ("leduc", ["--game", "leduc", builtin("leduc", "cfr"), builtin("leduc", "simple")]),
    ("goofspiel", ["--game", "goofspiel", builtin("goofspiel", "matching"),
                   builtin("goofspiel", "matching")]),
]  # fmt: skip


def sets(name: str, rounds: int) -> list[tuple[str, list[str]]]:
    chosen = []
    if name in ("js", "both", "all"):
        chosen.append(("js", ["--game", "rps-poker", *JS_BOTS, "--rounds", str(rounds)]))
    if name in ("python", "both", "all"):
        chosen.append(("python", ["--game", "rps-poker", *RPS_PY, "--rounds", str(rounds)]))
    if name in ("thinking", "all"):
        chosen += [(label, [*args, "--rounds", str(rounds)]) for label, args in THINKING]
    if name in ("js-thinking", "thinking", "all"):
        chosen.append(
            ("js-thinking", ["--game", "rps-poker", *JS_THINKING, "--rounds", str(rounds)])
        )
    return chosen


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(checkout: Path, args: list[str], jobs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        command = [str(checkout / ".venv" / "bin" / "python"), str(checkout / "manage.py"),
                   "arena", *args, "--seed", "1", "--jobs", str(jobs), "--no-progress",
                   "--json", str(out)]  # fmt: skip
        started, cpu = time.perf_counter(), cpu_s()
        done = subprocess.run(command, capture_output=True, text=True, cwd=checkout)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
        data = json.loads(out.read_text())
    faults = sum(b.get("faults", 0) for b in data["bots"])
    if faults:
        sys.exit(f"{checkout}: {faults} faults in {' '.join(args)}")
    return {"matches/s": data["matches"] / data["elapsed_s"], "wall s": wall,
            "cpu s": cpu_s() - cpu}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--set", default="both", choices=("js", "python", "both", "thinking", "js-thinking", "all")
    )
    args = parser.parse_args()
    os.environ.setdefault("CARD_ARENA_VAR", tempfile.mkdtemp(prefix="bench-fresh-"))
    checkouts = {"before": args.before.resolve(), "after": ROOT}
    for label, arena_args in sets(args.set, args.rounds):
        print(f"{label}: arena {' '.join(Path(a).name for a in arena_args)} --jobs {args.jobs}")
        figures: dict[str, dict[str, list[float]]] = {c: {} for c in checkouts}
        for n in range(args.runs):
            line = []
            for name, checkout in checkouts.items():
                for key, value in run(checkout, arena_args, args.jobs).items():
                    figures[name].setdefault(key, []).append(value)
                line.append(f"{name} {figures[name]['matches/s'][-1]:.1f} matches/s")
            print(f"  run {n + 1}: " + ", ".join(line), flush=True)
        for key in figures["after"]:
            before, after = figures["before"][key], figures["after"][key]
            b, a = statistics.median(before), statistics.median(after)
            slower = b / a if key == "matches/s" else a / b
            print(
                f"  {key:10s} before min {min(before):8.2f} median {b:8.2f}"
                f" | after min {min(after):8.2f} median {a:8.2f}"
                f" | after slower by {slower:.2f}x (medians)"
            )


if __name__ == "__main__":
    main()
