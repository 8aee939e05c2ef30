"""Scheduling match jobs, claiming them, and storing their results exactly once.

A job names the bot version in each seat and a seed: it can be played again from those
alone. Workers (``bots.worker``) claim jobs here, play them outside any transaction and hand
the result to :func:`store_result`, which marks the job done and writes the match in one short
transaction, only if the worker still holds the job, then applies ratings in another.
A worker claims several jobs at once (:func:`claim_many`) and stores their results
together (:func:`store_results`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, F, Max, Q
from django.utils import timezone

from bots import aggregates, leases
from bots.models import (
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    Tournament,
    deals_played_again,
)
from bots.playing import Entry, Played, ProcessCache, play
from bots.ratings import lock_ledger, rate_pending
from games.engine import untrusted
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


# ---- scheduling -----------------------------------------------------------------------------
def active_versions(game: str) -> list[BotVersion]:
    return list(
        BotVersion.objects.filter(bot__game=game, status=BotVersion.ACTIVE)
        .select_related("bot", "bot__owner")
        .order_by("bot_id")
    )


def _new_seed() -> int:
    return secrets.randbits(62)


def _time_control_settings(move: float | None, bank: float | None) -> dict[str, float]:
    return {k: v for k, v in (("move", move), ("bank", bank)) if v is not None}


def _check_fresh(game: str, seed: int) -> None:
    """A seed given for a new tournament must be one no earlier tournament of the game
    has: it would deal the same cards again, which that tournament's pages may show (its
    seed once it is over, where the game's seeds are public; its showdowns always)."""
    earlier = Tournament.objects.filter(game=game, settings__seed=seed).order_by("pk").first()
    if earlier is not None:
        raise ValueError(
            f"{game}: seed {seed} dealt tournament {earlier.pk} already: a new tournament"
            " needs a seed of its own (leave it out for a fresh one)"
        )


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
) -> Tournament:
    """A round robin of every active version of the game (or ``versions``): the game's
    tournament format decides the tables, each table is played on one deal in every
    seating of :func:`seatings`."""
    spec = get_game(game)
    if spec.tournament is None:
        raise ValueError(f"{game} has no tournament format")
    lock_ledger(game)
    versions = versions if versions is not None else active_versions(game)
    if len(versions) < 2:
        raise ValueError(f"{game}: a round robin needs at least 2 active bots")
    if seed is not None:
        _check_fresh(game, seed)
    seed = _new_seed() if seed is None else seed
    tournament = Tournament.objects.create(
        game=game,
        format=fmt,
        name=name,
        settings={
            "rounds": rounds,
            "seed": seed,
            "versions": [v.pk for v in versions],
            "time_control": _time_control_settings(move, bank),
        },
    )
    if tables is None:
        scheduled = [
            (t.round, [versions[i].pk for i in t.seats], t.seed)
            for t in spec.tournament().schedule(len(versions), rounds, seed)
        ]
    else:  # explicit tables (ids), each played once a round
        scheduled = [
            (r, table, derive_seed(seed, r, n))
            for r in range(rounds)
            for n, table in enumerate(tables)
        ]
    jobs = []
    for round_no, entrants, table_seed in scheduled:
        for seats in seatings(entrants):
            jobs.append(
                MatchJob(
                    tournament=tournament,
                    game=game,
                    round=round_no,
                    seats=seats,
                    seed=table_seed,
                )
            )
    MatchJob.objects.bulk_create(jobs)
    log.info("event=tournament.start tournament=%s game=%s jobs=%d", tournament.pk, game, len(jobs))
    return tournament


def placement_tables(game: str, version: BotVersion, others: list[BotVersion]) -> list[list[int]]:
    """The tables that place a new version: it meets every other active bot at least once.

    Two-player games: one table per opponent. Bigger tables (Last Card: four) seat the new
    version with the others in groups as large as the game allows. Bots that play alone
    against the dealer (UTH) sit alone; they meet the others on the same deals instead (see
    :func:`shared_deals`).
    """
    if get_game(game).plays_alone:
        return [[version.pk]]
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


def shared_deals(game: str, others: list[BotVersion], count: int) -> list[int]:
    """Seeds of deals that the other active bots of a one-seat game have already played,
    those played by the most of them first (newest first among equals): a new bot that plays
    them is rated against their results on the very same cards."""
    bots = {v.bot_id for v in others}
    played = (
        Match.objects.filter(game=game, rated=True, participants__bot_id__in=bots)
        .values("seed")
        .annotate(bots=Count("participants__bot_id", distinct=True), last=Max("played"))
        .order_by("-bots", "-last", "seed")
    )
    return [row["seed"] for row in played[:count]]


