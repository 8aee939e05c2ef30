"""The worker's progress display on a terminal (rich)."""

from __future__ import annotations

import time

from django.db.models import Count
from rich.table import Table

from bots.models import MatchJob


def worker_panel(worker) -> Table:
    counts = {status: 0 for status, _ in MatchJob.STATUSES}
    for row in MatchJob.objects.values("status").annotate(n=Count("id")).order_by():
        counts[row["status"]] = row["n"]
    c = worker.counters
    elapsed = max(time.monotonic() - c.started, 1e-9)
    table = Table(title=f"worker {worker.name}", show_header=False, expand=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("now", c.current or ("stopping" if worker.stopping else "waiting for work"))
    table.add_row("played", f"{c.played} ({c.played / elapsed:.2f}/s), {c.faults} faults")
    table.add_row("validated", str(c.validated))
    table.add_row("lost / released", f"{c.lost} / {c.released}")
    table.add_row("queue", "  ".join(f"{k} {v}" for k, v in counts.items()))
    table.add_row("last", c.last or "-")
    return table
