"""The worker outlives its database: outages are waited out, never counted against a job.

The first tests make the database fail on cue in-process (fast, every path); the last ones
take a real database away: a PostgreSQL server of the test's own is shut down and started
again, and a SQLite file is locked past the site's busy timeout, under running workers.
"""

from __future__ import annotations

import re
import sqlite3
import time
from datetime import datetime

import pytest
from django.db import DataError, OperationalError

from bots import competition
from bots.competition import leases, uploads
from bots.models import BotVersion, Match, MatchJob
from bots.worker import Heartbeat, Options, Worker
from tests.competition.conftest import builtin_code, misbehaving
from tests.competition.services import Site
from tests.competition.services import Worker as WorkerProcess

SLOW = misbehaving("import time; time.sleep(0.02)")


@pytest.fixture
def two_bots(alice, bob, active_bot):
    return active_bot(alice, "simple", builtin_code("simple")), active_bot(
        bob, "strong", builtin_code("strong")
    )


@pytest.fixture(autouse=True)
def in_process_tests_keep_the_test_connection(request):
    """In-process tests fake the failures inside the test's transaction, so they keep the
    connection (tests/conftest.py); the tests below that take a real database away run real
    workers, which drop theirs."""
    if "db" in request.fixturenames or "alice" in request.fixturenames:
        request.getfixturevalue("keep_the_test_connection")


def failing(times: int, real, error: Exception | None = None):
    """``real``, after raising ``error`` (a lost connection) the first ``times`` calls."""
    calls = {"n": 0}

    def call(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] <= times:
            raise error or OperationalError("server closed the connection unexpectedly")
        return real(*args, **kwargs)

    call.calls = calls  # type: ignore[attr-defined]
    return call


def quick_worker(**options) -> Worker:
    return Worker(Options(validate=False, db_retry_max_s=0.01, **options), name="w1")


def test_a_result_waits_for_the_database_and_is_stored_once(two_bots, monkeypatch):
    tournament = competition.start_round_robin("rps-poker", 1, seed=11)
    store = failing(3, competition.store_results)
    monkeypatch.setattr(competition, "store_results", store)
    worker = quick_worker()
    assert worker.run(batch=True) == 2
    assert store.calls["n"] == 2 + 3
    assert worker.counters.outages == 3 and worker.counters.played == 2
    jobs = list(tournament.jobs.values_list("status", "attempts", "errors"))
    assert jobs == [(MatchJob.DONE, 1, 0)] * 2
    assert Match.objects.filter(tournament=tournament).count() == 2


def test_claims_wait_for_the_database(two_bots, monkeypatch):
    tournament = competition.start_round_robin("rps-poker", 1, seed=12)
    monkeypatch.setattr(competition, "claim_many", failing(5, competition.claim_many))
    worker = quick_worker()
    assert worker.run(batch=True) == 2
    assert worker.counters.outages == 5
    assert set(tournament.jobs.values_list("status", "errors")) == {(MatchJob.DONE, 0)}


def test_an_error_of_ours_while_storing_is_counted_and_the_worker_goes_on(two_bots, monkeypatch):
    tournament = competition.start_round_robin("rps-poker", 1, seed=13)
    monkeypatch.setattr(
        competition, "store_results", failing(1, competition.store_results, DataError("bad"))
    )
    worker = quick_worker()
    assert worker.step() is True
    job = tournament.jobs.order_by("id").first()
    job.refresh_from_db()
    assert (job.status, job.errors) == (MatchJob.QUEUED, 1)
    assert job.error == "could not store on w1: DataError: bad"
    worker.run(batch=True)
    assert set(tournament.jobs.values_list("status", flat=True)) == {MatchJob.DONE}


def test_the_heartbeat_outlives_an_outage(two_bots, monkeypatch):
    competition.start_round_robin("rps-poker", 1, seed=14)
    held = competition.claim("w1", lease_s=60)
    answers = [OperationalError("terminating connection due to administrator command"), True]
    calls = []

    def beat(claim, lease_s):
        calls.append(claim)
        answer = answers[len(calls) - 1] if len(calls) <= len(answers) else False
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(leases, "heartbeat", beat)
    thread = Heartbeat(held, lease_s=0.3)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive()
    # the outage did not end the thread: it beat again, then learnt that the job was lost
    assert len(calls) == 3 and thread.lost


