"""A fair order of work: a bot that is slow on every move steps aside for the uploads behind
it and is rejected after a few slow moves; owners take turns for validation, placements take
turns for matches. The first test drives the real ``manage.py worker`` on PostgreSQL."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from bots import competition
from bots.competition import uploads
from bots.models import BotVersion, MatchJob
from tests.competition.conftest import builtin_code, misbehaving, write_bot

#: legal moves, each 1.5 s: over RPS Poker's 1 s per call every time (its 10 s time bank
#: would pay for six of them)
SLUGGISH = misbehaving("import time; time.sleep(1.5)")

#: the rejection of SLUGGISH after three slow moves, the third cut off at the per-call time
#: (the times of the first two: at least SLUGGISH's 1.5 s, however busy the machine)
SLUGGISH_REASON = re.compile(
    r"timeout: 3 calls in a row over the 1 s per call \(main_play took (\d+\.\d\d) s; "
    r"main_play took (\d+\.\d\d) s; no answer to main_play within (0\.99|1\.00) s\): "
    r"the 10 s time bank pays for occasional slow calls, not for 3 in a row"
)


def _events(text: str) -> list[tuple[str, int, str]]:
    """(event, version or job id, the rest) of a worker's log, in order."""
    found = re.finditer(r"event=(version\.\w+|job\.done) (?:version|job)=(\d+)(.*)", text)
    return [(m[1], int(m[2]), m[3]) for m in found]


@pytest.mark.services
def test_a_bot_slow_on_every_move_does_not_hold_up_the_uploads_behind_it(
    site, tmp_path, monkeypatch
):
    # one deal a pairing in placement, not two: every placement is still scheduled, played
    # and taken in turns, at half the matches (validation keeps its two, to show the first
    # decided the sluggish bot)
    monkeypatch.setattr(site, "extra_env", {**site.extra_env, "PLACEMENT_DEALS": "1"})
    # an opponent for the placements, validated at once
    site.upload(write_bot(tmp_path, "house", builtin_code("simple")), "house")
    # four fresh uploads waiting for the worker, the sluggish one first
    for name, code in [
        ("sluggish", SLUGGISH),
        ("simple", builtin_code("simple")),
        ("strong", builtin_code("strong")),
        ("minimal", builtin_code("minimal")),
    ]:
        path = write_bot(tmp_path, name, code)
        site.manage(
            "upload_bot", str(path), "--user", name, "--name", name, "--create-user", "--defer"
        )
    ids = dict(
        site.sql("SELECT b.name, v.id FROM bots_botversion v JOIN bots_bot b ON b.id = v.bot_id")
    )
    good = [ids["simple"], ids["strong"], ids["minimal"]]
    worker = site.start_worker("solo", "--batch", validate=True)
    assert worker.wait(timeout=180) == 0  # nothing a bot did stopped the worker
    text = worker.text()
    assert "Traceback" not in text

    status = dict(
        site.sql("SELECT id, status FROM bots_botversion WHERE id = ANY(%s)", list(ids.values()))
    )
    assert [status[v] for v in good] == ["active"] * 3
    assert status[ids["sluggish"]] == "rejected"

    # the order things were done in: the sluggish bot's quick pass stopped at its first slow
    # move; the others were validated and placed; only then was it validated in full
    events = _events(text)
    assert events[0][:2] == ("version.slow", ids["sluggish"])
    verdicts = [(e[1], e[2]) for e in events if e[0] == "version.validated"]
    assert [v for v, _ in verdicts] == [*good, ids["sluggish"]]
    assert "status=rejected" in verdicts[-1][1]
    placements = [
        row[0]
        for row in site.sql(
            "SELECT j.id FROM bots_matchjob j JOIN bots_tournament t ON t.id = j.tournament_id "
            "WHERE t.format = 'placement'"
        )
    ]
    assert len(placements) == 2 + 4 + 6  # 1 deal x 2 seatings x (1, 2, 3 opponents)
    done = [e[1] for e in events if e[0] == "job.done"]
    assert sorted(done) == sorted(placements)
    last_placement = max(i for i, e in enumerate(events) if e[0] == "job.done")
    first_full_pass = max(i for i, e in enumerate(events) if e[0] == "version.validated")
    assert last_placement < first_full_pass
    assert site.one("SELECT count(*) FROM bots_matchjob WHERE status <> 'done'") == 0
    # placements queued together (a version's) took turns: claimed by turn, then oldest
    # first (a batch of jobs claimed at once shares its start, and is taken in that order
    # too); the next upload's check came between two batches (the worker takes turns), so
    # a later version's placements were queued after earlier ones were claimed
    jobs = "SELECT id FROM bots_matchjob WHERE tournament_id = %s ORDER BY"
    for (tournament,) in site.sql("SELECT DISTINCT tournament_id FROM bots_matchjob"):
        claimed = site.sql(f"{jobs} started, turn, id", tournament)
        assert claimed == site.sql(f"{jobs} turn, id", tournament)

    # the verdict: a bounded number of slow moves, said plainly
    reason, log, claims = site.sql(
        "SELECT reason, validation_log, validation_claims FROM bots_botversion WHERE id = %s",
        ids["sluggish"],
    )[0]
    said = SLUGGISH_REASON.fullmatch(reason)
    assert said, reason
    assert all(float(took) >= 1.5 for took in said.group(1, 2)), reason
    assert claims == 2  # one quick pass, one full
    assert "at most 3 calls in a row over 1 s" in log
    assert "match 2" not in log  # the first match decided it


