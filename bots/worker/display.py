"""The worker's progress display on a terminal (rich)."""

from __future__ import annotations

import time

from django.db.models import Count
from rich.table import Table

from bots.models import MatchJob


def queue_line() -> str:
    counts = {status: 0 for status, _ in MatchJob.STATUSES}
    for row in MatchJob.objects.values("status").annotate(n=Count("id")).order_by():
        counts[row["status"]] = row["n"]
    return "  ".join(f"{k} {v}" for k, v in counts.items())


def worker_panel(worker) -> Table:
    from bots.competition.status import idle_reasons
    from bots.worker import OUTAGE, drop_connection

    try:
        queue = queue_line()
    except OUTAGE:  # the worker says so itself, and tries again
        drop_connection()
        queue = "unknown: the database is away"
    c = worker.counters
    elapsed = max(time.monotonic() - c.started, 1e-9)
    table = Table(title=f"worker {worker.name}", show_header=False, expand=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("now", c.current or ("stopping" if worker.stopping else "waiting for work"))
    if not c.current and not worker.stopping and not c.outage:
        try:
            table.add_row("why", "; ".join(idle_reasons()))
        except OUTAGE:
            drop_connection()
    table.add_row("played", f"{c.played} ({c.played / elapsed:.2f}/s), {c.faults} faults")
    table.add_row("validated", str(c.validated))
    table.add_row("solved", str(c.solved))
    table.add_row("lost / released", f"{c.lost} / {c.released}")
    table.add_row("queue", queue)
    if c.outage:
        table.add_row("database", f"away, trying again ({c.outage})")
    table.add_row("last", c.last or "-")
    return table
