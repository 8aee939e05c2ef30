"""What the solver's review costs a match page, for every game the solver reviews.

    .venv/bin/python bench/bench_review.py [--runs 7] [--hands 100] [--seed 3]

It makes a site of its own in a temporary folder (SQLite, the local-memory cache) and, for
each game whose solver reviews matches (``games.reviews.reviewable``), plays a match of
``--hands`` hands between two of the game's built-in bots in this process, stores it as the
worker stores one, opens its page once (which queues the review solve) and lets
``manage.py worker --batch`` run that solve. Then it measures, over ``--runs`` runs each:

- **the solves**: the worker's time for the review's solves (once per setting, on a worker;
  a page never solves; Blackjack++ needs one per set of up cards its deals dealt, which the
  page queues as many at a time as the solve queue takes);
- **plain page**: the match page with the review turned off (``reviewable`` answers no),
  the reference the two others are set against, side by side in the same process;
- **review, cold**: the page with the review (seat 0) and an empty ``replays`` cache: each
  solve's values are computed from its stored strategy on the solver's tree, then kept;
- **review, warm**: the same page again, the values read from the cache;
- **values alone**: ``games.reviews.values_of`` of one solve (the tree and every action's
  value).

It prints min / median / max in milliseconds and each page's median against the plain
page's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.benchsite import setup_django  # noqa: E402


def store_match(game_name: str, hands: int, seed: int) -> int:
    """A match of two of the game's built-in bots, stored with its record; returns its id."""
    from bots.models import Match, MatchSeat
    from bots.running.playing import Entry, play
    from games.registry import get_game

    game = get_game(game_name)
    names = game.builtin_names
    pair = [names[0], game.strongest] if len(names) > 1 else [names[0], names[0]]
    entries = [Entry(name=name, builtin=name) for name in pair]
    config = dict(game.state_class.default_config())
    if "hands" in config:
        config["hands"] = hands
    played = play(game, entries, seed=seed, config=config)
    record = json.loads(json.dumps(played.outcome.record))  # as stored: JSON data
    match = Match.objects.create(game=game_name, seed=seed, record=record)
    scores = record["result"]["scores"]
    for seat, name in enumerate(pair):
        MatchSeat.objects.create(
            match=match, seat=seat, name=name, builtin=name, score=scores[seat]
        )
    return match.pk


def solve(client, page: str) -> float:
    """Open the page (it queues the solves its review needs) and run the worker, until the
    review has every solve; the worker's seconds."""
    from bots.worker import Options, Worker
    from games.models import SolveJob

    seconds = 0.0
    for _ in range(1000):
        if "data-review-pending" not in client.get(page).content.decode():
            return seconds
        start = time.perf_counter()
        Worker(Options(validate=False), name="bench").run(batch=True)
        seconds += time.perf_counter() - start
        failed = SolveJob.objects.filter(status=SolveJob.FAILED).first()
        if failed is not None:
            raise SystemExit(f"a review solve failed: {failed.error}")
    raise SystemExit("the review's solves did not finish")


def timed(run: Callable[[], None], runs: int, before: Callable[[], None] = lambda: None):
    out = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        run()
        out.append(1000 * (time.perf_counter() - start))
    return out


def row(label: str, values: list[float], reference: float | None = None) -> str:
    text = f"  {label:<16} {min(values):8.1f} {statistics.median(values):8.1f} {max(values):8.1f}"
    if reference:
        text += f"   {statistics.median(values) / reference:5.2f}x plain"
    return text


def bench_game(client, game_name: str, hands: int, seed: int, runs: int) -> None:
    from django.core.cache import caches

    from bots.models import Match
    from games import reviews, solves
    from games.models import SolveJob
    from games.registry import get_game

    match_id = store_match(game_name, hands, seed)
    match = Match.objects.get(pk=match_id)
    record = get_game(game_name).state_class.public_record(match.record)
    settings = reviews.review_settings(game_name, record)
    if isinstance(settings, str):
        raise SystemExit(f"{game_name}: the match cannot be reviewed: {settings}")
    page = f"/matches/{match_id}/?review=0"
    solve_s = solve(client, page)
    body = client.get(page).content.decode()
    if "data-total-lost" not in body:
        raise SystemExit(f"{game_name}: the page shows no finished review")
    review = reviews.match_review(game_name, record, 0)
    settings = review.solves[0].settings
    job = solves.find(settings.job_id)
    assert job is not None and job.status == SolveJob.DONE, job
    document = json.loads(job.result)

    def get(path: str) -> Callable[[], None]:
        def run() -> None:
            response = client.get(path)
            assert response.status_code == 200, response.status_code

        return run

    original = reviews.reviewable
    reviews.reviewable = lambda game: False
    try:
        plain = timed(get(f"/matches/{match_id}/"), runs)
    finally:
        reviews.reviewable = original
    cold = timed(get(page), runs, before=caches["replays"].clear)
    warm = timed(get(page), runs)
    values = timed(lambda: reviews.values_of(settings, document), runs)
    reference = statistics.median(plain)
    decisions = sum(1 for r in review.review.rows if r.reviewed)
    print(
        f"{game_name}: {hands} hands, seat 0 has {len(review.review.rows)} decisions "
        f"({decisions} with numbers)\n  {len(review.solves)} review solve(s), the first "
        f"{settings.describe()}: {solve_s:.2f} s on the worker in all"
    )
    print(f"  {'ms':<16} {'min':>8} {'median':>8} {'max':>8}")
    print(row("plain page", plain))
    print(row("review, cold", cold, reference))
    print(row("review, warm", warm, reference))
    print(row("values alone", values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-review-") as var:
        setup_django(Path(var))
        from django.test import Client

        from games import reviews
        from games.registry import games as all_games

        client = Client()
        games = [spec.slug for spec in all_games() if reviews.reviewable(spec.slug)]
        print(f"games the solver reviews: {', '.join(games)}; {args.runs} runs each\n")
        for game_name in games:
            bench_game(client, game_name, args.hands, args.seed, args.runs)
            print()


if __name__ == "__main__":
    main()