def test_validation_has_a_cap_and_ends_in_a_clear_rejection(alice, monkeypatch):
    version = uploads.upload(alice, "rps-poker", "mine", "mine.py", builtin_code("simple").encode())

    def broken(version):
        raise KeyError("a bug on our side")

    monkeypatch.setattr(uploads, "run_validation", broken)
    worker = Worker(Options(max_attempts=3, db_retry_max_s=0.01, poll_s=0), name="w1")
    for _ in range(3):
        assert worker.validate_one() is True
        version.refresh_from_db()
        assert version.status == BotVersion.VALIDATING and version.validation_lease is None
    assert worker.validate_one() is False  # the fourth claim rejects it instead
    version.refresh_from_db()
    assert version.status == BotVersion.REJECTED
    assert version.reason == (
        "validation failed 3 times; the last time: error on w1: KeyError: 'a bug on our side'"
    )
    assert (version.validation_claims, version.validation_errors) == (3, 3)


def test_validations_taken_by_workers_that_died_end_at_the_claims_cap(alice):
    version = uploads.upload(alice, "rps-poker", "mine", "mine.py", builtin_code("simple").encode())
    BotVersion.objects.filter(pk=version.pk).update(validation_claims=20)
    assert uploads.claim_validation("w1", 60, leases.Caps(errors=3, claims=20)) is None
    version.refresh_from_db()
    assert version.status == BotVersion.REJECTED
    # whole words for the owner: no "validation taken 20 times", no worker's name
    assert version.reason == (
        "validation given up: the site's workers stopped 20 times while validating it (the "
        "site's trouble, not your bot's); upload the same file again later"
    )


def test_a_validation_verdict_waits_for_the_database(alice, monkeypatch):
    uploads.upload(alice, "rps-poker", "mine", "mine.py", builtin_code("simple").encode())
    monkeypatch.setattr(uploads, "record_validation", failing(2, uploads.record_validation))
    worker = Worker(Options(db_retry_max_s=0.01), name="w1")
    assert worker.validate_one() is True
    version = BotVersion.objects.get()
    assert version.status == BotVersion.ACTIVE and version.validation_errors == 0
    assert worker.counters.outages == 2


# ---- real databases going away ----------------------------------------------------------------
def _bots(site: Site, tmp_path) -> None:
    for user, name, code in (
        ("alice", "simple", builtin_code("simple")),
        ("bob", "strong", builtin_code("strong")),
        ("carol", "slow", SLOW),
    ):
        path = tmp_path / f"{name}.py"
        path.write_text(code)
        site.upload(path, user)
    site.manage("start_tournament", "--rounds", "2", "--seed", "21")


def _every_job_done_once_and_nothing_counted(site: Site) -> None:
    jobs = site.one("SELECT count(*) FROM bots_matchjob")
    assert jobs >= 12  # the tournament's, and the placement matches of the uploads
    assert site.sql("SELECT status, count(*) FROM bots_matchjob GROUP BY status") == [
        ("done", jobs)
    ]
    assert site.one("SELECT count(*) FROM bots_match") == jobs
    assert site.one("SELECT count(DISTINCT job_id) FROM bots_match") == jobs
    assert site.one("SELECT max(errors) FROM bots_matchjob") == 0
    assert site.one("SELECT count(*) FROM bots_match WHERE NOT rated") == 0


def _wait_for_some_work(site: Site) -> None:
    site.wait_for("SELECT 1 FROM bots_matchjob WHERE status = 'done'", timeout=120)
    site.wait_for("SELECT 1 FROM bots_matchjob WHERE status = 'running'", timeout=60)
    open_jobs = "SELECT count(*) FROM bots_matchjob WHERE status IN ('queued', 'running')"
    assert site.one(open_jobs) > 2


#: the time a line of a worker's log was written (its continuation lines have none)
STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ", re.MULTILINE)


def _log_marks(workers: list[WorkerProcess]) -> dict[str, int]:
    """Where each worker's log is now: what it logs next is read from there."""
    return {w.name: len(w.text()) for w in workers}


