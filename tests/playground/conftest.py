from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from bots import playground
from bots.models import (
    LeaderboardRow,
    Match,
    MatchJob,
    MatchSeat,
    OpponentResult,
    PlaygroundRun,
    Rating,
    RatingHistory,
)
from bots.worker import Options, Worker
from tests.competition.conftest import active_bot, builtin_code, misbehaving  # noqa: F401
from tests.sandbox.conftest import sandbox_config  # noqa: F401

GAME = "rps-poker"


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="pw-alice-1")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password="pw-bob-1")


def queue(user=None, guest="", *, code=None, opponents=("builtin:simple",), matches=2, seed=7,
          language="python", game=GAME, guest_address="") -> PlaygroundRun:  # fmt: skip
    """A run queued through the web's own function."""
    code = builtin_code("simple") if code is None else code
    return playground.submit(
        user=user, guest=guest, game=game, language=language,
        code=code.encode() if isinstance(code, str) else code,
        opponents=list(opponents), seed=seed, matches=matches, guest_address=guest_address,
    )  # fmt: skip


def worker(name: str = "w1", **options) -> Worker:
    return Worker(Options(validate=False, solve=False, **options), name=name)


def given_up(run, **fields) -> str:
    """Why ``run`` is given up once its row says ``fields`` (at one of its caps): a worker's
    claim finds it so, fails it and takes nothing."""
    PlaygroundRun.objects.filter(pk=run.pk).update(**fields)
    assert playground.claim("w1", 60, playground.caps(errors=3)) is None
    run.refresh_from_db()
    assert run.status == PlaygroundRun.FAILED
    return run.reason


def competition_rows() -> dict[str, int]:
    """What a playground run must never add to."""
    return {
        "matches": Match.objects.count(),
        "seats": MatchSeat.objects.count(),
        "jobs": MatchJob.objects.count(),
        "ratings": Rating.objects.count(),
        "history": RatingHistory.objects.count(),
        "leaderboard": LeaderboardRow.objects.count(),
        "opponents": OpponentResult.objects.count(),
    }