def schedule_placement(version: BotVersion) -> Tournament | None:
    """Placement matches of a newly active version against every other active bot of its
    game, ahead of the regular queue. Runs inside the caller's transaction."""
    game = version.bot.game
    lock_ledger(game)
    others = [v for v in active_versions(game) if v.bot_id != version.bot_id]
    deals = int(getattr(settings, "PLACEMENT_DEALS", 2))
    if not others or deals <= 0:
        return None
    base = _new_seed()
    reused = shared_deals(game, others, deals) if deals_played_again(game) else []
    tournament = Tournament.objects.create(
        game=game,
        format=Tournament.PLACEMENT,
        name=f"placement of {version}",
        settings={"seed": base, "deals": deals, "version": version.pk, "shared_deals": reused},
    )
    jobs = []
    for table in placement_tables(game, version, others):
        for deal in range(deals):
            seed = reused[deal] if deal < len(reused) else derive_seed(base, *table, deal)
            for seats in seatings(table):
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
    MatchJob.objects.bulk_create(jobs)
    log.info("event=placement version=%s jobs=%d shared=%d", version.pk, len(jobs), len(reused))
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
    deals are what settles it)."""
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
        return start_round_robin(game, 1, fmt=Tournament.LADDER, name=f"{game} ladder round")
    except ValueError as exc:  # the game's format cannot seat these bots (yet)
        versions = active_versions(game)
        if len(versions) <= get_game(game).state_class.max_seats:
            # Fewer bots than the format's tables (Last Card with three bots): one table
            # of all of them, in every rotation of the seats.
            return start_round_robin(
                game, 1, fmt=Tournament.LADDER, name=f"{game} ladder round",
                tables=[[v.pk for v in versions]],
            )  # fmt: skip
        log.info("event=ladder.skipped game=%s reason=%r", game, str(exc))
        return None


# ---- claiming -------------------------------------------------------------------------------
#: the order jobs are claimed in: placements first, then turn by turn (the n-th job of every
#: placement before the (n+1)-th of any: a new version placed against many bots does not
#: hold up the placements of those uploaded after it), then oldest first
CLAIM_ORDER = ("-priority", "turn", "id")


def _claimable(now: Any, min_priority: int | None = None) -> Q:
    claimable = leases.claimable(now)
    return claimable if min_priority is None else claimable & Q(priority__gte=min_priority)


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
    up). Read without locks (two short statements on the claim index): the locking SELECT
    then takes what it finds of that many."""
    if count <= 1:
        return 1
    now = timezone.now()
    running = MatchJob.objects.filter(status=MatchJob.RUNNING, lease_until__gte=now)
    others = running.exclude(worker=worker).values("worker").distinct().count()
    workers = others + 1
    claimable = MatchJob.objects.filter(_claimable(now, min_priority))
    waiting = claimable.order_by()[: count * workers].count()
    return max(1, min(count, -(-waiting // workers)))


def _claim_skip_locked(
    worker: str, lease_s: float, caps: leases.Caps, min_priority: int | None, count: int = 1
) -> list[leases.Claim] | str:
    take = _share(worker, count, min_priority)
    with transaction.atomic():
        jobs = list(
            MatchJob.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("tournament")  # read with the job, not locked
            .filter(_claimable(timezone.now(), min_priority))
            .order_by(*CLAIM_ORDER)[:take]
        )
        if not jobs:
            return []
        given_up = [(job, verdict) for job in jobs if (verdict := caps.given_up(job))]
        if given_up:
            for job, verdict in given_up:
                _fail(job, verdict)
            return "again"
        fields = leases.taking(jobs[0], worker, lease_s, timezone.now())
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
    claimable = _claimable(timezone.now(), min_priority)
    candidates = list(
        MatchJob.objects.filter(claimable).select_related("tournament").order_by(*CLAIM_ORDER)[:10]
    )
    if not candidates:
        return []
    for job in candidates:
        if caps.given_up(job):
            with transaction.atomic():
                fresh = MatchJob.objects.select_for_update().get(pk=job.pk)
                unchanged = (fresh.status, fresh.attempts) == (job.status, job.attempts)
                if unchanged and (verdict := caps.given_up(fresh)):
                    _fail(fresh, verdict)
            return "again"
        fields = leases.taking(job, worker, lease_s, timezone.now())
        if leases.take(job, fields, "lease_until"):
            _mark_running(job)
            for key, value in fields.items():
                setattr(job, key, value)
            return [leases.Claim(job, worker, job.attempts)]
    return "again"


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


def play_job(
    job: MatchJob, cache: ProcessCache | None = None, versions: dict[int, BotVersion] | None = None
) -> Played:
    """Play a job's match in the sandbox: outside any transaction. ``versions``: the seats'
    versions read beforehand (:func:`versions_of`), else read here."""
    entries = [
        Entry(name=v.bot.label, code=v.code, filename=v.filename, key=v.pk)
        for v in seat_versions(job, versions)
    ]
    return play(
        get_game(job.game),
        entries,
        seed=job.seed,
        time_control=time_control_of(job),
        cache=cache,
    )


def store_result(held: leases.Claim, played: Played, *, wait: bool = True) -> Match | None:
    """Store one played job's result: :func:`store_results` of one."""
    return store_results([(held, played)], wait=wait)[0]


def store_results(
    results: Sequence[tuple[leases.Claim, Played]], *, wait: bool = True
) -> list[Match | None]:
    """Store played jobs' results, rate what they make ready, and tell browsers; for each,
    its match, or None if the worker no longer holds the job (its lease ran out and another
    worker took it).

    Two short transactions, whatever the number of results. The first locks the jobs and
    marks done those the worker still holds (a SELECT ... FOR UPDATE of the jobs in id
    order, then one UPDATE), and writes their matches, seats and results by opponent (one
    statement each for all the matches); it takes no lock but the jobs' rows, so workers
    store side by side. The second, :func:`bots.ratings.rate_pending` (once per game), takes
    the game's rating ledger only while it rates. If the database goes away in between,
    calling this again finds the results stored by these very claims and goes on with the
    rating. ``wait=False`` (a worker): if another transaction is rating the game at this
    moment, the rating is left to later stores instead of waited for (see
    :func:`bots.ratings.rate_pending`)."""
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
    for game in sorted({job.game for job, _ in stored}):
        rate_pending(game, wait=wait)
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
    opponent that the matches add to (:mod:`bots.aggregates`), so those totals never count
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
        )
        for match, (held, played) in zip(matches, results, strict=True)
        for seat, (version, report) in enumerate(zip(held.job.seats, played.seats, strict=True))
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


def _maybe_finish(tournament_id: int) -> bool:
    """Mark the tournament done if none of its jobs is queued or running (one UPDATE).
    Called after the job's own transaction committed: of two workers storing a
    tournament's last jobs at once, the one that commits last sees both done."""
    open_jobs = MatchJob.objects.filter(
        tournament_id=tournament_id, status__in=[MatchJob.QUEUED, MatchJob.RUNNING]
    )
    return bool(
        Tournament.objects.filter(~Exists(open_jobs), pk=tournament_id)
        .exclude(state=Tournament.DONE)
        .update(state=Tournament.DONE, finished=timezone.now())
    )


def progress(tournament_id: int) -> dict[str, int]:
    counts = {s: 0 for s, _ in MatchJob.STATUSES}
    jobs = MatchJob.objects.filter(tournament_id=tournament_id).values("status")
    for row in jobs.annotate(n=Count("id")).order_by():
        counts[row["status"]] = row["n"]
    return counts


def _push_all(tournament_id: int, matches: list[Match], finished: bool) -> None:
    """:func:`push_progress` of a batch's matches of one tournament, its jobs counted once."""
    if not getattr(settings, "REDIS_URL", ""):
        return
    jobs = progress(tournament_id)
    for match in matches:
        push_progress(tournament_id, match, finished, jobs)


def push_progress(
    tournament_id: int, match: Match, finished: bool, jobs: dict[str, int] | None = None
) -> None:
    """Tell browsers watching the tournament (channel layer group ``tournament-<id>``).
    Only with a channel layer other processes share (Redis). ``jobs``: the tournament's
    jobs by status, when counted already."""
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
        "jobs": progress(tournament_id) if jobs is None else jobs,
    }
    try:
        async_to_sync(layer.group_send)(f"tournament-{tournament_id}", message)
    except (OSError, RedisError) as exc:
        log.warning("event=push.failed tournament=%s error=%r", tournament_id, exc)
