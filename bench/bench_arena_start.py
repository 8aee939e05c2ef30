"""The arena's start, step by step: how long ``manage.py arena`` takes, on the original RPS
Poker tournament (the five JavaScript bots of ``bench/rps_js_bots/``, sandboxed, as
bench/bench_arena_floor.py plays it), to import its modules, to hear its bots' hellos and to
begin its first match, and then to end. The floor (one Node process) pays almost nothing of
what comes before the first match.

    .venv/bin/python bench/bench_arena_start.py [--runs K] [--rounds R] [--before DIR]
        [--arena-args "--jobs 1"]

Each run starts the command through the checkout's own ``manage.py`` (its ``main``), with
the checkout's own Python and modules, from a small wrapper that notes on stderr the
moment of each step, in every process of the run (a job forked by the arena notes its own):
the command imported; each bot process's hello (``BotProcess.greet`` returning); each
process's first match begun (``MatchRunner.steps``); the command's end. The bench prints, for
each checkout, the min and median over the runs of each step's time since the command was
started: the imports, the last hello heard by each process (this one's and its jobs'), the
first match begun, the last match ended in each process, and the end; how long one process
played on alone (the later last match, less the earlier) and the time from the later to the
end (the bots closed, the results shown); then the CPU seconds of the
command's own process and of every process it started (with ``--jobs 1``: its Python, and
its bots). ``--before DIR`` runs another checkout the same way in the same runs,
interleaved.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_arena_floor import BOTS, byte_compile

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: runs ``manage.py arena ARGS`` in the checkout it is started in, noting each step on stderr
#: as "STEP <wall clock> <pid> <name>"
WRAPPER = r"""
import os, sys, time

def note(name):
    print(f"STEP {time.time():.6f} {os.getpid()} {name}", file=sys.stderr, flush=True)

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
import manage
try:
    import bots.arena.command  # (what manage.py's arena imports before the command runs)
except ImportError:  # a checkout from before the arena ran without Django: its imports
    from django.conf import settings
    import bots.management.commands.arena

    settings.DEBUG
note("imported")
from bots.running.process import BotProcess
from games.engine.runner import MatchRunner

greet, steps, outcome = BotProcess.greet, MatchRunner.steps, MatchRunner.outcome
begun = set()

def greeted(self, *args, **kwargs):
    hello = greet(self, *args, **kwargs)
    note("hello")
    return hello

def stepping(self, *args, **kwargs):
    if os.getpid() not in begun:
        begun.add(os.getpid())
        note("first match")
    return steps(self, *args, **kwargs)

def ended(self, *args, **kwargs):
    note("last match")  # (each match's end: the last one noted is the last)
    return outcome(self, *args, **kwargs)

BotProcess.greet, MatchRunner.steps, MatchRunner.outcome = greeted, stepping, ended
sys.argv = ["manage.py", "arena", *sys.argv[1:]]
manage.main()
note("end")
import resource
own = resource.getrusage(resource.RUSAGE_SELF)
waited = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"CPU {own.ru_utime + own.ru_stime} {waited.ru_utime + waited.ru_stime}", file=sys.stderr)
"""


def arena_args(rounds: int, extra: list[str]) -> list[str]:
    return [
        "--game", "rps-poker", *BOTS, "--rounds", str(rounds), "--seed", "1", "--no-progress",
        *extra,
    ]  # fmt: skip


def steps(checkout: Path, args: list[str]) -> dict[str, float]:
    """One run's steps, in seconds since the command was started: ``imported``, ``hello``
    (the last heard, by each process: ``hello`` for the command's own, ``job hello`` for the
    latest of its jobs'), ``first match`` (the command's own), ``last match`` (the end of the
    last match played by each process) and ``end``; and the CPU
    seconds of the command's own process (``cpu, arena``) and of every process it started
    (``cpu, started``: its bots, and its jobs with theirs)."""
    python = str(checkout / ".venv" / "bin" / "python")
    started = time.time()
    done = subprocess.run(
        [python, "-c", WRAPPER, *args], cwd=checkout, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}) in {checkout}:\n{done.stderr[-2000:]}")
    main_pid = None
    found: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if line.startswith("CPU "):
            _, own, waited = line.split()
            found["cpu, arena"], found["cpu, started"] = float(own), float(waited)
        if not line.startswith("STEP "):
            continue
        _, moment, pid, name = line.split(" ", 3)
        at = float(moment) - started
        if name == "imported":
            main_pid = pid
        key = name if pid == main_pid else f"job {name}"
        found[key] = max(found.get(key, 0.0), at) if name in ("hello", "last match") else at
    if "last match" in found and "job last match" in found:
        last = max(found["last match"], found["job last match"])
        found["played alone"] = last - min(found["last match"], found["job last match"])
        found["last to end"] = found["end"] - last
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--before", type=Path, help="another checkout, run alongside")
    parser.add_argument("--arena-args", default="", help="more options for both arenas")
    args = parser.parse_args()
    os.environ.setdefault("CARD_ARENA_VAR", "/tmp/bench-arena-start-var")
    checkouts = {"now": ROOT}
    if args.before:
        checkouts = {"before": args.before.resolve(), **checkouts}
    for checkout in checkouts.values():
        byte_compile(checkout)
    command = arena_args(args.rounds, shlex.split(args.arena_args))
    print(f"manage.py arena {shlex.join(command[2 + len(BOTS) :])} ({len(BOTS)} bots), "
          f"{args.runs} runs each (interleaved), seconds since the command started")  # fmt: skip
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in checkouts}
    for _ in range(args.runs):
        for label, checkout in checkouts.items():
            runs[label].append(steps(checkout, command))
    order = ("imported", "hello", "job hello", "first match", "job first match", "last match")
    order += ("job last match", "end", "played alone", "last to end")
    order += ("cpu, arena", "cpu, started")
    for label, found in runs.items():
        print(f"  {label}:")
        for name in order:
            times = [run[name] for run in found if name in run]
            if times:
                median = statistics.median(times)
                print(f"    {name:16s} min {min(times):6.3f}  median {median:6.3f}")


if __name__ == "__main__":
    main()
