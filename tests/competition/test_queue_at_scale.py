"""The queue at a million matches (an audit's operator, reportS): the statements a worker and a
retirement run often read what they need through an index, not every job or match ever
stored, and still find exactly what they found before.

- a claim reads the queued jobs and the running ones whose lease ran out in two statements,
  each in claim order through ``job_claim_order``, merged: one statement with both (an OR)
  sorted the whole queue on every claim (half a second with 100,000 jobs queued);
- whether a game has jobs open (a ladder round starts only when it has none) reads
  ``job_game_open``; ratings read a game's jobs past the ledger through ``job_game_order``
  (each read every job of every game: 100-400 ms);
- the unrated matches of bots are counted through ``match_unrated``;
- a retirement finds the jobs that seat the version in the database, not by reading every
  queued job into Python (6 s and 84 MB with 100,000 queued);
- a round's jobs are inserted a batch at a time, never all in one statement.

PostgreSQL's plans are checked with sequential scans and sorts priced out (a test's tables
are small, and on small tables a scan and a sort are cheapest): what is left is whether an
index can give the rows in the order asked."""

from __future__ import annotations

import itertools
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core.cache import caches
from django.db import connection
from django.db.models import Q, Value
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots import competition
from bots.competition import counts
from bots.competition.leaving import seating, withdraw_queued_jobs
from bots.ladder import ratings
from bots.ladder.ratings import left_unrated, past_job
from bots.models import Match, MatchJob, RatingLedger, Tournament
from tests.competition.conftest import builtin_code

GAME = "rps-poker"
RETIRED = "withdrawn: the bot was retired by its owner"


@pytest.fixture
def tournament(db) -> Tournament:
    return Tournament.objects.create(game=GAME)


#: a deal of its own for each job made here (a worker never plays two seatings of one deal
#: at once: competition._deals_free)
_SEEDS = itertools.count(1)


def _job(tournament: Tournament, **fields) -> MatchJob:
    fields = {"game": GAME, "seats": [1, 2], "seed": next(_SEEDS)} | fields
    return MatchJob.objects.create(tournament=tournament, **fields)


def _plan(sql: str) -> str:
    """PostgreSQL's plan of ``sql`` with sequential scans and sorts (whole or incremental)
    priced out."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SET LOCAL enable_incremental_sort = off")
        cursor.execute("EXPLAIN " + sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        for setting in ("enable_seqscan", "enable_sort", "enable_incremental_sort"):
            cursor.execute(f"RESET {setting}")
    return plan


def _statements(run, table: str = "bots_matchjob") -> list[str]:
    """The SELECTs of ``table`` that ``run()`` makes."""
    with CaptureQueriesContext(connection) as ctx:
        run()
    return [
        q["sql"]
        for q in ctx.captured_queries
        if q["sql"].startswith("SELECT") and table in q["sql"]
    ]


# ---- claims ---------------------------------------------------------------------------------
def test_claims_take_queued_jobs_and_expired_leases_in_one_claim_order(tournament):
    """Queued jobs and running jobs whose lease ran out are read apart and merged: the order
    is the claim order across both, as when one statement read them together."""
    now = timezone.now()
    expired = {"status": MatchJob.RUNNING, "worker": "dead", "attempts": 1}
    expired["lease_until"] = now - timedelta(seconds=5)
    live = {"status": MatchJob.RUNNING, "worker": "alive", "attempts": 1}
    live["lease_until"] = now + timedelta(seconds=600)
    q_late = _job(tournament, turn=5)
    x_first = _job(tournament, priority=10, turn=3, **expired)  # a placement's, first
    q_turn1 = _job(tournament, turn=1)
    x_turn1 = _job(tournament, turn=1, **expired)  # same turn: after q_turn1 by id
    _job(tournament, priority=10, turn=0, **live)  # its worker holds it: never claimed
    q_place = _job(tournament, priority=10, turn=4)
    x_turn2 = _job(tournament, turn=2, **expired)
    expected = [x_first, q_place, q_turn1, x_turn1, x_turn2, q_late]

    claimed = []
    while held := competition.claim_many("w", 60, 2):
        claimed += [h.job.pk for h in held]
    assert claimed == [job.pk for job in expected]
    # each was taken once more, the expired ones from their dead worker
    jobs = MatchJob.objects.filter(pk__in=claimed)
    assert set(jobs.values_list("status", "worker")) == {(MatchJob.RUNNING, "w")}
    assert MatchJob.objects.get(pk=x_first.pk).attempts == 2


def test_placements_only_claims_keep_to_placements(tournament):
    expired = {"status": MatchJob.RUNNING, "worker": "dead", "attempts": 1}
    expired["lease_until"] = timezone.now() - timedelta(seconds=5)
    _job(tournament, turn=0)
    _job(tournament, turn=0, **expired)
    placement = _job(tournament, priority=10, turn=1)
    placement_expired = _job(tournament, priority=10, turn=2, **expired)
    took = []
    while held := competition.claim("w", 60, min_priority=10):
        took.append(held.job.pk)
    assert took == [placement.pk, placement_expired.pk]


@pytest.mark.postgresql
def test_a_claim_reads_the_queue_in_order_through_the_claim_index(tournament):
    for turn in range(3):
        _job(tournament, turn=turn)
    selects = [
        sql
        for sql in _statements(lambda: competition.claim_many("w", 60, 2))
        if "FOR UPDATE" in sql
    ]
    assert len(selects) == 2  # the expired leases, the queued jobs
    for sql in selects:
        plan = _plan(sql)
        assert "job_claim_order" in plan, plan
        assert "Sort" not in plan, plan  # the index gives the claim order: nothing sorted


# ---- a game's open jobs, its jobs past the ledger -------------------------------------------
@pytest.mark.postgresql
def test_whether_a_game_has_jobs_open_is_read_from_the_index_of_open_jobs(tournament):
    _job(tournament, status=MatchJob.DONE)
    _job(tournament)
    busy = MatchJob.objects.filter(game=GAME, status__in=[MatchJob.QUEUED, MatchJob.RUNNING])
    sql = _statements(busy.exists)[0]
    assert "job_game_open" in _plan(sql)


def test_jobs_past_the_ledger_are_the_games_own_after_it(db):
    """``past_job`` is ``game = g AND id > t``, exactly, whatever the other games' names."""
    tournament = Tournament.objects.create(game="kuhn")
    made = {
        (game, n): _job(tournament, game=game)
        for n in range(3)
        for game in ("goofspiel", "kuhn", "leduc", "kuhn-ish")
    }
    through = made[("kuhn", 0)].pk
    found = MatchJob.objects.filter(past_job(Value("kuhn"), Value(through)))
    assert list(found.order_by("game", "pk")) == [made[("kuhn", 1)], made[("kuhn", 2)]]


