"""A version that faults in its rated matches after validation, match after match, is taken
off the ladder with a reason its owner reads (bots.competition.faults). An audit's bot
passed validation and its placement, then raised on every call (it read the clock): 15
forfeits in a row, and it stayed active with no reason recorded."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bots import competition
from bots.competition import faults
from bots.competition.uploads import retire
from bots.management.commands import upload_bot
from bots.models import (
    HOUSE,
    Bot,
    BotVersion,
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    Rating,
    Tournament,
)
from bots.running.playing import Entry, play
from bots.sandbox import SandboxBusy
from bots.worker import Options, Worker
from games.registry import get_game
from tests.competition.conftest import builtin_code, misbehaving, second_waiting_for_the_lock

RPS = get_game("rps-poker")
ARMED = "RuntimeError: armed: misbehaving after validation"
TAKEN_OFF = "taken off the ladder: it faulted in 5 rated matches in a row after validation"


def in_process(job: MatchJob, faults_by_version: dict[int, str]) -> object:
    """The job's match with the built-in bots of the same names, in-process, each version in
    ``faults_by_version`` ending it with that fault."""
    versions = competition.seat_versions(job)
    entries = [Entry(name=v.bot.label, builtin=v.bot.name) for v in versions]
    played = play(RPS, entries, seed=job.seed)
    for seat, version in enumerate(versions):
        kind = faults_by_version.get(version.pk, "")
        if kind:
            played.seats[seat].fault_kind = kind
            played.seats[seat].fault_reason = ARMED if kind == "exception" else f"a {kind}"
            played.seats[seat].score = 0.0
    return played


@pytest.fixture
def field(alice, carol, active_bot):
    """alice/simple and carol/minimal (the one that misbehaves) with 8 rounds queued."""
    good = active_bot(alice, "simple", builtin_code("simple"))
    bad = active_bot(carol, "minimal", builtin_code("minimal"))
    competition.start_round_robin("rps-poker", 8, seed=31)
    return good, bad


def store_next(*, fault: dict[int, str] | None = None) -> Match:
    held = competition.claim("w1", 60)
    assert held is not None
    match = competition.store_result(held, in_process(held.job, fault or {}))
    assert match is not None
    return match


def status_of(version: BotVersion) -> tuple[str, str]:
    version.refresh_from_db()
    return version.status, version.reason


# ---- the rule -------------------------------------------------------------------------------
def test_five_faults_in_a_row_take_it_off_and_a_match_without_one_starts_again(field):
    good, bad = field
    for _ in range(4):
        store_next(fault={bad.pk: "exception"})
    store_next()  # a match of its without a fault ends the run
    for _ in range(4):
        store_next(fault={bad.pk: "exception"})
    assert status_of(bad) == (BotVersion.ACTIVE, "")
    rating = Rating.objects.get(bot=bad.bot)
    queued = MatchJob.objects.filter(status=MatchJob.QUEUED).count()
    assert queued == 16 - 9 - 0 and queued > 1
    last = store_next(fault={bad.pk: "exception"})
    status, reason = status_of(bad)
    assert status == BotVersion.REJECTED and bad.taken_off is not None
    assert bad.is_taken_off
    assert reason == (
        f"{TAKEN_OFF} (the last, in match {last.pk}: exception: {ARMED}); upload a fixed version"
    )
    # its queued matches are withdrawn as retiring withdraws them, and the round ends
    jobs = MatchJob.objects.exclude(status=MatchJob.DONE)
    assert jobs.count() == queued - 1
    assert {(j.status, j.error) for j in jobs} == {(MatchJob.FAILED, faults.WITHDRAWN)}
    assert Tournament.objects.get().state == Tournament.DONE
    # it leaves the ranking; what it played stays, its rating as the matches left it
    row = LeaderboardRow.objects.get(bot=bad.bot)
    assert row.rank == 0 and row.matches == 10 and row.faults == 9
    after = Rating.objects.get(bot=bad.bot)
    assert after.matches == rating.matches + 2  # the last deal, rated with its last seating
    assert MatchSeat.objects.filter(version=bad).count() == 10
    assert LeaderboardRow.objects.get(bot=good.bot).rank == 1
    # no new round seats it
    MatchJob.objects.all().delete()
    with pytest.raises(ValueError, match="needs at least 2 active bots"):
        competition.start_round_robin("rps-poker", 1)


def test_the_other_seats_faults_and_out_of_worker_time_forfeits_are_not_its_own(field):
    good, bad = field
    for _ in range(3):
        store_next(fault={bad.pk: "exception"})
    # forfeits for being out of worker time neither count nor end its run
    store_next(fault={bad.pk: "time"})
    store_next(fault={bad.pk: "time"})
    store_next(fault={bad.pk: "exception"})
    assert status_of(bad)[0] == BotVersion.ACTIVE
    # the opponent's fault is the opponent's: for it a match without a fault of its own
    store_next(fault={good.pk: "crash"})
    for _ in range(4):
        store_next(fault={bad.pk: "timeout"})
    assert status_of(bad)[0] == BotVersion.ACTIVE
    store_next(fault={bad.pk: "timeout"})
    assert status_of(bad)[0] == BotVersion.REJECTED
    assert bad.reason.startswith(f"{TAKEN_OFF} (the last, in match ")
    assert bad.reason.endswith(": timeout: a timeout); upload a fixed version")
    assert status_of(good) == (BotVersion.ACTIVE, "")


def test_a_bot_forfeiting_only_for_worker_time_stays(field):
    _, bad = field
    for _ in range(8):
        store_next(fault={bad.pk: "time"})
    assert status_of(bad) == (BotVersion.ACTIVE, "")


def table_match(version: BotVersion, fault: str = "") -> Match:
    """A match of ``version`` at a live table (no job), stored as a table stores it."""
    match = Match.objects.create(game="rps-poker", seed=1, record={}, worker="table")
    MatchSeat.objects.create(
        match=match, seat=0, bot=version.bot, version=version, name=version.bot.label,
        score=0.0, fault_kind=fault, fault_reason=ARMED if fault else "",
    )  # fmt: skip
    return match


def test_live_table_matches_neither_count_nor_end_a_run(field):
    """An audit's bot faulted at four live tables and once in a tournament, and was taken
    off: a table's match is played whoever asks, so only tournament matches count."""
    _, bad = field
    for _ in range(4):
        table_match(bad, "exception")
    store_next(fault={bad.pk: "exception"})
    assert status_of(bad) == (BotVersion.ACTIVE, "")
    # ...nor does a clean table match break a crashing bot's run of tournament faults
    for _ in range(3):
        store_next(fault={bad.pk: "exception"})
    table_match(bad)
    last = store_next(fault={bad.pk: "exception"})
    status, reason = status_of(bad)
    assert status == BotVersion.REJECTED
    assert f"(the last, in match {last.pk}: exception: {ARMED})" in reason


