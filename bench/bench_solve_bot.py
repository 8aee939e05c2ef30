"""What ``manage.py solve --bot`` costs: the size of the bots it writes and the time to write them.

    .venv/bin/python bench/bench_solve_bot.py [--runs 3] [--every]

For each case (Kuhn poker, Leduc hold'em and Blackjack++ with up cards 6,6,2 and one hit, 1000
CFR+ iterations each) it runs the whole command, ``manage.py solve ... --bot PATH``, ``--runs``
times, and side by side the same solve with ``--json PATH`` instead (what an author ran before
there was a ``--bot``: the reference), and prints the min and median wall time of each, their
ratio (median over median), the bot file's size and the time a Python process takes to import
it (the bot unpacks its tables then). ``--every`` adds the bot covering every deal of a
Blackjack++ match (``--max-hits 1 --iterations 100 --every up``: 1,000 solves, minutes), run
once; it has no reference.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"

CASES = {
    "kuhn": ["kuhn", "--iterations", "1000"],
    "leduc": ["leduc", "--iterations", "1000"],
    "blackjack-pp 6,6,2, 1 hit": ["blackjack-pp", "--up", "6,6,2", "--max-hits", "1"],
}
EVERY = ["blackjack-pp", "--max-hits", "1", "--iterations", "100", "--every", "up"]


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [str(PYTHON), "manage.py", "solve", *args, "--no-progress"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ | {"PYTHONDONTWRITEBYTECODE": "1"},
    )
    return time.perf_counter() - started


def import_seconds(bot: Path) -> float:
    """The median of 5 imports of the bot file in a fresh Python (its tables unpacked)."""
    code = (
        "import importlib.util, time\n"
        "t = time.perf_counter()\n"
        f"s = importlib.util.spec_from_file_location('bot', {str(bot)!r})\n"
        "m = importlib.util.module_from_spec(s); s.loader.exec_module(m)\n"
        "print(time.perf_counter() - t)\n"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
        for _ in range(5)
    ]
    return statistics.median(runs)


def row(name: str, bot_times: list[float], ref_times: list[float] | None, bot: Path) -> str:
    ref = (
        f"{min(ref_times):7.2f} {statistics.median(ref_times):7.2f}"
        f"  {statistics.median(bot_times) / statistics.median(ref_times):5.2f}x"
        if ref_times
        else f"{'-':>7} {'-':>7}  {'-':>6}"
    )
    return (
        f"{name:28} {min(bot_times):7.2f} {statistics.median(bot_times):7.2f}  {ref}"
        f"  {bot.stat().st_size:9,}  {import_seconds(bot) * 1000:7.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--every", action="store_true", help="add the 1,000-solve bot")
    args = parser.parse_args()
    print(
        f"{'case':28} {'--bot s':>15}  {'--json s (ref)':>15}  {'ratio':>6}  {'bot bytes':>9}"
        f"  {'import ms':>9}"
    )
    print(f"{'':28} {'min':>7} {'median':>7}  {'min':>7} {'median':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in CASES.items():
            bot, doc = Path(tmp) / "bot.py", Path(tmp) / "doc.json"
            bot_times, ref_times = [], []
            for _ in range(args.runs):
                bot_times.append(timed([*case, "--bot", str(bot)]))
                ref_times.append(timed([*case, "--json", str(doc)]))
            print(row(name, bot_times, ref_times, bot), flush=True)
        if args.every:
            bot = Path(tmp) / "every.py"
            every = [timed([*EVERY, "--bot", str(bot)])]
            print(row("blackjack-pp, every up card", every, None, bot))


if __name__ == "__main__":
    main()
