"""What nobody may take of the playground's workers from the others (docs/playground.md,
"Sharing the workers"): runs are taken in turn by owner (a person, or the guests of an
address), not oldest first; each owner has an hour of worker time, counted in the database
from the runs' charged time, refused saying when it frees; the runs of everyone have a cap;
a waiting run's page says how many runs are ahead and how long each may take; and a run is
charged only its bots' own time, never the site's waits for a sandbox."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots import competition, playground, sandbox
from bots.competition import leases, uploads
from bots.models import BotVersion, MatchJob, PlaygroundRun
from bots.sandbox import acquire_slot
from tests.playground.conftest import builtin_code, queue, worker


@pytest.fixture
def people(db) -> list[User]:
    return [User.objects.create_user(name, password=f"pw-{name}-1") for name in "abc"]


def claimed_in_order(count: int) -> list[int]:
    """The runs that ``count`` claims take, one worker after the other (rows only)."""
    caps = playground.caps(errors=3)
    taken = []
    for n in range(count):
        held = playground.claim(f"w{n}", 60, caps)
        assert held is not None
        taken.append(held.job.pk)
    return taken


# ---- in turn by owner ----------------------------------------------------------------------
def test_runs_are_taken_in_turn_by_owner_not_oldest_first(people, settings):
    """The audit's case: 3 people queued 2 slow runs each, then a guest 1 of 3 matches.
    Oldest first, the guest's run came 7th, behind all six."""
    a1, a2, b1, b2, c1, c2 = [queue(person) for person in people for _ in range(2)]
    guest = queue(guest="g", guest_address="somewhere", matches=3)
    order = [q.pk for q in playground.the_queue().waiting]
    assert order == [r.pk for r in (a1, b1, c1, guest, a2, b2, c2)]
    assert playground.queue_position(guest) == 4
    # claims are rows: each worker (on any machine) takes the next in turn
    assert claimed_in_order(4) == [a1.pk, b1.pk, c1.pk, guest.pk]
    # a's first run plays on: its second waits behind anyone's first
    late = queue(guest="h", guest_address="elsewhere")
    assert [q.pk for q in playground.the_queue().waiting] == [late.pk, a2.pk, b2.pk, c2.pk]


def test_the_owner_who_used_less_of_the_last_hour_goes_first(people, settings):
    heavy, light, _ = people
    before = queue(heavy)
    PlaygroundRun.objects.filter(pk=before.pk).update(
        status=PlaygroundRun.DONE, worker_s=280.0, finished=timezone.now()
    )
    first = queue(heavy)
    second = queue(light)
    assert [q.pk for q in playground.the_queue().waiting] == [second.pk, first.pk]
    # a run that ended over an hour ago no longer counts
    PlaygroundRun.objects.filter(pk=before.pk).update(
        finished=timezone.now() - timedelta(minutes=61)
    )
    assert [q.pk for q in playground.the_queue().waiting] == [first.pk, second.pk]


def test_the_guests_of_one_address_are_one_owner(db, settings):
    settings.PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = 5
    one = queue(guest="s1", guest_address="here")
    two = queue(guest="s2", guest_address="here")  # a fresh session: the same owner
    other = queue(guest="s3", guest_address="there")
    assert [q.pk for q in playground.the_queue().waiting] == [one.pk, other.pk, two.pk]


# ---- the waiting page ----------------------------------------------------------------------
def test_a_waiting_run_says_how_many_runs_are_ahead_and_how_long_each_may_take(people, settings):
    settings.PLAYGROUND_RUN_SECONDS = 300
    for person in people:
        queue(person)
        queue(person)
    assert claimed_in_order(1)  # a worker plays a's first run
    guest = Client()
    started = guest.post(
        reverse("playground", args=["rps-poker"]),
        {
            "language": "python",
            "code": builtin_code("simple"),
            "opponents": ["builtin:strong"],
            "seed": "1",
            "match_count": "3",
        },
    )
    assert started.status_code == 302
    said = (
        "Waiting for a worker: 3 runs ahead of yours, 1 of them being played; each may take "
        "up to 5 minutes of a worker&#x27;s time."
    )
    assert said in guest.get(started["Location"]).content.decode()
    run = PlaygroundRun.objects.get(user__isnull=True)
    status = guest.get(reverse("playground_status", args=[run.key])).json()
    assert status["position"] == 3 and status["ahead"] == 3
    assert status["message"] == said.replace("&#x27;", "'")


