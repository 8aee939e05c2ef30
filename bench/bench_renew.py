"""What a bot starting afresh costs: one sandboxed bot process plays matches against an
in-process built-in bot, once on a new deal every match (it plays them all warm) and once on
every deal twice in a row (before the second, the deal is one it has been dealt: it starts
afresh, a fresh process for Python, a fresh realm for JavaScript: docs/bot-protocol.md, "What
carries over between matches").

    .venv/bin/python bench/bench_renew.py [--matches N] [--runs K] [BOT_FILE ...]

By default RPS Poker's built-in ``strong.py`` and the micro-bot ``bench/rps_js_bots/counter.js``,
played as files in the sandbox. Prints milliseconds a match for each way, per run, then min and
median, and what one renewal costs: the difference between the two, times two (one match in two
renews).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")

import django  # noqa: E402

django.setup()

from bots.running.process import BotProcess, ProcessAgent  # noqa: E402
from bots.sandbox import SandboxConfig, sandbox_launch  # noqa: E402
from games.engine.agents import InProcessAgent  # noqa: E402
from games.engine.runner import MatchRunner  # noqa: E402
from games.registry import get_game  # noqa: E402

GAME = get_game("rps-poker")
DEFAULT_BOTS = [
    ROOT / "games" / "rps_poker" / "bots" / "strong.py",
    ROOT / "bench" / "rps_js_bots" / "counter.js",
]


def ms_a_match(path: Path, seeds: list[int]) -> tuple[float, int]:
    """Milliseconds a match over ``seeds`` (after one match to start the bot), and the bot's
    sandbox starts (1: it never restarted)."""
    config = SandboxConfig.from_settings()
    with BotProcess(sandbox_launch(path, game=GAME, config=config), label=path.stem) as process:
        agent = ProcessAgent(process, GAME.bot_call)
        other = InProcessAgent(GAME.builtin_class("minimal"), GAME.bot_call, "minimal")
        runner = MatchRunner(time.monotonic, GAME.time_control)
        warm_up = -1
        runner.run(GAME.state_class.new(warm_up), [agent, other], seed=warm_up)
        started = time.perf_counter()
        for seed in seeds:
            outcome = runner.run(GAME.state_class.new(seed), [agent, other], seed=seed)
            if outcome.faults:
                raise SystemExit(f"{path.name}: {outcome.faults}")
        return (time.perf_counter() - started) / len(seeds) * 1e3, process.starts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs="*", type=Path, default=DEFAULT_BOTS)
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for path in args.bots:
        ways = {
            "a new deal every match": list(range(args.matches)),
            "every deal twice": [n // 2 for n in range(args.matches)],
        }
        figures: dict[str, list[float]] = {way: [] for way in ways}
        print(f"{path.name}: {args.matches} matches a run")
        for run in range(1, args.runs + 1):
            for way, seeds in ways.items():
                ms, starts = ms_a_match(path, seeds)
                figures[way].append(ms)
                print(f"  run {run}: {way:24} {ms:7.3f} ms a match (sandbox starts: {starts})")
        medians = {}
        for way, values in figures.items():
            medians[way] = statistics.median(values)
            print(f"  {way:24} min {min(values):7.3f}  median {medians[way]:7.3f} ms a match")
        renewal = 2 * (medians["every deal twice"] - medians["a new deal every match"])
        print(f"  one renewal costs about {renewal:.2f} ms (medians)")


if __name__ == "__main__":
    main()