def test_left_unrated_still_finds_what_rating_left_and_where_it_stands(tournament):
    first, second, third = (_job(tournament) for _ in range(3))
    ledger, _ = RatingLedger.objects.get_or_create(game=GAME)
    RatingLedger.objects.create(game="kuhn", rated_through=third.pk + 100)  # nothing past
    assert left_unrated() == {}  # the first job past the ledger is queued
    MatchJob.objects.filter(pk=second.pk).update(status=MatchJob.DONE)
    assert left_unrated() == {}  # rating waits for the first
    MatchJob.objects.filter(pk=first.pk).update(status=MatchJob.FAILED)
    assert left_unrated() == {GAME: (ledger.rated_through, third.pk)}
    MatchJob.objects.filter(pk=third.pk).update(status=MatchJob.RUNNING)
    assert left_unrated() == {GAME: (ledger.rated_through, third.pk)}
    MatchJob.objects.filter(pk=third.pk).update(status=MatchJob.DONE)
    assert left_unrated() == {GAME: (ledger.rated_through, None)}  # it changed: try again
    RatingLedger.objects.filter(game=GAME).update(rated_through=third.pk)
    assert left_unrated() == {}


@pytest.mark.postgresql
def test_rating_reads_a_games_jobs_past_its_ledger_through_the_index_on_game_and_id(tournament):
    for _ in range(3):
        _job(tournament, status=MatchJob.DONE)
    RatingLedger.objects.get_or_create(game=GAME)
    RatingLedger.objects.create(game="kuhn")
    rating = _statements(lambda: ratings.rate_pending(GAME))
    past = [sql for sql in rating if f"LIMIT {ratings.BATCH}" in sql]  # the jobs it rates
    assert len(past) == 1
    for sql in _statements(left_unrated) + past:
        plan = _plan(sql)
        assert "job_game_order" in plan or "job_game_open" in plan, plan
        assert "bots_matchjob_pkey" not in plan, plan


# ---- unrated matches ------------------------------------------------------------------------
@pytest.mark.postgresql
def test_unrated_matches_are_counted_through_their_index(tournament):
    job = _job(tournament, status=MatchJob.DONE)
    Match.objects.create(job=job, tournament=tournament, game=GAME, seed=1, record={})
    unrated = Match.objects.filter(job__isnull=False, rated=False).order_by()
    sql = _statements(unrated.count, "bots_match")[0]
    assert "match_unrated" in _plan(sql)