def test_the_wait_in_words():
    wait = playground.Wait
    assert playground.wait_text(wait(1, 0, 0, 0.0)) == "yours is next"
    assert playground.wait_text(wait(1, 1, 1, 45.0)) == (
        "1 run ahead of yours, being played; it may take up to 1 minute of a worker's time"
    )
    assert playground.wait_text(wait(3, 2, 0, 300.0)) == (
        "2 runs ahead of yours; each may take up to 5 minutes of a worker's time"
    )
    assert playground.wait_text(wait(1, 2, 2, None)) == "2 runs ahead of yours, all being played"


def upload_of(person: User, n: int):
    code = f"# {person.username} {n}\n{builtin_code('simple')}"
    return uploads.upload(person, "rps-poker", f"bot{n}", f"bot{n}.py", code.encode())


def checked_now(*versions) -> None:
    """The versions are held by workers validating them (a lease, no pause's note)."""
    BotVersion.objects.filter(pk__in=[v.pk for v in versions]).update(
        validation_lease=timezone.now() + timedelta(seconds=60), validation_claims=1
    )


def test_a_waiting_run_counts_the_uploads_checked_before_it(people, settings, active_bot):
    """The audit's page said "Waiting for a worker: yours is next." for 106 s while carol's
    uploads held the only worker one after the other."""
    settings.BOTS_PER_PERSON_PER_GAME = 0
    run = queue(guest="g", guest_address="here")
    message = lambda: playground.wait_text(playground.wait_of(run))  # noqa: E731
    assert message() == "yours is next"
    # three workers check three uploads: each then takes a run (after a check comes a run)
    first = [upload_of(person, 0) for person in people]
    checked_now(*first)
    assert message() == "3 uploads are being checked first, then yours"
    # uploads waiting behind them, and a tournament: still the run first
    more = [upload_of(people[2], n) for n in (1, 2, 3)]
    active_bot(people[0], "a", builtin_code("simple"))
    active_bot(people[1], "b", builtin_code("strong"))
    competition.start_round_robin("rps-poker", 1, seed=3)
    assert message() == "3 uploads are being checked first, then yours"
    # a version that waits out a pause after the site's trouble is not being checked
    uploads.validation_deferred(first[0], "no free sandbox slot")
    uploads.validation_deferred(first[1], "no free sandbox slot")
    assert message() == "1 upload is being checked first, then yours"
    # a worker playing matches checks an upload next, then takes a run
    BotVersion.objects.filter(pk=first[2].pk).update(validation_lease=None)
    job = MatchJob.objects.order_by("id").first()
    MatchJob.objects.filter(pk=job.pk).update(
        status=MatchJob.RUNNING, worker="w1", lease_until=timezone.now() + timedelta(60)
    )
    assert message() == (
        "tournament matches are being played; a worker may also check 1 upload before yours"
    )
    # behind another person's run being played: a check and a batch of matches may come
    # between the two (a worker takes turns), and a run's own time
    MatchJob.objects.filter(pk=job.pk).update(status=MatchJob.QUEUED, lease_until=None)
    ahead = queue(people[0])
    PlaygroundRun.objects.filter(pk=ahead.pk).update(
        status=PlaygroundRun.RUNNING, worker="w1", lease_until=timezone.now() + timedelta(60)
    )
    assert message() == (
        "1 run ahead of yours, being played; it may take up to 5 minutes of a worker's time; "
        "a worker may also check 1 upload and play some tournament matches before yours"
    )
    assert len(more) == 3


def test_a_run_given_back_for_the_sites_trouble_says_when_it_is_tried_again(alice):
    run = queue(alice)
    held = playground.claim("w1", 60, playground.caps(errors=3))
    assert playground.give_back(held, leases.PLATFORM + "no free sandbox slot: all 64 in use")
    run.refresh_from_db()
    assert playground.wait_text(playground.wait_of(run)) == (
        "the site had trouble playing it (not your bot's doing), so it is tried again in "
        "30 s at the earliest"
    )


