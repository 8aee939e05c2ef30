"""Every page and API endpoint as the number of stored matches grows, this code beside
another checkout's (the code before) on the same database.

    eval "$(.venv/bin/python -m cardsite.localservices start --dir /tmp/svc --state /tmp/svc.json)"
    .venv/bin/python bench/bench_pages.py --sizes 1000 100000 1000000 --runs 7 --before ../main

It fills the database DATABASE_URL names (SQLite in a temporary folder without it) through
the models, in batches (``bulk_create``): 20 RPS Poker bots of four owners meeting in round
robins of 190 matches (one tournament each, every bot in a tenth of all matches), each match
with its two seats, both bots' rating updates, the results by opponent and the tournament's
totals (``bots.ladder.aggregates.add`` and ``add_tournament``, what storing a result calls), and
the bots' ratings and leaderboard rows; one more ranked bot that never played per 1,000
matches, so the leaderboard grows with the site (1,000 rows at 1M); one more version of the
first bot per 100 matches (10,000 at 1M; its first stays the active one); and, at every
size, one finished round robin of 100 bots of its own (4,950 matches). One match in 5,000
carries a real match
record (played by the built-in bots), the others a short one: the match pages measured are of
real ones. Filling goes on from what is there, so a second run with a larger size adds only
the difference; give it a database of its own (a ``CREATE DATABASE bench_pages`` on the
server localservices started, and that name in DATABASE_URL).

At each size it requests every page and endpoint through Django's test client, ``--runs``
times after one warm-up request, and prints the min and median server time (the whole
request in this process: middleware, views, queries, templates), of this process's CPU time
(steadier than the wall time on a machine others load) and of the time waiting on the
database, and the number of SQL queries; with ``--before DIR`` the same requests run in a
second process on the code of checkout DIR (its views and templates; the schema stays this
code's, which only adds to what that code reads), side by side with the ratio.
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
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = "rps-poker"
BOTS = 20
BATCH = 5_000
REAL_EVERY = 5_000
#: one more ranked bot (with no matches) per this many matches: a leaderboard that grows too
IDLE_EVERY = 1_000
#: one more version of the first bot per this many matches (its first stays the active one):
#: 10 at 1k, 10,000 at 1M, as years of uploads
VERSION_EVERY = 100
#: the bots of one large tournament (its own bots, a full round robin: 4,950 matches), the
#: same at every size: its page's cross table grows with it, not with the site
BIG = 100
BIG_ID = 100_000_000


def setup(code: Path) -> None:
    os.environ.setdefault("CARD_ARENA_VAR", tempfile.mkdtemp(prefix="bench-pages-"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "cardsite.settings"
    sys.path.insert(0, str(code))
    os.chdir(code)
    import django

    django.setup()
    from django.test.utils import setup_test_environment

    setup_test_environment()


def measure(urls: list[str], runs: int, allow_missing: bool = False) -> dict[str, dict[str, float]]:
    """For each URL: the query count, and over ``runs`` requests the min and median of the
    wall time, of this process's CPU time (what a loaded machine's other processes do not
    lengthen) and of the time spent waiting on the database's answers."""
    from django.db import connection
    from django.test import Client

    client = Client()
    out = {}
    for url in urls:
        queries: list[float] = []

        def timed(execute, sql, params, many, context, seen=queries):
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                seen.append(time.perf_counter() - started)

        with connection.execute_wrapper(timed):
            response = client.get(url)
            if response.status_code == 404 and allow_missing:
                out[url] = {"missing": True}
                continue
            assert response.status_code == 200, (url, response.status_code)
            count = len(queries)
            wall, cpu, sql = [], [], []
            for _ in range(runs):
                queries.clear()
                started, used = time.perf_counter(), time.process_time()
                client.get(url)
                wall.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - used) * 1000)
                sql.append(sum(queries) * 1000)
        out[url] = {"queries": count}
        for name, values in (("wall", wall), ("cpu", cpu), ("sql", sql)):
            out[url] |= {f"{name}_min": min(values), f"{name}_median": statistics.median(values)}
    return out


def real_record() -> dict:
    from bots.running.playing import Entry, play
    from games.engine import untrusted
    from games.registry import get_game

    spec = get_game(GAME)
    entries = [Entry(name=n, builtin=n) for n in spec.builtin_names[:2]]
    return untrusted.storable(play(spec, entries, seed=1).outcome.record)


