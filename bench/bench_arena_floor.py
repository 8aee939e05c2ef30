"""The arena against its floor: ``manage.py arena`` playing an RPS Poker round robin of five
JavaScript bots (100 rounds, 1000 matches, sandboxed), against one Node process playing the
same bots in-process (``bench/arena_floor.js``: no protocol, no child processes, no sandbox).

    .venv/bin/python bench/bench_arena_floor.py [--runs K] [--rounds R] [--seed S]
        [--before DIR] [--arena-args "--jobs 2"] [--bare] [--bare-args "--jobs 1"]
        [--bare-runner]

Both are timed as whole commands (start-up included), interleaved, K runs each; it prints the
min and median of each and their ratio (arena over floor: issue 30's goal is 5 or less), in wall
time and in CPU time (the commands' and every process they waited for, bots included: the
steadier figure when others share the machine).
Each checkout's sources are byte-compiled first (``compileall``), as a run after the first finds
them: a machine whose environment sets ``PYTHONDONTWRITEBYTECODE`` (the development machine's
does) would otherwise compile them again in every run, about 0.15 s that no user's run pays.
``--before DIR`` also runs the arena of another checkout (e.g. /work/main) in the same runs,
so that before and after are measured side by side on a machine others share. ``--bare`` also
runs the bare design (``bench/arena_bare.py``: the same tournament, sandboxed, by the least a
design with one sandboxed process a bot and a Python referee can do), the floor of the
arena's design rather than of the machine; ``--bare-runner`` runs it beside the same with
``--runner`` too (each match played by the engine's match loop and RPS Poker's own rules), both
with ``--bare-args``. The bots
(``bench/rps_js_bots/``) are written to the original challenge's contract: object literals
(one assigns ``module.exports``), some keeping state across calls and reading ``fullDeck``.
The floor's Node runs with the environment the arena gives its bots (``BOT_ENV``: a path, a
locale and Python's two flags, nothing of the caller's). A machine may set ``NODE_OPTIONS`` or
``NODE_EXTRA_CA_CERTS`` (the development machine sets the latter): Node reads that file's
certificates at every start, about 0.05 s of CPU, which the bots never pay and a fair floor
must not either.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# this checkout's code first (see bench/arena_bare.py)
sys.path.insert(0, str(ROOT))

from bots.running.launch import base_env  # noqa: E402

BOTS = sorted(str(p) for p in (HERE / "rps_js_bots").glob("*.js"))
#: what a bot's process finds in its environment (the arena's own, as it starts a bot outside
#: the sandbox; inside, bwrap clears it too): the same for the Node processes the benches start
BOT_ENV = base_env()
FLOOR = "floor (node, in-process)"
BARE = "bare design"
BARE_RUNNER = "bare design, --runner"


def floor_command(rounds: int, seed: int) -> list[str]:
    script = str(HERE / "arena_floor.js")
    return ["node", script, "--rounds", str(rounds), "--seed", str(seed), *BOTS]


def arena_command(checkout: Path, rounds: int, seed: int, extra: list[str]) -> list[str]:
    python = str(checkout / ".venv" / "bin" / "python")
    return [
        python, str(checkout / "manage.py"), "arena", "--game", "rps-poker", *BOTS,
        "--rounds", str(rounds), "--seed", str(seed), "--no-progress", *extra,
    ]  # fmt: skip


def bare_command(rounds: int, seed: int, extra: list[str]) -> list[str]:
    python = str(ROOT / ".venv" / "bin" / "python")
    script = str(HERE / "arena_bare.py")
    return [python, script, "--rounds", str(rounds), "--seed", str(seed), *extra, *BOTS]


def cpu_s() -> float:
    """CPU seconds of the commands run so far and of every process they waited for (the
    bots included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of the command (in ``env``: else this one's)."""
    started, cpu = time.perf_counter(), cpu_s()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {shlex.join(command)}\n{done.stderr[-2000:]}")
    return elapsed, cpu_s() - cpu


def byte_compile(checkout: Path) -> None:
    """Write the checkout's ``__pycache__`` (what its first run would leave behind)."""
    python = str(checkout / ".venv" / "bin" / "python")
    sources = [str(checkout / name) for name in ("bots", "games", "cardsite", "manage.py")]
    subprocess.run([python, "-m", "compileall", "-q", *sources], check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", type=Path, help="another checkout's arena, run alongside")
    parser.add_argument(
        "--arena-args", default="", help="more options for this checkout's arena (e.g. --jobs 1)"
    )
    parser.add_argument("--bare", action="store_true", help="also run the bare design")
    parser.add_argument("--bare-args", default="", help="its options (e.g. --jobs 1 --lanes 64)")
    parser.add_argument(
        "--bare-runner",
        action="store_true",
        help="also run the bare design with --runner (the engine's match loop), beside it",
    )
    args = parser.parse_args()
    os.environ.setdefault("CARD_ARENA_VAR", "/tmp/bench-arena-floor-var")
    commands = {FLOOR: floor_command(args.rounds, args.seed)}
    if args.bare or args.bare_args or args.bare_runner:
        commands[BARE] = bare_command(args.rounds, args.seed, shlex.split(args.bare_args))
    if args.bare_runner:
        extra = [*shlex.split(args.bare_args), "--runner"]
        commands[BARE_RUNNER] = bare_command(args.rounds, args.seed, extra)
    if args.before:
        commands["arena before"] = arena_command(args.before.resolve(), args.rounds, args.seed, [])
    commands["arena"] = arena_command(ROOT, args.rounds, args.seed, shlex.split(args.arena_args))
    for checkout in (ROOT, args.before.resolve()) if args.before else (ROOT,):
        byte_compile(checkout)
    print(
        f"RPS Poker, {len(BOTS)} JavaScript bots, {args.rounds} rounds, seed {args.seed}, "
        f"{args.runs} runs each (interleaved), {os.cpu_count()} cores"
    )
    for label, command in commands.items():
        print(f"  {label}: {shlex.join(command)}", flush=True)
    times: dict[str, list[float]] = {label: [] for label in commands}
    cpus: dict[str, list[float]] = {label: [] for label in commands}
    for run in range(args.runs):
        for label, command in commands.items():
            wall, cpu = timed(command, BOT_ENV if label == FLOOR else None)
            times[label].append(wall)
            cpus[label].append(cpu)
        line = "  ".join(f"{label} {runs[-1]:.2f} s" for label, runs in times.items())
        print(f"  run {run + 1}: {line}", flush=True)
    for title, figures in (("wall time", times), ("CPU time, bots included", cpus)):
        print(f"  {title}:")
        for label, runs in figures.items():
            ratio = ""
            if label != FLOOR:
                base = figures[FLOOR]
                ratio = (
                    f"  {statistics.median(runs) / statistics.median(base):5.1f}x the floor"
                    f" (median)  {min(runs) / min(base):5.1f}x (min)"
                )
            median = statistics.median(runs)
            print(f"    {label:26s} min {min(runs):7.3f} s  median {median:7.3f} s{ratio}")


if __name__ == "__main__":
    main()