def test_the_other_work_in_words():
    def wait(*args, **before):
        return playground.Wait(*args, before=playground.OtherWork(**before))

    assert playground.wait_text(wait(1, 0, 0, 0.0, checking=1)) == (
        "1 upload is being checked first, then yours"
    )
    assert playground.wait_text(wait(1, 0, 0, 0.0, uploads=2, matches=True, solves=1)) == (
        "a worker may first check 2 uploads, play some tournament matches and run 1 solve of "
        "the strategy explorer, then take yours"
    )
    assert playground.wait_text(wait(1, 0, 0, 0.0, checking=2, uploads=1, solving=1)) == (
        "2 uploads are being checked and 1 solve of the strategy explorer is being run; a "
        "worker may also check 1 more upload before yours"
    )
    assert playground.wait_text(wait(2, 1, 0, 60.0, checking=1)) == (
        "1 run ahead of yours; it may take up to 1 minute of a worker's time; 1 upload is "
        "being checked"
    )


# ---- an hour of worker time ----------------------------------------------------------------
def ended(run: PlaygroundRun, seconds: float, minutes_ago: float) -> None:
    PlaygroundRun.objects.filter(pk=run.pk).update(
        status=PlaygroundRun.DONE,
        worker_s=seconds,
        finished=timezone.now() - timedelta(minutes=minutes_ago),
    )


@pytest.fixture
def hourly(settings):
    settings.PLAYGROUND_SECONDS_PER_HOUR = 900
    settings.PLAYGROUND_RUN_SECONDS = 300
    settings.PLAYGROUND_MAX_OPEN = 5
    settings.PLAYGROUND_RUNS_PER_HOUR = 100


def test_an_hour_of_worker_time_used_is_refused_saying_when_it_frees(alice, hourly):
    for minutes_ago in (50, 30, 10):
        ended(queue(alice), 300.0, minutes_ago)
    with pytest.raises(playground.Refused) as refused:
        queue(alice)
    assert str(refused.value) == (
        "Your runs have used 900 s of worker time in the last hour (900 s allowed an hour); "
        "you can start another in 10 minutes."
    )


def test_runs_queued_hold_their_time_until_they_end(alice, bob, hourly):
    for minutes_ago in (50, 30):
        ended(queue(alice), 300.0, minutes_ago)
    queue(alice)  # may use its 300 s
    with pytest.raises(playground.Refused) as refused:
        queue(alice)
    assert str(refused.value) == (
        "Your runs have used 600 s of worker time in the last hour, and your runs queued or "
        "running may use 300 s more (900 s allowed an hour); you can start another in 10 "
        "minutes."
    )
    queue(bob)  # another person's hour is their own
    # runs queued that hold the whole hour: they free it at the latest an hour after they end
    for _ in range(2):
        queue(bob)
    with pytest.raises(playground.Refused) as refused:
        queue(bob)
    assert str(refused.value) == (
        "Your runs queued or running may use 900 s of worker time (900 s allowed an hour); "
        "you can start another at the latest an hour after your runs queued or running end."
    )


def test_a_run_gets_what_is_left_of_the_hour_and_its_page_says_so(alice, hourly):
    ended(queue(alice), 750.4, 20)
    run = queue(alice)
    assert run.worker_seconds == 149
    page = Client()
    page.force_login(alice)
    html = page.get(reverse("playground_run", args=[run.key])).content.decode()
    assert "It may use 149 s of worker time, what was left of the 900 s an hour when it was" in (
        html
    )
    with pytest.raises(playground.Refused, match="may use 149 s more"):
        queue(alice)  # the rest of the hour is held by the run queued


def test_the_guests_of_an_address_share_an_hour(db, settings):
    settings.PLAYGROUND_GUEST_ADDRESS_SECONDS_PER_HOUR = 100
    settings.PLAYGROUND_GUEST_RUN_SECONDS = 60
    ended(queue(guest="s1", guest_address="here"), 100.0, 15)
    with pytest.raises(playground.Refused) as refused:
        queue(guest="s2", guest_address="here")  # a fresh session
    assert str(refused.value) == (
        "Guests from your address have used 100 s of worker time in the last hour (100 s "
        "allowed an hour); you can start another in 45 minutes, or log in (logged-in people "
        "have a limit of their own)."
    )
    assert queue(guest="s3", guest_address="there").worker_seconds == 60