def test_validation_takes_owners_in_turn_and_slow_versions_last(db, settings):
    settings.BOTS_PER_PERSON_PER_GAME = 0  # (a person with several bots in one game)
    alice, bob, carol = (User.objects.create_user(n) for n in ("alice", "bob", "carol"))
    code = builtin_code("simple")

    def up(owner: User, name: str) -> BotVersion:
        return uploads.upload(owner, "rps-poker", name, f"{name}.py", f"{code}\n# {name}".encode())

    a1 = up(alice, "a1")
    up(alice, "a2"), up(alice, "a3")
    b1 = up(bob, "b1")
    up(carol, "c1"), up(carol, "c2")
    BotVersion.objects.filter(pk=b1.pk).update(validation_slow=True)
    order = []
    while (claimed := uploads.claim_validation("w1", 60)) is not None:
        order.append(claimed.bot.name)
    # each owner's oldest first, owners in turn (alice's first one, being validated, still
    # counts for her later ones); a version found slow waits for all the quick passes
    assert order == ["a1", "c1", "a2", "c2", "a3", "b1"]
    assert set(BotVersion.objects.values_list("validation_claims", flat=True)) == {1}

    # only one kind when the worker asks for it
    BotVersion.objects.update(validation_lease=None)
    assert uploads.claim_validation("w2", 60, slow=True).pk == b1.pk
    assert uploads.claim_validation("w2", 60, slow=True) is None
    assert uploads.claim_validation("w2", 60, slow=False).pk == a1.pk


def test_a_version_whose_lease_ran_out_is_taken_again_in_its_turn(db):
    alice, bob = User.objects.create_user("alice"), User.objects.create_user("bob")
    code = builtin_code("simple")
    mine = uploads.upload(alice, "rps-poker", "mine", "mine.py", code.encode())
    theirs = uploads.upload(bob, "rps-poker", "theirs", "theirs.py", code.encode())
    assert uploads.claim_validation("dead", 60).pk == mine.pk
    assert uploads.claim_validation("w1", 60).pk == theirs.pk
    assert uploads.claim_validation("w1", 60) is None  # both leased
    BotVersion.objects.filter(pk=mine.pk).update(
        validation_lease=timezone.now() - timedelta(seconds=1)
    )
    again = uploads.claim_validation("w2", 60)
    assert (again.pk, again.validation_claims) == (mine.pk, 2)


def test_placements_queued_together_take_turns(alice, bob, carol, active_bot):
    house = active_bot(alice, "house", builtin_code("simple"))
    first = active_bot(bob, "first", builtin_code("strong"))
    second = active_bot(carol, "second", builtin_code("minimal"))
    MatchJob.objects.all().delete()
    with transaction.atomic():
        one = competition.schedule_placement(first)  # against house and second: 8 jobs
    with transaction.atomic():
        two = competition.schedule_placement(second)  # against house and first: 8 jobs
    assert house.pk and one.jobs.count() == two.jobs.count() == 8
    order = []
    while (held := competition.claim("w1", 60)) is not None:
        order.append((held.job.tournament_id, held.job.turn))
    # turn by turn: the second placement does not wait for all of the first
    assert order == [(t, turn) for turn in range(8) for t in (one.pk, two.pk)]


def test_placements_come_before_other_matches_only_when_asked(alice, bob, active_bot):
    active_bot(alice, "simple", builtin_code("simple"))
    newcomer = active_bot(bob, "strong", builtin_code("strong"))
    MatchJob.objects.all().delete()
    competition.start_round_robin("rps-poker", 1, seed=3)
    assert competition.claim("w1", 60, min_priority=competition.PLACEMENT_PRIORITY) is None
    with transaction.atomic():
        placement = competition.schedule_placement(newcomer)
    held = competition.claim("w1", 60, min_priority=competition.PLACEMENT_PRIORITY)
    assert held.job.tournament_id == placement.pk
