"""Where the arena's own process spends a match, step by step: the Python bytecode steps
(opcodes) that the project's code runs per match of the original RPS Poker tournament, in
all and by function. A count, not a time: it does not move with the machine's load, and it
says which function to look at where callgrind's count (bench/bench_match_instructions.py)
only says how much.

    .venv/bin/python bench/bench_match_steps.py [--rounds R] [--top N] [--before DIR] [--lines]

Plays ``manage.py arena`` on the five JavaScript bots of ``bench/rps_js_bots/`` for R rounds
(10 matches a round; ``--jobs 1 --no-sandbox``, as the instructions bench plays it) with a
tracer that counts every opcode run in the checkout's ``bots/`` and ``games/`` while the
tournament plays (the start-up and the end left out), and prints the steps a match in all
and the N functions that run the most (their steps and calls a match; a generator's calls
count each time it resumes). The library code they call (json, the standard library, C
functions) is not counted: an opcode that calls it counts once. ``--before DIR`` counts
another checkout the same way, beside this one. ``--lines`` counts by line instead (each
line's function's calls beside it): where a function's steps go, or that none stands out.
A traced run is about thirty times slower; the bots' replies come as fast as ever, so the
rounds and their writes are as in a real run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BOTS = sorted(str(p) for p in (HERE / "rps_js_bots").glob("*.js"))

#: run in the checkout (argv: output file, then the arena's arguments): counts opcodes by
#: function while Arena.run plays, and writes {"steps": {"file:function": [steps, calls]}}
COUNT = r"""
import collections, json, os, sys
out, args = sys.argv[1], sys.argv[2:]
by_line = os.environ.get("STEPS_BY_LINE") == "1"
root = os.getcwd() + "/"
mine = (root + "bots/", root + "games/")
steps, calls = collections.Counter(), collections.Counter()

def tracer(frame, event, arg):
    code = frame.f_code
    if not code.co_filename.startswith(mine):
        return None
    key = code.co_filename[len(root):] + ":" + code.co_name
    calls[key] += 1
    frame.f_trace_opcodes = True
    def local(frame, event, arg):
        if event == "opcode":
            steps[f"{key}:{frame.f_lineno}" if by_line else key] += 1
        return local
    return local

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
from django.conf import settings
settings.DEBUG
import bots.arena
from bots.management.commands.arena import Command
run = bots.arena.Arena.run
def traced(self, *a, **k):
    sys.settrace(tracer)
    try:
        return run(self, *a, **k)
    finally:
        sys.settrace(None)
bots.arena.Arena.run = traced
Command().run_from_argv(["manage.py", "arena", *args])
with open(out, "w") as fh:
    whose = (lambda k: k.rsplit(":", 1)[0]) if by_line else (lambda k: k)
    json.dump({"steps": {k: [steps[k], calls[whose(k)]] for k in steps}}, fh)
"""


def count(checkout: Path, rounds: int, by_line: bool = False) -> dict[str, list[int]]:
    """Steps and calls by function (or by line of a function) over ``rounds`` rounds in
    ``checkout``."""
    python = str(checkout / ".venv" / "bin" / "python")
    args = ["--game", "rps-poker", *BOTS, "--rounds", str(rounds), "--seed", "1"]
    args += ["--no-progress", "--jobs", "1", "--no-sandbox"]
    with tempfile.TemporaryDirectory(prefix="bench-steps-") as tmp:
        out = Path(tmp) / "steps.json"
        env = {**os.environ, "CARD_ARENA_VAR": str(Path(tmp) / "var")}
        env["STEPS_BY_LINE"] = "1" if by_line else "0"
        done = subprocess.run(
            [python, "-c", COUNT, str(out), *args],
            cwd=checkout, env=env, capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            sys.exit(f"the arena of {checkout} failed:\n{done.stderr[-2000:]}")
        return json.loads(out.read_text())["steps"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--before", type=Path, help="another checkout, counted alongside")
    parser.add_argument(
        "--lines", action="store_true", help="by line, not by function (calls: its function's)"
    )
    args = parser.parse_args()
    matches = 10 * args.rounds
    checkouts = {"now": ROOT}
    if args.before:
        checkouts = {"before": args.before.resolve(), **checkouts}
    print(f"RPS Poker, 5 JavaScript bots, {matches} matches (arena --jobs 1 --no-sandbox):")
    unit = "line" if args.lines else "function"
    print(f"Python steps a match in bots/ and games/, in all and by {unit}")
    totals = {}
    for label, checkout in checkouts.items():
        steps = count(checkout, args.rounds, args.lines)
        totals[label] = sum(s for s, _ in steps.values()) / matches
        print(f"  {label} ({checkout}): {totals[label]:,.0f} steps a match")
        ranked = sorted(steps.items(), key=lambda item: item[1][0], reverse=True)
        for name, (done, calls) in ranked[: args.top]:
            print(f"    {done / matches:9,.0f} steps {calls / matches:6.1f} calls  {name}")
    if args.before:
        print(f"  now / before: x{totals['now'] / totals['before']:.3f}")


if __name__ == "__main__":
    main()
