"""Tournament worker throughput on PostgreSQL: matches per second for 1 and 2 workers.

    .venv/bin/python bench/bench_worker.py [--rounds R] [--workers 1,2]

Starts a throwaway PostgreSQL (cardsite.localservices), migrates it, uploads the three
built-in RPS Poker bots as ordinary uploaded versions (so every match runs both bots in the
bubblewrap sandbox, as uploaded bots do), then for each worker count queues the same round
robin (3 bots, R rounds: 6 matches per round with seats swapped) and runs
``manage.py worker --batch --concurrency N`` (``--keep-processes``: how many bot processes a
worker keeps alive between matches; 0 starts fresh sandboxes for every match). Throughput is
measured from the database: matches stored / (last job finished - first job started), which
leaves out Django's start-up; the wall time of the whole command is printed too.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardsite.localservices import postgres_server  # noqa: E402


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument(
        "--keep-processes",
        type=int,
        default=8,
        help="bot processes a worker keeps between matches (0: a fresh sandbox per match)",
    )
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-worker-") as tmp:
        os.chmod(tmp, 0o711)
        with postgres_server(tmp) as pg:
            env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
            env.update(DATABASE_URL=pg.url, CARD_ARENA_VAR=f"{tmp}/var", PLACEMENT_DEALS="0")
            manage(env, "migrate", "-v", "0")
            for name in ("minimal", "simple", "strong"):
                path = ROOT / "games" / "rps_poker" / "bots" / f"{name}.py"
                manage(env, "upload_bot", str(path), "--user", name, "--create-user")
            print(
                f"PostgreSQL {pg.url}; 3 sandboxed bots; {os.cpu_count()} CPUs; "
                f"--keep-processes {args.keep_processes}"
            )
            base = None
            for n in counts:
                out = manage(env, "start_tournament", "--rounds", str(args.rounds), "--seed", "1")
                tournament = int(out.split()[1].rstrip(":"))
                started = time.monotonic()
                manage(env, "worker", "--batch", "--concurrency", str(n), "--display", "log",
                       "--no-validate", "--ladder-interval", "0",
                       "--keep-processes", str(args.keep_processes))  # fmt: skip
                wall = time.monotonic() - started
                with psycopg.connect(pg.url) as conn:
                    matches, span = conn.execute(
                        "SELECT count(*), extract(epoch FROM max(finished) - min(started)) "
                        "FROM bots_matchjob WHERE tournament_id = %s AND status = 'done'",
                        (tournament,),
                    ).fetchone()
                rate = matches / float(span)
                base = base or rate
                print(
                    f"{n} worker(s): {matches} matches in {float(span):.2f} s = {rate:.2f} "
                    f"matches/s (x{rate / base:.2f}); command wall time {wall:.2f} s"
                )


if __name__ == "__main__":
    main()
