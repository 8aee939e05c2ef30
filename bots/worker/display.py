"""The worker's progress display on a terminal (rich)."""

from __future__ import annotations

from django.db.models import Count
from rich.table import Table

from bots.models import MatchJob


def queue_line() -> str:
    counts = {status: 0 for status, _ in MatchJob.STATUSES}
    for row in MatchJob.objects.values("status").annotate(n=Count("id")).order_by():
        counts[row["status"]] = row["n"]
    return "  ".join(f"{k} {v}" for k, v in counts.items())


def played_line(counters) -> str:
    """Matches played, with the rate of the current stretch of work (or of the last one, while
    the worker waits): a rate over the worker's whole life would sink while it is idle."""
    rate = counters.rate()
    if rate is None:
        return f"{counters.played}, {counters.faults} faults"
    per_s, seconds = rate
    return (
        f"{counters.played}, {counters.faults} faults ({per_s:.2f}/s over its last "
        f"{seconds:.1f} s of work)"
    )


def worker_panel(worker, *, stopped: bool = False) -> Table:
    """The panel; ``stopped``: its last frame, once the worker has stopped."""
    from bots.competition.status import idle_reasons
    from bots.worker import OUTAGE, drop_connection

    try:
        queue = queue_line()
    except OUTAGE:  # the worker says so itself, and tries again
        drop_connection()
        queue = "unknown: the database is away"
    c = worker.counters
    table = Table(title=f"worker {worker.name}", show_header=False, expand=False)
    table.add_column(style="bold")
    table.add_column()
    if stopped:
        now = "stopped"
    else:
        now = c.current or ("stopping" if worker.stopping else "waiting for work")
    table.add_row("now", now)
    if not stopped and not c.current and not worker.stopping and not c.outage:
        try:
            table.add_row("why", "; ".join(idle_reasons(worker.options.ladder_interval_s)))
        except OUTAGE:
            drop_connection()
    table.add_row("played", played_line(c))
    table.add_row("validated", str(c.validated))
    table.add_row("solved", str(c.solved))
    table.add_row("lost / released", f"{c.lost} / {c.released}")
    table.add_row("queue", queue)
    if c.outage:
        table.add_row("database", f"away, trying again ({c.outage})")
    table.add_row("last", c.last or "-")
    return table
