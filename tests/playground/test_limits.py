"""The playground's limits: per person and per guest, each refusal saying which limit and
when it frees up; what cannot be played is refused with what is wrong."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bots import playground
from bots.models import PlaygroundRun
from tests.playground.conftest import builtin_code, queue


def test_a_guest_over_its_limit_of_open_runs_is_refused_with_a_clear_message(db, settings):
    settings.PLAYGROUND_GUEST_MAX_OPEN = 1
    queue(guest="token-a")
    with pytest.raises(playground.Refused) as refused:
        queue(guest="token-a")
    assert str(refused.value) == (
        "You have 1 run queued or running, the most allowed (1); you can start another "
        "when one of them ends."
    )
    queue(guest="token-b")  # another guest is not held back by it
    assert PlaygroundRun.objects.count() == 2


def test_runs_per_hour_say_when_the_next_one_is_allowed(db, settings):
    settings.PLAYGROUND_GUEST_RUNS_PER_HOUR = 2
    settings.PLAYGROUND_GUEST_MAX_OPEN = 5
    first = queue(guest="g")
    queue(guest="g")
    # the first run was started 50 minutes ago: a run is allowed again in 10 minutes
    PlaygroundRun.objects.filter(pk=first.pk).update(created=first.created - timedelta(minutes=50))
    with pytest.raises(playground.Refused) as refused:
        queue(guest="g")
    assert "You have started 2 runs in the last hour, the most allowed (2 an hour)" in str(
        refused.value
    )
    assert str(refused.value).endswith("you can start another in 10 minutes.")


def test_signed_in_people_have_higher_limits_than_guests(alice, settings):
    settings.PLAYGROUND_GUEST_MAX_MATCHES = 10
    settings.PLAYGROUND_MAX_MATCHES = 50
    with pytest.raises(playground.PlaygroundError) as refused:
        queue(guest="g", matches=11)
    assert str(refused.value) == (
        "Choose 1 to 10 matches: the most a guest's run plays (log in for more)."
    )
    assert queue(alice, matches=50).matches == 50
    with pytest.raises(playground.PlaygroundError, match="Choose 1 to 50 matches"):
        queue(alice, matches=10**9)


def test_guests_together_have_a_bounded_share(db, settings):
    settings.PLAYGROUND_GUESTS_OPEN = 2
    queue(guest="a")
    queue(guest="b")
    with pytest.raises(playground.Refused) as refused:
        queue(guest="c")
    # no promise it cannot keep ("try again in a minute"): the runs may take longer
    assert str(refused.value) == (
        "Guests have 2 runs queued or running, the most allowed at once; you can start "
        "another when one of them ends, or log in (logged-in people have a limit of their "
        "own)."
    )


def test_the_code_is_held_to_the_upload_limits(alice, settings):
    settings.BOT_MAX_CODE_BYTES = 100
    with pytest.raises(playground.PlaygroundError) as refused:
        queue(alice, code="#" * 101)
    # (it said "The code: the file has 101 bytes; the limit is 100.")
    assert str(refused.value) == "Your file is 101 bytes; uploads take at most 100 bytes."
    assert refused.value.field == "code"
    with pytest.raises(playground.PlaygroundError, match="not UTF-8"):
        queue(alice, code=b"\xff\xfe")
    with pytest.raises(playground.PlaygroundError, match="NUL byte"):
        queue(alice, code="x = 1\x00")
    assert not PlaygroundRun.objects.exists()


@pytest.mark.parametrize(
    ("asked", "field", "message"),
    [
        ({"opponents": ["bot:999999"]}, "opponents", "'bot:999999' is not an opponent"),
        ({"opponents": ["builtin:nobody"]}, "opponents", "is not an opponent"),
        ({"opponents": []}, "opponents", "Choose at least one opponent."),
        ({"language": "cobol"}, "language", "bots are written in python or javascript"),
        ({"seed": -1}, "seed", "The seed is a whole number from 0"),
        ({"seed": 2**63}, "seed", "The seed is a whole number from 0"),
        ({"matches": 0}, "matches", "Choose 1 to"),
    ],
)
def test_what_cannot_be_played_is_refused_with_what_is_wrong(alice, asked, field, message):
    with pytest.raises(playground.PlaygroundError) as refused:
        queue(alice, **asked)
    assert message in str(refused.value)
    assert refused.value.field == field
    assert not PlaygroundRun.objects.exists()


def test_a_bot_of_another_game_or_an_inactive_one_is_no_opponent(alice, bob, active_bot):
    from bots.models import Bot, BotVersion

    rival = active_bot(bob, "rival", builtin_code("strong"))
    elsewhere = Bot.objects.create(owner=bob, game="kuhn", name="k", language="python")
    BotVersion.objects.create(
        bot=elsewhere, number=1, code="x", checksum="c", status=BotVersion.ACTIVE
    )
    with pytest.raises(playground.PlaygroundError, match="is not an opponent"):
        queue(alice, opponents=[f"bot:{elsewhere.pk}"])
    BotVersion.objects.filter(pk=rival.pk).update(status=BotVersion.RETIRED)
    with pytest.raises(playground.PlaygroundError, match="is not an opponent"):
        queue(alice, opponents=[f"bot:{rival.bot_id}"])
