"""The bot playground on a worker: how soon a run's results come, and what runs cost a
tournament.

    .venv/bin/python bench/bench_playground.py [--runs N] [--seconds S] [--poll SECONDS]

Starts a throwaway PostgreSQL (cardsite.localservices) in a temporary folder, makes a database
of its own, migrates it and uploads the three built-in RPS Poker bots as ordinary versions
(``manage.py upload_bot FILE --user NAME --create-user``, validated in the sandbox). The
person trying a bot is a created user too; their code is the built-in ``simple`` bot's source,
queued with ``bots.playground.submit`` as the playground's form queues it. Every playground run
here is of 10 matches against two opponents: ``builtin:simple`` and the uploaded copy of
``strong`` (played in the sandbox, as the person's bot is). Every match is played by a
``manage.py worker`` subprocess (``--ladder-interval 0 --no-validate``), started for each
measure and stopped after it.

Each run measures, in turn, so that the machine's load falls on all alike:

- A, idle: a worker with nothing to do (``--poll``, the worker's own default 1.0, passed
  through; the worker looks for work that often when idle, so the poll interval bounds the
  wait for the first result); once it has played a first run, the seconds from submitting a
  run to its first match stored, to its 10th (the run done), and the first match's own play
  (its ``duration_s``: the bots' start in the sandbox included). Run k of N submits at
  (k - 0.5) / N of a poll interval past one of the worker's looks, so that the runs spread
  over the interval rather than all wait alike;
- A, busy: the same while a round robin of the three uploaded bots keeps the worker busy;
- B: a round robin of the three uploaded bots for ``--seconds`` alone, then ``--seconds`` with
  two runs always waiting (a new one submitted as soon as fewer than two are queued):
  tournament matches per minute and playground runs finished per minute, and the ratio of
  the tournament's pace with runs to its pace alone. A window starts once the worker has
  stored its first match, so its own start-up is left out; its worker runs with ``--poll 0.2``
  whatever ``--poll`` says (an idle moment is rare there).

The person's limits are raised for the bench (``PLAYGROUND_RUNS_PER_HOUR``,
``PLAYGROUND_MAX_OPEN``, and no ``PLAYGROUND_SECONDS_PER_HOUR``: settings read from the
environment, set in the environment of this process, which queues the runs, and of its
workers); nothing outside the temporary folder is
touched. The bench prints the command, every run, then min, median and max per figure, and the
machine's load average at the start and the end (the machine may be shared). Workers and
PostgreSQL are stopped at the end, on an error or Ctrl-C too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardsite.localservices import postgres_server  # noqa: E402

GAME = "rps-poker"
BOTS = ("minimal", "simple", "strong")
#: the uploaded opponent (by its owner's name) and the person's own code (a built-in's source)
RIVAL = "strong"
MINE = "simple"
MATCHES = 10
PERSON = "bench-person"
#: the person's limits, raised so that the bench is never refused
LIMITS = {
    "PLAYGROUND_RUNS_PER_HOUR": "1000000",
    "PLAYGROUND_MAX_OPEN": "100",
    "PLAYGROUND_SECONDS_PER_HOUR": "0",
}
#: how often the bench looks at the database while it waits (seconds)
TICK = 0.01
#: how long a worker may take to store its first match or result before the bench gives up
PATIENCE = 120.0


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def environment(url: str, var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DATABASE_URL=url, CARD_ARENA_VAR=str(var), PLACEMENT_DEALS="0", **LIMITS)
    return env


def prepare(admin_url: str, base: Path) -> dict[str, str]:
    """A database of the bench's own, migrated, with the three bots uploaded; the
    environment of every process that uses it."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE bench_playground")
    env = environment(admin_url.rsplit("/", 1)[0] + "/bench_playground", base / "var")
    manage(env, "migrate", "-v", "0")
    files = base / "files"
    files.mkdir()
    for name in BOTS:
        path = files / f"{name}.py"
        path.write_text((ROOT / "games" / "rps_poker" / "bots" / f"{name}.py").read_text())
        manage(env, "upload_bot", str(path), "--user", name, "--create-user", "--game", GAME)
    return env


@contextlib.contextmanager
def django_on(env: dict[str, str]) -> Iterator[None]:
    """Django in this process, on the bench's database, with the raised limits; its
    connections closed on the way out, before PostgreSQL stops."""
    os.environ.pop("REDIS_URL", None)
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    os.environ["LOG_LEVEL"] = "WARNING"  # this process's own log: not a line per run queued
    import django

    django.setup()
    from django.db import connections

    try:
        yield
    finally:
        connections.close_all()


