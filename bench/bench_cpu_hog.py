"""What a CPU hog costs the bot beside it: a neighbouring sandboxed bot's time per call,
alone and beside a hog (a bot whose threads hash in a loop, releasing Python's GIL; where
its host lets a match's process start no thread, as the Python host now does, it burns one
core in its calls instead): with
the sandboxes' CPU cgroups capping each at one core (``SandboxLimits.cpu_cores`` = 1), in CPU
cgroups without a cap (0: the kernel's fair share between cgroups alone), and with no CPU
cgroups at all (as before the sandbox had them).

    .venv/bin/python bench/bench_cpu_hog.py [--runs K] [--matches M] [--threads T]
        [--period-us P]

Each run measures the four in turn. The neighbour plays RPS Poker against the built-in
``simple`` (in-process) with a fixed amount of work per call (about 13 ms of hashing in its
own thread); the hog plays its own matches in another sandbox at the same time. It prints
each run's median time per call of the neighbour, then min and median over the runs, and
the slowdown beside each hog against alone (the goal: under 10% with the cap). Run it as
root, where the sandbox makes CPU cgroups.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
os.environ.setdefault("CARD_ARENA_VAR", tempfile.mkdtemp(prefix="bench-cpu-hog-"))

import django  # noqa: E402

django.setup()

from bots.running.process import BotProcess, ProcessAgent  # noqa: E402
from bots.sandbox import (  # noqa: E402
    SandboxLimits,
    cpucg,
    sandbox_launch,
)
from games.engine.agents import InProcessAgent  # noqa: E402
from games.engine.runner import MatchRunner, TimeControl  # noqa: E402
from games.registry import get_game  # noqa: E402

GAME = get_game("rps-poker")
TC = TimeControl(move=5.0, bank=30.0, startup=10.0)
NEIGHBOUR = """
import hashlib, time
BLOCK = b"y" * 65536

def work():
    for _ in range(__ROUNDS__):
        hashlib.sha256(BLOCK).digest()

class Bot:
    name = "neighbour"
    def draft_pick(self, cards):
        work(); return 0
    def draft_receive(self, card):
        pass
    def main_play(self, hand, base):
        work(); return 0
    def main_postprocess(self, card):
        pass
"""
HOG = """
import hashlib, threading, time
BLOCK = b"x" * (1 << 20)

def burn():
    while True:
        hashlib.sha256(BLOCK).digest()

def hold():
    if THREADS[0]:
        time.sleep(0.05)
    else:  # no thread of its own: it burns its core in its calls instead
        until = time.monotonic() + 0.05
        while time.monotonic() < until:
            hashlib.sha256(BLOCK).digest()

THREADS = [0]

class Bot:
    name = "hog"
    def __init__(self):
        try:
            for _ in range(__THREADS__):
                threading.Thread(target=burn, daemon=True).start()
                THREADS[0] += 1
        except RuntimeError:
            pass  # a match's process may start none (the host's rules)
    def draft_pick(self, cards):
        hold(); return 0
    def draft_receive(self, card):
        pass
    def main_play(self, hand, base):
        hold(); return 0
    def main_postprocess(self, card):
        pass
"""


def agent_for(path: Path, limits: SandboxLimits) -> ProcessAgent:
    process = BotProcess(sandbox_launch(path, game=GAME, limits=limits), label=path.stem)
    return ProcessAgent(process, GAME.bot_call)


def play(agent: ProcessAgent, seed: int):
    other = InProcessAgent(GAME.builtin_class("simple"), GAME.bot_call, "simple")
    outcome = MatchRunner(time.monotonic, TC).run(
        GAME.state_class.new(seed), [agent, other], seed=seed
    )
    if outcome.faults:
        sys.exit(f"{agent.name}: {outcome.faults}")
    return outcome.stats[0]


def per_call(
    neighbour: Path, matches: int, hog: Path | None, cores: float, cgroups: bool = True
) -> float:
    """The neighbour's median time per call over ``matches`` matches, beside the hog (in
    another thread, its own sandbox, capped at ``cores``) if there is one."""
    stop = threading.Event()
    hogging = None
    create = cpucg.create
    if not cgroups:
        cpucg.create = lambda *args, **kwargs: None
    if hog is not None:
        hog_agent = agent_for(hog, SandboxLimits(cpu_cores=cores))

        def keep_hogging() -> None:
            seed = 0
            while not stop.is_set():
                play(hog_agent, seed)
                seed += 1

        hogging = threading.Thread(target=keep_hogging, daemon=True)
        hogging.start()
        time.sleep(0.5)  # its threads at work before the neighbour starts
    agent = agent_for(neighbour, SandboxLimits())
    try:
        times = []
        for seed in range(matches):
            stats = play(agent, 1000 + seed)
            times.append(stats.think_s / max(stats.calls, 1))
    finally:
        agent.process.close()
        stop.set()
        if hogging is not None:
            hogging.join()
            hog_agent.process.close()
        cpucg.create = create
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--threads", type=int, default=3, help="the hog's hashing threads")
    parser.add_argument("--rounds", type=int, default=800, help="hashes of 64 KiB per call")
    parser.add_argument("--period-us", type=int, default=cpucg.PERIOD_US, help="CFS period")
    args = parser.parse_args()
    cpucg.PERIOD_US = args.period_us
    if os.geteuid() != 0:
        sys.exit("run as root: the sandbox makes CPU cgroups for a root worker only")
    folder = Path(tempfile.mkdtemp(prefix="bench-cpu-hog-"))
    neighbour = folder / "neighbour.py"
    neighbour.write_text(NEIGHBOUR.replace("__ROUNDS__", str(args.rounds)))
    hog = folder / "hog.py"
    hog.write_text(HOG.replace("__THREADS__", str(args.threads)))
    print(f"neighbour: {args.rounds} x sha256(64 KiB) a call; hog: {args.threads} hashing "
          f"threads; {args.matches} matches a measure, {os.cpu_count()} cores")  # fmt: skip
    figures: dict[str, list[float]] = {
        "alone": [], "hog capped": [], "hog uncapped": [], "no cgroups": []
    }  # fmt: skip
    for run in range(args.runs):
        figures["alone"].append(per_call(neighbour, args.matches, None, 1.0))
        figures["hog capped"].append(per_call(neighbour, args.matches, hog, 1.0))
        figures["hog uncapped"].append(per_call(neighbour, args.matches, hog, 0.0))
        figures["no cgroups"].append(per_call(neighbour, args.matches, hog, 0.0, cgroups=False))
        line = "  ".join(f"{k} {v[-1] * 1000:.1f} ms" for k, v in figures.items())
        print(f"  run {run + 1}: {line}", flush=True)
    alone = statistics.median(figures["alone"])
    for label, values in figures.items():
        median = statistics.median(values)
        slower = f"  {median / alone - 1:+.0%} against alone (medians)" if label != "alone" else ""
        print(f"  {label:13s} min {min(values) * 1000:6.1f} ms  median {median * 1000:6.1f} ms"
              f" a call{slower}")  # fmt: skip


if __name__ == "__main__":
    main()
