"""Inserting a batch of match records on PostgreSQL: VALUES (``bots.models.RecordField``)
against UNNEST (what Django does for a plain JSONField), side by side.

    .venv/bin/python bench/bench_record_insert.py [--matches 32] [--runs 7] [--repeat 15]

Starts a throwaway PostgreSQL (cardsite.localservices), migrates a database of its own,
plays ``--matches`` RPS Poker matches between built-in bots in-process for real records, and
then, in each run, inserts those records as ``Match`` rows with one ``bulk_create`` in a
transaction that is rolled back, ``--repeat`` times each way, in turn: through the
``RecordField`` (one parameter per record, quoted by libpq) and through Django's UNNEST path
(an array of JSON texts that psycopg quotes in Python), the field's placeholder taken away
for the time of the reference. It prints every run (median milliseconds per batch each way)
and then min / median / max over the runs, and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardsite.localservices import postgres_server  # noqa: E402


class Rollback(Exception):
    pass


def insert_ms(rows: list[dict], repeat: int) -> float:
    """Median milliseconds of one bulk_create of ``rows`` as matches (rolled back)."""
    from django.db import transaction

    from bots.models import Match

    took = []
    for _ in range(repeat):
        try:
            with transaction.atomic():
                started = time.perf_counter()
                Match.objects.bulk_create(Match(**row) for row in rows)
                took.append(1000 * (time.perf_counter() - started))
                raise Rollback
        except Rollback:
            pass
    return statistics.median(took)


def records(count: int) -> list[dict]:
    from bots.running.playing import Entry, play
    from games.engine import untrusted
    from games.registry import get_game

    game = get_game("rps-poker")
    entries = [Entry(name="a", builtin="strong"), Entry(name="b", builtin="simple")]
    rows = []
    for n in range(count):
        played = play(game, entries, seed=1000 + n)
        rows.append(
            {
                "game": game.slug,
                "seed": 1000 + n,
                "record": untrusted.storable(played.outcome.record),
                "duration_s": played.duration_s,
                "worker": "bench",
            }
        )
    return rows


def describe(values: list[float]) -> str:
    return (
        f"min {min(values):8.2f}  median {statistics.median(values):8.2f}  max {max(values):8.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=32, help="records in a batch")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=15, help="inserts each way in a run")
    args = parser.parse_args()
    print("command: .venv/bin/python bench/bench_record_insert.py " + " ".join(sys.argv[1:]))
    with tempfile.TemporaryDirectory(prefix="bench-records-") as tmp, postgres_server(tmp) as pg:
        os.environ["DATABASE_URL"] = pg.url
        os.environ.setdefault("CARD_ARENA_VAR", str(Path(tmp) / "var"))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
        import django

        django.setup()
        from django.core.management import call_command

        from bots.models import RecordField

        call_command("migrate", verbosity=0)
        rows = records(args.matches)
        size = statistics.mean(len(str(row["record"])) for row in rows)
        print(f"PostgreSQL; {args.matches} RPS Poker records a batch (about {size:.0f} chars each)")
        placeholder = RecordField.get_placeholder
        values_ms, unnest_ms = [], []
        for run in range(1, args.runs + 1):
            values_ms.append(insert_ms(rows, args.repeat))
            del RecordField.get_placeholder  # Django's own path for a JSONField: UNNEST
            try:
                unnest_ms.append(insert_ms(rows, args.repeat))
            finally:
                RecordField.get_placeholder = placeholder
            print(
                f"run {run}: VALUES {values_ms[-1]:6.2f} ms, UNNEST {unnest_ms[-1]:6.2f} ms a batch"
            )
        print(f"\nover {args.runs} runs, ms a batch of {args.matches}:")
        print(f"  VALUES (RecordField): {describe(values_ms)}")
        print(f"  UNNEST (JSONField):   {describe(unnest_ms)}")
        ratios = [v / u for v, u in zip(values_ms, unnest_ms, strict=True)]
        print(f"  VALUES / UNNEST:      {describe(ratios)}")


if __name__ == "__main__":
    main()