class Worker:
    """A ``manage.py worker`` subprocess in a session of its own (so that Ctrl-C reaches the
    bench alone, which stops it): SIGTERM lets it finish the match at hand, a second one
    makes it give its work back; the group is killed if it still lingers."""

    def __init__(self, env: dict[str, str], log: Path, poll: float) -> None:
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "manage.py", "worker", "--display", "log",
                 "--ladder-interval", "0", "--no-validate", "--poll", str(poll)],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip

    def check(self) -> None:
        if self.proc.poll() is not None:
            tail = self.log.read_text(errors="replace")[-3000:]
            raise SystemExit(f"the worker exited ({self.proc.returncode}):\n{tail}")

    def stop(self) -> None:
        try:
            for _ in range(2):
                if self.proc.poll() is not None:
                    break
                self.proc.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=20)
        finally:  # even if Ctrl-C cuts the wait short: the worker and its children, if any
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@contextlib.contextmanager
def worker(env: dict[str, str], base: Path, poll: float) -> Iterator[Worker]:
    running = Worker(env, base / "worker.log", poll)
    try:
        yield running
    finally:
        running.stop()


def wait_for(what: str, ready: Callable[[], Any], running: Worker) -> Any:
    """``ready()``'s first true answer, asked every TICK while the worker lives."""
    deadline = time.monotonic() + PATIENCE
    while not (got := ready()):
        running.check()
        if time.monotonic() > deadline:
            raise SystemExit(f"no {what} after {PATIENCE:.0f} s (see the worker's log)")
        time.sleep(TICK)
    return got


class Playground:
    """Runs queued as the playground's form queues them, and the database's counts."""

    def __init__(self) -> None:
        from django.contrib.auth import get_user_model

        from bots.models import Bot

        self.person = get_user_model().objects.create_user(PERSON)
        rival = Bot.objects.get(owner__username=RIVAL, game=GAME)
        self.opponents = ["builtin:simple", f"bot:{rival.pk}"]
        self.code = (ROOT / "games" / "rps_poker" / "bots" / f"{MINE}.py").read_bytes()
        self.seed = 0

    def submit(self) -> Any:
        from bots import playground

        self.seed += 1
        return playground.submit(
            user=self.person, guest="", game=GAME, language="python", code=self.code,
            opponents=self.opponents, seed=self.seed, matches=MATCHES,
        )  # fmt: skip

    def queued(self) -> int:
        from bots.models import PlaygroundRun

        return PlaygroundRun.objects.filter(status=PlaygroundRun.QUEUED).count()

    def ended(self) -> int:
        from bots.models import PlaygroundRun

        return PlaygroundRun.objects.filter(
            status__in=(PlaygroundRun.DONE, PlaygroundRun.FAILED)
        ).count()

    def matches(self) -> int:
        from bots.models import Match

        return Match.objects.count()

    def tournament(self, seconds: float) -> None:
        """A round robin of the three uploaded bots long enough to outlast ``seconds`` of
        play (6 matches a round; a worker played 2,400 and more a minute on 2 December, with
        its processes kept between matches: 30 rounds a second of the window leave room)."""
        from bots import competition

        competition.start_round_robin(GAME, int(30 * seconds) + 100)  # fresh deals each time

    def clear(self) -> int:
        """Ends what is left queued or running (the worker is stopped): tournament matches
        and playground runs, so that the next measure starts from an empty queue. The
        number of tournament matches that were left."""
        from bots.models import MatchJob, PlaygroundRun

        PlaygroundRun.objects.filter(status__in=PlaygroundRun.OPEN).update(
            status=PlaygroundRun.FAILED, reason="ended by the bench"
        )
        return MatchJob.objects.filter(status__in=("queued", "running")).update(status="failed")

    def timed_run(self, running: Worker) -> dict[str, float]:
        """Seconds from submit to the first match stored and to the run done, and the
        first match's own play."""
        from bots.models import PlaygroundMatch, PlaygroundRun

        started = time.monotonic()
        run = self.submit()
        wait_for("first match", lambda: PlaygroundMatch.objects.filter(run=run).exists(), running)
        first_s = time.monotonic() - started
        wait_for(
            "run's end",
            lambda: PlaygroundRun.objects.filter(
                pk=run.pk, status__in=(PlaygroundRun.DONE, PlaygroundRun.FAILED)
            ).exists(),
            running,
        )
        done_s = time.monotonic() - started
        run.refresh_from_db()
        if run.status != PlaygroundRun.DONE or run.played != MATCHES:
            raise SystemExit(f"run {run.pk}: {run.status}, {run.played} played: {run.reason}")
        own = PlaygroundMatch.objects.filter(run=run).order_by("number").first()
        return {
            "first match stored": first_s,
            "run done": done_s,
            "first match's play": own.duration_s if own else 0.0,
        }