@pytest.mark.sqlite
def test_the_check_reads_a_bot_s_seats_through_its_index(field):
    _, bad = field
    store_next(fault={bad.pk: "exception"})
    with CaptureQueriesContext(connection) as queries:
        assert faults.check_version(bad.pk) is None
    seats = queries.captured_queries[-1]["sql"]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {seats}")
        plan = " | ".join(str(row[-1]) for row in cursor.fetchall())
    assert "seat_bot_latest" in plan, plan
    assert "USING INTEGER PRIMARY KEY" in plan, plan  # each match by its key
    assert "TEMP B-TREE" not in plan, plan  # read in the index's order: no sort


def test_a_built_in_bot_of_the_site_is_never_taken_off(carol, active_bot):
    house = User.objects.create_user(HOUSE)
    builtin = active_bot(house, "simple", builtin_code("simple"))
    active_bot(carol, "minimal", builtin_code("minimal"))
    competition.start_round_robin("rps-poker", 4, seed=32)
    for _ in range(8):
        store_next(fault={builtin.pk: "crash"})
    assert status_of(builtin) == (BotVersion.ACTIVE, "")


def test_the_platforms_trouble_neither_counts_nor_ends_a_run(field, monkeypatch):
    """Played by the worker: a job the platform could not play goes back to the queue and
    stores nothing, so no number of them takes a bot off, and they do not end a run."""
    _, bad = field
    script: list[str] = []

    def play_job(job, cache=None, versions=None, spent=None, seen=True):
        step = script.pop(0)
        if step == "busy":
            raise SandboxBusy("no free sandbox slot: all 64 in use")
        return in_process(job, {bad.pk: "exception"} if step == "fault" else {})

    monkeypatch.setattr(competition, "play_job", play_job)
    worker = Worker(Options(validate=False, poll_s=0, claim=1), name="w1")
    script += ["fault"] * 4 + ["busy"] * 8
    for _ in range(12):
        assert worker.step()
    assert Match.objects.count() == 4
    assert status_of(bad) == (BotVersion.ACTIVE, "")
    script.append("fault")
    assert worker.step()
    assert status_of(bad)[0] == BotVersion.REJECTED and bad.is_taken_off


