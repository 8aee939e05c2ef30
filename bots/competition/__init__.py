"""Scheduling match jobs, claiming them, and storing their results exactly once.

A job names the bot version in each seat and a seed: it can be played again from those alone.
Workers (``bots.worker``) claim jobs here, play them outside any transaction and hand
the result to :func:`store_result`, which marks the job done and writes the match in one short
transaction, only if the worker still holds the job, then applies ratings in another. A worker
claims several jobs at once (:func:`claim_many`) and stores their results together
(:func:`store_results`)."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import logging
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Exists, F, Q
from django.utils import timezone

from bots.clock import shared_now
from bots.competition import counts, faults, leases
from bots.competition.leaving import maybe_finish as _maybe_finish
from bots.competition.leaving import seating_any
from bots.ladder import aggregates
from bots.ladder.ratings import lock_ledger, rate_pending
from bots.models import (
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    QueueDebt,
    Tournament,
    TournamentResult,
)
from bots.running.playing import BrokenAgent, Entry, Played, ProcessCache, play
from bots.sandbox import resident
from games.engine import untrusted
from games.engine.options import check_options
from games.engine.runner import TimeControl
from games.engine.tournament import derive_seed
from games.registry import get_game

log = logging.getLogger("bots.competition")

PLACEMENT_PRIORITY = 10


# ---- seatings that cut luck -----------------------------------------------------------------
def swapped_seats(entrants: Sequence[int]) -> list[list[int]]:
    """Two-player games: the same deal twice, seats swapped."""
    a, b = entrants
    return [[a, b], [b, a]]


def rotated_seats(entrants: Sequence[int]) -> list[list[int]]:
    """More players: the same deal once per rotation of the seats."""
    n = len(entrants)
    return [[*entrants[k:], *entrants[:k]] for k in range(n)]


def seatings(entrants: Sequence[int]) -> list[list[int]]:
    """How one table of a schedule becomes matches on one deal: two players play it twice
    with the seats swapped, more players once in every rotation of the seats, one player
    (UTH) once."""
    entrants = list(entrants)
    return swapped_seats(entrants) if len(entrants) == 2 else rotated_seats(entrants)


def seatings_apart(
    tables: Sequence[tuple[int, Sequence[int], int]],
) -> Iterator[tuple[int, list[int], int]]:
    """The matches of ``tables`` ((round or deal, entrants, seed) each) in the order they are
    queued: every table's first seating, then every table's second, and so on. So no deal's
    two seatings are played one after the other where there is another table, and a bot's
    process that played a seating can end its last call when it likes but can no longer
    say by that when the other seating of the same deal begins, to a process that reads the
    clock: the next match it starts is another table's (and a worker's two kept processes of
    a bot play its first and its second seatings: neither starts afresh)."""
    seated = [(key, seatings(entrants), seed) for key, entrants, seed in tables]
    for turn in range(max((len(each) for _, each, _ in seated), default=0)):
        for key, each, seed in seated:
            if turn < len(each):
                yield key, each[turn], seed


# ---- scheduling -----------------------------------------------------------------------------
def active_versions(game: str) -> list[BotVersion]:
    """The game's active versions, by bot, without their code (up to BOT_MAX_CODE_BYTES each:
    scheduling needs their ids; a match reads the code of its own seats)."""
    return list(
        BotVersion.objects.filter(bot__game=game, status=BotVersion.ACTIVE)
        .select_related("bot", "bot__owner")
        .defer("code")
        .order_by("bot_id")
    )


def _new_seed() -> int:
    return secrets.randbits(62)


def _time_control_settings(move: float | None, bank: float | None) -> dict[str, float]:
    return {k: v for k, v in (("move", move), ("bank", bank)) if v is not None}


def worker_bound(seconds: float | None = None) -> float:
    """The worker time each bot may use in a tournament scheduled now (0: no bound)."""
    if seconds is None:
        seconds = getattr(settings, "WORKER_SECONDS_PER_BOT_PER_TOURNAMENT", 0)
    if seconds < 0:
        raise ValueError("the worker time a bot may use is a number of seconds, 0 or more")
    return float(seconds)


@transaction.atomic
def start_round_robin(
    game: str,
    rounds: int,
    *,
    seed: int | None = None,
    versions: list[BotVersion] | None = None,
    name: str = "",
    fmt: str = Tournament.ROUND_ROBIN,
    move: float | None = None,
    bank: float | None = None,
    tables: list[list[int]] | None = None,
    worker_s: float | None = None,
    options: dict[str, Any] | None = None,
) -> Tournament:
    """A round robin of every active version of the game (or ``versions``): the game's
    tournament format decides the tables, each table is played on one deal in every
    seating of :func:`seatings`. Its deals are fresh (:func:`fresh_deals`): a ``seed`` whose
    deals any match job of the game has dealt before is refused. ``worker_s``: the worker
    time each bot may use in it (by default WORKER_SECONDS_PER_BOT_PER_TOURNAMENT, see
    :func:`play_job`). ``options``: the game's options for its every match
    (games.engine.options; an OptionError names one refused)."""
    spec = get_game(game)
    if spec.tournament is None:
        raise ValueError(f"{game} has no tournament format")
    options = check_options(spec, options or {})
    lock_ledger(game)
    versions = versions if versions is not None else active_versions(game)
    if len(versions) < 2:
        raise ValueError(f"{game}: a round robin needs at least 2 active bots")

    def schedule(base: int) -> list[tuple[int, list[int], int]]:
        if tables is None:
            return [
                (t.round, [versions[i].pk for i in t.seats], t.seed)
                for t in spec.tournament().schedule(len(versions), rounds, base)
            ]
        # explicit tables (ids), each played once a round
        return [
            (r, table, derive_seed(base, r, n))
            for r in range(rounds)
            for n, table in enumerate(tables)
        ]

    seed, scheduled = fresh_deals(game, schedule, seed)
    tournament = Tournament.objects.create(
        game=game,
        format=fmt,
        name=name,
        settings={
            "rounds": rounds,
            "seed": seed,
            "versions": [v.pk for v in versions],
            "time_control": _time_control_settings(move, bank),
            "worker_s": worker_bound(worker_s),
        }
        | ({"options": options} if options else {}),
    )
    # By round, each table's first seating, then each table's second...: jobs claimed one
    # after the other then seat different bots where the schedule can, and a worker's two
    # kept processes of a bot play its first and its second seatings: neither is dealt a
    # deal twice, so neither starts afresh (bots.running.playing.ProcessCache)
    rounds: dict[int, list[tuple[int, list[int], int]]] = {}
    for table in scheduled:
        rounds.setdefault(table[0], []).append(table)

    def jobs() -> Iterator[MatchJob]:
        for round_no, tables in rounds.items():
            for _, seats, table_seed in seatings_apart(tables):
                yield MatchJob(
                    tournament=tournament, game=game, round=round_no, seats=seats, seed=table_seed
                )

    count = insert_jobs(jobs())
    log.info("event=tournament.start tournament=%s game=%s jobs=%d", tournament.pk, game, count)
    return tournament


#: match jobs inserted by one statement: a round of every active bot is N(N-1) jobs and
#: more (250,000 with 500 bots), built and inserted a batch at a time, never all in memory
#: or in one statement
JOB_BATCH = 2000


def insert_jobs(jobs: Iterable[MatchJob]) -> int:
    """Insert ``jobs`` in their order, :data:`JOB_BATCH` at a time, taking them from the
    iterable only as each batch is inserted; how many there were."""
    jobs = iter(jobs)
    count = 0
    while batch := list(itertools.islice(jobs, JOB_BATCH)):
        MatchJob.objects.bulk_create(batch)
        count += len(batch)
    return count


# ---- fresh deals ----------------------------------------------------------------------------
#: seeds looked up in one statement (SQLite takes a limited number of parameters)
SEEDS_PER_LOOKUP = 500
#: base seeds drawn before giving up on finding fresh deals (one draw always does: 62
#: random bits)
FRESH_DRAWS = 8

Scheduled = TypeVar("Scheduled", bound=Sequence[Any])


def dealt_before(game: str, seeds: Iterable[int]) -> set[int]:
    """Which of these seeds a match job of the game has already dealt (in any tournament,
    placement or round: every match a bot played, and whose record its owner can read, was
    one). Read through the index on game and seed, a few hundred seeds a statement."""
    wanted = sorted(set(seeds))
    found: set[int] = set()
    for start in range(0, len(wanted), SEEDS_PER_LOOKUP):
        chunk = wanted[start : start + SEEDS_PER_LOOKUP]
        jobs = MatchJob.objects.filter(game=game, seed__in=chunk)
        found.update(jobs.values_list("seed", flat=True).distinct())
    return found


def fresh_deals(
    game: str, schedule: Callable[[int], Scheduled], seed: int | None = None
) -> tuple[int, Scheduled]:
    """A tournament's base seed and its schedule (``schedule(base)``: its tables, each
    with the seed of its deal as its last item), such that no deal of it was dealt before
    in the game (:func:`dealt_before`): a rated match never deals cards that a bot, or its
    owner through the records of its matches, has been shown. The luck-cutting reuse of a
    deal stays inside the new tournament (its seatings, a round's bots on one deal), whose
    versions are fixed when it is scheduled.

    Without ``seed`` a base seed is drawn (62 random bits: a deal already dealt is all but
    impossible, and is drawn again); a ``seed`` given (``start_tournament --seed``) whose
    deals were dealt before is refused with a ValueError."""
    for _ in range(FRESH_DRAWS if seed is None else 1):
        base = _new_seed() if seed is None else seed
        scheduled = schedule(base)
        again = dealt_before(game, [table[-1] for table in scheduled])
        if not again:
            return base, scheduled
        log.warning("event=deals.not_fresh game=%s seed_given=%s dealt=%d", game, seed is not None,
                    len(again))  # fmt: skip
    if seed is not None:
        raise ValueError(
            f"{game}: seed {seed} deals {len(again)} deal(s) already dealt in this game; a "
            "rated tournament draws fresh deals (leave the seed out)"
        )
    raise RuntimeError(f"{game}: no fresh deals in {FRESH_DRAWS} draws")


def placement_tables(game: str, version: BotVersion, others: list[BotVersion]) -> list[list[int]]:
    """The tables that place a new version: it meets every other active bot at least once.

    Two-player games: one table per opponent. Bigger tables (Last Card: four) seat the new
    version with the others in groups as large as the game allows. Bots that play alone
    against the dealer (UTH) sit alone, the new version first, then every other one: they
    play the same fresh deals in the placement, so the new version is compared with them on
    the very same cards (its references, see :func:`schedule_placement`).
    """
    if get_game(game).plays_alone:
        return [[version.pk], *([other.pk] for other in others)]
    per_table = get_game(game).state_class.max_seats - 1
    ids = [other.pk for other in others]
    if per_table == 1 or len(ids) <= per_table:
        groups = [[i] for i in ids] if per_table == 1 else [ids]
    else:
        # consecutive groups around the circle of opponents, so each one is met
        count = -(-len(ids) // per_table)
        groups = [[ids[(g * per_table + k) % len(ids)] for k in range(per_table)]
                  for g in range(count)]  # fmt: skip
    return [[version.pk, *group] for group in groups]


def fitted(text: str, most: int) -> str:
    """``text`` cut to ``most`` characters, its end an ellipsis where it was cut (a long
    username and a long bot name make a placement's name longer than its column)."""
    return text if len(text) <= most else text[: most - 1] + "\u2026"


def schedule_placement(version: BotVersion) -> Tournament | None:
    """Placement matches of a newly active version against every other active bot of its
    game, ahead of the regular queue. Runs inside the caller's transaction.

    Every deal is fresh (:func:`fresh_deals`): none was dealt before in the game, so
    nothing a bot or its owner saw of earlier matches (a bot's log, a replay, a page) holds
    its cards. In a game played alone against the dealer (UTH) the other active bots play
    each deal too, in this tournament, right after the new version: the deal is rated once
    all of them have played it, the new version against them on the same cards
    (:func:`bots.ladder.ratings.rate_deal`)."""
    game = version.bot.game
    lock_ledger(game)
    others = [v for v in active_versions(game) if v.bot_id != version.bot_id]
    deals = int(getattr(settings, "PLACEMENT_DEALS", 2))
    if not others or deals <= 0:
        return None
    alone = get_game(game).plays_alone
    tables = placement_tables(game, version, others)

    def schedule(base: int) -> list[tuple[int, list[int], int]]:
        if alone:  # one deal for every bot: the new version's and its references' sessions
            return [
                (deal, table, derive_seed(base, "placement", deal))
                for deal in range(deals)
                for table in tables
            ]
        return [
            (deal, table, derive_seed(base, *table, deal))
            for table in tables
            for deal in range(deals)
        ]

    base, scheduled = fresh_deals(game, schedule)
    tournament = Tournament.objects.create(
        game=game,
        format=Tournament.PLACEMENT,
        name=fitted(
            f"placement of {version.bot} v{version.number}",
            Tournament._meta.get_field("name").max_length,
        ),
        settings={
            "seed": base,
            "deals": deals,
            "version": version.pk,
            "worker_s": worker_bound(),
        },
    )
    jobs = []
    for deal, seats, seed in seatings_apart(scheduled):
        jobs.append(
            MatchJob(
                tournament=tournament,
                game=game,
                round=deal,
                seats=seats,
                seed=seed,
                priority=PLACEMENT_PRIORITY,
                # placements queued together take turns (see CLAIM_ORDER)
                turn=len(jobs),
            )
        )
    MatchJob.objects.bulk_create(jobs, batch_size=JOB_BATCH)
    log.info("event=placement version=%s jobs=%d references=%d", version.pk, len(jobs),
             len(others) if alone else 0)  # fmt: skip
    return tournament


#: matches after which a bot's provisional rank no longer calls for rounds at once (two bots
#: that play alike never separate: their ranks stay provisional, at the ladder's pace)
SETTLE_MATCHES = 50


def unsettled(game: str) -> bool:
    """Whether the game's ranking still has provisional ranks that more matches may settle."""
    rows = LeaderboardRow.objects.filter(game=game, rank__gt=0, provisional=True)
    return rows.filter(matches__lt=SETTLE_MATCHES).exists()


def maybe_ladder_round(game: str, interval_s: float) -> Tournament | None:
    """The next regular round of every active bot of the game, when the game has nothing
    queued and its last round is older than ``interval_s``, or at once while the game's
    ranking is not settled (a game ranked by score whose ranking has provisional ranks: more
    deals are what settles it).

    Workers that go idle together each call this: the look and the round it starts are one
    transaction that holds the game's rating ledger (:func:`lock_ledger`, the row that
    scheduling and rating take), so of two workers that look at once, the second looks once
    the first has committed its round, finds its jobs queued, and starts none."""
    busy = MatchJob.objects.filter(game=game, status__in=[MatchJob.QUEUED, MatchJob.RUNNING])
    if busy.exists():  # a quick look first: most looks end here, taking no lock
        return None
    with transaction.atomic():
        lock_ledger(game)
        return _ladder_round(game, interval_s)


def _ladder_round(game: str, interval_s: float) -> Tournament | None:
    """:func:`maybe_ladder_round`'s look and round, with the game's ledger held."""
    busy = MatchJob.objects.filter(game=game, status__in=[MatchJob.QUEUED, MatchJob.RUNNING])
    if busy.exists():
        return None
    last = Tournament.objects.filter(game=game, format=Tournament.LADDER).order_by("-created")
    latest = last.first()
    recent = latest and latest.created > timezone.now() - timedelta(seconds=interval_s)
    if recent and not unsettled(game):
        return None
    if len(active_versions(game)) < 2:
        return None
    try:
        return start_round_robin(
            game, 1, fmt=Tournament.LADDER, name=f"{get_game(game).title} ladder round"
        )
    except ValueError as exc:  # the game's format cannot seat these bots (yet)
        versions = active_versions(game)
        if len(versions) <= get_game(game).state_class.max_seats:
            # Fewer bots than the format's tables (Last Card with three bots): one table
            # of all of them, in every rotation of the seats.
            return start_round_robin(
                game, 1, fmt=Tournament.LADDER, name=f"{get_game(game).title} ladder round",
                tables=[[v.pk for v in versions]],
            )  # fmt: skip
        log.info("event=ladder.skipped game=%s reason=%r", game, str(exc))
        return None


# ---- claiming -------------------------------------------------------------------------------
#: the order jobs are claimed in: placements first, then turn by turn (the n-th job of every
#: placement before the (n+1)-th of any: a new version placed against many bots does not
#: hold up the placements of those uploaded after it; and a bot's jobs move back a turn for
#: every TURN_S of worker time its matches take, see :func:`push_back`), then oldest first
CLAIM_ORDER = ("-priority", "turn", "id")
#: the worker time a turn stands for: about what a quick match takes. A job moves its bots'
#: queued jobs of the tournament back by the turns its bot's share of it took (rounded), so
#: a bot whose matches take 14 s has its next one claimed after some 140 turns of the others'
TURN_S = 0.1


def _claimable_parts(now: Any, min_priority: int | None = None) -> list[Q]:
    """The claimable jobs (:func:`leases.claimable_parts`: queued, and running with a lease
    that ran out), as two conditions each read in claim order through the claim index."""
    least = Q() if min_priority is None else Q(priority__gte=min_priority)
    return [part & least for part in leases.claimable_parts(now)]


def jobs_waiting(now: Any, min_priority: int | None = None) -> bool:
    """Whether any match job waits for a worker (of ``min_priority`` or more): two reads of a
    row each, through the claim index (``now``: :func:`bots.clock.shared_now`)."""
    parts = _claimable_parts(now, min_priority)
    return any(MatchJob.objects.filter(part).exists() for part in parts)


def jobs_playing(now: Any) -> bool:
    """Whether a worker holds match jobs now (their lease has not run out; ``now``:
    :func:`bots.clock.shared_now`)."""
    return MatchJob.objects.filter(status=MatchJob.RUNNING, lease_until__gte=now).exists()


def _in_claim_order(
    now: Any, min_priority: int | None, take: int, *, lock: bool = False
) -> list[MatchJob]:
    """The first ``take`` claimable jobs in :data:`CLAIM_ORDER`, with their tournaments;
    ``lock``: locked, those another claim has locked passed over (PostgreSQL). Two
    statements, the running jobs whose lease ran out (there are few) and the queued ones,
    each reading its first ``take`` rows in claim order through the claim index, merged in
    that order: the same jobs, in the same order, as one statement over both would find, but
    without reading and sorting the whole queue (one statement with both does, on
    PostgreSQL: half a second a claim with 100,000 jobs queued). Jobs read but merged away
    stay locked only until the claim's short transaction ends."""
    found: list[MatchJob] = []
    for part in reversed(_claimable_parts(now, min_priority)):
        jobs = MatchJob.objects.filter(part).select_related("tournament")  # not locked
        if lock:
            jobs = jobs.select_for_update(skip_locked=True, of=("self",))
        found += jobs.order_by(*CLAIM_ORDER)[:take]
    found.sort(key=lambda job: (-job.priority, job.turn, job.pk))  # CLAIM_ORDER
    return found[:take]


def claim(
    worker: str, lease_s: float, *, caps: leases.Caps | None = None, min_priority: int | None = None
) -> leases.Claim | None:
    """Claim the next job: queued, or running with an expired lease (its worker died), in
    :data:`CLAIM_ORDER`; with ``min_priority``, only a job of at least that priority
    (placements). A job at one of its ``caps`` is failed instead."""
    held = claim_many(worker, lease_s, 1, caps=caps, min_priority=min_priority)
    return held[0] if held else None


def claim_many(
    worker: str,
    lease_s: float,
    count: int,
    *,
    caps: leases.Caps | None = None,
    min_priority: int | None = None,
) -> list[leases.Claim]:
    """Claim up to ``count`` jobs at once, as :func:`claim` does one, in one short
    transaction (a worker then plays them one after the other and stores them together).

    Fair at the end of a queue: a worker takes at most its share of the claimable jobs,
    split among itself and the other workers holding jobs now (:func:`_share`), so the last
    jobs of a tournament are spread over the workers rather than all held by the first to
    ask. A worker that dies with its jobs loses none: each has its lease, and each is taken
    again by any worker once the lease runs out. On SQLite (a single writer, for development)
    one job at a time."""
    caps = caps or leases.Caps.from_settings()
    for _ in range(leases.CLAIM_TRIES):
        if connection.features.has_select_for_update_skip_locked:
            outcome = _claim_skip_locked(worker, lease_s, caps, min_priority, count)
        else:
            outcome = _claim_conditional(worker, lease_s, caps, min_priority)
        if outcome != "again":
            return outcome  # type: ignore[return-value]
    return []


def _share(worker: str, count: int, min_priority: int | None) -> int:
    """How many jobs a claim takes: ``count``, or fewer near the end of the queue (the
    claimable jobs split evenly among this worker and the others holding jobs now, rounded
    up). Read without locks (three short statements on the claim index: the workers holding
    jobs, then the queued jobs and those whose lease ran out, each counted only up to what
    could be taken): the locking SELECTs then take what they find of that many."""
    if count <= 1:
        return 1
    now = shared_now()
    running = MatchJob.objects.filter(status=MatchJob.RUNNING, lease_until__gte=now)
    others = running.exclude(worker=worker).values("worker").distinct().count()
    workers = others + 1
    most = count * workers
    parts = _claimable_parts(now, min_priority)
    found = sum(MatchJob.objects.filter(part).order_by()[:most].count() for part in parts)
    waiting = min(most, found)
    return max(1, min(count, -(-waiting // workers)))


def _claim_skip_locked(
    worker: str, lease_s: float, caps: leases.Caps, min_priority: int | None, count: int = 1
) -> list[leases.Claim] | str:
    take = _share(worker, count, min_priority)
    with transaction.atomic():
        now = shared_now()
        found = _in_claim_order(now, min_priority, take + DEALS_PASSED, lock=True)
        if not found:
            return []
        jobs = _deals_free(found, worker, now, take)
        if not jobs:
            return []
        given_up = [(job, verdict) for job in jobs if (verdict := caps.given_up(job))]
        if given_up:
            for job, verdict in given_up:
                _fail(job, verdict)
            return "again"
        fields = leases.taking(jobs[0], worker, lease_s, now)
        del fields["attempts"]  # each job's own, one more than it was
        MatchJob.objects.filter(pk__in=[job.pk for job in jobs]).update(
            attempts=F("attempts") + 1, **fields
        )
        for tournament in {job.tournament_id: job for job in jobs}.values():
            _mark_running(tournament)
    claims = []
    for job in jobs:
        for key, value in fields.items():
            setattr(job, key, value)
        job.attempts += 1
        claims.append(leases.Claim(job, worker, job.attempts))
    return claims


def _claim_conditional(
    worker: str, lease_s: float, caps: leases.Caps, min_priority: int | None
) -> list[leases.Claim] | str:
    """SQLite: pick a candidate, then take it with an UPDATE that only matches if nobody
    else changed it meanwhile."""
    now = shared_now()
    candidates = _in_claim_order(now, min_priority, 10)
    if not candidates:
        return []
    free = {job.pk for job in _deals_free(candidates, worker, now, len(candidates))}
    for job in candidates:
        if job.pk not in free:
            continue
        if caps.given_up(job):
            with transaction.atomic():
                fresh = MatchJob.objects.select_for_update().get(pk=job.pk)
                unchanged = (fresh.status, fresh.attempts) == (job.status, job.attempts)
                if unchanged and (verdict := caps.given_up(fresh)):
                    _fail(fresh, verdict)
            return "again"
        fields = leases.taking(job, worker, lease_s, now)
        # (checked again as the row is taken: another worker may have taken a seating since)
        if leases.take(job, fields, "lease_until", unless=_deal_taken(job, worker, now)):
            _mark_running(job)
            for key, value in fields.items():
                setattr(job, key, value)
            return [leases.Claim(job, worker, job.attempts)]
    return "again"


#: how many claimable jobs a claim looks past, beyond those it takes, for jobs whose deal
#: another worker is playing (:func:`_deals_free`)
DEALS_PASSED = 8


def _deals_free(jobs: list[MatchJob], worker: str, now: Any, take: int) -> list[MatchJob]:
    """The first ``take`` of ``jobs`` (in their order) whose deal no other worker is playing
    with one of their bots: a seating of the same deal (tournament and seed) that seats one
    of the job's versions, running under another worker's live lease. A bot never plays two
    seatings of a deal at once, on any machine: its two processes would each hold the cards
    the other's opponent holds (the seats swapped), and processes that run at the same time
    can signal to each other through what they share (the CPUs, their caches, the time they
    take). One after the other they cannot: a bot's process keeps nothing for the next
    (docs/sandbox.md). A worker plays its own jobs one after the other, so the seatings of a
    deal it holds are no obstacle.

    On PostgreSQL, claims made at once by several workers see none of each other's rows
    until they commit, so a claim first takes a lock of its transaction for each version a
    job seats on its deal (:func:`_deal_locks`), and only then reads what runs: of two claims
    of seatings of one deal, the second to ask passes its job over, and a claim that gets
    the lock after the first committed reads that job running."""
    chosen: list[MatchJob] = []
    rest = list(jobs)
    while rest and len(chosen) < take:
        looked, rest = rest[: take - len(chosen)], rest[take - len(chosen) :]
        if connection.vendor == "postgresql":
            looked = _deal_locked(looked)
        chosen += _not_played_elsewhere(looked, worker, now)
    return chosen


def _deal_locked(jobs: list[MatchJob]) -> list[MatchJob]:
    """Those of ``jobs`` whose every lock of :func:`_deal_locks` this transaction holds now
    (taken without waiting: a lock another claim holds passes its job over)."""
    wanted = {job.pk: _deal_locks(job) for job in jobs}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT k, pg_try_advisory_xact_lock(k) FROM unnest(%s::bigint[]) AS k",
            [sorted({key for keys in wanted.values() for key in keys})],
        )
        held = {key for key, took in cursor.fetchall() if took}
    return [job for job in jobs if held.issuperset(wanted[job.pk])]


def _not_played_elsewhere(jobs: list[MatchJob], worker: str, now: Any) -> list[MatchJob]:
    """Those of ``jobs`` with no seating of their deal that seats one of their versions
    running under another worker's live lease (one statement)."""
    if not jobs:
        return jobs
    running = (
        MatchJob.objects.filter(
            game__in={job.game for job in jobs},  # (the index on game and seed)
            seed__in={job.seed for job in jobs},
            status=MatchJob.RUNNING,
            lease_until__gte=now,
        )
        .exclude(worker=worker)
        .values_list("tournament_id", "seed", "seats")
    )
    playing: dict[tuple[int, int], set[int]] = {}
    for tournament_id, seed, seats in running:
        playing.setdefault((tournament_id, seed), set()).update(seats)
    return [
        job
        for job in jobs
        if playing.get((job.tournament_id, job.seed), set()).isdisjoint(job.seats)
    ]


def _deal_locks(job: MatchJob) -> list[int]:
    """The keys of the transaction locks a claim of ``job`` takes (PostgreSQL): one for each
    version it seats on its deal, so that only claims of seatings with a bot in common wait
    on each other (the bots of an Ultimate Texas Hold'em session all play its deal)."""
    return [
        int.from_bytes(
            hashlib.blake2b(
                f"card-arena deal {job.tournament_id} {job.seed} {version}".encode(),
                digest_size=8,
            ).digest(),
            "big",
            signed=True,
        )
        for version in sorted(set(job.seats))
    ]


def _deal_taken(job: MatchJob, worker: str, now: Any) -> Exists:
    """Whether another worker is playing a seating of ``job``'s deal with one of its bots
    (:func:`_deals_free`), as a condition of the statement that takes the job: on SQLite, a
    single writer, that statement sees every claim made before it."""
    return Exists(
        seating_any(job.seats)
        .filter(
            game=job.game,
            seed=job.seed,
            tournament_id=job.tournament_id,
            status=MatchJob.RUNNING,
            lease_until__gte=now,
        )
        .exclude(worker=worker)
    )


def _mark_running(job: MatchJob) -> None:
    """The job's tournament is under way (a statement only for its first job)."""
    if job.tournament.state == Tournament.PENDING:
        Tournament.objects.filter(pk=job.tournament_id, state=Tournament.PENDING).update(
            state=Tournament.RUNNING
        )


def _fail(job: MatchJob, error: str) -> None:
    """Inside a transaction: the job will not be played."""
    leases.end(MatchJob.objects.filter(pk=job.pk), MatchJob.FAILED, error=error)
    log.warning("event=job.failed job=%s error=%r", job.pk, error)
    rate_pending(job.game)
    _maybe_finish(job.tournament_id)


# ---- playing and storing --------------------------------------------------------------------
def time_control_of(job: MatchJob) -> TimeControl:
    spec = get_game(job.game)
    own = job.tournament.settings.get("time_control") or {}
    base = spec.time_control
    return TimeControl(
        move=float(own.get("move", base.move)),
        bank=float(own.get("bank", base.bank)),
        startup=float(own.get("startup", base.startup)),
    )


def seat_versions(job: MatchJob, known: dict[int, BotVersion] | None = None) -> list[BotVersion]:
    """The versions in the job's seats, in seat order (from ``known`` when it has them all:
    :func:`versions_of` read them for a batch of jobs at once)."""
    if known is not None and all(v in known for v in job.seats):
        return [known[v] for v in job.seats]
    by_id = BotVersion.objects.select_related("bot", "bot__owner").in_bulk(job.seats)
    return [by_id[v] for v in job.seats]


def versions_of(jobs: Sequence[MatchJob]) -> dict[int, BotVersion]:
    """The versions seated in any of these jobs, by id (one statement)."""
    wanted = {v for job in jobs for v in job.seats}
    return BotVersion.objects.select_related("bot", "bot__owner").in_bulk(wanted)


def deals_seen(claims: Sequence[leases.Claim]) -> set[tuple[int, int]]:
    """The deals (tournament, seed) of the claimed jobs that a bot's process may have been
    dealt before (one statement): a seating of the deal outside these claims was ever
    claimed (played, being played, or played in part and given back), or one of these is
    claimed again (its last attempt may have been played in part). A worker touches the
    runtimes' pages before such a match (:func:`play_job`); as it plays a batch, it adds
    each deal it plays to the set."""
    deals = {(held.job.tournament_id, held.job.seed) for held in claims}
    seen = {(held.job.tournament_id, held.job.seed) for held in claims if held.attempt > 1}
    others = (
        MatchJob.objects.filter(
            game__in={held.job.game for held in claims},  # (the index on game and seed)
            seed__in={seed for _, seed in deals},
            attempts__gt=0,
        )
        .exclude(pk__in=[held.job.pk for held in claims])
        .values_list("tournament_id", "seed")
    )
    return seen | (set(others) & deals)


def play_job(
    job: MatchJob,
    cache: ProcessCache | None = None,
    versions: dict[int, BotVersion] | None = None,
    spent: WorkerTime | None = None,
    *,
    seen: bool = True,
) -> Played:
    """Play a job's match in the sandbox: outside any transaction. ``versions``: the seats'
    versions read beforehand (:func:`versions_of`), else read here. ``seen``: whether a bot
    of it may have been dealt its deal before, in another process (:func:`deals_seen`): then
    every page of the runtimes is touched first.

    Each bot may use the tournament's ``worker_bound_s`` of worker time in it (``spent``:
    what its matches there were charged so far, :func:`worker_time_of`, read here when not
    given). A bot with nothing left forfeits the match without being started (fault
    ``time``); any other seat's time control gets what its bot has left as its ``budget``,
    so a match is cut off where the bot's worker time runs out (the same fault)."""
    bound = job.tournament.worker_bound_s
    seated = seat_versions(job, versions)
    if bound and spent is None:
        spent = worker_time_of([job], {v.pk: v for v in seated})
    tc = time_control_of(job)
    entries, budgets = [], {}
    for seat, version in enumerate(seated):
        used = spent.get((job.tournament_id, version.bot_id), 0.0) if spent and bound else 0.0
        if bound and used >= bound:
            reason = (
                f"out of worker time: the bot's matches in this tournament took {used:.1f} s "
                f"of worker time, its bound is {bound:g} s; the rest of its matches there are "
                "forfeited"
            )
            agent = BrokenAgent(version.bot.label, "time", reason)
            entries.append(Entry(name=version.bot.label, agent=agent))
            continue
        if bound:
            budgets[seat] = dataclasses.replace(tc, budget=bound - used)
        entries.append(
            Entry(name=version.bot.label, code=version.code, filename=version.filename,
                  key=version.pk)
        )  # fmt: skip
    if seen:
        # every page of the runtimes in memory, whatever a bot read in the deal's other
        # seating (the host of a virtual machine pages out what was not touched lately:
        # timing reads would tell pages a bot read there from the rest)
        resident.touch()
    return play(
        get_game(job.game),
        entries,
        seed=job.seed,
        time_control=tc,
        config=options_of(job.tournament),
        cache=cache,
        seat_time_controls=budgets or None,
    )


def options_of(tournament: Tournament) -> dict[str, Any] | None:
    """The game's options a tournament's matches are played with (None: the defaults)."""
    options = tournament.settings.get("options")
    return dict(options) if isinstance(options, dict) and options else None


# ---- worker time ----------------------------------------------------------------------------
#: (tournament id, bot id) -> seconds of worker time charged to the bot's matches there
WorkerTime = dict[tuple[int, int], float]


def charges(played: Played) -> list[float]:
    """The match's wall time (``Played.duration_s``, measured by the worker, never by a bot)
    split among its seats: each seat its own time (``SeatStats.own_s``: its start, its
    answers and the calls it faulted on, on the worker's clock, less what the machine kept
    its bot waiting for a CPU), and the rest (the rules, the worker's own work) in equal
    shares. The machine's waits are no seat's, nor part of the rest: the time it kept a
    seat's bot waiting for a CPU (``SeatStats.starved_s``) and set up its sandbox
    (``SeatStats.platform_s``) are charged to no seat, so a quick bot is not charged half
    of a slow opponent's waits. Seats that think side by side (simultaneous moves, starts)
    can together take longer than the match: then each is charged its part of the match in
    proportion to its own time, but for a seat cut off where its bot's worker time ran out
    (``SeatStats.budget_spent``): it used all it had, and is charged its own time whole (a
    sliver left would start its bot again for nothing). The charges add up to the match's
    wall time less the machine's waits (never to more than the wall time)."""
    wall = max(played.duration_s, 0.0)
    stats = played.outcome.stats
    own = [seat.own_s for seat in stats] or [0.0] * len(played.seats)
    if not own:
        return []
    total = sum(own)
    if total <= wall:
        machine = sum(seat.starved_s + seat.platform_s for seat in stats)
        rest = max(wall - total - machine, 0.0) / len(own)
        return [mine + rest for mine in own]
    whole = {i: min(own[i], wall) for i, seat in enumerate(stats) if seat.budget_spent}
    others = total - sum(own[i] for i in whole)
    if not whole or sum(whole.values()) > wall or others <= 0:
        return [wall * mine / total for mine in own]
    left = wall - sum(whole.values())
    return [whole[i] if i in whole else left * mine / others for i, mine in enumerate(own)]


def charge_ms(played: Played) -> list[int]:
    """:func:`charges` in whole milliseconds (what is stored: exact sums in any order)."""
    return [round(1000 * seconds) for seconds in charges(played)]


def worker_time_of(
    jobs: Sequence[MatchJob], versions: dict[int, BotVersion] | None = None
) -> WorkerTime:
    """What the bots of these jobs were charged in the jobs' tournaments so far (their
    ``TournamentResult`` totals: one statement for a worker's whole batch)."""
    versions = versions if versions is not None else versions_of(jobs)
    bots = {versions[v].bot_id for job in jobs for v in job.seats if v in versions}
    tournaments = {job.tournament_id for job in jobs}
    rows = TournamentResult.objects.filter(
        tournament_id__in=tournaments, bot_id__in=bots, opponent=0
    ).values_list("tournament_id", "bot_id", "worker_ms")
    return {(t, b): ms / 1000 for t, b, ms in rows}


def add_charges(
    spent: WorkerTime, job: MatchJob, versions: dict[int, BotVersion], played: Played
) -> None:
    """Add a match just played to ``spent`` (a worker's batch: its later matches see the
    time its earlier ones took before they are stored)."""
    for version, ms in zip(job.seats, charge_ms(played), strict=False):
        if version in versions:
            key = (job.tournament_id, versions[version].bot_id)
            spent[key] = spent.get(key, 0.0) + ms / 1000


def push_back(results: Sequence[tuple[leases.Claim, Played]]) -> int:
    """Interleave the queue by bot, by the worker time it takes: after these matches, each
    bot's queued jobs in the same tournament move back one turn for every :data:`TURN_S` of
    worker time its share of them took beyond what the quickest seat of the tournament's
    matches here took (rounded: bots about as quick as each other move nothing, and the
    queue stays as it is). The jobs are claimed by turn (:data:`CLAIM_ORDER`), so a bot
    whose matches are slow has its next one claimed after the others' have had as much
    time; the queue stays ordered by an index, and every worker on every machine sees the
    same order. (Moving every bot back alike would change no order, and would rewrite
    every queued job of a large tournament after each batch.) A bot's turns are first owed
    (a :class:`~bots.models.QueueDebt` row), and its jobs moved by all of them once they
    make up a hundredth of its queued jobs (:data:`DEBT_SHARE`): a job is rewritten once
    for every hundredth, not after every match of its bot.

    Its own short transactions, after the results are stored: jobs being claimed right now
    are skipped (``SKIP LOCKED``), never waited for. Returns the jobs moved."""
    charged = [(held, charge_ms(played)) for held, played in results]
    quickest: dict[int, int] = {}
    for held, ms in charged:
        if ms:
            tournament = held.job.tournament_id
            quickest[tournament] = min(quickest.get(tournament, ms[0]), *ms)
    seconds: dict[tuple[int, int], float] = {}
    for held, ms in charged:
        for version, mine in zip(held.job.seats, ms, strict=False):
            key = (held.job.tournament_id, version)
            beyond = mine - quickest[held.job.tournament_id]
            seconds[key] = seconds.get(key, 0.0) + beyond / 1000
    moved = 0
    for (tournament_id, version), taken in sorted(seconds.items()):
        turns = round(taken / TURN_S)
        if turns < 1:
            continue
        try:
            ids, applied = _push_back(tournament_id, version, turns)
        except DatabaseError as exc:  # only the order suffers; the next slow match tries again
            log.warning("event=jobs.push_back_failed tournament=%s version=%s error=%r",
                        tournament_id, version, exc)  # fmt: skip
            continue
        moved += len(ids)
        if not ids:
            continue
        log.info(
            "event=jobs.pushed_back tournament=%s version=%s turns=%d jobs=%d seconds=%.2f",
            tournament_id, version, applied, len(ids), taken,
        )  # fmt: skip
    return moved


#: a bot's queued jobs of a tournament are moved back once the turns they are owed make up
#: this share of them (:func:`_push_back`): each job is rewritten once for every so many
#: turns of the bot's, not after each of its matches, and its next jobs may be claimed up to
#: ``jobs / DEBT_SHARE`` turns early (with 20,000 queued, 200 turns: 20 s of worker time)
DEBT_SHARE = 100


def _push_back(tournament_id: int, version: int, turns: int) -> tuple[list[int], int]:
    """Owe the version's queued jobs of the tournament ``turns`` more turns, and move them
    back by all they are owed once that is at least a hundredth of them (at the first
    push, at once): the ids moved (none while the turns are only owed), and by how many
    turns."""
    with transaction.atomic():
        debt, _ = QueueDebt.objects.select_for_update().get_or_create(
            tournament_id=tournament_id, version=version
        )
        owed = debt.owed + turns
        if debt.jobs and owed < debt.jobs // DEBT_SHARE:
            QueueDebt.objects.filter(pk=debt.pk).update(owed=owed)
            return [], 0
        queued = MatchJob.objects.filter(tournament_id=tournament_id, status=MatchJob.QUEUED)
        if connection.features.supports_json_field_contains:
            mine = queued.filter(seats__contains=[version])
            if connection.features.has_select_for_update_skip_locked:
                mine = mine.select_for_update(skip_locked=True, of=("self",))
            ids = list(mine.values_list("pk", flat=True))
        else:  # SQLite (one writer): the tournament's queued jobs, read through
            ids = [pk for pk, seats in queued.values_list("pk", "seats") if version in seats]
        if ids:
            MatchJob.objects.filter(pk__in=ids).update(turn=F("turn") + owed)
        QueueDebt.objects.filter(pk=debt.pk).update(owed=0, jobs=len(ids))
    return ids, owed


def store_result(held: leases.Claim, played: Played, *, wait: bool = True) -> Match | None:
    """Store one played job's result: :func:`store_results` of one."""
    return store_results([(held, played)], wait=wait)[0]


def store_results(
    results: Sequence[tuple[leases.Claim, Played]], *, wait: bool = True
) -> list[Match | None]:
    """Store played jobs' results, rate what they make ready, and tell browsers; for each,
    its match, or None if the worker no longer holds the job (its lease ran out and another
    worker took it).

    Two short transactions, whatever the number of results (and one more for each bot
    whose share of them took more than half a :data:`TURN_S`, :func:`push_back`, which
    moves its queued jobs back). The first locks the jobs and
    marks done those the worker still holds (a SELECT ... FOR UPDATE of the jobs in id
    order, then one UPDATE), and writes their matches, seats and results by opponent (one
    statement each for all the matches); it takes no lock but the jobs' rows, so workers
    store side by side. The second, :func:`bots.ladder.ratings.rate_pending` (once per game), takes
    the game's rating ledger only while it rates. Then a version whose latest matches
    all ended with a fault of its own leaves the ladder (:func:`faults.check`: no statement
    unless a seat of the batch faulted). If the database goes away in between,
    calling this again finds the results stored by these very claims and goes on with the
    rating. ``wait=False`` (a worker): if another transaction is rating the game at this
    moment, the rating is left to later stores instead of waited for (see
    :func:`bots.ladder.ratings.rate_pending`)."""
    if not results:
        return []
    with transaction.atomic():
        ours, earlier = _mark_done([held for held, _ in results])
        matches = _write_matches([(h, p) for h, p in results if h.job.pk in ours])
        matches |= _stored_by([h for h, _ in results if h.job.pk in earlier])
    found = [matches.get(held.job.pk) for held, _ in results]
    for (held, _), match in zip(results, found, strict=True):
        if match is None:
            log.warning("event=job.lost job=%s worker=%s", held.job.pk, held.worker)
    stored = [(held.job, match) for (held, _), match in zip(results, found, strict=True) if match]
    push_back([(held, played) for (held, played), match in zip(results, found, strict=True)
               if match is not None and held.job.pk in ours])  # fmt: skip
    for game in sorted({job.game for job, _ in stored}):
        rate_pending(game, wait=wait)
    # versions that keep faulting after validation leave the ladder (a batch without a
    # fault: no statement); its own transactions, once the results are committed
    faults.check([(held.job, p) for (held, p), match in zip(results, found, strict=True) if match])
    finished = {t: _maybe_finish(t) for t in sorted({job.tournament_id for job, _ in stored})}
    for tournament_id, done in finished.items():
        mine = [match for job, match in stored if job.tournament_id == tournament_id]
        transaction.on_commit(lambda t=tournament_id, m=mine, d=done: _push_all(t, m, d))
    return found


def _mark_done(claims: Sequence[leases.Claim]) -> tuple[set[int], set[int]]:
    """Lock the claims' jobs (in id order: two workers never wait on each other in a
    circle) and mark done those the worker still holds; their rows stay locked until
    commit. Returns (the jobs marked done now, those these very claims marked done
    before: a store tried again)."""
    by_id = {held.job.pk: held for held in claims}
    rows = (
        MatchJob.objects.select_for_update()
        .filter(pk__in=by_id, status__in=[MatchJob.RUNNING, MatchJob.DONE])
        .order_by("pk")
        .values_list("pk", "status", "worker", "attempts")
    )
    ours, earlier = set(), set()
    for pk, status, worker, attempts in rows:
        held = by_id[pk]
        if (worker, attempts) == (held.worker, held.attempt):
            (ours if status == MatchJob.RUNNING else earlier).add(pk)
    if ours:
        MatchJob.objects.filter(pk__in=ours).update(
            status=MatchJob.DONE, finished=timezone.now(), lease_until=None, error=""
        )
    return ours, earlier


def _write_matches(results: Sequence[tuple[leases.Claim, Played]]) -> dict[int, Match]:
    """Inside the store's transaction: the matches, one seat per bot and the results by
    opponent that the matches add to (:mod:`bots.ladder.aggregates`), so those totals never count
    a match that is not there or miss one that is; by job id."""
    if not results:
        return {}
    seated = {v for held, _ in results for v in held.job.seats}
    bots = dict(BotVersion.objects.filter(pk__in=seated).values_list("pk", "bot_id"))
    matches = Match.objects.bulk_create(
        Match(
            job_id=held.job.pk,
            tournament_id=held.job.tournament_id,
            game=held.job.game,
            seed=held.job.seed,
            record=untrusted.storable(played.outcome.record),
            duration_s=played.duration_s,
            worker=held.worker,
        )
        for held, played in results
    )
    seats = MatchSeat.objects.bulk_create(
        MatchSeat(
            match=match,
            seat=seat,
            bot_id=bots[version],
            version_id=version,
            score=report.score,
            fault_kind=report.fault_kind,
            fault_reason=untrusted.clean_text(report.fault_reason),
            stderr=untrusted.clean_text(report.stderr),
            worker_ms=ms,
        )
        for match, (held, played) in zip(matches, results, strict=True)
        for seat, (version, report, ms) in enumerate(
            zip(held.job.seats, played.seats, charge_ms(played), strict=True)
        )
    )
    by_match: dict[int, list[MatchSeat]] = {}
    for seat in seats:
        by_match.setdefault(seat.match_id, []).append(seat)
    aggregates.record_many((match, by_match[match.pk]) for match in matches)
    return {match.job_id: match for match in matches}


def _stored_by(claims: Sequence[leases.Claim]) -> dict[int, Match]:
    """The matches these claims stored already (their jobs are done with these workers'
    attempts: checked by :func:`_mark_done`), by job id."""
    if not claims:
        return {}
    return {m.job_id: m for m in Match.objects.filter(job_id__in=[h.job.pk for h in claims])}


def _push_all(tournament_id: int, matches: list[Match], finished: bool) -> None:
    """:func:`push_progress` of a batch's matches of one tournament, its jobs counted once
    (or read from the shared cache, where a page or another worker counted them in the last
    seconds: :func:`counts.jobs_by_status`)."""
    if not getattr(settings, "REDIS_URL", ""):
        return
    tournament = Tournament.objects.only("pk", "created", "state").get(pk=tournament_id)
    jobs = counts.jobs_by_status([tournament])[tournament_id]
    for match in matches:
        push_progress(tournament_id, match, finished, jobs)


def push_progress(tournament_id: int, match: Match, finished: bool, jobs: dict[str, int]) -> None:
    """Tell browsers watching the tournament (channel layer group ``tournament-<id>``).
    Only with a channel layer other processes share (Redis). ``jobs``: the tournament's
    jobs by status."""
    if not getattr(settings, "REDIS_URL", ""):
        return
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer
    from redis.exceptions import RedisError

    layer = get_channel_layer()
    if layer is None:
        return
    message = {
        "type": "tournament.progress",
        "tournament": tournament_id,
        "match": match.pk,
        "scores": match.record["result"].get("scores"),
        "finished": finished,
        "jobs": jobs,
    }
    try:
        async_to_sync(layer.group_send)(f"tournament-{tournament_id}", message)
    except (OSError, RedisError) as exc:
        log.warning("event=push.failed tournament=%s error=%r", tournament_id, exc)
