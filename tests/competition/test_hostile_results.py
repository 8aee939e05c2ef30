"""What a hostile bot writes ends as that bot's fault in that match, stored like any other
result (on SQLite and on PostgreSQL, which refuses NUL in text and in JSON)."""

from __future__ import annotations

import pytest

from bots import competition
from bots.competition.uploads import UploadError, upload, validate
from bots.models import BotVersion, LeaderboardRow, Match, MatchJob, MatchSeat
from bots.running.playing import SeatReport
from bots.worker import Options, Worker
from tests.competition.conftest import MISBEHAVING, builtin_code, misbehaving

#: at the last showdown, when it has lost, answers with a list nested 5000 deep (json cannot
#: parse it without RecursionError) and writes NUL and bytes that are not UTF-8 to stderr
SORE_LOSER = misbehaving(
    """
    if len(hand) == 1:
        import sys
        sys.setrecursionlimit(100_000)
        sys.stderr.buffer.write(b"lost\\x00\\xff\\xfe\\xed\\xa0\\x80\\n")
        sys.stderr.flush()
        value = 0
        for _ in range(5000):
            value = [value]
        return value
    """
)


def test_a_sore_loser_cannot_erase_its_losses(alice, bob, active_bot):
    strong = active_bot(alice, "strong", builtin_code("strong"))
    loser = active_bot(bob, "sore", SORE_LOSER)
    MatchJob.objects.all().delete()  # placement jobs: the round robin below is the test
    competition.start_round_robin("rps-poker", 2, seed=11)
    worker = Worker(Options(validate=False), name="w1")
    assert worker.run(batch=True) == 4
    assert MatchJob.objects.filter(status=MatchJob.DONE).count() == 4
    assert Match.objects.count() == 4  # every match stored, none lost
    for seat in MatchSeat.objects.filter(version=loser):
        assert seat.fault_kind == "invalid"
        assert "the reply to main_play is JSON nested" in seat.fault_reason
        assert "\x00" not in seat.stderr and "lost\ufffd" in seat.stderr
        other = MatchSeat.objects.get(match=seat.match, version=strong)
        assert other.score > seat.score
    row = LeaderboardRow.objects.get(bot=loser.bot)
    assert row.matches == 4 and row.faults == 4
    assert LeaderboardRow.objects.get(bot=strong.bot).rank == 1


def test_a_constructor_that_raises_is_a_startup_fault_stored_and_counted(alice, bob, active_bot):
    # the worker's matches go through the same bot process as the arena's and live tables'
    broken = MISBEHAVING.format(act="").replace(
        'name = "misbehaving"\n',
        'name = "misbehaving"\n\n    def __init__(self):\n        raise RuntimeError("no table")\n',
    )
    simple = active_bot(alice, "simple", builtin_code("simple"))
    loser = active_bot(bob, "broken", broken)
    MatchJob.objects.all().delete()
    competition.start_round_robin("rps-poker", 1, seed=5)
    assert Worker(Options(validate=False), name="w1").run(batch=True) == 2
    seats = MatchSeat.objects.filter(version=loser)
    assert [(s.fault_kind, s.fault_reason) for s in seats] == [
        ("startup", "the bot's constructor raised RuntimeError: no table (broken.py, line 6)")
    ] * 2
    assert "RuntimeError: no table" in seats[0].stderr
    assert all(s.fault_kind == "" for s in MatchSeat.objects.filter(version=simple))
    row = LeaderboardRow.objects.get(bot=loser.bot)
    assert row.matches == 2 and row.faults == 2


def test_a_result_full_of_unstorable_text_is_stored(alice, bob, active_bot):
    a = active_bot(alice, "a", builtin_code("simple"))
    b = active_bot(bob, "b", builtin_code("simple"))
    MatchJob.objects.all().delete()
    competition.start_round_robin("rps-poker", 1, seed=3, tables=[[a.pk, b.pk]])
    held = competition.claim("w1", lease_s=60)
    played = competition.play_job(held.job)
    hostile = "x\x00y\ud800z"
    record = played.outcome.record
    record["seats"][0]["name"] = hostile
    record["odd"] = [float("nan"), float("inf"), {1: hostile}]
    played.seats[0] = SeatReport(played.seats[0].score, "invalid", hostile, hostile * 100)
    match = competition.store_result(held, played)
    assert match is not None
    match.refresh_from_db()
    assert match.record["seats"][0]["name"] == "x\ufffdy\ufffdz"
    assert match.record["odd"] == [None, None, {"1": "x\ufffdy\ufffdz"}]
    seat = match.participants.get(seat=0)
    assert seat.fault_reason == "x\ufffdy\ufffdz"
    assert seat.stderr == "x\ufffdy\ufffdz" * 100


def test_an_upload_holding_a_nul_byte_is_refused_with_the_line(alice):
    code = builtin_code("simple").replace("class Bot", "# \x00\nclass Bot", 1)
    line = code[: code.index("\x00")].count("\n") + 1
    with pytest.raises(UploadError, match=f"NUL byte \\(line {line}\\)"):
        upload(alice, "rps-poker", "nul", "nul.py", code.encode())
    assert not BotVersion.objects.exists()


def test_validation_of_a_bot_whose_stderr_and_reason_hold_nul_rejects_it(alice):
    version = upload(alice, "rps-poker", "nul", "nul.py", SORE_LOSER.encode())
    version = validate(version)
    assert version.status == BotVersion.REJECTED
    assert version.reason.startswith("invalid: the reply to main_play is JSON nested")
    assert "lost\ufffd" in version.validation_log and "\x00" not in version.validation_log
