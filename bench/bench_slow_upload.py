"""One slow upload among fresh ones: how long until the good ones are placed, with one worker.

    .venv/bin/python bench/bench_slow_upload.py [--runs N] [--reference REV] [--delay SEC]

The scenario of a site where a bot that runs over the per-call time on every move is uploaded
just before three good ones: starts a throwaway PostgreSQL (cardsite.localservices), and for
each run, on a fresh database, enters the three built-in RPS Poker bots as house bots (validated
and placed at once), stores four uploads for a worker to validate (first a bot that sleeps
``--delay`` seconds in every ``main_play``, over the game's 1 s per call, then copies of the
three built-ins under other owners) and runs one ``manage.py worker --batch`` (validation on,
bot processes kept between matches as by default). From the database it measures, from the
worker's launch: when the last of the three good uploads was validated, when the last of
their placement matches finished ("good placed"), when the slow one got its verdict, and the
worker's whole run.

Each run is made three times, side by side: with the code of ``--reference`` (a git
revision, by default the one before the fair order; its files are exported with ``git
archive`` to a temporary folder and run with the same Python), with this checkout, and with
this checkout and no slow upload at all (the floor: what the good uploads cost on their own),
in turn so that the machine's load falls on all alike. It prints every run, then min and
median per variant, and the ratios of this checkout's figures to the reference's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardsite.localservices import postgres_server  # noqa: E402

#: the last commit before validation and placement took a fair order
REFERENCE = "22f3b61"
BUILTINS = ("minimal", "simple", "strong")

SLOW_BOT = """
import time


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        time.sleep({delay})
        return 0

    def main_postprocess(self, card):
        pass
