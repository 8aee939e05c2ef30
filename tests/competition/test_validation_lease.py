"""A validation's lease is extended while a worker validates the version, as a match job's
is: a C++ compile alone may outlast the 60 s lease. An audit saw v7 shown as "waiting for a
worker: next in line" while a worker's compiler had been compiling it for a minute, its
lease run out; with several workers a second one would claim it and validate it again."""

from __future__ import annotations

import io
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from bots.competition import uploads
from bots.management.commands import upload_bot
from bots.models import Bot, BotVersion
from bots.pages.views import status_of
from bots.worker import Options, ValidationHeartbeat, Worker
from tests.competition.conftest import builtin_code


@pytest.fixture
def waiting(alice) -> BotVersion:
    return uploads.upload(alice, "rps-poker", "later", "later.py", builtin_code("simple").encode())


def heartbeat_of(version: BotVersion) -> ValidationHeartbeat | None:
    for thread in threading.enumerate():
        if isinstance(thread, ValidationHeartbeat) and thread.version_id == version.pk:
            return thread
    return None


def test_the_lease_is_renewed_while_it_validates_so_no_other_worker_takes_it(waiting, monkeypatch):
    seen = {}

    def compiling(version, quick=None):
        beat = heartbeat_of(version)
        assert beat is not None and beat.is_alive()
        # the compile outlasts the lease taken with the claim...
        BotVersion.objects.filter(pk=version.pk).update(
            validation_lease=timezone.now() - timedelta(seconds=1)
        )
        assert status_of(BotVersion.objects.get(pk=version.pk))["detail"].startswith(
            "waiting for a worker"
        )
        # ...and the heartbeat extends it: no other worker takes it, and it says so
        assert beat.beat() is True
        held = BotVersion.objects.get(pk=version.pk)
        assert held.validation_lease > timezone.now() + timedelta(seconds=50)
        assert uploads.claim_validation("w2", 60) is None
        seen["detail"] = status_of(held)["detail"]
        return uploads.ValidationResult(False, "crash: it crashed", "log", fault_kind="crash")

    monkeypatch.setattr(uploads, "run_validation", compiling)
    worker = Worker(Options(poll_s=0), name="w1")
    assert worker.validate_one() is True
    assert seen["detail"] == "being validated: playing its validation matches"
    waiting.refresh_from_db()
    assert waiting.status == BotVersion.REJECTED and waiting.validation_claims == 1
    assert heartbeat_of(waiting) is None  # stopped with the validation


def test_a_heartbeat_stops_once_another_worker_took_the_validation(waiting):
    mine = uploads.claim_validation("w1", 60)
    assert mine is not None
    beat = ValidationHeartbeat(mine, 60)
    BotVersion.objects.filter(pk=mine.pk).update(validation_lease=None)  # it ran out
    assert uploads.claim_validation("w2", 60) is not None
    assert beat.beat() is False
    # nor is an ended validation extended
    BotVersion.objects.filter(pk=mine.pk).update(status=BotVersion.REJECTED, validation_lease=None)
    theirs = ValidationHeartbeat(BotVersion.objects.get(pk=mine.pk), 60)
    assert theirs.beat() is False


def test_a_compiled_versions_status_says_it_is_compiled_first(alice):
    bot = Bot.objects.create(owner=alice, game="rps-poker", name="fast", language="cpp")
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        code="int main() {}",
        checksum="x",
        validation_lease=timezone.now() + timedelta(seconds=60),
    )
    assert status_of(version)["detail"] == (
        "being validated: compiling it first (usually under 2 minutes), then playing its "
        "validation matches"
    )


def test_a_version_waiting_out_a_pause_after_the_sites_trouble_says_so(alice):
    # Its lease is the pause's end, not a worker's: My bots said "a worker is playing its
    # validation matches" while none was
    bot = Bot.objects.create(owner=alice, game="rps-poker", name="paused", language="python")
    version = BotVersion.objects.create(
        bot=bot, number=1, code=builtin_code("simple"), checksum="y"
    )
    assert uploads.validation_deferred(version, "no free sandbox slot", retry_s=30)
    version.refresh_from_db()
    said = status_of(version)["detail"]
    assert said in {
        "waiting: the site had trouble validating it (not your bot's doing); a worker tries "
        f"again in {s} s"
        for s in (29, 30)
    }, said
    # and the command line (manage.py standings) says the same
    from bots.competition.status import _validating

    assert _validating(version).startswith(
        "v1 waits: the site had trouble validating it (not the bot's doing); a worker tries "
        "again in "
    )


def test_upload_bot_holds_the_validation_it_runs_so_no_worker_runs_it_too(
    alice, tmp_path, monkeypatch
):
    # with the site's worker running, upload_bot and the worker both validated each upload
    # (two compiles, two sets of matches; the command printed the worker's "quick pass" log)
    seen = {}

    def validating(version):
        beat = heartbeat_of(version)
        assert beat is not None and beat.is_alive()  # renewed as a worker's is
        worker = Worker(Options(poll_s=0), name="w2")
        seen["worker took it"] = worker.validate_one()
        seen["claimed"] = uploads.claim_validation("w3", 60)
        assert beat.beat() is True
        return uploads.validate(version)

    monkeypatch.setattr(upload_bot, "validate", validating)
    path = tmp_path / "mine.py"
    path.write_text(builtin_code("simple"))
    call_command("upload_bot", str(path), "--user", "alice", stdout=io.StringIO())
    assert seen == {"worker took it": False, "claimed": None}
    version = BotVersion.objects.get()
    assert version.status == BotVersion.ACTIVE and version.validation_claims == 1
    assert heartbeat_of(version) is None


def test_a_killed_upload_bot_leaves_its_version_to_a_worker_once_its_lease_runs_out(alice):
    code = builtin_code("simple").encode()
    held = uploads.upload(alice, "rps-poker", "mine", "mine.py", code, claimed_for=60)
    assert held.validation_claims == 1  # as a worker's claim
    assert uploads.claim_validation("w1", 60) is None  # held: the command validates it
    # the command killed outright: nothing gives the claim back, and its lease runs out
    BotVersion.objects.filter(pk=held.pk).update(
        validation_lease=timezone.now() - timedelta(seconds=1)
    )
    taken = uploads.claim_validation("w1", 60)
    assert taken is not None and taken.pk == held.pk and taken.validation_claims == 2
    assert ValidationHeartbeat(held, 60).beat() is False  # (the command's claim is gone)
    # nor does a platform pause said by the command free it from the worker that holds it
    assert not uploads.validation_deferred(held, "busy", claims=held.validation_claims)
