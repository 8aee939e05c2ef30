"""Tournament workers against the arena on the same sandboxed bots, and storing a result.

    .venv/bin/python bench/bench_worker.py [--rounds R] [--runs N] [--workers 1,2]
                                           [--reference REV] [--stores S] [--keep-processes K]
                                           [--claim C]

Starts a throwaway PostgreSQL (cardsite.localservices). The three built-in RPS Poker bots are
played as files of their own (so every seat of every match runs in the bubblewrap sandbox, as
uploaded bots do), in three ways:

- the arena: ``manage.py arena`` on the three files, ``2 R`` rounds (3 matches a round),
  once with ``--jobs N`` for each N of ``--workers``: N processes playing matches, as N
  workers are (the arena's default is one process per core, which would set one worker
  against all the machine's cores);
- workers: the same files uploaded as ordinary versions on a database of their own, a round
  robin of ``R`` rounds queued (each deal played twice, seats swapped: 6 matches a round, as
  many as the arena plays) and drained by ``manage.py worker --batch --concurrency N`` for
  each N of ``--workers``;
- storing: in one process on the same database, ``S`` results are claimed and played
  in-process and then stored as the worker stores them: ``C`` at a time with
  ``competition.claim_many`` and ``competition.store_results`` (``--claim``, as the workers
  are run with), or one by one with ``claim`` and ``store_result`` by a variant without
  them; each claim and store timed and its SQL statements counted (Django's
  ``CaptureQueriesContext``), both per match.

Matches per second leave out start-up on both sides: the arena's own ``elapsed_s`` (its
``--json``: from its first match to its last), and for workers the matches stored over the
span from the first job started to the last one finished (from the database).

Workers and stores are measured with this checkout and, side by side, with the code of
``--reference`` (a git revision, exported with ``git archive`` into a temporary folder and
run with the same Python; ``--reference ''`` leaves it out). The arena is this checkout's.
Each run measures everything once, in turn, so that the machine's load falls on all alike;
the bench prints every run, then min and median per figure, and the ratios: N workers /
the arena with ``--jobs N`` (matches per second; 1 is as fast as the arena, like with like:
as many processes playing on each side), 2 workers / 1 worker, and this checkout / the
reference. Each worker measure also says how many of the machine's cores were busy over
its span (all processes: workers, bots, PostgreSQL; sampled from /proc/stat), and the end
says what that allows: N workers cannot make more than the machine's cores over the cores
one keeps busy, times one's pace.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardsite.localservices import postgres_server  # noqa: E402

#: main before the second part of goal 4 of issue 17 (claiming several jobs at once, storing
#: and rating them together); the first part (storing and rating in a few statements, no
#: ledger held across a store) came after 0c8f002
REFERENCE = "cbb58ec"
BOTS = ("minimal", "simple", "strong")

#: run in a process of a variant's code (its folder first on sys.path): plays a round robin
#: of ``count / 6`` rounds (rounded up) in-process, then stores its results as the variant's
#: worker does: in batches of ``batch`` (``store_results``) where the variant has them, else
#: one by one; times each store and each claim and counts their SQL statements, per match;
#: prints JSON
PROBE = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
import django
django.setup()
from django.db import connection
from django.test.utils import CaptureQueriesContext
from bots import competition
try:
    from bots.running.playing import Entry, play
except ImportError:  # a revision from before bots/ had rooms
    from bots.playing import Entry, play
from games.registry import get_game

count, batch = int(sys.argv[2]), int(sys.argv[3])
many = hasattr(competition, "store_results")
batch = batch if many else 1
game = get_game("rps-poker")
competition.start_round_robin("rps-poker", -(-count // 6))  # fresh deals: no seed twice
claims, held = [], []
while True:
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        if many:
            got = competition.claim_many("probe", 600, batch)
        else:
            got = [c for c in [competition.claim("probe", 600)] if c is not None]
        took = time.perf_counter() - started
    if not got:
        break
    claims += [(took / len(got), len(queries.captured_queries) / len(got))] * len(got)
    held.append(got)
stores = []
for claimed in held:
    results = []
    for claim in claimed:
        versions = competition.seat_versions(claim.job)
        entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
        results.append((claim, play(game, entries, seed=claim.job.seed)))
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        if many:
            competition.store_results(results)
        else:
            competition.store_result(*results[0])
        took = time.perf_counter() - started
    n = len(results)
    stores += [(took / n, len(queries.captured_queries) / n)] * n
print(json.dumps({"claims": claims, "stores": stores}))
"""


