"""What keeping the runtime copies in memory costs, and what it does (bots.sandbox.resident).

    .venv/bin/python bench/bench_resident.py [--probes N] [--runs R]

For each runtime copy on this machine (``/dev/shm/card-arena-runtime-UID/*``, built by the
first sandbox of each language):

- slow before: of ``N`` random pages of its files, how many took more than 30 us to read
  (one byte, ``os.pread``) before this process touched anything: pages the host of a
  virtual machine paged out since some process last read them (the other copies' figure
  depends on what ran lately: run it after an idle hour to see the most);
- map: mapping every file of it (once per process);
- first touch: reading a byte of every page through the mappings, the first time;
- slow after: the same count for ``N`` other random pages right after that touch;
- touch: ``R`` touches more, min and median (what a worker pays before a seating of a deal
  a bot was dealt before, once the pages are in memory).
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bots.sandbox import mirror, resident  # noqa: E402

#: a read slower than this came from the host, not from memory
SLOW_NS = 30_000


def pages_of(path: Path) -> list[tuple[str, int]]:
    """(file, page count) for every non-empty regular file of the copy."""
    found = []
    for where, _, names in os.walk(path):
        for name in names:
            full = os.path.join(where, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            size = os.path.getsize(full)
            if size:
                found.append((full, -(-size // resident.PAGE)))
    return found


def slow_reads(files: list[tuple[str, int]], probes: int, rng: random.Random) -> int:
    """Of ``probes`` pages drawn at random from ``files``, how many read slowly."""
    ends = list(itertools.accumulate(count for _, count in files))
    slow = 0
    for _ in range(probes):
        n = rng.randrange(ends[-1])
        which = bisect.bisect_right(ends, n)
        page = n - (ends[which - 1] if which else 0)
        fd = os.open(files[which][0], os.O_RDONLY)
        try:
            started = time.perf_counter_ns()
            os.pread(fd, 1, page * resident.PAGE)
            slow += time.perf_counter_ns() - started > SLOW_NS
        finally:
            os.close(fd)
    return slow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--probes", type=int, default=2000, help="random pages read a count")
    parser.add_argument("--runs", type=int, default=20, help="touches timed after the first")
    args = parser.parse_args()
    root = mirror.mirror_root()
    copies = resident_copies(root)
    if not copies:
        sys.exit(f"no runtime copies under {root}: start a sandbox of each language first")
    print(f"{len(copies)} copies under {root}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'copy':<11}{'pages':>8}{'slow before':>13}{'map':>8}{'1st touch':>11}"
          f"{'slow after':>12}{'touch min/median':>17}")  # fmt: skip
    rng = random.Random(1)
    for path in copies:
        files = pages_of(path)
        before = slow_reads(files, args.probes, rng)
        started = time.perf_counter()
        mapped = resident.Mapped(path)
        mapped_s = time.perf_counter() - started
        started = time.perf_counter()
        pages = mapped.touch()
        first_s = time.perf_counter() - started
        after = slow_reads(files, args.probes, rng)
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            mapped.touch()
            times.append(time.perf_counter() - started)
        mapped.close()
        name = path.name.split("-")[0]
        print(
            f"{name:<11}{pages:>8,}{before:>8}/{args.probes:<4}{1000 * mapped_s:>6.1f}ms"
            f"{1000 * first_s:>9.1f}ms{after:>7}/{args.probes:<4}"
            f"{1000 * min(times):>8.2f}/{1000 * statistics.median(times):.2f} ms"
        )


def resident_copies(root: Path) -> list[Path]:
    """The copies under ``root`` (not those being built, nor the locks beside them)."""
    if not root.is_dir():
        return []
    return sorted(f for f in root.iterdir() if f.is_dir() and not f.name.startswith("."))


if __name__ == "__main__":
    main()
