"""A bot's public page with a long rating history: the page as it is, and side by side the
page as it was (every rating update of the bot loaded to draw the chart and the table).

    .venv/bin/python bench/bench_bot_page.py [--updates 1000 10000 100000] [--runs 7]

It makes a database of its own in a temporary folder (SQLite; DATABASE_URL=postgres://...
uses PostgreSQL instead), enters one bot with an active version and, for each size, that
many rating updates (``RatingHistory`` rows, as the worker's rating writes them), then
requests ``/bots/<id>/`` through Django's test client, ``--runs`` times for each way in
turn, and prints the min and median server time and the number of rating rows loaded.
The other parts of the page (results by opponent, recent matches) are the same in both
ways and have no matches here.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="bench-bot-page-")
    os.environ.update(CARD_ARENA_VAR=var, DJANGO_SETTINGS_MODULE="cardsite.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from bots.models import Bot, BotVersion, RatingHistory
    from bots.pages import views

    setup_test_environment()
    call_command("migrate", "--noinput", verbosity=0)
    owner = get_user_model().objects.create_user("bench", password="x" * 12)
    bot = Bot.objects.create(owner=owner, game="rps-poker", name="long", language="python")
    code = "class Bot:\n    pass\n"
    BotVersion.objects.create(bot=bot, number=1, code=code, checksum=BotVersion.checksum_of(code),
                              status=BotVersion.ACTIVE)  # fmt: skip
    now = views.page_history

    def as_it_was(b: Bot) -> list:
        return list(
            RatingHistory.objects.filter(bot=b)
            .only("mu", "sigma", "mu_before", "sigma_before", "match_id", "created")
            .order_by("id")
        )

    client = Client()
    made = 0
    print(f"{'updates':>8}  {'way':<10} {'min ms':>8} {'median ms':>10} {'rows loaded':>12}")
    for size in sorted(args.updates):
        RatingHistory.objects.bulk_create(
            (
                RatingHistory(bot=bot, mu=25 + n * 1e-4, sigma=8 - n * 1e-5,
                              mu_before=25 + (n - 1) * 1e-4, sigma_before=8 - (n - 1) * 1e-5,
                              number=n)
                for n in range(made + 1, size + 1)
            ),
            batch_size=5_000,
        )  # fmt: skip
        made = size
        for way, loader in (("before", as_it_was), ("now", now)):
            loaded = []

            def counted(b: Bot, load=loader, seen=loaded) -> object:
                history = load(b)
                seen.append(len(history) if isinstance(history, list) else len(history.rows))
                return history

            views.page_history = counted
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                response = client.get(f"/bots/{bot.pk}/")
                times.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.status_code
            views.page_history = now
            print(f"{size:>8}  {way:<10} {min(times):>8.1f} {statistics.median(times):>10.1f} "
                  f"{loaded[-1]:>12}")  # fmt: skip


if __name__ == "__main__":
    main()
