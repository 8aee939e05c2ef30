"""Workers on a real PostgreSQL: killed workers, concurrent workers, misbehaving bots."""

from __future__ import annotations

import signal
import time

import pytest

from bots.competition.faults import WITHDRAWN
from bots.running.playing import Entry, play
from games.registry import get_game
from tests.competition.conftest import builtin_code, misbehaving, write_bot
from tests.processes import children_of

pytestmark = pytest.mark.services

SLOW = misbehaving("import time; time.sleep(0.03)")


def _wait_until(condition, failure: str, worker, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert worker.proc.poll() is None, f"{failure}: it exited\n{worker.text()}"
        assert time.monotonic() < deadline, f"{failure} in {timeout:g} s; its log:\n{worker.text()}"
        time.sleep(0.05)


def _all_done_once(site) -> None:
    jobs = site.one("SELECT count(*) FROM bots_matchjob")
    assert jobs > 0
    assert site.one("SELECT count(*) FROM bots_matchjob WHERE status <> 'done'") == 0
    assert site.one("SELECT count(*) FROM bots_match") == jobs
    assert site.one("SELECT count(*) FROM bots_match WHERE NOT rated") == 0


def test_it_replays_the_job_of_a_worker_killed_mid_match(site, tmp_path):
    site.upload(write_bot(tmp_path, "simple", builtin_code("simple")), "alice")
    site.upload(write_bot(tmp_path, "slow", SLOW), "bob")
    site.manage("start_tournament", "--rounds", "1", "--seed", "5")
    doomed = site.start_worker("doomed", "--lease", "2")
    job = site.wait_for(
        "SELECT id FROM bots_matchjob WHERE status = 'running' AND worker = 'doomed'"
    )
    doomed.kill()
    assert site.one("SELECT count(*) FROM bots_match WHERE job_id = %s", job) == 0
    site.wait_for("SELECT 1 FROM bots_matchjob WHERE id = %s AND lease_until < now()", job)
    rescuer = site.start_worker("rescuer", "--lease", "2", "--batch")
    assert rescuer.wait(timeout=120) == 0
    assert job in rescuer.claimed()
    row = site.sql("SELECT status, attempts, errors FROM bots_matchjob WHERE id = %s", job)[0]
    assert row == ("done", 2, 0)  # taken twice; the killed worker is not an error of the job
    assert site.sql("SELECT worker FROM bots_match WHERE job_id = %s", job) == [("rescuer",)]
    _all_done_once(site)


def test_it_never_gives_one_job_to_two_workers(site, tmp_path):
    site.upload(write_bot(tmp_path, "simple", builtin_code("simple")), "alice")
    site.upload(write_bot(tmp_path, "strong", builtin_code("strong")), "bob")
    site.upload(write_bot(tmp_path, "slow", SLOW), "carol")
    site.manage("start_tournament", "--rounds", "2", "--seed", "9")
    one = site.start_worker("one", "--batch")
    two = site.start_worker("two", "--batch")
    assert one.wait(timeout=180) == 0 and two.wait(timeout=180) == 0
    claimed_one, claimed_two = one.claimed(), two.claimed()
    assert claimed_one and claimed_two
    assert not set(claimed_one) & set(claimed_two)
    jobs = [row[0] for row in site.sql("SELECT id FROM bots_matchjob")]
    assert sorted(claimed_one + claimed_two) == sorted(jobs)
    assert site.one("SELECT max(attempts) FROM bots_matchjob") == 1
    _all_done_once(site)


def test_it_records_crashing_hanging_and_flooding_bots_and_goes_on(site, tmp_path):
    good = {"simple": "alice", "strong": "bob"}
    bad = {
        "crash": "import os; os._exit(3)",
        "hang": "while True: pass",
        "flood": "import sys; sys.stderr.write('x' * 3000000); sys.stderr.flush()",
    }
    for name, owner in good.items():
        site.upload(write_bot(tmp_path, name, builtin_code(name)), owner, PLACEMENT_DEALS="0")
    for name in bad:
        # valid code passes validation; the misbehaving code replaces it afterwards, as a bot
        # that behaves differently in competition would
        site.upload(write_bot(tmp_path, name, SLOW.replace("0.03", "0")), name, PLACEMENT_DEALS="0")
        site.sql(
            "UPDATE bots_botversion SET code = %s FROM bots_bot "
            "WHERE bots_botversion.bot_id = bots_bot.id AND bots_bot.name = %s",
            misbehaving(bad[name]), name,
        )  # fmt: skip
    site.manage(
        "start_tournament", "--rounds", "1", "--seed", "3", "--move", "0.3", "--bank", "0.4"
    )
    workers = [site.start_worker(n, "--batch") for n in ("w1", "w2")]
    assert all(w.wait(timeout=180) == 0 for w in workers)
    # every job played once, but those withdrawn when a bad bot was taken off the ladder for
    # faulting in 5 matches in a row (bots.competition.faults: 8 matches each, all faults)
    done = site.one("SELECT count(*) FROM bots_matchjob WHERE status = 'done'")
    assert site.one("SELECT count(*) FROM bots_match") == done > 0
    assert site.one("SELECT count(*) FROM bots_match WHERE NOT rated") == 0
    others = site.sql("SELECT DISTINCT status, error FROM bots_matchjob WHERE status <> 'done'")
    assert others in ([], [("failed", WITHDRAWN)])
    versions = site.sql(
        "SELECT b.name, v.status, v.reason FROM bots_botversion v JOIN bots_bot b "
        "ON b.id = v.bot_id"
    )
    off = {name for name, status, reason in versions if reason.startswith("taken off the ladder")}
    assert off and off <= set(bad)
    assert {name for name, status, _ in versions if status == "active"} >= set(good)
    faults = site.sql(
        "SELECT b.name, s.fault_kind, s.fault_reason FROM bots_matchseat s "
        "JOIN bots_bot b ON b.id = s.bot_id"
    )
    kinds: dict[str, set[str]] = {}
    for name, kind, reason in faults:
        kinds.setdefault(name, set()).add(kind)
        assert bool(kind) == bool(reason)
    assert kinds == {
        "simple": {""}, "strong": {""}, "crash": {"crash"}, "hang": {"timeout"},
        "flood": {"output"},
    }  # fmt: skip
    # the good bots' match against each other is exactly what the same seed gives in-process
    rows = site.sql(
        "SELECT m.seed, b.name, s.score FROM bots_match m "
        "JOIN bots_matchseat s ON s.match_id = m.id JOIN bots_bot b ON b.id = s.bot_id "
        "WHERE m.id IN (SELECT s2.match_id FROM bots_matchseat s2 JOIN bots_bot b2 "
        "ON b2.id = s2.bot_id GROUP BY s2.match_id "
        "HAVING bool_and(b2.name IN ('simple', 'strong'))) ORDER BY m.id, s.seat"
    )
    assert len(rows) == 4
    for (seed, first, score0), (_, second, score1) in zip(rows[::2], rows[1::2], strict=True):
        entries = [Entry(first, builtin=first), Entry(second, builtin=second)]
        expected = play(get_game("rps-poker"), entries, seed=seed).outcome.result["scores"]
        assert [score0, score1] == expected
    # the flooding bot's owner sees its stderr (capped)
    flood_err = site.one(
        "SELECT max(length(s.stderr)) FROM bots_matchseat s JOIN bots_bot b ON b.id = s.bot_id "
        "WHERE b.name = 'flood'"
    )
    assert 0 < flood_err <= 16 * 1024


def test_it_finishes_the_current_match_on_sigterm_and_exits(site, tmp_path):
    site.upload(write_bot(tmp_path, "simple", builtin_code("simple")), "alice")
    site.upload(write_bot(tmp_path, "slow", SLOW), "bob")
    worker = site.start_worker("polite")
    job = site.wait_for(
        "SELECT id FROM bots_matchjob WHERE status = 'running' AND worker = 'polite'"
    )
    worker.proc.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=60) == 0
    # it claimed a batch (the job found running among them): the match under way when the
    # signal came was stored, the jobs of the batch not yet played were given back as they
    # were, nothing counted
    claimed = worker.claimed()
    assert job in claimed
    done = [row[0] for row in site.sql("SELECT id FROM bots_matchjob WHERE status = 'done'")]
    assert done and sorted(done) == claimed[: len(done)]
    for rest in claimed[len(done) :]:
        row = site.sql("SELECT status, attempts, errors FROM bots_matchjob WHERE id = %s", rest)
        assert row == [("queued", 1, 0)]
    assert site.one("SELECT count(*) FROM bots_matchjob WHERE status = 'queued'") > 0
    assert site.one("SELECT count(*) FROM bots_matchjob WHERE status = 'running'") == 0