def test_the_runs_of_everyone_have_a_cap(alice, bob, settings):
    settings.PLAYGROUND_OPEN = 2
    queue(alice)
    queue(guest="g", guest_address="here")
    for who in ({"user": bob}, {"guest": "h", "guest_address": "there"}):
        with pytest.raises(playground.Refused) as refused:
            queue(**who)
        assert str(refused.value) == (
            "The playground has 2 runs queued or running, the most it takes at once; you "
            "can start another when one of them ends."
        )


def test_the_form_lists_the_hours_worker_time(alice, settings):
    settings.PLAYGROUND_SECONDS_PER_HOUR = 900
    settings.PLAYGROUND_RUN_SECONDS = 300
    settings.PLAYGROUND_GUEST_ADDRESS_SECONDS_PER_HOUR = 300
    settings.PLAYGROUND_GUEST_RUN_SECONDS = 60
    url = reverse("playground", args=["rps-poker"])
    assert "60 s of worker time a run and 300 s an hour for all guests of your address" in (
        Client().get(url).content.decode()
    )
    signed_in = Client()
    signed_in.force_login(alice)
    assert "300 s of worker time a run and 900 s an hour." in signed_in.get(url).content.decode()


# ---- the site's waits are not the run's -----------------------------------------------------
class Clock:
    """The playground's and the sandbox's clock, moved on while a worker waits for a slot
    (no test waits half a minute)."""

    def __init__(self) -> None:
        self.moved = 0.0
        self.real = __import__("time")

    def monotonic(self) -> float:
        return self.real.monotonic() + self.moved


def test_a_run_is_not_charged_the_sites_wait_for_a_sandbox_slot(
    bob,
    active_bot,
    settings,
    sandbox_config,
    monkeypatch,
):
    """Every slot is busy each time the guest's run needs one (its bot's, checked before the
    first match; its uploaded opponent's, in the first match): the worker waits 29 s for
    each, and the run's 60 s are its bots' own. Timed around the match, the waits were the
    run's: "stopped: the run used its 60 s of worker time", blaming the run."""
    config = dataclasses.replace(sandbox_config, slots=2, worker_reserve=0, slot_wait_s=30)
    settings.SANDBOX_UID_BASE = config.uid_base
    settings.SANDBOX_SLOTS = config.slots
    settings.SANDBOX_LOCK_DIR = config.lock_dir
    settings.SANDBOX_WORKER_RESERVE = 0
    settings.SANDBOX_SLOT_WAIT_S = 30
    settings.PLAYGROUND_GUEST_RUN_SECONDS = 60
    busy = [acquire_slot(dataclasses.replace(config, slot_wait_s=0)) for _ in range(2)]
    assert all(slot is not None for slot in busy), "the sandbox's slots need root"
    clock = Clock()
    waits = []

    class Waiting:
        monotonic = staticmethod(clock.monotonic)

        @staticmethod
        def sleep(seconds: float) -> None:  # the site's wait: a slot comes free at last
            waits.append(seconds)
            clock.moved += 29
            if busy:
                busy.pop().release()

    monkeypatch.setattr(sandbox, "time", Waiting)
    monkeypatch.setattr(playground, "time", clock)
    rival = active_bot(bob, "rival", builtin_code("strong"))
    run = queue(guest="g", opponents=[f"bot:{rival.bot_id}"], matches=3)
    assert run.worker_seconds == 60
    try:
        assert worker().step() is True
    finally:
        for slot in busy:
            slot.release()
    run.refresh_from_db()
    assert len(waits) == 2  # the bot's launch, then its opponent's
    assert run.status == PlaygroundRun.DONE and run.played == 3, run.reason
    assert run.reason == ""
    assert 0 < run.worker_s < 20, run.worker_s  # its bots' own time; not the 58 s waited
