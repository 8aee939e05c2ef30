"""The strategy explorer's solves through the database and a worker, side by side with the
same solves as the web process used to run them in a thread; a solve asked again; a poll.

    .venv/bin/python bench/bench_explorer.py [--runs 5]

It makes a database of its own in a temporary folder (SQLite; DATABASE_URL=postgres://...
uses PostgreSQL instead). For each solve of the list below, ``--runs`` times each way (the
ways taking turns, run by run), it prints the min and median wall time of:

- ``thread`` (before): what the web process's solving thread did, in this process: make the
  game, build the tree, train (a progress callback that sets an attribute per iteration),
  and make the result document;
- ``worker`` (now): the form's ``games.solves.submit`` of the settings, then one
  ``Worker.solve_one()`` of the tournament worker (claim, solve writing its progress to the
  row, store the result as JSON text, forget old results), then the poll that finds it done;
- ``repeat`` (now): the form's POST of the same settings again (served from the store: no
  new job) and the result page.

Then the ratio worker / thread (the cost of the queue, the progress writes and the store),
the progress writes per solve, the result's bytes, and the SQL statements and time of one
poll of ``/solver/jobs/ID.json`` for a running solve and a done one (answered from the
row, by any web process).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (form fields) of the solves measured: a quick one, a middling one, one with options
SOLVES = [
    {"game": "kuhn", "algorithm": "cfr+", "iterations": "1000"},
    {"game": "leduc", "algorithm": "cfr+", "iterations": "300"},
    {
        "game": "blackjack-pp",
        "algorithm": "cfr+",
        "iterations": "300",
        "up0": "6",
        "up1": "6",
        "up2": "2",
        "max_hits": "1",
    },
]


def timed(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return times


def ms(times: list[float]) -> str:
    return f"{1000 * min(times):9.1f} {1000 * statistics.median(times):10.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="bench-explorer-")
    os.environ.update(CARD_ARENA_VAR=var, DJANGO_SETTINGS_MODULE="cardsite.settings")
    sys.path.insert(0, str(ROOT))
    import logging

    import django

    django.setup()
    logging.getLogger("bots").setLevel(logging.WARNING)
    logging.getLogger("games").setLevel(logging.WARNING)
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    from bots.worker import Options, Worker
    from games import solves
    from games.explorer import ExplorerForm
    from games.models import SolveJob
    from games.solver.cfr import Solver
    from games.solver.export import result_document
    from games.solver.tree import build

    setup_test_environment()
    call_command("migrate", "--noinput", verbosity=0)
    SolveJob.objects.all().delete()
    client = Client()
    worker = Worker(Options(validate=False), name="bench")
    print(f"database: {connection.vendor}; {args.runs} runs of each way")
    print(f"{'solve':<64} {'way':<7} {'min ms':>9} {'median ms':>10}")
    for fields in SOLVES:
        form = ExplorerForm(fields)
        assert form.is_valid(), form.errors
        settings = form.settings()

        def in_a_thread(settings=settings) -> None:
            class Seen:
                iteration = 0

            def set_iteration(n: int) -> None:
                Seen.iteration = n

            game = settings.make_game()
            solver = Solver(build(game), settings.algorithm)
            solver.train(settings.iterations, progress=set_iteration)
            result_document(game, solver)

        writes: list[int] = []
        sizes: list[int] = []

        def on_a_worker(settings=settings, writes=writes, sizes=sizes) -> None:
            SolveJob.objects.filter(digest=settings.job_id).delete()
            solves.submit(settings)
            real = solves.save_progress
            count = [0]

            def counted(held, changes, count=count, real=real):
                count[0] += 1
                return real(held, changes)

            solves.save_progress = counted
            try:
                assert worker.solve_one()
            finally:
                solves.save_progress = real
            row = SolveJob.objects.get(digest=settings.job_id)
            assert row.status == SolveJob.DONE, row.error
            writes.append(count[0])
            sizes.append(row.result_bytes)
            assert client.get(f"/solver/jobs/{row.digest}.json").json()["state"] == "done"

        def repeated(fields=fields, settings=settings) -> None:
            response = client.post("/solver/", fields)
            assert response.status_code == 303
            assert client.get(response["Location"]).status_code == 200

        # the ways take turns, run by run, so that the machine's load falls on each alike
        before, after, again = [], [], []
        for _ in range(args.runs):
            before += timed(in_a_thread, 1)
            after += timed(on_a_worker, 1)
            again += timed(repeated, 1)
        assert SolveJob.objects.filter(digest=settings.job_id).count() == 1
        name = settings.describe()
        print(f"{name:<64} {'thread':<7} {ms(before)}")
        print(f"{'':<64} {'worker':<7} {ms(after)}")
        print(f"{'':<64} {'repeat':<7} {ms(again)}")
        print(
            f"{'':<64} worker / thread: min {min(after) / min(before):.2f}, median "
            f"{statistics.median(after) / statistics.median(before):.2f}; repeat / thread: "
            f"median {statistics.median(again) / statistics.median(before):.3f}; progress "
            f"writes {max(writes)}, result {max(sizes):,} bytes"
        )

    # a poll, for a solve running (its row as a worker leaves it) and one done
    done = SolveJob.objects.filter(status=SolveJob.DONE).order_by("id").first()
    running = SolveJob.objects.create(
        key="bench|running", digest="0000benchrunning", game=done.game,
        algorithm=done.algorithm, iterations=done.iterations, options=done.options,
        status=SolveJob.RUNNING, worker="elsewhere", attempts=1, phase="training",
        iteration=done.iterations // 2, train_seconds=0.5, measured=[10, 0.01],
        lease_until=done.used.__class__.now(done.used.tzinfo).replace(year=2100),
    )  # fmt: skip
    print(f"{'poll':<64} {'':<7} {'min ms':>9} {'median ms':>10} {'statements':>11}")
    for label, row in (("running", running), ("done", done)):
        url = f"/solver/jobs/{row.digest}.json"
        statements = []

        def count(execute, sql, params, many, context, statements=statements):
            statements.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            assert client.get(url).status_code == 200
        print(f"{label:<64} {'':<7} {ms(timed(lambda u=url: client.get(u), 50))} "
              f"{len(statements):>11}")  # fmt: skip


if __name__ == "__main__":
    main()
