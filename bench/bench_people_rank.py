"""Ranking a game's people after a rated match on PostgreSQL: placing the person who moved
(``bots.ladder.people.place``) against the full recount it replaced
(``bots.ladder.people.rerank``), side by side on the same database.

    .venv/bin/python bench/bench_people_rank.py [--people 100000] [--runs 9] [--move 0.5]

Starts a throwaway PostgreSQL (cardsite.localservices), migrates a database of its own and
fills one game with ``--people`` rated people (ratings spread as a normal around the
default). Each run takes a random person, moves their conservative rating by up to
``--move`` either way (a rated match moves it about that much) and ranks them once each
way, in turn, each in a transaction of its own, as a rated table's finish does. It prints
min / median / max milliseconds each way, how many ranks a person passed, the ratio of the
medians, and checks at the end that the ranks are those of a full recount.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardsite.localservices import postgres_server  # noqa: E402

GAME = "kuhn"


def fill(people: int, rng: random.Random) -> None:
    from django.contrib.auth import get_user_model

    from bots.ladder.people import rerank
    from games.models import PersonRating

    users = get_user_model().objects.bulk_create(
        [get_user_model()(username=f"p{n}") for n in range(people)], batch_size=5000
    )
    rows = []
    for user in users:
        mu, sigma = rng.gauss(25.0, 3.0), rng.uniform(2.0, 8.0)
        rows.append(
            PersonRating(
                user=user, game=GAME, mu=mu, sigma=sigma, conservative=mu - 3 * sigma,
                matches=rng.randint(1, 100),
            )
        )  # fmt: skip
    PersonRating.objects.bulk_create(rows, batch_size=5000)
    rerank(GAME)


def one_move(rng: random.Random, move: float, full: bool) -> tuple[float, int]:
    """Move a random person and rank them; milliseconds, and the ranks passed."""
    from django.db import transaction

    from bots.ladder.people import place, rerank
    from games.models import PersonRating

    pk = rng.randint(1, PersonRating.objects.order_by("-pk").values_list("pk", flat=True)[0])
    rating = PersonRating.objects.filter(pk__gte=pk).order_by("pk").first()
    assert rating is not None
    old = rating.rank
    rating.conservative += rng.uniform(-move, move)
    with transaction.atomic():
        rating.save(update_fields=["conservative"])
        start = time.perf_counter()
        if full:
            rerank(GAME)
        else:
            place(rating, old)
        ms = 1000 * (time.perf_counter() - start)
    return ms, abs(PersonRating.objects.get(pk=rating.pk).rank - old)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--move", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("command: .venv/bin/python bench/bench_people_rank.py " + " ".join(sys.argv[1:]))
    with tempfile.TemporaryDirectory(prefix="bench-people-") as tmp, postgres_server(tmp) as pg:
        os.environ["DATABASE_URL"] = pg.url
        os.environ.setdefault("CARD_ARENA_VAR", str(Path(tmp) / "var"))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
        import django

        django.setup()
        from django.core.management import call_command

        from bots.ladder.people import rerank

        call_command("migrate", verbosity=0)
        rng = random.Random(args.seed)
        fill(args.people, rng)
        print(f"PostgreSQL; {args.people:,} rated people of one game; {args.runs} runs")
        placed, full, passed = [], [], []
        for _ in range(args.runs):
            ms, moved = one_move(rng, args.move, full=False)
            placed.append(ms)
            passed.append(moved)
            full.append(one_move(rng, args.move, full=True)[0])
        for label, values in (("place (now)", placed), ("full recount (before)", full)):
            print(
                f"  {label:<22} min {min(values):8.1f}  median {statistics.median(values):8.1f}"
                f"  max {max(values):8.1f} ms"
            )
        print(f"  ranks passed by a placed person: median {statistics.median(passed):.0f}")
        ratio = statistics.median(placed) / statistics.median(full)
        print(f"  place / full recount, medians: {ratio:.3f}")
        assert rerank(GAME) == 0, "the placed ranks differ from a full recount"
        print("  the ranks equal a full recount's")


if __name__ == "__main__":
    main()