def fill(upto: int) -> None:
    """Stored matches up to ``upto``, through the models."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from bots.ladder import aggregates
    from bots.ladder.ratings import conservative
    from bots.models import (
        Bot,
        BotVersion,
        LeaderboardRow,
        Match,
        MatchSeat,
        Rating,
        RatingHistory,
        Tournament,
    )

    owners = [get_user_model().objects.get_or_create(username=f"bench{k}")[0] for k in range(4)]
    versions = []
    for k in range(BOTS):
        bot, _ = Bot.objects.get_or_create(
            owner=owners[k % 4], game=GAME, name=f"b{k:02}", defaults={"language": "python"}
        )
        code = f"class Bot:\n    pass  # {k}\n"
        version, _ = BotVersion.objects.get_or_create(
            bot=bot, number=1,
            defaults={"code": code, "checksum": BotVersion.checksum_of(code),
                      "status": BotVersion.ACTIVE},
        )  # fmt: skip
        versions.append(version)
    pairs = list(combinations(range(BOTS), 2))
    have = Match.objects.exclude(worker="bench-big").count()
    places = [RatingHistory.objects.filter(bot_id=v.bot_id).count() for v in versions]
    record = real_record() if have < upto else {}
    short = {"result": {"scores": [0, 0]}}
    started, first = time.perf_counter(), have
    while have < upto:
        count = min(BATCH, upto - have)
        numbers = range(have, have + count)
        with transaction.atomic():
            wanted = sorted({n // len(pairs) for n in numbers})
            stored = Tournament.objects.filter(pk__in=[t + 1 for t in wanted])
            known = set(stored.values_list("pk", flat=True))
            Tournament.objects.bulk_create(
                Tournament(id=t + 1, game=GAME, name=f"bench round {t + 1}", format="ladder",
                           state=Tournament.DONE, finished=timezone.now(),
                           settings={"versions": [v.pk for v in versions]})
                for t in wanted if t + 1 not in known
            )  # fmt: skip
            matches = Match.objects.bulk_create(
                Match(tournament_id=n // len(pairs) + 1, game=GAME, seed=n, rated=True,
                      record=record if n % REAL_EVERY == 0 else short,
                      worker="bench-real" if n % REAL_EVERY == 0 else "bench")
                for n in numbers
            )  # fmt: skip
            seats, history = [], []
            for n, match in zip(numbers, matches, strict=True):
                a, b = pairs[n % len(pairs)]
                scores = [(n * 7) % 5, (n * 3) % 5]
                for seat, (k, score) in enumerate(zip((a, b), scores, strict=True)):
                    seats.append(MatchSeat(match=match, seat=seat, bot_id=versions[k].bot_id,
                                           version=versions[k], score=score))  # fmt: skip
                    mu = 25 + (n % 100) / 100
                    places[k] += 1
                    history.append(RatingHistory(bot_id=versions[k].bot_id, match=match, mu=mu,
                                                 sigma=2, mu_before=mu - 0.01, sigma_before=2,
                                                 number=places[k]))  # fmt: skip
            MatchSeat.objects.bulk_create(seats)
            RatingHistory.objects.bulk_create(history)
            totals: aggregates.Tally = {}
            kept: aggregates.TournamentTally = {}
            for n, match in zip(numbers, matches, strict=True):
                pair = seats[2 * (n - have) : 2 * (n - have) + 2]
                aggregates.tally([aggregates.Seat(s.bot_id, s.name, s.score) for s in pair],
                                 True, totals)  # fmt: skip
                aggregates.tournament_tally(
                    match.tournament_id, [(s.bot_id, s.score, False) for s in pair], False, kept
                )
            aggregates.add(totals)
            aggregates.add_tournament(kept)
        have += count
        if have % 100_000 == 0:
            rate = (have - first) / (time.perf_counter() - started)
            print(f"  filled {have} matches ({rate:.0f}/s in this run)", file=sys.stderr)
    idle(owners, upto // IDLE_EVERY)
    more_versions(versions[0].bot, upto // VERSION_EVERY)
    big_tournament(owners, record)
    for k, version in enumerate(versions):
        bot = version.bot
        updates = RatingHistory.objects.filter(bot=bot).count()
        mu, sigma = 25 + k / 10, 1.5
        Rating.objects.update_or_create(
            bot=bot, defaults={"game": GAME, "mu": mu, "sigma": sigma, "matches": updates}
        )
        LeaderboardRow.objects.update_or_create(
            bot=bot,
            defaults={"game": GAME, "rank": BOTS - k, "mu": mu, "sigma": sigma,
                      "conservative": conservative(mu, sigma), "matches": updates,
                      "last_played": timezone.now()},
        )  # fmt: skip


def idle(owners: list, count: int) -> None:
    """``count`` bots that never played, ranked below the ones that did: the leaderboard
    grows with the site (1 at 1k matches, 1,000 at 1M)."""
    from bots.models import Bot, LeaderboardRow

    have = Bot.objects.filter(game=GAME, name__startswith="idle").count()
    if have >= count:
        return
    made = Bot.objects.bulk_create(
        Bot(owner=owners[k % 4], game=GAME, name=f"idle{k:05}", language="python")
        for k in range(have, count)
    )
    LeaderboardRow.objects.bulk_create(
        LeaderboardRow(bot=bot, game=GAME, rank=BOTS + 1 + k, mu=20, sigma=8, conservative=-4)
        for k, bot in zip(range(have, count), made, strict=True)
    )


def more_versions(bot, count: int) -> None:
    """Retired versions of ``bot`` up to ``count`` in all (its first stays the active one,
    the oldest: the bot page lists it however many are newer)."""
    from bots.models import BotVersion

    have = BotVersion.objects.filter(bot=bot).count()
    BotVersion.objects.bulk_create(
        (BotVersion(bot=bot, number=n, code=f"# v{n}\n", checksum=f"{n:064}",
                    status=BotVersion.RETIRED) for n in range(have + 1, count + 1)),
        batch_size=BATCH,
    )  # fmt: skip


def big_tournament(owners: list, record: dict) -> None:
    """One finished round robin of BIG bots of its own (made once, at any size)."""
    from django.db import transaction
    from django.utils import timezone

    from bots.ladder import aggregates
    from bots.models import Bot, BotVersion, Match, MatchSeat, Tournament

    if Tournament.objects.filter(name="bench big").exists():
        return
    with transaction.atomic():
        bots = Bot.objects.bulk_create(
            Bot(owner=owners[k % 4], game=GAME, name=f"big{k:03}", language="python")
            for k in range(BIG)
        )
        versions = BotVersion.objects.bulk_create(
            BotVersion(bot=bot, number=1, code="# big\n", checksum="b" * 64,
                       status=BotVersion.ACTIVE) for bot in bots
        )  # fmt: skip
        # an id of its own, past the rounds' (they are made with their ids)
        tournament = Tournament.objects.create(
            id=BIG_ID, game=GAME, name="bench big", format="round-robin", state=Tournament.DONE,
            finished=timezone.now(), settings={"versions": [v.pk for v in versions]},
        )  # fmt: skip
        pairs = list(combinations(range(BIG), 2))
        matches = Match.objects.bulk_create(
            (Match(tournament=tournament, game=GAME, seed=n, rated=True, worker="bench-big",
                   record=record if n == 0 else {"result": {"scores": [0, 0]}})
             for n in range(len(pairs))),
            batch_size=BATCH,
        )  # fmt: skip
        seats = MatchSeat.objects.bulk_create(
            (MatchSeat(match=match, seat=seat, bot=bots[k], version=versions[k],
                       score=(n * (3 + 4 * seat)) % 5)
             for n, (match, pair) in enumerate(zip(matches, pairs, strict=True))
             for seat, k in enumerate(pair)),
            batch_size=BATCH,
        )  # fmt: skip
        kept: aggregates.TournamentTally = {}
        for n in range(len(pairs)):
            table = [(s.bot_id, s.score, False) for s in seats[2 * n : 2 * n + 2]]
            aggregates.tournament_tally(BIG_ID, table, False, kept)
        aggregates.add_tournament(kept)


def urls() -> list[str]:
    from bots.models import Bot, BotVersion, LeaderboardRow, Match, Tournament
    from games.registry import game_slugs

    bots = list(Bot.objects.filter(game=GAME, name__regex=r"^b[0-9]+$").order_by("pk"))
    real = Match.objects.filter(worker="bench-real").order_by("pk")
    first, last = real.first(), real.last()
    old = Match.objects.order_by("pk").values_list("pk", flat=True)[:1][0] + 100
    tournaments = Tournament.objects.filter(game=GAME).exclude(name="bench big").order_by("pk")
    big = Tournament.objects.get(name="bench big")
    other = next(slug for slug in game_slugs() if slug != GAME)  # a game with no tournaments
    newest = BotVersion.objects.filter(bot=bots[0]).order_by("-number").first()
    middle = BotVersion.objects.get(bot=bots[0], number=max(1, newest.number // 2))
    t_first, t_last = tournaments.first(), tournaments.last()
    deep = LeaderboardRow.objects.filter(game=GAME).order_by("-rank").first()
    deep_rank = max(1, deep.rank - 10) if deep else 1
    deep_row = LeaderboardRow.objects.get(game=GAME, rank=deep_rank)
    return [
        "/",
        "/leaderboards/",
        f"/games/{GAME}/",
        f"/games/{GAME}/leaderboard/",
        f"/bots/{bots[0].pk}/",
        f"/bots/{bots[-1].pk}/",
        "/tournaments/",
        f"/tournaments/{t_first.pk}/",
        f"/tournaments/{t_last.pk}/",
        f"/matches/{first.pk}/",
        f"/matches/{last.pk}/",
        f"/games/{GAME}/tables/",
        "/api/",
        "/api/games/",
        f"/api/games/{GAME}/leaderboard/",
        f"/api/bots/{bots[0].pk}/",
        f"/api/matches/{last.pk}/",
        "/api/tournaments/",
        f"/api/tournaments/{t_first.pk}/",
        f"/api/tournaments/{t_last.pk}/",
        # a page of older matches (this code's; the code before shows its latest there)
        f"/bots/{bots[0].pk}/?before={old}",
        f"/api/bots/{bots[0].pk}/?before={old}",
        # deep pages of the lists this code pages by position (the code before shows its
        # first page there, or all of it)
        f"/games/{GAME}/leaderboard/?after={deep_row.rank}_{deep_row.pk}",
        f"/tournaments/?after={t_first.pk + 1}",
        f"/api/tournaments/?after={t_first.pk + 1}",
        f"/tournaments/{t_first.pk}/?after={old}",
        # the tournaments of one game (an index of them by game), of a game that has none
        f"/tournaments/?game={GAME}",
        f"/tournaments/?game={other}",
        f"/api/tournaments/?game={other}",
        # a bot's versions (the newest on its page, all of them a page at a time) and a
        # tournament of BIG bots; the code before has no page of versions
        f"/bots/{bots[0].pk}/versions/",
        f"/bots/{bots[0].pk}/versions/?after={middle.number}_{middle.pk}",
        f"/api/bots/{bots[0].pk}/versions/",
        f"/tournaments/{big.pk}/",
        f"/api/tournaments/{big.pk}/",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path, help="a checkout whose code is measured too")
    parser.add_argument("--code", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # JSON list of URLs: measure only
    args = parser.parse_args()
    if args.measure:
        setup(args.code)
        print(json.dumps(measure(json.loads(args.measure), args.runs, allow_missing=True)))
        return
    setup(ROOT)
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", "--noinput", verbosity=0)
    print(f"database: {connection.vendor}; runs: {args.runs}; times in ms (server time)")
    for size in sorted(args.sizes):
        started = time.perf_counter()
        fill(size)
        print(f"\n{size} matches (filled in {time.perf_counter() - started:.0f} s)")
        listed = urls()
        now = measure(listed, args.runs)
        before = {}
        if args.before is not None:
            command = [sys.executable, str(Path(__file__).resolve()), "--code", str(args.before),
                       "--runs", str(args.runs), "--measure", json.dumps(listed)]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, env=os.environ)
            if done.returncode:
                sys.exit(f"the code before failed:\n{done.stderr}")
            before = json.loads(done.stdout.splitlines()[-1])
        print(f"{'':<40} {'this code':^29}" + (f" | {'the code before':^29}" if before else ""))
        cells = f"{'q':>3} {'wall':>12} {'cpu':>6} {'sql':>6}"
        print(f"{'page':<40} {cells}" + (f" | {cells} {'ratio':>6}" if before else ""))
        for url in listed:
            line = f"{url:<40} {row(now[url])}"
            if before.get(url, {}).get("missing"):
                line += f" | {'(no such page)':^29}"
            elif before:
                ratio = before[url]["wall_median"] / now[url]["wall_median"]
                line += f" | {row(before[url])} {ratio:>5.1f}x"
            print(line, flush=True)
        explain()
    print(
        "\nq: queries; wall: min/median ms; cpu: median ms of this process's CPU time; "
        "sql: median ms waiting on the database; ratio: median wall time, before / this"
    )


def explain() -> None:
    """How the database finds a page of one game's tournaments, with the index of them by
    game and, for comparison, without it (dropped in a transaction rolled back)."""
    from django.db import connection, transaction

    from bots.models import Tournament
    from games.registry import game_slugs

    game = next(slug for slug in game_slugs() if slug != GAME)
    query = Tournament.objects.filter(game=game).order_by("-pk")[:51]
    options = {"analyze": True} if connection.vendor == "postgresql" else {}

    def plan() -> str:
        lines = [line.strip() for line in query.explain(**options).splitlines()]
        timing = [line for line in lines if line.startswith("Execution Time")]
        return " / ".join(lines[:3] + timing)

    with transaction.atomic():
        print(f"plan of /tournaments/?game={game}: {plan()}")
        with connection.cursor() as cursor:
            cursor.execute("DROP INDEX tournament_game_newest")
        print(f"  without the index by game: {plan()}")
        transaction.set_rollback(True)


def row(m: dict[str, float]) -> str:
    wall = f"{m['wall_min']:.0f}/{m['wall_median']:.0f}"
    return f"{m['queries']:>3} {wall:>12} {m['cpu_median']:>6.1f} {m['sql_median']:>6.1f}"


if __name__ == "__main__":
    main()
