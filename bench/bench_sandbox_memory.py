"""How much of the machine's memory a sandboxed bot can hold outside its heap: for each way
(System V shared memory, /dev/shm files written or mapped, memfd files written or mapped,
files in /tmp) a bot tries for --hog MiB at its first move and keeps it, in a process kept
warm between matches as a worker does. Prints what the bot got, its fault, the growth of the
machine's Shmem while the process is warm and after it is closed, and the peak of its memory
cgroup.

    .venv/bin/python bench/bench_sandbox_memory.py [--memory-mb 256] [--hog 1024]
        [--without seccomp,cgroup] [MODE ...]

``--without`` takes layers out, to see what each one holds on its own: ``seccomp`` (the
refusal of shared memory and memfd calls), ``cgroup`` (the memory cgroup). Run as root for
the cgroup (and the sandbox's own uids).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import sandbox
from bots.running import launch
from bots.running.playing import Entry, ProcessCache, play
from bots.sandbox import MiB, SandboxLimits, memcg, seccomp
from games.engine.runner import TimeControl
from games.registry import get_game

GAME = get_game("rps-poker")
HOGS = Path(__file__).resolve().parent.parent / "tests" / "sandbox" / "bots" / "hogs.py"
MODES = ["sysv", "posix", "posix_mmap", "memfd", "memfd_mmap", "tmp"]
MEMORY_CALLS = ("shm", "msg", "sem", "mq_", "memfd")


def shmem() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory-mb", type=int, default=256)
    parser.add_argument("--hog", type=int, default=1024, help="MiB each bot tries to hold")
    parser.add_argument("--without", default="", help="layers to take out: seccomp,cgroup")
    parser.add_argument("modes", nargs="*", default=MODES)
    args = parser.parse_args()
    without = {w for w in args.without.split(",") if w}
    if "seccomp" in without:
        seccomp.DENIED = tuple(n for n in seccomp.DENIED if not n.startswith(MEMORY_CALLS))
    if "cgroup" in without:
        memcg.MOUNT = Path("/nonexistent")
    # every game's bots get the limit asked for (what launching a bot looks up)
    limits = SandboxLimits(memory_mb=args.memory_mb)
    sandbox.limits_for = launch.limits_for = lambda game: limits
    patient = TimeControl(move=30.0, bank=0.0, startup=10.0)
    print(f"memory limit {args.memory_mb} MiB, bots try for {args.hog} MiB, "
          f"without: {', '.join(sorted(without)) or 'nothing'}")  # fmt: skip
    for mode in args.modes:
        code = HOGS.read_text().replace("__MODE__", mode).replace("__MIB__", str(args.hog))
        hog = Entry("hog", code=code, filename="hogs.py", key=mode)
        seats = [hog, Entry("simple", builtin="simple")]
        cache = ProcessCache()
        before = shmem()
        try:
            report = play(GAME, seats, seed=0, time_control=patient, cache=cache).seats[0]
            warm = shmem() - before
            (process,) = cache._items.values()
            cgroup = process.launch.memory_cgroup
            peak = f"{cgroup.read('memory.max_usage_in_bytes') / MiB:.0f} MiB" if cgroup else "-"
        finally:
            cache.close()
        deadline = time.monotonic() + 5
        while shmem() - before > 8 * MiB and time.monotonic() < deadline:
            time.sleep(0.05)
        said = [x for x in report.stderr.splitlines() if x.startswith(("GOT", "REFUSED"))]
        print(f"{mode:11} {said[-1] if said else '(nothing said)'}")
        print(f"{'':11} fault: {report.fault_kind or '-'}; Shmem {warm / MiB:+.0f} MiB while warm, "
              f"{(shmem() - before) / MiB:+.0f} MiB once closed; cgroup peak {peak}")  # fmt: skip


if __name__ == "__main__":
    main()