def test_it_gives_the_job_back_on_a_second_sigterm(site, tmp_path):
    site.upload(write_bot(tmp_path, "simple", builtin_code("simple")), "alice")
    site.upload(write_bot(tmp_path, "slow", SLOW), "bob")
    site.sql(
        "UPDATE bots_botversion SET code = %s FROM bots_bot "
        "WHERE bots_botversion.bot_id = bots_bot.id AND bots_bot.name = 'slow'",
        misbehaving("import time; time.sleep(0.25)"),
    )
    worker = site.start_worker("hasty")
    job = site.wait_for(
        "SELECT id FROM bots_matchjob WHERE status = 'running' AND worker = 'hasty'"
    )
    _wait_until(lambda: children_of(worker.proc.pid), "the worker started no bot process", worker)
    worker.proc.send_signal(signal.SIGTERM)  # in the middle of the match
    _wait_until(
        lambda: "event=worker.stopping worker=hasty" in worker.text(),
        "the worker did not log that it took the first SIGTERM",
        worker,
    )
    worker.proc.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=30) == 0
    row = site.sql("SELECT status, attempts, errors, error FROM bots_matchjob WHERE id = %s", job)
    # claimed once, given back, and no error counted against it
    assert row == [("queued", 1, 0, "the worker was stopped")]
    assert site.one("SELECT count(*) FROM bots_match") == 0
