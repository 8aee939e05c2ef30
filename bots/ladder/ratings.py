"""Ratings (openskill's Plackett-Luce model) and leaderboard rows.

Order: an openskill update depends on the ratings it starts from, so the same matches rated
in another order give (slightly) different ratings. Workers finish in any order, so ratings
are not applied in finishing order: each game has a :class:`~bots.models.RatingLedger` and
matches are rated in *job order* (job id), each as soon as every earlier job of its game is
done or failed. Whatever order workers finish in, the ratings come out the same. The price:
a slow match delays the ratings of the matches after it (by at most its lease and
attempts), and the results themselves are stored and visible at once.

Leaderboard rows keep the game's tournament format's running totals (its
:class:`~games.engine.tournament.Standing`), updated with :meth:`Format.tally` as each match
is rated, so a game brings its own score columns by bringing its format.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import BooleanField, Exists, F, Func, OuterRef, Q, QuerySet, Subquery, Value
from openskill.models import PlackettLuce

from bots.models import (
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    Rating,
    RatingHistory,
    RatingLedger,
)
from games.engine.game import Fault
from games.engine.runner import SeatStats
from games.engine.tournament import Format, Standing
from games.registry import get_game

MODEL = PlackettLuce()
#: a new version of a rated bot is less certain: its sigma goes back up to at least this
NEW_VERSION_SIGMA = MODEL.sigma / 2
#: how many jobs one call rates at most (the rest on the next store)
BATCH = 500


def conservative(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def rating_for(bot: Bot) -> Rating:
    rating, _ = Rating.objects.get_or_create(
        bot=bot, defaults={"game": bot.game, "mu": MODEL.mu, "sigma": MODEL.sigma}
    )
    return rating


@transaction.atomic
def on_new_version(version: BotVersion) -> None:
    """A version became active: its bot gets a rating (or a wider sigma) and a row. Like
    every writer of ratings it holds the game's ledger (until the caller's transaction
    ends, or its own when there is none), so a rating under way does not write over the
    wider sigma."""
    lock_ledger(version.bot.game)
    rating = rating_for(version.bot)
    if rating.sigma < NEW_VERSION_SIGMA:
        rating.sigma = NEW_VERSION_SIGMA
        rating.save(update_fields=["sigma", "updated"])
    # (the row too, before it is ranked: saved only in memory, the leaderboard, the API and
    # the ranks kept the old rating, and the bot's page showed the new one beside the old rank)
    _row(version.bot, rating).save(update_fields=["mu", "sigma", "conservative"])
    rerank(version.bot.game)


def _row(bot: Bot, rating: Rating) -> LeaderboardRow:
    row, _ = LeaderboardRow.objects.get_or_create(
        bot=bot,
        defaults={
            "game": bot.game,
            "mu": rating.mu,
            "sigma": rating.sigma,
            "conservative": conservative(rating.mu, rating.sigma),
        },
    )
    row.mu, row.sigma = rating.mu, rating.sigma
    row.conservative = conservative(rating.mu, rating.sigma)
    return row


def lock_ledger(game: str, *, wait: bool = True) -> RatingLedger | None:
    """The game's rating ledger, locked until the transaction ends. Scheduling
    (bots.competition) and rating both take it, so a game's job ids are committed in order.
    ``wait=False``: None at once, instead of waiting, if another transaction holds it."""
    ledger = RatingLedger.objects.select_for_update(skip_locked=not wait).filter(game=game)
    found = ledger.first()
    if found is None and not wait and RatingLedger.objects.filter(game=game).exists():
        return None  # another transaction holds it
    if found is None:  # the game's first: made once, then locked like any other time
        RatingLedger.objects.get_or_create(game=game)
        found = RatingLedger.objects.select_for_update().get(game=game)
    return found


def rate_pending(game: str, *, wait: bool = True) -> int | None:
    """Rate, in job order, every match whose job and every earlier job of the game have
    finished; returns how many matches were rated.

    A short transaction of its own (a savepoint inside the caller's) that holds the game's
    ledger only while it rates: a worker calls it once its result is committed, and whoever
    comes first rates every match that is ready, its own and others' alike. It reads what
    rating needs in a few statements (each match's result, statistics and seats, not its
    events: nothing is replayed), works the updates out in memory and writes them back with
    one statement per table (:class:`Books`).

    ``wait=False`` (a worker after its store): if another transaction is rating this game
    right now, return None at once instead of waiting for it. Whatever it leaves is rated by
    the next store of the game, whoever makes it; any worker rates what is left, found in the
    database (:func:`left_unrated`), when it starts and whenever it goes idle
    (``Worker.settle_ratings``)."""
    with transaction.atomic():
        ledger = lock_ledger(game, wait=wait)
        if ledger is None:
            return None
        jobs = list(
            MatchJob.objects.filter(past_job(Value(game), Value(ledger.rated_through)))
            .order_by("game", "pk")
            .values_list("pk", "status", "tournament_id", "seed")[:BATCH]
        )
        rate = _rate_deals if get_game(game).plays_alone else _rate_matches
        rated, through = rate(Books(game), jobs, ledger.rated_through)
        if through != ledger.rated_through:
            RatingLedger.objects.filter(game=game).update(rated_through=through)
        if rated:
            rerank(game)
    return rated


def left_unrated() -> dict[str, tuple[int, int | None]]:
    """The games whose ratings lag behind their results: the first job past the game's
    ledger (``rated_through``) has finished, so :func:`rate_pending` has something to do
    (a rating skipped because another worker rated the game at that moment, or left by a
    worker killed between its store and its rating). Each game comes with where its ratings
    stand, ``(rated_through, the first job past it still queued or running, or None)``,
    which changes as soon as anything rating could use changes: rating goes in job order up
    to the first job not finished (a one-seat game's deal, whose jobs are consecutive, waits
    for its jobs still playing, the first of them that one). One query, whatever the number
    of games, that reads two jobs a game through the indexes on game and id (never the jobs
    past those: a round of 100,000 jobs queued costs nothing); read from the database, so
    any process sees what any other left."""
    past = MatchJob.objects.order_by("game", "pk")
    first = past.filter(past_job(OuterRef("game"), OuterRef("rated_through")))
    # through the index of queued and running jobs
    still_open = past.filter(
        game=OuterRef("game"),
        pk__gt=OuterRef("rated_through"),
        status__in=(MatchJob.QUEUED, MatchJob.RUNNING),
    )
    ledgers = RatingLedger.objects.annotate(
        first=Subquery(first.values("status")[:1]),
        first_open=Subquery(still_open.values("pk")[:1]),
    ).values_list("game", "rated_through", "first", "first_open")
    return {
        game: (through, first_open)
        for game, through, first, first_open in ledgers
        if first in (MatchJob.DONE, MatchJob.FAILED)
    }


class _RowAfter(Func):
    """``(a, b) > (c, d)``: a row of two values after another, in the order of an index on
    (a, b)."""

    output_field = BooleanField()

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        parts, params = [], []
        for expression in self.get_source_expressions():
            sql, more = compiler.compile(expression)
            parts.append(sql)
            params.extend(more)
        return "({}, {}) > ({}, {})".format(*parts), params


def past_job(game: Any, through: Any) -> Q:
    """The jobs of ``game`` after job ``through`` (expressions: values, or a subquery's
    outer references), in a form the database reads from the index on game and id
    (``job_game_order``): ``game <= g AND (game, id) > (g, t)``, which is exactly
    ``game = g AND id > t``. Written that plainly, PostgreSQL walks the jobs of every game in
    id order instead (it takes a game's jobs to be spread evenly among the others', when
    all of them past a ledger can be another game's): 60-200 ms at a million jobs."""
    return Q(game__lte=game) & Q(_RowAfter(F("game"), F("id"), game, through))


Jobs = list[tuple[int, str, int, int]]


def _rate_matches(books: Books, jobs: Jobs, through: int) -> tuple[int, int]:
    """Games whose bots play each other: the matches of the finished jobs up to the first
    job still queued or running, a deal's seatings together. Each deal is played in every
    seating to cut its luck (:func:`bots.competition.seatings`), so a deal is rated when the
    last of its jobs comes in job order, all its matches then, in job order: never one
    seating alone, which would keep that seating's luck. A deal one of whose seatings could
    not be played (its job failed: the platform's trouble) is not rated at all, and its
    matches say so (:data:`SEATING_LOST`). The order depends on the jobs alone, not on which
    worker finished first. Returns (rated, rated through)."""
    deals = _deal_jobs(books.game, jobs)
    ready: list[int] = []  # the jobs rated, deal after deal
    lost: list[int] = []
    for pk, status, tournament_id, seed in jobs:
        if status not in (MatchJob.DONE, MatchJob.FAILED):
            break
        through = pk
        deal = deals[(tournament_id, seed)]
        if pk != deal[-1][0]:
            continue  # rated with its deal's last job
        done = [job for job, status in deal if status == MatchJob.DONE]
        (ready if len(done) == len(deal) else lost).extend(done)
    stored = {match.job: match for match in _stored(books.game, ready)}
    matches = [stored[job] for job in ready if job in stored]
    books.load({seat.bot_id for match in matches for seat in match.seats})
    for match in matches:
        rate_match(books, match)
    books.flush()
    if lost:
        Match.objects.filter(job_id__in=lost, rated=False).update(unrated=SEATING_LOST)
    return len(matches), through


#: why a match of a game whose bots play each other is not rated: another seating of its
#: deal failed (a job fails only for the platform's trouble; a bot's faults are results)
SEATING_LOST = (
    "another seating of its deal (the same cards, the seats swapped) could not be played, "
    "and a deal counts only in all its seatings, so that no seat keeps its luck"
)


def _deal_jobs(game: str, jobs: Jobs) -> dict[tuple[int, int], list[tuple[int, str]]]:
    """Every job (id and status, in job order) of the deals of these jobs, by (tournament,
    seed): a deal's seatings are created together, so all of them are there (one
    statement, through the index on game and seed)."""
    deals: dict[tuple[int, int], list[tuple[int, str]]] = {}
    found = MatchJob.objects.filter(game=game, seed__in={seed for *_, seed in jobs})
    rows = found.order_by("pk").values_list("pk", "status", "tournament_id", "seed")
    for pk, status, tournament_id, seed in rows:
        deals.setdefault((tournament_id, seed), []).append((pk, status))
    return deals


def _rate_deals(books: Books, jobs: Jobs, through: int) -> tuple[int, int]:
    """One-seat games: each deal is rated once the last of its jobs has finished (its
    jobs are consecutive: the deal is rated at its first). Returns (rated, rated through)."""
    rated = 0
    for pk, status, tournament_id, seed in jobs:
        if status == MatchJob.DONE and Match.objects.filter(job_id=pk, rated=False).exists():
            deal = _deal_of(books.game, tournament_id, seed)
            if deal is None:
                break  # a bot of the same deal is still playing
            rate_deal(books, deal)
            books.flush()  # the next deal's references read these ratings and matches
            rated += len(deal)
        elif status not in (MatchJob.DONE, MatchJob.FAILED):
            break
        through = pk
    return rated, through


# ---- what rating reads of a stored match ----------------------------------------------------
@dataclass
class StoredSeat:
    bot_id: int
    score: float
    fault_kind: str
    fault_reason: str


@dataclass
class Stored:
    """A stored match as rating reads it: its result, per-seat statistics and seats, not
    its events. It holds what :meth:`Format.tally` reads of an outcome (``result``,
    ``faults``, ``stats``), so a match is tallied without being replayed; its faults are its
    seats' (the very faults its log records: the worker stored them from the same outcome)."""

    pk: int
    job: int
    game: str
    seed: int
    played: datetime
    result: dict[str, Any]
    stats: list[SeatStats]
    seats: list[StoredSeat] = field(default_factory=list)

    @property
    def faults(self) -> dict[int, Fault]:
        return {
            n: Fault(seat.fault_kind, seat.fault_reason)
            for n, seat in enumerate(self.seats)
            if seat.fault_kind
        }


def _stored(game: str, job_ids: list[int]) -> list[Stored]:
    """The unrated matches of these jobs, in job order, with their seats (one statement)."""
    if not job_ids:
        return []
    match = ["match_id", "match__job_id", "match__seed", "match__played", "match__record__result"]
    match += ["match__record__stats"]
    seats = (
        MatchSeat.objects.filter(match__job_id__in=job_ids, match__rated=False)
        .order_by("match__job_id", "seat")
        .values_list(*match, "bot_id", "score", "fault_kind", "fault_reason")
    )
    matches: dict[int, Stored] = {}
    for pk, job, seed, played, result, stats, *seat in seats:
        if pk not in matches:
            statistics = [SeatStats(**s) for s in stats or []]
            matches[pk] = Stored(pk, job, game, seed, played, result, statistics)
        matches[pk].seats.append(StoredSeat(*seat))
    return list(matches.values())


# ---- the books a batch of ratings changes ---------------------------------------------------
class Books:
    """The ratings, leaderboard rows and running standings of the bots that a batch of
    matches changes: read once (one statement for all of them), changed in memory match by
    match in job order, and written back by :meth:`flush` (one statement per table). Every
    writer of ratings and rows holds the game's ledger, so nothing changes them meanwhile."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.format = format_of(game)
        #: a game whose format scores lower as better (Last Card: points taken) is rated on
        #: the negated scores
        self.sign = 1 if self.format is None or self.format.higher_is_better else -1
        self.rows: dict[int, LeaderboardRow] = {}
        self.ratings: dict[int, Rating] = {}
        self.standings: dict[int, Standing] = {}
        self.history: list[RatingHistory] = []
        self.moved: set[int] = set()
        self.tallied: set[int] = set()
        self.rated: list[int] = []

    def load(self, bots: set[int]) -> None:
        """Read the rows and ratings of these bots (those not read yet)."""
        missing = bots - self.rows.keys()
        if not missing:
            return
        found = LeaderboardRow.objects.filter(bot_id__in=missing).select_related(
            "bot__owner", "bot__rating"
        )
        for row in found:
            rating = getattr(row.bot, "rating", None)  # None: a row made without a rating
            if rating is not None:
                self.rows[row.bot_id], self.ratings[row.bot_id] = row, rating
        for bot_id in sorted(missing - self.rows.keys()):  # a bot rated for the first time
            bot = Bot.objects.select_related("owner").get(pk=bot_id)
            self.ratings[bot_id] = rating = rating_for(bot)
            self.rows[bot_id] = _row(bot, rating)

    def rating(self, bot_id: int) -> Rating:
        self.load({bot_id})
        return self.ratings[bot_id]

    def update(self, match_id: int, bot_id: int, mu: float, sigma: float) -> None:
        """A bot's new rating after a match, kept in its history."""
        rating = self.ratings[bot_id]
        before = {"mu_before": rating.mu, "sigma_before": rating.sigma}
        # a bot's history counts its rated matches: ``number`` is this one's place in it
        self.history.append(
            RatingHistory(bot_id=bot_id, match_id=match_id, mu=mu, sigma=sigma,
                          number=rating.matches + 1, **before)
        )  # fmt: skip
        rating.mu, rating.sigma = mu, sigma
        rating.matches += 1
        self.moved.add(bot_id)

    def tally(self, match: Stored, bots: list[int]) -> None:
        """Add the match to the seated bots' standings (the format's running totals)."""
        standings = [self.standing(bot_id) for bot_id in bots]
        if self.format is not None:
            self.format.tally(standings, match)
        for bot_id in bots:
            row = self.rows[bot_id]
            # matches are rated in job order, not in the order they were played: the latest
            if row.last_played is None or match.played > row.last_played:
                row.last_played = match.played
            self.tallied.add(bot_id)
        self.rated.append(match.pk)

    def standing(self, bot_id: int) -> Standing:
        if bot_id not in self.standings:
            row = self.rows[bot_id]
            self.standings[bot_id] = standing_from_json(row.standing, row.bot.label)
        return self.standings[bot_id]

    def flush(self) -> None:
        """Write what changed: new history, ratings, rows, and the matches marked rated."""
        RatingHistory.objects.bulk_create(self.history)
        for bot_id in sorted(self.moved):
            rating = self.ratings[bot_id]
            _write(rating, ["mu", "sigma", "matches"])
        for bot_id in sorted(self.moved | self.tallied):
            row, rating = self.rows[bot_id], self.ratings[bot_id]
            row.mu, row.sigma = rating.mu, rating.sigma
            row.conservative = conservative(rating.mu, rating.sigma)
            if bot_id in self.standings:
                standing = self.standings[bot_id]
                row.matches = standing.matches
                row.faults = standing.faults
                row.standing = standing_to_json(standing)
                row.score = self.format.bot_json(standing) if self.format is not None else {}
            _write(row, ROW_FIELDS)
        if self.rated:
            Match.objects.filter(pk__in=self.rated).update(rated=True)
        self.history, self.moved, self.tallied, self.rated = [], set(), set(), []


def _write(obj: Rating | LeaderboardRow, fields: list[str]) -> None:
    """One row's fields, in a plain UPDATE: a batch changes a few rows (the bots of a
    match), and Django builds one UPDATE per row much faster than a ``bulk_update``, whose
    CASE per field and row cost more than the round trips it saves."""
    type(obj).objects.filter(pk=obj.pk).update(**{name: getattr(obj, name) for name in fields})


#: what rating changes in a leaderboard row
ROW_FIELDS = [
    "mu", "sigma", "conservative", "matches", "faults", "standing", "score", "last_played",
]  # fmt: skip


def rate_match(books: Books, match: Stored) -> None:
    """A match with two or more seats: its seats are ranked by score against each other."""
    bots = [seat.bot_id for seat in match.seats]
    if len(bots) >= 2:
        ratings = [books.rating(bot_id) for bot_id in bots]
        teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        new = MODEL.rate(teams, scores=[books.sign * seat.score for seat in match.seats])
        for bot_id, [after] in zip(bots, new, strict=True):
            books.update(match.pk, bot_id, after.mu, after.sigma)
    books.tally(match, bots)


# ---- one-seat games: bots compared on the same deal ----------------------------------------
def _deal_of(game: str, tournament_id: int, seed: int) -> list[Stored] | None:
    """The matches a tournament played on one deal (one seed), or None while any of its jobs
    is still queued or running. A deal's jobs are created together, so they are consecutive
    in job order and the deal is rated when its last one finishes."""
    jobs = list(
        MatchJob.objects.filter(tournament_id=tournament_id, seed=seed).values_list("pk", "status")
    )
    if any(status not in (MatchJob.DONE, MatchJob.FAILED) for _, status in jobs):
        return None
    return _stored(game, sorted(pk for pk, status in jobs if status == MatchJob.DONE))


def rate_deal(books: Books, matches: list[Stored]) -> None:
    """Bots that play alone against the dealer (UTH) are rated against each other on the
    same cards: every match a tournament played on one deal (one seed: a round robin's
    session, or a placement's deal played by the new version and by every other bot as its
    references) is a seat of one openskill game, ranked by the chips it won. Deals are never
    dealt again in another tournament (``bots.competition.fresh_deals``), so a deal is rated
    once, with everything played on it. A deal only one bot played gives leaderboard
    numbers only."""
    seats = [match.seats[0] for match in matches]
    bots = [seat.bot_id for seat in seats]
    books.load(set(bots))
    if len(seats) >= 2:
        teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in map(books.rating, bots)]
        new = MODEL.rate(teams, scores=[books.sign * s.score for s in seats])
        for match, bot_id, [after] in zip(matches, bots, new, strict=True):
            books.update(match.pk, bot_id, after.mu, after.sigma)
    for match, bot_id in zip(matches, bots, strict=True):
        books.tally(match, [bot_id])


# ---- leaderboard rows -----------------------------------------------------------------------
def standing_to_json(standing: Standing) -> dict[str, Any]:
    """A bot's running totals as its leaderboard row keeps them: not its results against
    each opponent, which grow with the bots and are kept apart, a row an opponent
    (``OpponentResult``, bots.ladder.aggregates), paged on the bot's page."""
    data = dataclasses.asdict(standing)
    data["fault_kinds"] = dict(standing.fault_kinds)
    del data["head_to_head"]
    return data


def standing_from_json(data: dict[str, Any], name: str) -> Standing:
    if not data:
        return Standing(name=name, source="upload")
    data = dict(data)
    data.pop("head_to_head", None)  # (a row stored before they were kept apart)
    data["fault_kinds"] = Counter(data.get("fault_kinds", {}))
    data["name"] = name
    return Standing(**data)


def format_of(game: str) -> Format | None:
    spec = get_game(game)
    return spec.tournament() if spec.tournament else None


def rerank(game: str) -> None:
    """Rank the bots competing now (those with an active version; a retired bot keeps its
    row and history, with rank 0). A game whose format is ranked by rating: by the
    conservative estimate mu - 3 sigma, ties by the format's own ranking of its scores, then
    by more matches. A game ranked by its score (alone against a dealer, on the same deals):
    by the format's ranking of the bots that have an estimate, then those that have none
    yet; a rank is provisional where the bot has no estimate or its interval overlaps a
    neighbour's, so the order shown never claims more than the numbers beside it.

    It reads each row's ranking key only (the scores too where they decide: every row of a
    game ranked by score, the tied rows of one ranked by rating), and writes only the rows
    whose rank changed: after a match, usually none or the two that swapped places."""
    fmt = format_of(game)
    by_rating = fmt is None or fmt.ranked_by_rating
    competing = BotVersion.objects.filter(bot=OuterRef("bot"), status=BotVersion.ACTIVE)
    fields = ["id", "bot_id", "conservative", "matches", "rank", "provisional"]
    fields += ["bot__name", "bot__owner__username"] + ([] if by_rating else ["score"])
    rows = list(
        LeaderboardRow.objects.filter(game=game)
        .select_related("bot__owner")
        .only(*fields)
        .annotate(competing=Exists(competing))
    )
    was = {row.pk: (row.rank, row.provisional) for row in rows}
    ranked = [r for r in rows if r.competing]
    provisional = _rank_by_rating(fmt, ranked) if by_rating else _rank_by_score(fmt, ranked)
    for n, (row, unsettled) in enumerate(zip(ranked, provisional, strict=True), start=1):
        row.rank, row.provisional = n, unsettled
    for row in rows:
        if not row.competing:
            row.rank, row.provisional = 0, False
    for row in rows:
        if (row.rank, row.provisional) != was[row.pk]:
            _write(row, ["rank", "provisional"])


def _rank_by_rating(fmt: Format | None, ranked: list[LeaderboardRow]) -> list[bool]:
    """Sort by mu - 3 sigma; among equal ratings by the format's own ranking of their scores
    (read for the tied rows only: the format ranks by a sort key, so the tied rows keep the
    order they have among all), then by more matches. No rank is provisional."""
    key = {row.pk: round(row.conservative, 9) for row in ranked}
    alike = Counter(key.values())
    tied = [pk for pk, k in key.items() if alike[k] > 1]
    own: dict[str, int] = {}
    if fmt is not None and tied:
        scores = LeaderboardRow.objects.filter(pk__in=tied).values_list("score", flat=True)
        order = fmt.rank([score for score in scores if score])
        own = {entry["name"]: n for n, entry in enumerate(order)}
    ranked.sort(key=lambda r: (-key[r.pk], own.get(r.bot.label, len(own)), -r.matches, r.bot_id))
    return [False] * len(ranked)


def _rank_by_score(fmt: Format, ranked: list[LeaderboardRow]) -> list[bool]:
    """Sort by the format's ranking of the bots with an estimate, then those without one;
    a rank is provisional where its interval is not separated from a neighbour's."""
    order = fmt.rank([row.score for row in ranked if row.score])
    own = {entry["name"]: n for n, entry in enumerate(order)}
    intervals = {row.pk: fmt.interval(row.score) if row.score else None for row in ranked}
    ranked.sort(
        key=lambda r: (
            intervals[r.pk] is None,
            own.get(r.bot.label, len(own)),
            -r.matches,
            r.bot_id,
        )
    )
    spans = [intervals[r.pk] for r in ranked]
    return [
        span is None
        or (n > 0 and _overlap(span, spans[n - 1]))
        or (n + 1 < len(spans) and _overlap(span, spans[n + 1]))
        for n, span in enumerate(spans)
    ]


def _overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two intervals are not separated (an estimate missing is never separated)."""
    return a is None or b is None or (a[0] <= b[1] and b[0] <= a[1])


def ranked_rows(game: str) -> QuerySet[LeaderboardRow]:
    """The rows of the bots in the ranking, best first (retired bots are not among them)."""
    return (
        LeaderboardRow.objects.filter(game=game, rank__gt=0)
        .select_related("bot", "bot__owner")
        .order_by("rank", "pk")
    )


def ranked_by(game: str) -> str:
    """What a game's ranking goes by, in words (pages and the API)."""
    fmt = format_of(game)
    if fmt is None or fmt.ranked_by_rating:
        return "rating = mu - 3 sigma, ties by the game's own score"
    return (
        f"{fmt.score_label} on the same deals, with its 95% interval; a rank is provisional "
        "until the bot's interval is separated from its neighbours'"
    )


def ranking_measure(row: LeaderboardRow) -> dict[str, Any]:
    """The number a row is ranked by, as a cell (``text``, ``value``) with its name (``title``):
    the rating, or the format's score (the first of its columns)."""
    fmt = format_of(row.game)
    if fmt is None or fmt.ranked_by_rating or not row.score:
        return _cell(f"{row.conservative:.2f}", row.conservative) | {"title": "rating"}
    column = fmt.columns()[0]
    try:
        return column.cell(row.score) | {"title": column.title}
    except (KeyError, TypeError, ValueError):  # a row stored before the column's keys
        score = row.score.get("score")
        text = f"{score:+.2f}" if isinstance(score, int | float) else "-"
        return _cell(text, score) | {"title": fmt.score_label}


def _cell(text: str, value: Any) -> dict[str, Any]:
    return {"text": text, "value": value}
