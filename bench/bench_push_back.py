"""What moving a slow bot back in the queue costs a worker, with a large tournament queued:
``competition.push_back`` after each match of a bot a little slower than the rest, on
PostgreSQL, this checkout against another side by side.

    .venv/bin/python bench/bench_push_back.py [--rounds R] [--pushes P] [--runs K]
        [--reference REV]

Each measure starts a throwaway PostgreSQL of its own (cardsite.localservices), migrates it
with the checkout's code, makes four active RPS Poker bots and queues a round robin of
``R`` rounds (12 jobs a round: with the default 1,700 rounds, 20,400 queued jobs, 10,200 of
them the slow bot's). Then, ``P`` times, it stores nothing but pushes the slow bot back as
a worker does after its match: the match (played once, in-process, by built-in bots) is
charged one turn more to the slow bot than to its opponent (``competition.TURN_S``), and
``push_back`` is timed. It prints the milliseconds per push (min, median, mean: a push that
rewrites the jobs and one that does not) and the job rows rewritten per push.

``--reference REV`` (by default bc940ab, the code before the turns were owed; ``''`` for
none) is exported with ``git archive`` into a temporary folder and measured the same way,
in turn with this checkout, ``K`` runs each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent


def child(rounds: int, pushes: int) -> None:
    """One measure, in the checkout this process runs from (its cwd): prints one JSON line."""
    sys.path.insert(0, os.getcwd())
    from cardsite.localservices import postgres_server

    with tempfile.TemporaryDirectory(prefix="bench-push-") as tmp, postgres_server(tmp) as pg:
        os.environ["DATABASE_URL"] = pg.url
        os.environ["CARD_ARENA_VAR"] = str(Path(tmp) / "var")
        os.environ["DJANGO_SETTINGS_MODULE"] = "cardsite.settings"
        import django

        django.setup()
        from types import SimpleNamespace

        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.db import transaction

        from bots import competition
        from bots.models import Bot, BotVersion, MatchJob
        from games.registry import get_game

        try:
            from bots.competition.uploads import activate
            from bots.running.playing import Entry, play
        except ImportError:  # the reference's layout, before bots/ had its rooms
            from bots.playing import Entry, play  # type: ignore[no-redef]
            from bots.uploads import activate  # type: ignore[no-redef]

        call_command("migrate", verbosity=0)
        versions = []
        for n, name in enumerate(["simple", "strong", "minimal", "simple"]):
            owner = User.objects.create_user(f"owner{n}")
            bot = Bot.objects.create(owner=owner, game="rps-poker", name=name, language="python")
            code = f"# bench bot {n}\n"
            version = BotVersion.objects.create(
                bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code)
            )
            with transaction.atomic():
                activate(version)
            versions.append(version)
        tournament = competition.start_round_robin("rps-poker", rounds, worker_s=0)
        slow = versions[0]
        job = next(j for j in tournament.jobs.all() if slow.pk in j.seats)
        entries = [Entry(name="a", builtin="simple"), Entry(name="b", builtin="strong")]
        played = play(get_game("rps-poker"), entries, seed=job.seed)
        seat = job.seats.index(slow.pk)
        for n, stats in enumerate(played.outcome.stats):
            stats.startup_s = stats.faulted_s = 0.0
            stats.think_s = 0.01 + (competition.TURN_S if n == seat else 0.0)
        played.duration_s = sum(s.own_s for s in played.outcome.stats)
        held = SimpleNamespace(job=job)
        took, moved = [], 0
        for _ in range(pushes):
            started = time.perf_counter()
            moved += competition.push_back([(held, played)])
            took.append(1000 * (time.perf_counter() - started))
        queued = tournament.jobs.filter(status=MatchJob.QUEUED).count()
        mine = sum(slow.pk in seats for seats in tournament.jobs.values_list("seats", flat=True))
        print(json.dumps({"ms": took, "moved": moved, "queued": queued, "mine": mine}))


def measure(checkout: Path, rounds: int, pushes: int) -> dict:
    done = subprocess.run(
        [sys.executable, str(HERE), "--child", "--rounds", str(rounds), "--pushes", str(pushes)],
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"a measure failed in {checkout}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def describe(values: list[float]) -> str:
    return f"min {min(values):7.2f}  median {statistics.median(values):7.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1700)
    parser.add_argument("--pushes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reference", default="bc940ab", help="a git revision ('' for none)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.rounds, args.pushes)
        return
    print("command: .venv/bin/python bench/bench_push_back.py " + " ".join(sys.argv[1:]))
    print(f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-push-ref-") as tmp:
        checkouts = {"this checkout": ROOT}
        if args.reference:
            from bench_worker import export  # (the one export of a revision)

            checkouts[f"reference {args.reference}"] = export(args.reference, Path(tmp))
        means: dict[str, list[float]] = {name: [] for name in checkouts}
        medians: dict[str, list[float]] = {name: [] for name in checkouts}
        for run in range(1, args.runs + 1):
            for name, checkout in checkouts.items():
                got = measure(checkout, args.rounds, args.pushes)
                means[name].append(statistics.mean(got["ms"]))
                medians[name].append(statistics.median(got["ms"]))
                print(
                    f"run {run}, {name}: {got['queued']} jobs queued ({got['mine']} the slow "
                    f"bot's); a push {statistics.mean(got['ms']):.2f} ms mean, "
                    f"{statistics.median(got['ms']):.2f} ms median; "
                    f"{got['moved'] / args.pushes:.0f} job rows rewritten a push"
                )
        print(f"\nms a push, over {args.runs} runs ({args.pushes} pushes each):")
        for name in checkouts:
            print(f"  {name:28} mean: {describe(means[name])}   median: {describe(medians[name])}")
        if args.reference:
            this, ref = list(checkouts)
            ratios = [r / t for t, r in zip(means[this], means[ref], strict=True)]
            print(f"  reference / this checkout (mean ms a push): {describe(ratios)}")


if __name__ == "__main__":
    main()
