"""Run by tests/people/test_concurrent.py in a process of its own against a PostgreSQL site:
one person's two rated tables end at the same moment, in two threads (two connections).
Each thread stores its match and reaches the rating lock together with the other (a barrier
in front of it); prints what was stored, as JSON."""

from __future__ import annotations

import json
import os
import sys
import threading

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402

from bots.ladder import people  # noqa: E402
from bots.running.playing import Entry, play  # noqa: E402
from games.live import tables  # noqa: E402
from games.live.host import Finish  # noqa: E402
from games.models import PersonRating, PersonRatingHistory  # noqa: E402
from games.registry import get_game  # noqa: E402

GAME = "rps-poker"


def main() -> None:
    ann = User.objects.create_user("ann", password="pw-ann-long-enough")
    finishes = []
    for seed in (1, 2):
        table = tables.create_table(GAME, tables.Person(ann), ["me", "builtin:strong"])
        _, facts = tables.claim_and_plan(tables.load(pk=table.pk), "host")
        entries = [Entry(name="a", builtin="simple"), Entry(name="b", builtin="strong")]
        finishes.append((facts, Finish(play(get_game(GAME), entries, seed=seed))))
    barrier = threading.Barrier(2, timeout=30)
    locking = people.lock_people

    def lock_together(game: str):
        barrier.wait()  # both matches are stored (uncommitted): now both want the lock
        return locking(game)

    people.lock_people = lock_together
    errors: list[str] = []

    def finish(facts, done) -> None:
        try:
            tables.store_finish(facts, done)
        except Exception as exc:  # noqa: BLE001 (any of them is reported to the test)
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=pair) for pair in finishes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rating = PersonRating.objects.get(user=ann, game=GAME)
    history = PersonRatingHistory.objects.filter(rating=rating).order_by("number")
    print(json.dumps({
        "vendor": connection.vendor,
        "errors": errors,
        "matches": rating.matches,
        "mu": rating.mu,
        "history": [[h.number, h.mu_before, h.sigma_before, h.mu, h.sigma] for h in history],
    }))  # fmt: skip


main()
