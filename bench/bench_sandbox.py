"""What the sandbox costs: RPS Poker matches per second with the same built-in bots run
in-process, as plain child processes and sandboxed (bubblewrap + limits + seccomp), and the
start-up time of one bot process, plain and sandboxed, in Python and JavaScript.

    .venv/bin/python bench/bench_sandbox.py [--matches N] [--repeat K] [--starts S] [--json PATH]

Matches: simple vs minimal, seats alternating, one process per bot serving every match (as in
a tournament), best of K interleaved runs per mode. Plain child processes run the sandbox's
interpreter and flags (Debian's /usr/bin/python3 -I -S -B, /usr/bin/node), so that only the
sandbox differs. The overhead ratio is sandboxed time per match over plain child process time
per match (the aim: under 1.3); CPU per match (worker and bots, start-up included) is the
steadier measure on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.languages import get_language
from bots.running.launch import plain_launch
from bots.running.process import BotProcess, Launch, ProcessAgent
from bots.sandbox import SandboxConfig, sandbox_launch
from games.engine.agents import Agent, InProcessAgent
from games.engine.runner import MatchRunner
from games.registry import get_game

GAME = get_game("rps-poker")
#: the sandbox's machine settings (--uid-base picks a range of uids apart from a worker's)
CONFIG = SandboxConfig()
BOTS = ("simple", "minimal")
JS_BOT = """{
  name: "bench",
  draftPick(cards) { return +cards[0][1] >= +cards[1][1] ? 0 : 1; },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
"""


def same_python(launch: Launch) -> Launch:
    """The plain launch with the sandbox's interpreter and flags, so that only the sandbox
    differs (-S: without the system's site-packages and their .pth files)."""
    assert launch.argv[1:3] == ["-I", "-B"], launch.argv
    return replace(launch, argv=[launch.argv[0], "-I", "-S", "-B", *launch.argv[3:]])


def make_agents(mode: str) -> tuple[list[Agent], list[BotProcess]]:
    agents: list[Agent] = []
    processes: list[BotProcess] = []
    for name in BOTS:
        if mode == "in-process":
            agents.append(InProcessAgent(GAME.builtin_class(name), GAME.bot_call, name))
            continue
        path = GAME.builtin_path(name)
        if mode == "sandboxed":
            launch = sandbox_launch(path, game=GAME, config=CONFIG)
        else:
            launch = same_python(
                plain_launch(
                    path, game=GAME.slug, interpreter=get_language("python").runtime(CONFIG)
                )
            )
        process = BotProcess(launch, label=name)
        process.start(GAME.time_control.startup)
        processes.append(process)
        agents.append(ProcessAgent(process, GAME.bot_call))
    return agents, processes


def cpu_s() -> float:
    """CPU seconds of this process and of its reaped children (the bots, once closed)."""
    me, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def play(mode: str, matches: int) -> tuple[float, float]:
    """(matches per second, CPU milliseconds per match of the worker and both bots, their
    start-up included) for one run."""
    cpu_before = cpu_s()
    agents, processes = make_agents(mode)
    runner = MatchRunner(time.monotonic, GAME.time_control)
    try:
        started = time.perf_counter()
        for n in range(matches):
            seated = agents if n % 2 == 0 else agents[::-1]
            state = GAME.state_class.new(n, num_seats=2)
            outcome = runner.run(state, seated, seed=n)
            assert not outcome.faults, outcome.faults
        rate = matches / (time.perf_counter() - started)
    finally:
        for process in processes:
            process.close()
    return rate, 1000 * (cpu_s() - cpu_before) / matches


def start_ms(make_launch: Callable[[], Launch], starts: int) -> float:
    """Median milliseconds from nothing to a bot's hello."""
    times = []
    for _ in range(starts):
        launch = make_launch()
        process = BotProcess(launch, label="bench")
        try:
            began = time.perf_counter()
            process.start(30)
            times.append(1000 * (time.perf_counter() - began))
        finally:
            process.close()
    return statistics.median(times)


def main() -> None:
    global CONFIG
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--starts", type=int, default=15)
    parser.add_argument("--json", type=Path, metavar="PATH")
    parser.add_argument(
        "--uid-base",
        type=int,
        default=SandboxConfig.uid_base,
        help="first sandbox uid (when root; default %(default)s)",
    )
    args = parser.parse_args()
    CONFIG = SandboxConfig(
        uid_base=args.uid_base,
        lock_dir=str(Path(tempfile.gettempdir()) / f"card-arena-bench-slots-{args.uid_base}"),
    )
    print(
        f"RPS Poker, simple vs minimal, {args.matches} matches, best of {args.repeat}; "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, uid {os.geteuid()}"
    )
    modes = ("in-process", "plain", "sandboxed")
    runs: dict[str, list[tuple[float, float]]] = {mode: [] for mode in modes}
    for _ in range(args.repeat):  # interleaved, so that a busy moment hits every mode alike
        for mode in modes:
            runs[mode].append(play(mode, args.matches))
    results = {mode: max(rate for rate, _ in rs) for mode, rs in runs.items()}
    cpu = {mode: min(ms for _, ms in rs) for mode, rs in runs.items()}
    for mode in modes:
        print(
            f"  {mode:11s} {results[mode]:8.0f} matches/s  {1000 / results[mode]:7.3f} ms/match"
            f"  {cpu[mode]:7.3f} CPU ms/match"
        )
    ratio = results["plain"] / results["sandboxed"]
    cpu_ratio = cpu["sandboxed"] / cpu["plain"]
    print(
        f"  sandbox overhead: {ratio:.2f}x a plain child process in time per match, "
        f"{cpu_ratio:.2f}x in CPU per match "
        f"(plain costs {results['in-process'] / results['plain']:.1f}x in-process)"
    )

    starts: dict[str, float] = {}
    py_bot = GAME.builtin_path("minimal")
    with tempfile.TemporaryDirectory() as folder:
        js_bot = Path(folder) / "bench.js"
        js_bot.write_text(JS_BOT)
        cases = {
            "python plain": lambda: same_python(
                plain_launch(py_bot, interpreter=get_language("python").runtime(CONFIG))
            ),
            "python sandboxed": lambda: sandbox_launch(py_bot, game=GAME, config=CONFIG),
            "javascript plain": lambda: plain_launch(
                js_bot, game=GAME.slug, interpreter=get_language("javascript").runtime(CONFIG)
            ),
            "javascript sandboxed": lambda: sandbox_launch(js_bot, game=GAME, config=CONFIG),
        }
        print(f"start-up to hello, median of {args.starts}:")
        for label, make in cases.items():
            starts[label] = start_ms(make, args.starts)
            print(f"  {label:21s} {starts[label]:7.1f} ms")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "matches": args.matches,
                    "matches_per_s": results,
                    "cpu_ms_per_match": cpu,
                    "sandbox_overhead": ratio,
                    "sandbox_cpu_overhead": cpu_ratio,
                    "startup_ms": starts,
                },
                indent=2,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
