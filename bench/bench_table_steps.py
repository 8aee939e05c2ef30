"""What keeping live tables' steps costs the database (docs/live-tables.md, "When a server
dies"): every table in play appends each deciding step of its match (an answer, a fault) to
``TableStep`` so that another process can resume it. One web process's hub writes them as
they come, whatever came meanwhile in one INSERT per trip to the database; this bench puts
that next to the plain way, one INSERT per step, on PostgreSQL (a throwaway server started
for the bench, as bench_tables.py does).

    .venv/bin/python bench/bench_table_steps.py [--tables 1000] [--rounds 10] [--runs 5]

Each run makes ``--tables`` tables in play and writes ``--rounds`` steps for each of them,
round by round (every table makes a step, then the next round): as the hub writes them
under load (one trip a round: ``tables.write_steps`` with the round's steps) and one step
a trip (the same function with one step each). Then each table's steps are forgotten, as
when its match is stored. It prints per way the milliseconds per step and the steps per
second one thread reaches, min and median over the runs, and their ratio: the steps one
process's tables make per second (1,000 tables at one move every 1-3 s, with a bot's answer
to each: about 1,000 steps a second) must fit in a fraction of its database thread.
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
sys.path.insert(0, str(ROOT))

from cardsite.localservices import postgres_server  # noqa: E402


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    import django

    django.setup()


def make_tables(count: int) -> list[int]:
    from django.utils import timezone

    from games.models import Table

    now = timezone.now()
    rows = [
        Table(game="rps-poker", seed=n, state=Table.PLAYING, started=now, host_heartbeat=now,
              host_channel="tables.bench!x")
        for n in range(count)
    ]  # fmt: skip
    return [table.pk for table in Table.objects.bulk_create(rows)]


def step(seat: int, n: int) -> dict:
    """A step as a table keeps it: a seat's answer, the seconds it took, the log's length."""
    return {"s": seat, "m": "receive", "n": n, "a": n % 3, "t": 0.000412}


def run(ids: list[int], rounds: int, batched: bool) -> float:
    """Seconds to write ``rounds`` steps of every table, then forget them."""
    from django.db import connection

    from games.live import tables

    started = time.perf_counter()
    for r in range(rounds):
        writes = [("add", table_id, r, step(r % 2, r)) for table_id in ids]
        if batched:
            tables.write_steps(writes)
        else:
            for write in writes:
                tables.write_steps([write])
    elapsed = time.perf_counter() - started
    tables.write_steps([("forget", table_id) for table_id in ids])
    connection.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-steps-") as tmp:
        os.chmod(tmp, 0o711)
        with postgres_server(tmp) as pg:
            env = {
                "DATABASE_URL": pg.url,
                "CARD_ARENA_VAR": f"{tmp}/var",
                "DJANGO_SETTINGS_MODULE": "cardsite.settings",
                "DB_POOL": "0",
            }
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "-v", "0"],
                cwd=ROOT, env={**os.environ, **env}, check=True,
            )  # fmt: skip
            setup_django(env)
            ids = make_tables(args.tables)
            steps = args.tables * args.rounds
            print(f"{args.tables} tables in play, {args.rounds} steps each ({steps} steps a run),"
                  f" PostgreSQL, {args.runs} runs, both ways in turn")  # fmt: skip
            times: dict[str, list[float]] = {"one INSERT a step": [], "one INSERT a trip": []}
            for _ in range(args.runs):
                times["one INSERT a step"].append(run(ids, args.rounds, batched=False))
                times["one INSERT a trip"].append(run(ids, args.rounds, batched=True))
            print(f"{'way':<20} {'ms/step min':>12} {'median':>8} {'steps/s median':>15}")
            for way, seconds in times.items():
                low, mid = min(seconds), statistics.median(seconds)
                print(f"{way:<20} {low / steps * 1e3:>12.4f} {mid / steps * 1e3:>8.4f} "
                      f"{steps / mid:>15.0f}")  # fmt: skip
            plain = statistics.median(times["one INSERT a step"])
            trip = statistics.median(times["one INSERT a trip"])
            print(f"ratio (one a step / one a trip), medians: {plain / trip:.1f}x")


if __name__ == "__main__":
    main()