"""


@dataclass
class Variant:
    name: str
    root: Path
    #: the slow bot is uploaded first (else only the good ones are)
    slow: bool = True
    good_validated: list[float] = field(default_factory=list)
    good_placed: list[float] = field(default_factory=list)
    slow_verdict: list[float] = field(default_factory=list)
    worker: list[float] = field(default_factory=list)


def manage(root: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=root, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def one_run(variant: Variant, url: str, var: Path, files: Path, delay: float) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DATABASE_URL=url, CARD_ARENA_VAR=str(var))
    root = variant.root
    manage(root, env, "migrate", "-v", "0")
    for name in BUILTINS:  # the house bots, validated and placed at once
        manage(root, env, "upload_bot", str(files / f"{name}.py"), "--user", "house",
               "--create-user")  # fmt: skip
    manage(root, env, "worker", "--batch", "--display", "log", "--ladder-interval", "0")
    uploads = [(f"my{name}", f"owner-{name}") for name in BUILTINS]
    if variant.slow:
        uploads.insert(0, ("sluggish", "slowpoke"))
    for bot, owner in uploads:
        # (named on the command line: a copy of a built-in declares the built-in's name)
        manage(root, env, "upload_bot", str(files / f"{bot}.py"), "--user", owner,
               "--create-user", "--defer", "--name", bot)  # fmt: skip
    launched = time.time()
    manage(root, env, "worker", "--batch", "--display", "log", "--ladder-interval", "0")
    ended = time.time()
    with psycopg.connect(url) as conn:
        placed = conn.execute(
            "SELECT extract(epoch FROM max(j.finished)), count(*), "
            "count(*) FILTER (WHERE j.status = 'done') FROM bots_matchjob j "
            "JOIN bots_tournament t ON t.id = j.tournament_id "
            "JOIN bots_botversion v ON v.id = (t.settings->>'version')::int "
            "JOIN bots_bot b ON b.id = v.bot_id "
            "WHERE t.format = 'placement' AND b.name LIKE 'my%%'"
        ).fetchone()
        verdict, status, reason = conn.execute(
            "SELECT extract(epoch FROM v.validated), v.status, v.reason FROM bots_botversion v "
            "JOIN bots_bot b ON b.id = v.bot_id WHERE b.name = 'sluggish'"
        ).fetchone() or (None, "rejected", "")
        active, validated = conn.execute(
            "SELECT count(*), extract(epoch FROM max(v.validated)) FROM bots_botversion v "
            "JOIN bots_bot b ON b.id = v.bot_id WHERE b.name LIKE 'my%%' AND v.status = 'active'"
        ).fetchone()
    last, jobs, done = placed
    if active != 3 or jobs != done or status != "rejected":
        raise SystemExit(
            f"{variant.name}: {active} good uploads active, {done}/{jobs} placement jobs done, "
            f"the slow one {status}"
        )
    variant.good_validated.append(float(validated) - launched)
    variant.good_placed.append(float(last) - launched)
    if verdict is not None:
        variant.slow_verdict.append(float(verdict) - launched)
    variant.worker.append(ended - launched)
    return f"{jobs} placement jobs" + (f"; slow one rejected: {reason[:110]}" if reason else "")


def describe(values: list[float]) -> str:
    return f"min {min(values):6.2f} s   median {statistics.median(values):6.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reference", default=REFERENCE, help="git revision to compare with")
    parser.add_argument(
        "--delay", type=float, default=2.0, help="seconds the slow bot takes for every move"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-slow-upload-") as tmp:
        os.chmod(tmp, 0o711)
        base = Path(tmp)
        files = base / "files"
        files.mkdir()
        (files / "sluggish.py").write_text(SLOW_BOT.format(delay=args.delay))
        for name in BUILTINS:
            code = (ROOT / "games" / "rps_poker" / "bots" / f"{name}.py").read_text()
            (files / f"{name}.py").write_text(code)
            (files / f"my{name}.py").write_text(f"{code}\n# an upload of its own\n")
        from bench_worker import export  # (the one export of a revision)

        reference = Variant(f"reference {args.reference}", export(args.reference, base / "ref"))
        current = Variant("this checkout", ROOT)
        floor = Variant("no slow upload", ROOT, slow=False)
        variants = (reference, current, floor)
        with postgres_server(base) as pg:
            print(
                f"PostgreSQL; one worker; 3 house bots, then 4 uploads: a bot taking "
                f"{args.delay:g} s per move (1 s per call, 10 s bank), then 3 good ones; "
                f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}"
            )
            for run in range(args.runs):
                for n, variant in enumerate(variants):
                    name = f"r{run}_{('ref', 'new', 'floor')[n]}"
                    with psycopg.connect(pg.url, autocommit=True) as conn:
                        conn.execute(f"CREATE DATABASE {name}")
                    url = pg.url.rsplit("/", 1)[0] + f"/{name}"
                    var = base / name
                    var.mkdir()
                    note = one_run(variant, url, var, files, args.delay)
                    verdict = (
                        f"slow verdict {variant.slow_verdict[-1]:6.2f} s" if variant.slow else ""
                    )
                    print(
                        f"run {run + 1} {variant.name:>20}: good validated "
                        f"{variant.good_validated[-1]:6.2f} s, placed "
                        f"{variant.good_placed[-1]:6.2f} s, worker {variant.worker[-1]:6.2f} s"
                        f", {verdict:20}  ({note})",
                        flush=True,
                    )
        print()
        for label, attr in (
            ("good uploads validated", "good_validated"),
            ("good uploads placed", "good_placed"),
            ("slow upload's verdict", "slow_verdict"),
            ("worker run", "worker"),
        ):
            ref, new = getattr(reference, attr), getattr(current, attr)
            print(f"{label}:")
            for variant in variants:
                if getattr(variant, attr):
                    print(f"  {variant.name:>20}: {describe(getattr(variant, attr))}")
            print(
                f"  {'this / reference':>20}: min x{min(new) / min(ref):.2f}   "
                f"median x{statistics.median(new) / statistics.median(ref):.2f}"
            )


if __name__ == "__main__":
    main()