def test_a_batch_without_a_fault_costs_no_statement_and_one_with_a_fault_two(field):
    _, bad = field
    held = competition.claim("w1", 60)
    clean = in_process(held.job, {})
    with CaptureQueriesContext(connection) as queries:
        assert faults.check([(held.job, clean)]) == []
    assert len(queries.captured_queries) == 0
    faulted = in_process(held.job, {bad.pk: "exception"})
    competition.store_result(held, faulted)
    with CaptureQueriesContext(connection) as queries:
        assert faults.check([(held.job, faulted)]) == []
    assert len(queries.captured_queries) == 2  # the version, then its last seats


def test_two_workers_finding_the_same_faults_take_it_off_once(field):
    _, bad = field
    for _ in range(5):
        held = competition.claim("w1", 60)
        with transaction.atomic():  # stored without the check: the run is there already
            competition._mark_done([held])
            competition._write_matches([(held, in_process(held.job, {bad.pk: "exception"}))])
    first = faults.check_version(bad.pk)
    second = faults.take_off(BotVersion.objects.get(pk=bad.pk), "again")
    assert first is not None and second is None
    assert status_of(bad)[1].startswith(TAKEN_OFF)


@pytest.mark.postgresql
def test_two_workers_taking_it_off_at_once_on_postgresql(
    transactional_db, alice, carol, active_bot
):
    """The second waits for the first's row, then finds the version no longer active (SQLite
    has a single writer: two take-offs cannot overlap there)."""
    assert connection.vendor == "postgresql"  # (the first half, on SQLite, leaves it out)
    active_bot(alice, "simple", builtin_code("simple"))
    bad = active_bot(carol, "minimal", builtin_code("minimal"))
    competition.start_round_robin("rps-poker", 4, seed=33)
    for _ in range(5):
        held = competition.claim("w1", 60)
        with transaction.atomic():
            competition._mark_done([held])
            competition._write_matches([(held, in_process(held.job, {bad.pk: "exception"}))])
    other: dict[str, object] = {}

    def second_worker() -> None:
        try:
            other["taken"] = faults.check_version(bad.pk)
        except Exception as exc:  # noqa: BLE001 - the test says what it was
            other["error"] = exc
        finally:
            connection.close()

    with transaction.atomic():
        first = faults.check_version(bad.pk)
        thread = second_waiting_for_the_lock(second_worker, other)
    thread.join(timeout=30)
    assert not thread.is_alive() and "error" not in other, other
    assert first is not None and other["taken"] is None
    # withdrawn, but the other seating of a deal it played (bots.competition.leaving)
    played = {
        (job.tournament_id, job.seed)
        for job in MatchJob.objects.filter(status=MatchJob.DONE)
        if bad.pk in job.seats
    }
    left = MatchJob.objects.filter(status=MatchJob.QUEUED)
    assert all((job.tournament_id, job.seed) in played for job in left), list(left)


# ---- in the sandbox, as the audit saw it ----------------------------------------------------
BOMB = misbehaving('raise RuntimeError("armed: misbehaving after validation")')


@pytest.fixture
def bomb(alice, bob, carol, active_bot):
    """carol/bomb made active as if it had passed validation, then played by a real worker
    (its placement against alice's and bob's bots: 8 matches, every one a fault of its)."""
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    version = active_bot(carol, "bomb", BOMB)
    with transaction.atomic():
        competition.schedule_placement(version)
    Worker(Options(validate=False, poll_s=0), name="w1").run(batch=True)
    version.refresh_from_db()
    return version


