"""What one client may take of the workers: guests of one address share limits whatever
their sessions, and a run has a bound of worker time; a compiled run's own code is compiled
for that run only, within the run's worker time and charged to it, its program never kept in
the machine's cache, its refusal kept a day (docs/playground.md, "Limits")."""

from __future__ import annotations

import shutil
import time
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots import playground
from bots.languages import get_language
from bots.models import Bot, BotVersion, PlaygroundRun
from bots.sandbox import compiling
from bots.sandbox.compiling import CompileLimits
from games.live.tables import address_key
from games.registry import get_game
from tests.playground.conftest import GAME, builtin_code, queue, worker
from tests.playground.test_pages import post


# ---- guests of one address ---------------------------------------------------------------------
def test_fresh_guest_sessions_of_one_address_share_its_limit_of_open_runs(db, settings):
    settings.PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = 2
    settings.PLAYGROUND_GUESTS_OPEN = 20
    queue(guest="session-1", guest_address="here")
    queue(guest="session-2", guest_address="here")
    with pytest.raises(playground.Refused) as refused:
        queue(guest="session-3", guest_address="here")
    assert str(refused.value) == (
        "Guests from your address have 2 runs queued or running, the most allowed (2); you "
        "can start another when one of them ends, or log in (logged-in people have a limit "
        "of their own)."
    )
    queue(guest="session-4", guest_address="elsewhere")  # another address is not held back
    # one ends: the address may start another
    PlaygroundRun.objects.filter(guest="session-1").update(status=PlaygroundRun.DONE)
    queue(guest="session-5", guest_address="here")


def test_fresh_guest_sessions_of_one_address_share_its_runs_an_hour(db, settings):
    settings.PLAYGROUND_GUEST_ADDRESS_RUNS_PER_HOUR = 3
    settings.PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = 10
    first = queue(guest="s1", guest_address="here")
    queue(guest="s2", guest_address="here")
    queue(guest="s3", guest_address="here")
    PlaygroundRun.objects.update(status=PlaygroundRun.DONE)
    PlaygroundRun.objects.filter(pk=first.pk).update(created=first.created - timedelta(minutes=48))
    with pytest.raises(playground.Refused) as refused:
        queue(guest="s4", guest_address="here")
    assert str(refused.value) == (
        "Guests from your address have started 3 runs in the last hour, the most allowed (3 "
        "an hour); you can start another in 12 minutes, or log in (logged-in people have a "
        "limit of their own)."
    )


def test_the_form_counts_a_guest_by_the_keyed_hash_of_the_clients_address(db, settings):
    settings.PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = 2
    for n in range(2):  # a fresh session each time: a new client, the same address
        assert post(Client(REMOTE_ADDR="203.0.113.9")).status_code == 302, n
    page = post(Client(REMOTE_ADDR="203.0.113.9"))
    assert page.status_code == 429
    assert (
        "Guests from your address have 2 runs queued or running, the most allowed (2)"
        in page.content.decode()
    )
    assert post(Client(REMOTE_ADDR="198.51.100.7")).status_code == 302
    # kept as live tables keep it: a keyed hash, never the address
    kept = set(PlaygroundRun.objects.values_list("guest_address", flat=True))
    assert kept == {address_key("203.0.113.9"), address_key("198.51.100.7")}
    assert "203.0.113.9" not in str(kept)


def test_a_signed_in_person_is_not_counted_by_address(alice, settings):
    settings.PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = 1
    settings.PLAYGROUND_MAX_OPEN = 5
    queue(guest="g", guest_address="here")
    run = queue(alice, guest_address="here")
    assert run.guest_address == ""
    queue(alice)


# ---- worker time -------------------------------------------------------------------------------
#: a bot that takes its time: 0.6 s at each of its draft picks
SLOW = builtin_code("simple").replace(
    "    def draft_pick(self, cards):\n",
    "    def draft_pick(self, cards):\n        __import__('time').sleep(0.6)\n",
)