@dataclass
class Variant:
    name: str
    root: Path
    url: str = ""
    #: figure -> one value per run
    figures: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


class BusyCores:
    """The machine's busy CPU time, sampled from /proc/stat every 20 ms in a thread of its
    own: :meth:`between` gives how many cores were busy on average between two wall-clock
    times (every process of the machine: workers, their bots, PostgreSQL; nothing else
    should run beside the bench)."""

    PERIOD_S = 0.02

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []  # (time.time(), busy CPU seconds)
        self._stop = threading.Event()
        self._tick = os.sysconf("SC_CLK_TCK")
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _busy_s(self) -> float:
        with open("/proc/stat") as fh:
            fields = [int(v) for v in fh.readline().split()[1:]]
        idle = fields[3] + fields[4]  # idle, iowait
        return (sum(fields[:8]) - idle) / self._tick  # user..steal (guests are in user)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.time(), self._busy_s()))
            self._stop.wait(self.PERIOD_S)

    def between(self, start: float, end: float) -> float:
        """Busy cores, on average, from ``start`` to ``end`` (the nearest samples inside)."""
        inside = [(t, busy) for t, busy in self.samples if start <= t <= end]
        if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
            return float("nan")
        return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def manage(root: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=root, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def export(rev: str, into: Path) -> Path:
    """The files of ``rev`` in ``into`` (no git worktree: nothing outside the folder)."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True, check=True
    ).stdout
    # (tarfile's filters came with 3.11.4; Debian's 3.11.2, the platform's interpreter, has
    # none: the archive is this repository's own)
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, **safe)
    return into


def environment(url: str, var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(CARD_ARENA_VAR=str(var), PLACEMENT_DEALS="0")
    if url:
        env["DATABASE_URL"] = url
    return env


def arena_rate(files: Path, base: Path, rounds: int, jobs: int) -> tuple[float, int]:
    """(matches per second, matches) of one ``manage.py arena --jobs JOBS`` run of this
    checkout."""
    out = base / "arena.json"
    env = environment("", base / "arena-var")
    bots = [str(files / f"{name}.py") for name in BOTS]
    manage(ROOT, env, "arena", "--game", "rps-poker", *bots, "--rounds", str(rounds),
           "--seed", "1", "--no-progress", "--json", str(out), "--jobs", str(jobs))  # fmt: skip
    summary = json.loads(out.read_text())
    return summary["matches"] / summary["elapsed_s"], summary["matches"]


def prepare(variant: Variant, admin_url: str, files: Path, base: Path, tag: str) -> None:
    """A database of the variant's own with the three bots uploaded as ordinary versions."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE bench_{tag}")
    variant.url = admin_url.rsplit("/", 1)[0] + f"/bench_{tag}"
    env = environment(variant.url, base / f"var-{tag}")
    manage(variant.root, env, "migrate", "-v", "0")
    for name in BOTS:
        manage(variant.root, env, "upload_bot", str(files / f"{name}.py"), "--user", name,
               "--create-user")  # fmt: skip


def worker_rate(
    variant: Variant,
    base: Path,
    rounds: int,
    workers: int,
    keep: int,
    claim: int,
    busy_cores: BusyCores,
) -> tuple[float, dict[str, float], float]:
    """Matches per second of ``workers`` workers draining a round robin of ``rounds``;
    where a match's time went (ms, per match): playing it (the match's own duration, mean)
    and the rest of a worker's time per match besides playing (mean: claiming, reading its
    bots, storing and rating; with jobs claimed several at a time, a job's own span from its
    claim to its store covers the other matches of its batch, so the rest is worked out
    from the whole span); and the machine's busy cores over that span (BusyCores)."""
    env = environment(variant.url, base / f"var-{variant.name}")
    # fresh deals each time (a seed is dealt once in a game, whichever revision deals it)
    out = manage(variant.root, env, "start_tournament", "--rounds", str(rounds))
    tournament = int(out.split()[1].rstrip(":"))
    manage(variant.root, env, "worker", "--batch", "--concurrency", str(workers),
           "--display", "log", "--no-validate", "--ladder-interval", "0",
           "--keep-processes", str(keep), *claim_option(variant, claim))  # fmt: skip
    with psycopg.connect(variant.url) as conn:
        jobs = conn.execute(
            "SELECT extract(epoch FROM j.started), extract(epoch FROM j.finished), m.duration_s "
            "FROM bots_matchjob j JOIN bots_match m ON m.job_id = j.id "
            "WHERE j.tournament_id = %s AND j.status = 'done'",
            (tournament,),
        ).fetchall()
    if len(jobs) != 6 * rounds:
        raise SystemExit(f"{variant.name}: {len(jobs)} of {6 * rounds} matches stored")
    first, last = float(min(start for start, _, _ in jobs)), float(max(end for _, end, _ in jobs))
    span = last - first
    playing = statistics.mean(played for _, _, played in jobs)
    split = {
        "playing": 1000 * playing,
        "besides playing": 1000 * max(0.0, span * workers / len(jobs) - playing),
    }
    return len(jobs) / span, split, busy_cores.between(first, last)


def claim_option(variant: Variant, claim: int) -> list[str]:
    """``--claim N`` for a worker that has the option (the reference may not)."""
    command = variant.root / "bots" / "management" / "commands" / "worker.py"
    return ["--claim", str(claim)] if '"--claim"' in command.read_text() else []


def probe(variant: Variant, base: Path, stores: int, batch: int) -> dict[str, list[list[float]]]:
    env = environment(variant.url, base / f"var-{variant.name}")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(variant.root), str(stores), str(batch)],
        cwd=variant.root, env=env, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{variant.name}: the store probe failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def describe(values: list[float], unit: str = "", digits: int = 2) -> str:
    return (
        f"min {min(values):8.{digits}f}{unit}  median {statistics.median(values):8.{digits}f}"
        f"{unit}  max {max(values):8.{digits}f}{unit}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40, help="worker rounds (6 matches each)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--reference", default=REFERENCE, help="git revision to compare with")
    parser.add_argument(
        "--stores", type=int, default=30, help="results stored per probe (0: no store probe)"
    )
    parser.add_argument(
        "--keep-processes",
        type=int,
        default=8,
        help="bot processes a worker keeps between matches (0: a fresh sandbox per match)",
    )
    parser.add_argument(
        "--claim",
        type=int,
        default=32,
        help="the most jobs a worker claims at once and stores together (where the variant "
        "can; the worker's default, WORKER_CLAIM); the store probe stores this many at a time",
    )
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    busy_cores = BusyCores()
    # stopped: leave through the context managers (the PostgreSQL server, the folder)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))
    print("command: .venv/bin/python bench/bench_worker.py " + " ".join(sys.argv[1:]))
    with tempfile.TemporaryDirectory(prefix="bench-worker-") as tmp:
        os.chmod(tmp, 0o711)
        base = Path(tmp)
        files = base / "files"
        files.mkdir()
        for name in BOTS:
            code = (ROOT / "games" / "rps_poker" / "bots" / f"{name}.py").read_text()
            (files / f"{name}.py").write_text(code)
        variants = [Variant("this", ROOT)]
        if args.reference:
            variants.insert(0, Variant("reference", export(args.reference, base / "ref")))
        arena: dict[int, list[float]] = {n: [] for n in counts}
        with postgres_server(base) as pg:
            for variant in variants:
                prepare(variant, pg.url, files, base, variant.name)
            print(
                f"PostgreSQL; 3 sandboxed RPS Poker bots; {6 * args.rounds} matches per "
                f"measure; --keep-processes {args.keep_processes}; --claim {args.claim}; reference "
                f"{args.reference or '-'}; {os.cpu_count()} CPUs; load average "
                f"{os.getloadavg()[0]:.2f}",
                flush=True,
            )
            for run in range(args.runs):
                line = []
                for n in counts:
                    rate, matches = arena_rate(files, base, 2 * args.rounds, n)
                    arena[n].append(rate)
                    line.append(f"--jobs {n} {rate:7.2f} matches/s")
                print(f"run {run + 1}: arena {', '.join(line)} ({matches} matches)", flush=True)
                for variant in variants:
                    line = []
                    for n in counts:
                        got, split, busy = worker_rate(
                            variant,
                            base,
                            args.rounds,
                            n,
                            args.keep_processes,
                            args.claim,
                            busy_cores,
                        )
                        variant.figures[f"{n} worker(s), matches/s"].append(got)
                        variant.figures[f"{n} worker(s), cores busy"].append(busy)
                        line.append(f"{n} worker(s) {got:6.2f}/s ({busy:.2f} cores busy)")
                        if n == counts[0]:
                            for part, ms in split.items():
                                variant.figures[f"ms a match, {part}"].append(ms)
                            line.append(
                                "a match: " + ", ".join(f"{k} {v:.0f} ms" for k, v in split.items())
                            )
                    ones = variant.figures[f"{counts[0]} worker(s), matches/s"]
                    for n in counts:
                        got = variant.figures[f"{n} worker(s), matches/s"][-1]
                        variant.figures[f"{n} worker(s) / arena --jobs {n}"].append(
                            got / arena[n][-1]
                        )
                    for n in counts[1:]:
                        many = variant.figures[f"{n} worker(s), matches/s"][-1]
                        variant.figures[f"{n} / {counts[0]} worker(s)"].append(many / ones[-1])
                    measured = (
                        probe(variant, base, args.stores, args.claim)
                        if args.stores > 0
                        else {"stores": [], "claims": []}  # --stores 0: no store probe
                    )
                    for kind in ("stores", "claims"):
                        if not measured[kind]:
                            continue
                        times = [1000 * took for took, _ in measured[kind]]
                        statements = [n for _, n in measured[kind]]
                        variant.figures[f"{kind[:-1]}, ms (median of the run)"].append(
                            statistics.median(times)
                        )
                        variant.figures[f"{kind[:-1]}, SQL statements"].append(
                            statistics.median(statements)
                        )
                    last = {name: values[-1] for name, values in variant.figures.items()}
                    versus = last[f"{counts[0]} worker(s) / arena --jobs {counts[0]}"]
                    store = (
                        f"; store {last['store, ms (median of the run)']:.1f} ms, "
                        f"{last['store, SQL statements']:g} statements"
                        if args.stores > 0
                        else ""
                    )
                    print(
                        f"  {variant.name:>9}: {', '.join(line)}; "
                        f"x{versus:.2f} of the arena{store}",
                        flush=True,
                    )
        print(f"\nover {args.runs} runs:")
        for n in counts:
            print(f"  {f'arena --jobs {n}, matches/s':>34}: {describe(arena[n])}")
        for name in variants[-1].figures:
            for variant in variants:
                print(f"  {variant.name:>9} {name:>24}: {describe(variant.figures[name])}")
            if len(variants) == 2:
                ref, new = (statistics.median(v.figures[name]) for v in variants)
                print(f"  {'this / reference (medians)':>34}: x{new / ref:.2f}")
        cores = os.cpu_count() or 1
        for variant in variants:
            one = statistics.median(variant.figures[f"{counts[0]} worker(s), cores busy"])
            for n in counts[1:]:
                # n workers each need what one keeps busy: no more than the machine has
                bound = min(n / counts[0], cores / one)
                print(
                    f"  {variant.name:>9}: {counts[0]} worker(s) kept {one:.2f} of {cores} cores "
                    f"busy (median): {n} can make at most x{bound:.2f} of that"
                )
        busy_cores.stop()


if __name__ == "__main__":
    main()