def test_a_bot_that_raises_on_every_call_after_validation_is_taken_off(bomb):
    assert bomb.status == BotVersion.REJECTED and bomb.is_taken_off
    assert bomb.reason.startswith(f"{TAKEN_OFF} (the last, in match ")
    assert "exception: " in bomb.reason and "armed: misbehaving after validation" in bomb.reason
    assert bomb.reason.endswith("; upload a fixed version")
    assert "\n" not in bomb.reason
    assert LeaderboardRow.objects.get(bot=bomb.bot).rank == 0
    assert not MatchJob.objects.filter(status=MatchJob.QUEUED).exists()
    assert [v.bot.name for v in competition.active_versions("rps-poker")] == ["simple", "strong"]


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_standings_tell_its_owner_why(bomb, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    out = run("standings", "--user", "carol")
    line = next(line for line in out.splitlines() if line.startswith("carol/bomb: "))
    assert line == f"carol/bomb: v1 {bomb.reason}"
    assert "latest fault: exception in match " in out


def test_upload_wait_ends_saying_it_was_taken_off(alice, bob, active_bot, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    active_bot(alice, "simple", builtin_code("simple"))
    active_bot(bob, "strong", builtin_code("strong"))
    path = tmp_path / "bomb.py"
    path.write_text(BOMB)
    carol = User.objects.create_user("carol")

    def passes(version):  # as if it passed validation: it raises only afterwards
        from bots.competition.uploads import activate

        with transaction.atomic():
            activate(version)
            competition.schedule_placement(version)
        return version

    monkeypatch.setattr(upload_bot, "validate", passes)
    worker = Worker(Options(validate=False, poll_s=0, claim=1), name="w1")
    monkeypatch.setattr(upload_bot.Command, "pause", lambda _self, _s: worker.step())
    out = io.StringIO()
    with pytest.raises(CommandError) as ended:
        call_command("upload_bot", str(path), "--user", carol.username, "--wait", stdout=out,
                     stderr=io.StringIO())  # fmt: skip
    version = BotVersion.objects.get(bot__name="misbehaving")
    # the reason once, in the command's lines (wrapped to 80 columns); the error short
    assert str(ended.value) == "v1 was taken off the ladder (why: above)"
    assert version.reason.startswith(f"{TAKEN_OFF} (the last, in match ")
    said = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in said)
    tail = said[max(i for i, line in enumerate(said) if not line.startswith(" ")) :]
    assert " ".join(line.strip() for line in tail) == f"v1 {version.reason}"


# ---- the pages ------------------------------------------------------------------------------
def test_my_bots_and_the_bot_page_show_it_taken_off_the_reason_to_its_owner_only(bomb):
    owner = Client()
    owner.force_login(bomb.bot.owner)
    mine = owner.get("/my/bots/").content.decode()
    assert "taken off the ladder for faulting in its rated matches" in mine  # out of the ranking
    assert "taken off the ladder</span>" in mine  # the version's status
    assert "it faulted in its rated matches after validation; no longer competing" in mine
    assert bomb.reason.replace("'", "&#x27;") in mine
    BotVersion.objects.filter(pk=bomb.pk).update(validated=bomb.created)
    own_page = owner.get(f"/bots/{bomb.bot.pk}/").content.decode()
    assert "none: v1 was taken off the ladder for faulting in its rated matches" in own_page
    assert bomb.reason.replace("'", "&#x27;") in own_page
    # its versions: it passed validation, then was taken off
    assert re.search(r"· validated <time[^>]*>[^<]*</time> · taken off the ladder <time", own_page)
    status = owner.get(f"/my/bots/versions/{bomb.pk}/status.json").json()
    assert (status["status"], status["text"]) == ("rejected", "taken off the ladder")
    public = Client().get(f"/bots/{bomb.bot.pk}/").content.decode()
    assert "none: v1 was taken off the ladder for faulting in its rated matches" in public
    assert 'out of the ranking <span class="muted">(taken off the ladder: its matches' in public
    assert "upload a fixed version" not in public and "armed" not in public
    assert "retired" not in public


def test_the_leaderboard_counts_it_taken_off_not_retired(bomb):
    """The leaderboard said "Retired bots leave the ranking (1 here)" of a bot nobody
    retired: it was taken off the ladder."""
    board = Client().get("/games/rps-poker/leaderboard/").content.decode()
    assert (
        "Bots no longer competing leave the ranking (here 1 taken off the ladder for faulting "
        "in its rated matches)"
    ) in " ".join(board.split())
    assert "retired" not in board.split('id="out-of-ranking"')[1].split("</p>")[0]
    retire(Bot.objects.get(name="simple"))
    board = Client().get("/games/rps-poker/leaderboard/").content.decode()
    assert (
        "Bots no longer competing leave the ranking (here 1 retired by its owner, 1 taken off "
        "the ladder for faulting in its rated matches)"
    ) in " ".join(board.split())