#: a bot slow within the rules at every call that asks for an answer: 0.9 s of the 1 s
SLOWEST = builtin_code("simple")
for _method in ("draft_pick(self, cards)", "main_play(self, hand, base)"):
    SLOWEST = SLOWEST.replace(
        f"    def {_method}:\n", f"    def {_method}:\n        __import__('time').sleep(0.9)\n"
    )

#: what a run may use past its bound: the call cut off at the bound is stopped, its bot's
#: process with it (docs/playground.md, "Worker time")
MARGIN_S = 1.0


def test_a_run_stops_at_its_worker_time_and_says_so(alice, settings):
    assert "sleep(0.6)" in SLOW
    settings.PLAYGROUND_RUN_SECONDS = 1
    run = queue(alice, code=SLOW, matches=5)
    assert run.worker_seconds == 1
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE
    # the match under way was cut off at the bound, and kept
    assert run.played == 1 and 1 <= run.worker_s < 1 + MARGIN_S
    stopped = (
        "stopped: the run used its 1 s of worker time during match 1, which was cut off "
        "there (not an error of the bot; what was played of it is kept)"
    )
    assert run.reason == stopped
    page = Client()
    page.force_login(alice)
    html = page.get(reverse("playground_run", args=[run.key])).content.decode()
    assert f"Done: 1 of 5 matches played; {stopped}, so the other 4 were not played." in html
    assert "Stopped at its worker time</h2>" in html
    status = page.get(reverse("playground_status", args=[run.key])).json()
    assert status["final"] is True and status["stopped"] is True
    assert "stopped: the run used its 1 s" in status["message"]
    PlaygroundRun.objects.filter(pk=run.pk).update(matches=2)  # one match left: named
    html = page.get(reverse("playground_run", args=[run.key])).content.decode()
    assert f"Done: 1 of 2 matches played; {stopped}, so match 2 was not played." in html


def test_a_match_under_way_is_cut_off_where_the_runs_worker_time_runs_out(db, settings):
    """A guest's one match of a bot slow within the rules at every call: the run holds the
    worker about its bound, not for the whole match (the audit's: 22 minutes against its
    60 s), is charged its bound to the address's hour, and its page says what happened."""
    settings.PLAYGROUND_GUEST_RUN_SECONDS = 2
    run = queue(guest="g", guest_address="here", code=SLOWEST, matches=1)
    assert run.worker_seconds == 2
    began = time.monotonic()
    assert worker().step() is True
    held = time.monotonic() - began
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE and run.played == 1
    assert 2 <= run.worker_s < 2 + MARGIN_S, run.worker_s
    assert held < 2 + MARGIN_S + 2, held  # (and the sandbox's launches: the site's)
    # what was played is kept: the cut call is the bot's time fault, said to be the run's
    match = run.played_matches.get()
    mine = match.seats[match.seat]
    assert mine["fault_kind"] == "time"
    assert mine["fault_reason"].startswith("out of worker time: ")
    assert mine["fault_reason"].endswith(" s this match had of the run's 2 s of worker time")
    assert match.record["result"]["faults"]
    guest = Client()  # (anyone with the run's address reads the same)
    html = guest.get(reverse("playground_run", args=[run.key])).content.decode()
    assert (
        "Done: 1 match played; stopped: the run used its 2 s of worker time during match 1, "
        "which was cut off there (not an error of the bot; what was played of it is kept)."
    ) in html
    assert "Stopped at its worker time</h2>" in html
    assert "Replay</a>" in html
    status = guest.get(reverse("playground_status", args=[run.key])).json()
    assert status["final"] is True and status["stopped"] is True
    # the address's hour is charged what the run used: its bound, not 5 times it
    owner = playground.owner_of(None, "g", "here")
    spent = playground.hour_budget(owner, 300, timezone.now())
    assert spent.used == pytest.approx(run.worker_s) and spent.held == 0