# ---- a tournament's jobs by status ----------------------------------------------------------
def test_a_tournaments_jobs_are_counted_by_status_from_their_index_alone(tournament):
    """The pages of open tournaments and every worker's store count their jobs by status
    every few seconds: at 830,000 jobs that read the whole table (a sequential scan, 475 ms
    for six open tournaments). The index on (tournament, status) holds all the count needs:
    it is read alone (PostgreSQL's index-only scan, SQLite's covering index), and only the
    tournaments' own entries of it."""
    other = Tournament.objects.create(game=GAME)
    for status, many in [(MatchJob.DONE, 3), (MatchJob.QUEUED, 2), (MatchJob.FAILED, 1)]:
        for _ in range(many):
            _job(tournament, status=status)
            _job(other, status=MatchJob.RUNNING)
    caches["default"].clear()
    counted = _statements(lambda: counts.jobs_by_status([tournament]))
    assert counts.jobs_by_status([tournament])[tournament.pk] == {
        "queued": 2, "running": 0, "done": 3, "failed": 1
    }  # fmt: skip
    [sql] = counted
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL enable_bitmapscan = off")  # (it reads the rows too)
            plan = _plan(sql)
            assert "Index Only Scan using job_tournament_status" in plan, plan
        else:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
            plan = "\n".join(str(row) for row in cursor.fetchall())
            assert "COVERING INDEX job_tournament_status" in plan, plan


def test_the_new_indexes_are_there(db):
    with connection.cursor() as cursor:
        jobs = connection.introspection.get_constraints(cursor, "bots_matchjob")
        matches = connection.introspection.get_constraints(cursor, "bots_match")
    assert jobs["job_game_order"]["columns"] == ["game", "id"]
    assert jobs["job_game_open"]["columns"] == ["game", "id"]
    assert matches["match_unrated"]["columns"] == ["id"]


# ---- retiring -------------------------------------------------------------------------------
def test_the_jobs_seating_a_version_are_found_exactly(tournament):
    """On PostgreSQL by JSON containment, elsewhere by the list's text: the same jobs, never
    one seating a version whose id merely holds the digits of another's."""
    seatings = [[12, 3], [3, 12], [112, 5], [121, 1], [1, 2], [5, 120], [12], [7, 12, 9]]
    jobs = [_job(tournament, seats=seats) for seats in seatings]
    for pk in (12, 1, 2, 3, 5, 9, 11, 120):
        found = set(seating(SimpleNamespace(pk=pk)).values_list("pk", flat=True))
        assert found == {job.pk for job in jobs if pk in job.seats}, pk


def test_a_retirement_reads_no_other_jobs_into_python(alice, bob, carol, active_bot, monkeypatch):
    a = active_bot(alice, "simple", builtin_code("simple"))
    b = active_bot(bob, "strong", builtin_code("strong"))
    leaving = active_bot(carol, "minimal", builtin_code("minimal"))
    tournament = Tournament.objects.create(game=GAME)
    for seed in range(20):  # many queued jobs of others
        _job(tournament, seats=[a.pk, b.pk], seed=seed)
    mine = _job(tournament, seats=[b.pk, leaving.pk], seed=100)
    made: list[int] = []
    real = MatchJob.from_db

    def from_db(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(MatchJob, "from_db", from_db)
    assert withdraw_queued_jobs(leaving, RETIRED) == 1
    assert made == []  # ids and seeds only, of its own jobs
    mine.refresh_from_db()
    assert (mine.status, mine.error) == (MatchJob.FAILED, RETIRED)
    others = MatchJob.objects.filter(~Q(pk=mine.pk))
    assert set(others.values_list("status", flat=True)) == {MatchJob.QUEUED}


# ---- a round's jobs -------------------------------------------------------------------------
def test_a_rounds_jobs_are_inserted_a_batch_at_a_time_in_their_order(
    alice, bob, carol, active_bot, monkeypatch
):
    for owner, name in ((alice, "simple"), (bob, "strong"), (carol, "minimal")):
        active_bot(owner, name, builtin_code(name))
    whole = competition.start_round_robin(GAME, 2, seed=41)  # 12 jobs, one batch
    order = list(whole.jobs.order_by("pk").values_list("round", "seats", "seed", "turn"))
    monkeypatch.setattr(competition, "JOB_BATCH", 5)
    with CaptureQueriesContext(connection) as ctx:
        batched = competition.start_round_robin(GAME, 2, seed=41 + 10**9)
    inserts = [
        q for q in ctx.captured_queries if q["sql"].startswith('INSERT INTO "bots_matchjob"')
    ]
    assert len(inserts) == 3  # 5 + 5 + 2
    again = list(batched.jobs.order_by("pk").values_list("round", "seats", "seed", "turn"))
    # the same schedule on its own deals: rounds, seatings and turns in the same order, each
    # deal's seatings together as before
    assert [(r, seats, turn) for r, seats, _, turn in again] == [
        (r, seats, turn) for r, seats, _, turn in order
    ]
    assert len({seed for *_, seed, _ in again}) == len({seed for *_, seed, _ in order})