def figure_a(
    pg: Playground, env: dict[str, str], base: Path, poll: float, busy: bool, phase: float
) -> dict[str, float]:
    """One timed run on a worker kept busy by a round robin, or idle: after a first run
    (so that it is warm and back to polling), submitted ``phase`` (0 to 1) of a poll
    interval past one of its looks, so that the runs of the bench spread over the interval."""
    if busy:
        pg.tournament(60)
    with worker(env, base, poll) as running:
        if busy:
            before = pg.matches()
            wait_for("tournament match", lambda: pg.matches() > before, running)
        else:
            pg.timed_run(running)
            time.sleep(poll * (1 + phase))
        got = pg.timed_run(running)
    left = pg.clear()
    if busy and not left:
        raise SystemExit("the round robin ran dry before the run was done: make it longer")
    return got


def figure_b(
    pg: Playground, env: dict[str, str], base: Path, seconds: float, with_runs: bool
) -> tuple[float, float]:
    """(tournament matches a minute, playground runs finished a minute) over ``seconds``
    from the worker's first match stored, with two runs always waiting or none."""
    pg.tournament(seconds)
    with worker(env, base, 0.2) as running:
        before = pg.matches()
        wait_for("tournament match", lambda: pg.matches() > before, running)
        started = time.monotonic()
        matches, ended = pg.matches(), pg.ended()
        while time.monotonic() - started < seconds:
            running.check()
            if with_runs:
                for _ in range(2 - pg.queued()):
                    pg.submit()
            time.sleep(5 * TICK)
        minutes = (time.monotonic() - started) / 60
        matches, ended = pg.matches() - matches, pg.ended() - ended
    if not pg.clear():
        raise SystemExit("the round robin ran dry before the window's end: make it longer")
    return matches / minutes, ended / minutes


def describe(values: list[float], unit: str, digits: int) -> str:
    return (
        f"min {min(values):7.{digits}f}{unit}  median {statistics.median(values):7.{digits}f}"
        f"{unit}  max {max(values):7.{digits}f}{unit}"
    )


def one_run(
    pg: Playground, env: dict[str, str], base: Path, args: argparse.Namespace, phase: float
) -> dict[str, float]:
    figures: dict[str, float] = {}
    for busy in (False, True):
        where = "busy" if busy else "idle"
        for name, value in figure_a(pg, env, base, args.poll, busy, phase).items():
            figures[f"A {where}: {name} (s)"] = value
    alone, _ = figure_b(pg, env, base, args.seconds, with_runs=False)
    mixed, runs = figure_b(pg, env, base, args.seconds, with_runs=True)
    figures["B alone: tournament matches/min"] = alone
    figures["B with runs: tournament matches/min"] = mixed
    figures["B with runs: playground runs/min"] = runs
    figures["B tournament with runs / alone"] = mixed / alone
    return figures


def measure(env: dict[str, str], base: Path, args: argparse.Namespace) -> dict[str, list[float]]:
    """Every run's figures, each run printed as it ends."""
    pg = Playground()
    print(
        f"PostgreSQL; RPS Poker; runs of {MATCHES} matches against "
        f"{' and '.join(pg.opponents)} (the uploaded copy of {RIVAL}), the person's bot a "
        f"copy of {MINE}, all sandboxed; round robin of the 3 uploaded bots; figure A's worker "
        f"--poll {args.poll} (an idle worker looks for work that often: it bounds the wait for "
        f"the first result); figure B {args.seconds:g} s each, worker --poll 0.2; "
        f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results: dict[str, list[float]] = defaultdict(list)
    for run in range(args.runs):
        figures = one_run(pg, env, base, args, (run + 0.5) / args.runs)
        for name, value in figures.items():
            results[name].append(value)
        print(
            f"run {run + 1}: "
            + "; ".join(f"{name} {value:.2f}" for name, value in figures.items())
            + f"; load average {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60.0, help="each window of figure B (60)")
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        help="the worker's --poll in figure A (its own default, 1.0): it bounds the wait of a "
        "run submitted to an idle worker",
    )
    args = parser.parse_args()
    # stopped: leave through the context managers (the workers, PostgreSQL, the folder)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))
    print("command: .venv/bin/python bench/bench_playground.py " + " ".join(sys.argv[1:]))
    with tempfile.TemporaryDirectory(prefix="bench-playground-") as tmp:
        os.chmod(tmp, 0o711)
        base = Path(tmp)
        with postgres_server(base) as server:
            env = prepare(server.url, base)
            with django_on(env):
                results = measure(env, base, args)
    print(f"\nover {args.runs} runs (load average now {os.getloadavg()[0]:.2f}):")
    for name, values in results.items():
        unit, digits = (" s", 3) if name.endswith(" (s)") else ("", 2)
        print(f"  {name.removesuffix(' (s)'):>40}: {describe(values, unit, digits)}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted (the workers and PostgreSQL are stopped)")