def test_worker_time_counts_across_workers(alice, settings):
    """A run taken over goes on with the time its earlier workers used."""
    settings.PLAYGROUND_RUN_SECONDS = 30
    run = queue(alice, matches=4)
    PlaygroundRun.objects.filter(pk=run.pk).update(worker_s=30.5)
    worker().step()
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE and run.played == 0
    assert run.reason == "stopped: the run used its 30 s of worker time"


def test_a_quick_run_plays_every_match_and_counts_its_time(alice, settings):
    settings.PLAYGROUND_RUN_SECONDS = 300
    run = queue(alice, matches=3)
    worker().step()
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE and run.played == 3 and run.reason == ""
    assert 0 < run.worker_s < 300


def test_a_guests_run_has_the_guests_bound(db, settings):
    settings.PLAYGROUND_GUEST_RUN_SECONDS = 45
    assert queue(guest="g").worker_seconds == 45


# ---- a compiled run's own code -----------------------------------------------------------------
@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "compiled"
    monkeypatch.setattr(compiling, "cache_dir", lambda: folder)
    return folder


def kept(folder) -> list[str]:
    return [p.name for p in folder.glob("*/*") if not p.name.startswith(".")]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_cpp_runs_own_code_is_compiled_for_the_run_only(transactional_db, alice, cache):
    # (committed rows: on a busy machine the compile outlasts a third of the lease, and the
    # heartbeat's own connection saw no row of an open test transaction: "lease.lost")
    starter = get_game(GAME).starters["cpp"].read_text() + "\n// changed for this run\n"
    run = queue(alice, code=starter, language="cpp", matches=2)
    worker().step()
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    assert run.played == 2
    assert not any(s["fault_kind"] for m in run.played_matches.all() for s in m.seats)
    assert kept(cache) == []  # nothing of it stays on the machine
    # the same code as an uploaded version's is that version's program: kept as it is
    bot = Bot.objects.create(owner=alice, game=GAME, name="mine", language="cpp")
    BotVersion.objects.create(
        bot=bot, number=1, code=starter, checksum=BotVersion.checksum_of(starter)
    )
    again = queue(alice, code=starter, language="cpp", matches=1)
    worker().step()
    again.refresh_from_db()
    assert again.status == PlaygroundRun.DONE, again.reason
    assert len(kept(cache)) == 1


class Clock:
    """The playground's clock, moved on by a fake compile (no test waits for a minute)."""

    def __init__(self) -> None:
        self.moved = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.moved


@pytest.fixture
def slow_compiler(cache, monkeypatch):
    """A C++ compiler that takes all it is given: stopped at its CPU limit after as many
    seconds of the playground's clock. Its compiles' limits are listed."""
    clock = Clock()
    monkeypatch.setattr(playground, "time", clock)
    monkeypatch.setattr(type(get_language("cpp")), "compile_tools", lambda self, c=None: [])
    given: list[CompileLimits] = []

    def compile_all_of_it(language, files, script, config, limits, sandboxed, worker):
        given.append(limits)
        clock.moved += limits.cpu_s + 0.5
        return -24, b"", "", f"compiling took over {limits.cpu_s} s of CPU"

    monkeypatch.setattr(compiling, "_compile", compile_all_of_it)
    return given


