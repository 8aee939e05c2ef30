"""``manage.py worker``: claim match jobs from the database and play them (docs/competition.md)."""

from __future__ import annotations

import argparse
import logging
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.competition.status import idle_reasons
from bots.running import cpus
from bots.sandbox import SandboxUnavailable, self_test
from bots.worker import (
    DatabaseUnreachable,
    Options,
    Worker,
    check_database,
    database_label,
    no_live_updates,
)
from games.management.database import behind


class Command(BaseCommand):
    help = (
        "Validate uploaded bot versions and play queued match jobs and playground runs in the "
        "sandbox; run the strategy explorer's solves."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="do one step, then exit")
        parser.add_argument(
            "--batch", action="store_true", help="work until nothing is left, then exit"
        )
        parser.add_argument(
            "--concurrency",
            type=int,
            default=1,
            metavar="N",
            help="worker processes (1), each with its bots on a share of the CPUs (see --no-pin)",
        )
        parser.add_argument(
            "--cpus",
            type=cpu_option,
            default=None,
            metavar="LIST",
            help="run this worker and every bot it starts on these CPUs only (e.g. 2 or 0-3,6)",
        )
        parser.add_argument(
            "--no-pin",
            action="store_true",
            help="with --concurrency: let every worker process and its bots run on any CPU",
        )
        parser.add_argument(
            "--lease",
            type=float,
            default=settings.WORKER_LEASE_S,
            metavar="SECONDS",
            help="how long a claimed job is ours without a heartbeat (default "
            f"{settings.WORKER_LEASE_S:g})",
        )
        parser.add_argument(
            "--max-attempts",
            type=int,
            default=settings.WORKER_MAX_ATTEMPTS,
            metavar="N",
            help="errors of the platform's own on one job or validation before it fails "
            f"(default {settings.WORKER_MAX_ATTEMPTS})",
        )
        parser.add_argument(
            "--max-claims",
            type=int,
            default=settings.WORKER_MAX_CLAIMS,
            metavar="N",
            help="workers that took one job and stopped before its result, before it fails "
            f"(default {settings.WORKER_MAX_CLAIMS})",
        )
        parser.add_argument(
            "--poll",
            type=float,
            default=1.0,
            metavar="SECONDS",
            help="how long to wait before looking again when there is nothing to do (default 1)",
        )
        parser.add_argument(
            "--ladder-interval",
            type=float,
            default=settings.LADDER_INTERVAL_S,
            metavar="SECONDS",
            help="start a regular round this often when idle (0: never; default "
            f"{settings.LADDER_INTERVAL_S:g})",
        )
        parser.add_argument("--no-validate", action="store_true", help="do not validate uploads")
        parser.add_argument(
            "--no-solve",
            action="store_true",
            help="do not run the strategy explorer's solves (matches and validations only)",
        )
        parser.add_argument(
            "--no-playground",
            action="store_true",
            help="do not play the playground's runs (docs/playground.md)",
        )
        parser.add_argument(
            "--keep-processes",
            type=int,
            default=settings.WORKER_PROCESS_CACHE,
            metavar="N",
            help="bot processes kept alive between matches (0: a fresh sandbox per match; "
            f"default {settings.WORKER_PROCESS_CACHE})",
        )
        parser.add_argument(
            "--claim",
            type=int,
            default=settings.WORKER_CLAIM,
            metavar="N",
            help="match jobs claimed at once, played in turn and stored together "
            f"(fewer at the end of a queue; default {settings.WORKER_CLAIM})",
        )
        parser.add_argument(
            "--display",
            choices=["auto", "rich", "log"],
            default="auto",
            help="progress display on a terminal, log lines otherwise (auto)",
        )
        parser.add_argument("--name", default=None, help="worker name in the database")

    def handle(self, *args, **opts) -> None:
        # Uploaded bots only ever run sandboxed: a machine where the sandbox cannot start
        # is said so once, here, rather than as a start-up fault of every bot.
        try:
            self_test()
        except SandboxUnavailable as exc:
            raise CommandError(f"{exc} (see docs/sandbox.md)") from None
        if opts["concurrency"] > 1:
            if opts["cpus"] is not None:
                raise CommandError(
                    "--cpus places one worker; --concurrency N shares the CPUs out among its "
                    "N processes by itself (--no-pin: not at all)"
                )
            self._fan_out(opts)
            return
        try:
            with cpus.pinned(opts["cpus"]):
                self._work(opts)
        except cpus.CpuError as exc:
            raise CommandError(f"--cpus: {exc}") from None

    def _work(self, opts: dict) -> None:
        """One worker, in this process, until it stops."""
        # A database it cannot reach (a wrong DATABASE_URL, a server down) is said so at
        # once, in one line: the worker stops (a service manager starts it again). Once it
        # has started, it waits out an outage instead (docs/competition.md). (Each process
        # of a --concurrency fan-out looks for itself.)
        try:
            check_database(settings.DB_POOL_TIMEOUT)
        except DatabaseUnreachable as exc:
            raise CommandError(
                f"cannot reach the database {database_label()} (DATABASE_URL): {exc}"
            ) from None
        # a database older than the code would fail every step; said once, not retried
        if (said := behind()) is not None:
            raise CommandError(said)
        worker = Worker(
            Options.from_settings(
                lease_s=opts["lease"],
                max_attempts=opts["max_attempts"],
                max_claims=opts["max_claims"],
                poll_s=opts["poll"],
                ladder_interval_s=opts["ladder_interval"],
                validate=not opts["no_validate"],
                solve=not opts["no_solve"],
                playground=not opts["no_playground"],
                process_cache=opts["keep_processes"],
                claim=opts["claim"],
            ),
            name=opts["name"],
        )
        signal.signal(signal.SIGTERM, worker.on_sigterm)
        signal.signal(signal.SIGINT, worker.on_sigterm)
        display = opts["display"]
        if display == "auto":
            display = "rich" if sys.stdout.isatty() else "log"
        logging.getLogger("bots").setLevel(logging.INFO)
        logging.getLogger("bots.worker").info(
            "event=worker.start name=%s lease=%g claim=%d db=%s",
            worker.name,
            worker.options.lease_s,
            worker.options.claim,
            database_label(),
        )
        if (note := no_live_updates()) is not None:
            logging.getLogger("bots.worker").warning(
                "event=worker.no_redis worker=%s %s", worker.name, note
            )
        # On a terminal the panel tells what the INFO lines would; warnings still show.
        logging.getLogger("bots").setLevel(logging.INFO if display == "log" else logging.WARNING)
        if opts["cpus"] is not None:
            logging.getLogger("bots.worker").info(
                "event=worker.placed worker=%s cpus=%s",
                worker.name,
                cpus.label(opts["cpus"]),
            )
        idle = IdleNote(self.stderr.write, worker.options.ladder_interval_s)
        if display == "rich":
            worked = self._run_live(worker, opts)
        else:
            on_idle = None
            if not (opts["once"] or opts["batch"]):
                on_idle = idle.idle
                original = worker.step

                def step() -> bool:
                    found = original()
                    if found:
                        idle.busy()
                    return found

                worker.step = step  # type: ignore[method-assign]
            worked = worker.run(once=opts["once"], batch=opts["batch"], on_idle=on_idle)
        if (opts["once"] or opts["batch"]) and not worked and not worker.stopping:
            idle.idle()

    def _run_live(self, worker: Worker, opts: dict) -> int:
        from rich.live import Live

        from bots.worker.display import worker_panel

        with Live(worker_panel(worker), refresh_per_second=4, transient=False) as live:

            def refresh() -> None:
                live.update(worker_panel(worker))

            original = worker.step

            def step() -> bool:
                found = original()
                refresh()
                return found

            worker.step = step  # type: ignore[method-assign]
            worked = worker.run(once=opts["once"], batch=opts["batch"], on_idle=refresh)
            live.update(worker_panel(worker, stopped=True))  # its last frame
            return worked

    def _fan_out(self, opts: dict) -> None:
        """N worker processes, each an independent single worker on a share of the CPUs
        (unless --no-pin: see spread_cpus); SIGTERM reaches each."""
        argv = [sys.executable, sys.argv[0], "worker", "--concurrency", "1", "--display", "log"]
        for flag in ("once", "batch", "no_validate", "no_solve", "no_playground"):
            if opts[flag]:
                argv.append("--" + flag.replace("_", "-"))
        argv += ["--lease", str(opts["lease"]), "--max-attempts", str(opts["max_attempts"])]
        argv += ["--max-claims", str(opts["max_claims"])]
        argv += ["--poll", str(opts["poll"]), "--ladder-interval", str(opts["ladder_interval"])]
        argv += ["--keep-processes", str(opts["keep_processes"]), "--claim", str(opts["claim"])]
        placed = spread_cpus(opts["concurrency"], pin=not opts["no_pin"])
        children = [subprocess.Popen(argv + where) for where in placed]

        def forward(signum: int, _frame: object) -> None:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGTERM, forward)
        signal.signal(signal.SIGINT, forward)
        while any(child.poll() is None for child in children):
            time.sleep(0.2)
        failed = [c.returncode for c in children if c.returncode]
        if failed:
            raise SystemExit(f"worker processes exited with {failed}")


def cpu_option(text: str) -> list[int]:
    """``--cpus``: see bots.running.cpus.cpu_list."""
    try:
        return cpus.cpu_list(text)
    except cpus.CpuError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def spread_cpus(count: int, *, pin: bool = True) -> list[list[str]]:
    """The ``--cpus`` option of each of ``count`` worker processes (bots.running.cpus.shares): none
    without ``pin`` or with a single CPU."""
    placed = cpus.shares(count) if pin else None
    if placed is None:
        return [[] for _ in range(count)]
    return [["--cpus", cpus.label(share)] for share in placed]


class IdleNote:
    """Says when and why the worker has nothing to do (bots.competition.status): when a
    --batch or --once run ends without work, and once each time a long-running worker runs
    out of work (its idle steps in between say nothing more)."""

    def __init__(self, write, ladder_interval_s: float | None = None) -> None:
        self.write = write
        self.ladder_interval_s = ladder_interval_s
        self.said = False

    def idle(self) -> None:
        if self.said:
            return
        self.said = True
        reasons = "; ".join(idle_reasons(self.ladder_interval_s))
        self.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} nothing to do: {reasons}")

    def busy(self) -> None:
        self.said = False
