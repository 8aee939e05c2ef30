"""A newcomer's first hour in the playground: a bot timed as the upload's validation times it,
a run that never started shown as such, and a run's page seen by someone else not speaking
to them as its author nor showing them the bot's log."""

from __future__ import annotations

import contextlib
import html
import re

from django.test import Client
from django.urls import reverse

from bots import playground
from bots.competition.uploads import validation_time_control
from bots.models import PlaygroundRun
from tests.playground.conftest import GAME, misbehaving, queue, worker


def text(response) -> str:
    """A page's words as a person reads them (the entities of escaped text undone)."""
    return html.unescape(response.content.decode())


#: slow (1.2 s, over the 1 s per call) on its first call only: the game's 10 s bank pays
#: for it, a limit of one slow call in a row does not
SLOW_ONCE = misbehaving(
    """
    import time
    if not getattr(Bot, "slowed", False):
        Bot.slowed = True
        time.sleep(1.2)
    """
)


def test_the_playground_times_the_bot_as_the_uploads_validation_does(alice, monkeypatch):
    seen = {}

    def play(spec, entries, **kwargs):
        seen.update(kwargs)
        raise RuntimeError("seen")

    monkeypatch.setattr(playground, "play", play)
    run = queue(alice, matches=1)
    seats = playground.seating(run)
    with contextlib.suppress(RuntimeError):
        playground.play_match(run, 0, seats)
    seat = playground.table(run, 0, seats)[1]
    # the person's seat as a full validation times it (its slow calls in a row counted);
    # the opponent as the competition does
    assert seen["seat_time_controls"] == {seat: validation_time_control(GAME, quick=False)}
    assert seen["seat_time_controls"][seat].streak > 0


def test_a_bot_slow_more_times_in_a_row_than_validation_allows_is_faulted(alice, settings):
    settings.BOT_VALIDATION_SLOW_CALLS = 1  # (3 by default: one slow call keeps the test short)
    run = queue(alice, code=SLOW_ONCE, matches=1)
    assert worker().step() is True
    run.refresh_from_db()
    mine = run.played_matches.get()
    seat = mine.seats[mine.seat]
    # (it was played out, the bank paying, and the upload then rejected the bot)
    assert seat["fault_kind"] == "timeout", seat


def test_the_form_says_how_the_bot_is_timed_and_who_sees_its_log(db):
    page = text(Client().get(reverse("playground", args=["kuhn"])))
    assert (
        "Your bot is timed as the upload's validation times it: 1 s per call, a 10 s bank "
        "per match for calls that run over, and at most 3 calls in a row over 1 s." in page
    )
    assert (
        "A run's page can be opened by anyone with its address; its code and your "
        "bot's log (what it prints) are shown only to you." in page
    )


BROKEN = "class Bot:\n    def draft_pick(self, cards)\n        return 0\n"


def test_a_run_whose_bot_never_started_shows_no_progress_and_no_match_1(db):
    guest = Client()
    started = guest.post(
        reverse("playground", args=[GAME]),
        {
            "language": "python",
            "code": BROKEN,
            "opponents": ["builtin:simple"],
            "seed": "5",
            "match_count": "3",
        },
    )
    assert worker().step() is True
    run = PlaygroundRun.objects.get()
    assert run.status == PlaygroundRun.FAILED and run.played == 1  # its startup fault stored
    status = guest.get(reverse("playground_status", args=[run.key])).json()
    assert status["percent"] == 0  # (it was 33: a third of a bar for no match played)
    page = text(guest.get(started["Location"]))
    assert 'id="run-bar"' not in page
    assert "<h3>Before the first match</h3>" in page and "<h3>Match 1</h3>" not in page
    assert "SyntaxError" in page  # its fault and its log, to its owner


def test_a_run_seen_by_someone_else_is_not_theirs_and_hides_the_bots_log(alice, bob):
    printing = misbehaving('import sys\nprint("a secret plan", file=sys.stderr)')
    run = queue(alice, code=printing, matches=1)
    assert worker().step() is True
    url = reverse("playground_run", args=[run.key])
    match_url = reverse("playground_match", args=[run.key, 1])
    owner = Client()
    owner.force_login(alice)
    mine = text(owner.get(url))
    assert "only you see the code and your bot's log" in mine
    assert "a secret plan" in mine and "Your bot's total" in mine
    assert "a secret plan" in text(owner.get(match_url))
    other = Client()
    other.force_login(bob)
    for visitor in (Client(), other):
        page = text(visitor.get(url))
        assert "a secret plan" not in page
        assert "only the person who started this run sees its code and its bot's log" in page
        assert "The bot's total" in page and ">its seat<" in page
        assert not re.search(r"\b[Yy]our (bot|seat|code|faults)\b", page), page
        assert "The bot's log (what it prints) is shown only to the person who" in page
        replay = text(visitor.get(match_url))
        assert "a secret plan" not in replay and "The run's bot in seat" in replay
        frames = visitor.get(reverse("playground_replay", args=[run.key, 1])).json()
        assert "your bot" not in frames["seats"] and "the run's bot" in frames["seats"]