#: a guest's C++ bot (the starter, changed: no uploaded version's code)
SLOW_CPP = get_game(GAME).starters["cpp"].read_text() + "\n// a table computed at compile time\n"


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_guests_compile_has_the_runs_worker_time_is_charged_and_its_refusal_kept(
    db, settings, cache, slow_compiler
):
    settings.PLAYGROUND_GUEST_RUN_SECONDS = 60
    guest = Client()
    assert post(guest, language="cpp", code=SLOW_CPP, match_count="3").status_code == 302
    run = PlaygroundRun.objects.get()
    worker().step()
    run.refresh_from_db()
    # compiled within the run's 60 s, not a compile's 120 s of wall time
    assert slow_compiler == [CompileLimits(cpu_s=60, wall_s=60.0)]
    assert run.status == PlaygroundRun.FAILED and run.played == 0
    assert run.worker_s >= 60  # the compile's time is the run's
    said = (
        "Your bot could not start: compiling it took all of this run's 60 seconds of worker "
        "time, so no match was played."
    )
    assert run.reason == said
    page = guest.get(reverse("playground_run", args=[run.key])).content.decode()
    assert said.replace("'", "&#x27;") in page
    # the refusal is kept in the machine's cache (its program would not be), so the same
    # code from another guest is not compiled again, and costs its run next to nothing
    assert [name.endswith(".refused") for name in kept(cache)] == [True]
    other = Client()
    assert post(other, language="cpp", code=SLOW_CPP, match_count="3").status_code == 302
    again = PlaygroundRun.objects.exclude(pk=run.pk).get()
    worker().step()
    again.refresh_from_db()
    assert len(slow_compiler) == 1
    assert again.status == PlaygroundRun.FAILED and again.worker_s < 30
    assert again.reason == (
        "Your bot could not start: compiling it took all of a run's 60 seconds of worker time "
        "when this same code was run before, so it was not compiled again and no match was "
        "played."
    )


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_run_taken_over_compiles_within_the_time_it_has_left(alice, settings, slow_compiler):
    settings.PLAYGROUND_RUN_SECONDS = 300
    run = queue(alice, code=SLOW_CPP, language="cpp", matches=2)
    PlaygroundRun.objects.filter(pk=run.pk).update(worker_s=270.4)  # its earlier workers'
    worker().step()
    run.refresh_from_db()
    assert slow_compiler == [CompileLimits(cpu_s=29, wall_s=29.0)]
    assert run.reason == (
        "Your bot could not start: compiling it took all of the 29 seconds this run had left "
        "of worker time, so no match was played."
    )
    assert run.worker_s >= 299.4


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_run_with_time_to_spare_compiles_as_an_upload_does(alice, settings, slow_compiler):
    """Stopped at a limit of every bot's compile, it says so in the compiler's words."""
    settings.PLAYGROUND_RUN_SECONDS = 300
    run = queue(alice, code=SLOW_CPP, language="cpp", matches=2)
    worker().step()
    run.refresh_from_db()
    assert slow_compiler == [compiling.LIMITS]
    assert run.status == PlaygroundRun.FAILED and run.played == 1
    assert run.reason == (
        "Your bot could not start: C++ compile error: compiling took over 60 s of CPU"
    )
    assert run.worker_s >= 60


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_compile_the_clock_stops_is_tried_again_and_charged_its_cpu(
    alice, settings, cache, monkeypatch
):
    monkeypatch.setattr(type(get_language("cpp")), "compile_tools", lambda self, c=None: [])
    cpus = iter([24.0, 22.9, 28.4])

    def busy(language, files, script, config, limits, *args):
        compiling._wall_clock_stop(next(cpus), limits)

    monkeypatch.setattr(compiling, "_compile", busy)
    run = queue(alice, code=SLOW_CPP, language="cpp", matches=2)
    worker().step()
    run.refresh_from_db()
    assert run.status == PlaygroundRun.QUEUED and run.played == 0  # (the site's load)
    assert run.worker_s == pytest.approx(24.0)  # (but the CPU it had is the run's)
    assert "the machine was too busy to compile the bot" in run.error
    for _ in range(3):  # tried again after a pause (give_back), up to its claims
        PlaygroundRun.objects.filter(pk=run.pk).update(lease_until=timezone.now())
        worker().step()
    run.refresh_from_db()
    assert run.status == PlaygroundRun.FAILED and run.worker_s == pytest.approx(75.3)
    assert run.reason == (
        "Compiling your bot was stopped by the clock 3 times before it finished (with 24 s, "
        "23 s and 28 s of CPU of its 60 s); the CPU of this run's tries was charged to it. It "
        "may need more than 60 s of CPU: try a lighter version; if not, the site was busy: "
        "start the run again later."
    )
    assert [name for name in kept(cache) if not name.endswith(".busy")] == []  # no refusal