def _outage_seen_for(text: str, sign: str) -> float:
    """Seconds from a log's first line with ``sign`` to its last line (-1: no such line)."""
    first = text.find(sign)
    if first < 0:
        return -1.0
    stamps = [datetime.strptime(m, "%Y-%m-%d %H:%M:%S,%f") for m in STAMP.findall(text)]
    met = [datetime.strptime(m, "%Y-%m-%d %H:%M:%S,%f") for m in STAMP.findall(text[:first])]
    if not stamps or not met:
        return -1.0
    return (stamps[-1] - met[-1]).total_seconds()


def _waits_out(
    workers: list[WorkerProcess],
    start: dict[str, int],
    sign: str,
    lasting: float,
    timeout: float = 180,
) -> None:
    """Wait until every worker's log, since ``start`` (its marks), shows that it met the
    outage (a line with ``sign``) and went on, still running, for more than ``lasting``
    seconds after it (a later line of its log says so)."""
    deadline = time.monotonic() + timeout
    waiting = list(workers)
    while waiting:
        for worker in list(waiting):
            assert worker.proc.poll() is None, (
                f"a worker exited: the database was away\n{worker.text()}"
            )
            if _outage_seen_for(worker.text()[start[worker.name] :], sign) > lasting:
                waiting.remove(worker)
        assert time.monotonic() < deadline, (
            f"after {timeout:g} s, not seen that {[w.name for w in waiting]} met the outage"
            f" ({sign!r}) and went on for over {lasting:g} s; their logs since:\n"
            + "\n".join(w.text()[start[w.name] :][-3000:] for w in waiting)
        )
        time.sleep(0.1)


def _started(workers: list[WorkerProcess], timeout: float = 120) -> None:
    """Wait until every worker has started: it reached the database (a worker that cannot
    reach it as it starts stops at once; only then does it wait outages out)."""
    deadline = time.monotonic() + timeout
    for worker in workers:
        while "event=worker.start" not in worker.text():
            assert worker.proc.poll() is None, worker.text()
            assert time.monotonic() < deadline, f"{worker.name} did not start:\n{worker.text()}"
            time.sleep(0.1)


@pytest.fixture
def own_postgres(tmp_path_factory):
    """A migrated site on a PostgreSQL server that this test may shut down."""
    from cardsite.localservices import postgres_server

    base = tmp_path_factory.mktemp("outage")
    with postgres_server(base) as server:
        site = Site.migrated(server.url, base)
        try:
            yield server, site
        finally:
            for worker in site.workers:
                worker.kill()


@pytest.mark.services
def test_workers_outlive_a_postgresql_shutdown(own_postgres, tmp_path):
    server, site = own_postgres
    _bots(site, tmp_path)
    workers = [site.start_worker(name, "--lease", "3", "--batch") for name in ("one", "two")]
    _wait_for_some_work(site)
    _started(workers)
    marks = _log_marks(workers)
    server.pause()
    # each met the outage, and was still at it after its 3 s lease ran out
    _waits_out(workers, marks, "event=database.unavailable", lasting=3)
    assert all(w.proc.poll() is None for w in workers), "a worker exited: the database was away"
    server.resume()
    for worker in workers:
        assert worker.wait(timeout=240) == 0, worker.text()
    text = "".join(w.text() for w in workers)
    assert "event=database.unavailable" in text and "event=database.back" in text
    assert "Traceback" not in text
    _every_job_done_once_and_nothing_counted(site)


@pytest.mark.services
def test_a_worker_outlives_a_sqlite_file_locked_past_its_busy_timeout(tmp_path):
    site = Site.migrated("", tmp_path, SQLITE_BUSY_TIMEOUT="1")
    _bots(site, tmp_path)
    worker = site.start_worker("one", "--lease", "3", "--batch")
    try:
        _wait_for_some_work(site)
        _started([worker])
        lock = sqlite3.connect(site.sqlite_path, isolation_level=None)
        marks = _log_marks([worker])
        lock.execute("BEGIN EXCLUSIVE")
        try:
            # it hit the lock (a try fails once the 1 s busy timeout has passed), and was still
            # at it after its 3 s lease ran out
            _waits_out([worker], marks, "database is locked", lasting=3)
            assert worker.proc.poll() is None, worker.text()
        finally:
            lock.execute("COMMIT")
            lock.close()
        assert worker.wait(timeout=240) == 0, worker.text()
    finally:
        worker.kill()
    text = worker.text()
    assert "database is locked" in text and "event=database.back" in text
    assert "Traceback" not in text
    _every_job_done_once_and_nothing_counted(site)
