"""The playground on a worker: runs claimed, played in the sandbox match by match, stored
as they are played, and nothing written where the competition keeps its results."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from bots import competition, playground
from bots.competition import leases, uploads
from bots.models import Match, MatchJob, PlaygroundMatch, PlaygroundRun
from bots.worker import Options, Worker
from games.registry import get_game
from tests.playground.conftest import (
    GAME,
    builtin_code,
    competition_rows,
    given_up,
    misbehaving,
    queue,
    worker,
)


def test_a_copy_of_a_builtin_bot_plays_its_matches_in_the_sandbox(alice, bob, active_bot):
    rival = active_bot(bob, "rival", builtin_code("strong"))
    before = competition_rows()
    run = queue(alice, opponents=["builtin:simple", f"bot:{rival.bot_id}"], matches=4, seed=11)
    assert playground.queue_position(run) == 1
    w = worker()
    assert w.step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    assert run.played == 4 and run.attempts == 1 and run.finished is not None
    matches = list(run.played_matches.order_by("number"))
    assert [m.number for m in matches] == [0, 1, 2, 3]
    for m in matches:
        assert [s["score"] for s in m.seats] == m.record["result"]["scores"]
        assert m.seats[m.seat]["name"] == playground.YOUR_BOT
        assert not any(s["fault_kind"] for s in m.seats), m.seats
        assert m.record["seed"] == m.seed
    # the opponents in turn, then each deal again with the seats swapped
    assert [m.seat for m in matches] == [0, 0, 1, 1]
    assert matches[0].seed == matches[2].seed != matches[1].seed == matches[3].seed
    assert [m.seats[1 - m.seat]["name"] for m in matches] == [
        "house/simple", rival.bot.label, "house/simple", rival.bot.label,
    ]  # fmt: skip
    # the same code as the built-in bot plays it as the built-in would: the same scores
    # again with the same seed
    again = queue(alice, opponents=["builtin:simple", f"bot:{rival.bot_id}"], matches=4, seed=11)
    assert w.step() is True
    replayed = PlaygroundMatch.objects.filter(run=again).order_by("number")
    assert [m.seats for m in replayed] == [m.seats for m in matches]
    # the competition saw nothing of it
    assert competition_rows() == before
    assert w.step() is False


def test_a_bot_that_cannot_load_fails_the_run_with_its_loading_error(alice):
    broken = "class Bot:\n    def draft_pick(self, cards)\n        return 0\n"
    run = queue(alice, code=broken, matches=6)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.FAILED
    assert run.reason.startswith("Your bot could not start: ")
    assert run.reason.endswith("SyntaxError: expected ':' (bot.py, line 2)")
    assert "Traceback" not in run.reason  # one line for the person, not a traceback of ours
    # the first match is kept (the person sees its fault and stderr); no more are played
    assert run.played == 1
    only = run.played_matches.get()
    assert only.seats[only.seat]["fault_kind"] == "startup"
    assert "def draft_pick(self, cards)" in only.stderr  # the bot's own traceback


def test_a_bot_raising_is_told_where_and_one_missing_a_module_why(alice):
    run = queue(alice, code=misbehaving("return {}[7]"), matches=1)
    assert worker().step() is True
    run.refresh_from_db()
    only = run.played_matches.get()
    assert only.seats[only.seat]["fault_reason"] == "main_play raised KeyError: 7 (bot.py, line 12)"
    run = queue(alice, code="import numpy\n", matches=1)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.FAILED
    assert run.reason == (
        "Your bot could not start: failed at import: ModuleNotFoundError: No module named "
        "'numpy' (bot.py, line 1); bots get Python's standard library only"
    )


def test_a_bot_without_a_bot_class_fails_with_that_reason(alice):
    run = queue(alice, code="x = 1\n", matches=2)
    worker().step()
    run.refresh_from_db()
    assert run.status == PlaygroundRun.FAILED
    assert run.reason == "Your bot could not start: no top-level class Bot"


HOSTILE = misbehaving(
    """
    import sys
    sys.stderr.write("noise " * 30_000)
    sys.stderr.flush()
    sys.stderr.buffer.write(b"\\xff\\xfe bytes \\x00 NUL\\n")
    sys.stderr.buffer.flush()
    return {"garbage": "\\x00" * 10}
    """
)


def test_a_hostile_bot_is_faulted_in_each_match_and_the_run_goes_on(alice):
    run = queue(alice, code=HOSTILE, matches=3)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    matches = list(run.played_matches.order_by("number"))
    assert len(matches) == 3
    for m in matches:
        mine = m.seats[m.seat]
        assert mine["fault_kind"] == "invalid", mine
        assert mine["fault_reason"]
        assert "\x00" not in mine["fault_reason"]
        theirs = m.seats[1 - m.seat]
        assert not theirs["fault_kind"]
        # stderr is kept cleaned and capped, as a competition seat's is
        assert 0 < len(m.stderr) <= 20_000
        assert "\x00" not in m.stderr
        assert "noise" in m.stderr


def test_a_bot_that_floods_its_output_is_faulted_and_the_run_goes_on(alice):
    flood = misbehaving(
        """
        import sys
        while True:
            sys.stderr.write("flood " * 10_000)
        """
    )
    run = queue(alice, code=flood, matches=2)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    for m in run.played_matches.all():
        assert m.seats[m.seat]["fault_kind"] == "output"
        assert len(m.stderr) <= 20_000


def test_a_run_whose_worker_died_is_taken_again_and_goes_on(alice):
    run = queue(alice, matches=4)
    caps = playground.caps(errors=3)
    first = playground.claim("w-dead", 60, caps)
    assert first.job.pk == run.pk
    # the dead worker played and stored one match, then stopped beating
    seats = playground.seating(first.job)
    played, seat = playground.play_match(first.job, 0, seats)
    names = [e.name for e in playground.table(first.job, 0, seats)[0]]
    assert playground.store_match(first, 0, played, seat, names)
    assert playground.claim("w2", 60, caps) is None  # leased
    PlaygroundRun.objects.filter(pk=run.pk).update(lease_until=timezone.now() - timedelta(1))
    w = worker("w2")
    assert w.step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE and run.worker == "w2" and run.attempts == 2
    assert run.played == 4
    assert list(run.played_matches.values_list("number", flat=True)) == [0, 1, 2, 3]
    # the dead worker's late writes are refused
    assert leases.heartbeat(first, 60) is False
    assert playground.store_match(first, 1, played, seat, names) is False


def test_a_run_claimed_too_often_is_given_up(alice, settings):
    settings.PLAYGROUND_MAX_CLAIMS = 2
    run = queue(alice)
    reason = given_up(
        run, status=PlaygroundRun.RUNNING, attempts=2, worker="w0",
        lease_until=timezone.now() - timedelta(1),
    )  # fmt: skip
    # whole words, the site's trouble said so, no worker's name (it said "The run was given
    # up: it taken 2 times without a result: ... (the last one: w0).")
    assert reason == (
        "The site's workers stopped 2 times while playing this run, so it was given up. "
        "That is the site's trouble, not your bot's; start the run again later."
    )


def test_workers_stopped_for_a_deploy_do_not_use_up_a_runs_tries(alice, settings):
    """A worker stopped gracefully (SIGTERM: a deploy, a restart) gives the run back with its
    claim undone; three such stops used up a run's three tries, and it failed."""
    settings.PLAYGROUND_MAX_CLAIMS = 3
    run = queue(alice, matches=2)
    for n in range(4):
        stopping = worker(f"w{n}")
        stopping.stopping = True  # (SIGTERM: it stops before the next match)
        assert stopping.step() is True
        run.refresh_from_db()
        assert run.status == PlaygroundRun.QUEUED and run.attempts == 0, run.reason
        assert run.error == "the worker was stopped"
    assert worker("w9").step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE and run.attempts == 1 and run.played == 2


def test_errors_of_the_sites_own_end_a_run_in_whole_words(alice):
    run = queue(alice)
    reason = given_up(run, errors=3, attempts=3, error="error on vm:1: KeyError: 'x'")
    assert reason == (
        "The site ran into an error of its own 3 times while playing this run, so it was "
        "given up. That is the site's trouble, not your bot's; start the run again later."
    )


def test_a_run_comes_before_tournament_matches(alice, bob, active_bot):
    active_bot(alice, "a", builtin_code("simple"))
    active_bot(bob, "b", builtin_code("strong"))
    competition.start_round_robin(GAME, 1, seed=3)
    MatchJob.objects.update(priority=0)
    run = queue(bob, matches=1)
    w = worker()
    assert w.step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE
    assert not Match.objects.exists()  # no match job was played first
    assert w.step() is True
    assert Match.objects.count() == 1


def matches_waiting(alice, bob, active_bot, settings) -> None:
    """Two bots' round robin queued (no placement: every job of the same priority), and room
    for five open runs."""
    settings.PLAYGROUND_MAX_OPEN = 5
    active_bot(alice, "a", builtin_code("simple"))
    active_bot(bob, "b", builtin_code("strong"))
    competition.start_round_robin(GAME, 2, seed=3)
    MatchJob.objects.update(priority=0)


def test_runs_and_matches_take_turns_so_runs_cannot_stop_the_tournaments(
    alice, bob, active_bot, settings
):
    matches_waiting(alice, bob, active_bot, settings)
    runs = [queue(bob, matches=1) for _ in range(3)]
    w = worker()
    done = []
    for _ in range(5):
        assert w.step() is True
        ended = PlaygroundRun.objects.filter(status=PlaygroundRun.DONE).count()
        done.append((ended, Match.objects.count()))
    assert done == [(1, 0), (1, 1), (2, 1), (2, 2), (3, 2)]
    assert all(PlaygroundRun.objects.get(pk=r.pk).status == PlaygroundRun.DONE for r in runs)


def test_uploads_runs_and_matches_take_turns_so_uploads_cannot_stop_the_rest(
    alice, bob, active_bot, settings, monkeypatch
):
    """The audit's case: carol's 3 uploads of a slow-compiling bot held the only worker one
    after the other (quick validations came before everything), a guest's run waited 106 s
    and a tournament played nothing. Now an upload's check, a run and a batch of matches
    take turns, each never twice in a row while another waits."""
    matches_waiting(alice, bob, active_bot, settings)
    runs = [queue(bob, matches=1) for _ in range(2)]
    carol = User.objects.create_user("carol")
    for n in range(3):
        code = f"# v{n}\n{builtin_code('simple')}"
        uploads.upload(carol, GAME, "slow", "slow.py", code.encode())
    checked = []

    def validation(version, quick=None):  # (a compile that takes its time, in a real site)
        checked.append(version.pk)
        return uploads.ValidationResult(False, "startup: too slow", "log", fault_kind="startup")

    monkeypatch.setattr(uploads, "run_validation", validation)
    w = Worker(Options(solve=False, poll_s=0), name="w1")
    done = []
    for _ in range(7):
        assert w.step() is True
        ended = PlaygroundRun.objects.filter(status=PlaygroundRun.DONE).count()
        done.append((len(checked), ended, Match.objects.count()))
    assert done == [
        (1, 0, 0), (1, 1, 0), (1, 1, 1), (2, 1, 1), (2, 2, 1), (2, 2, 2), (3, 2, 2),
    ]  # fmt: skip
    assert all(PlaygroundRun.objects.get(pk=r.pk).status == PlaygroundRun.DONE for r in runs)


def test_a_bigger_table_seats_every_opponent_in_every_rotation(alice):
    heuristic = get_game("last-card").builtin_path("heuristic").read_text()
    run = queue(
        alice, game="last-card", code=heuristic, matches=3,
        opponents=["builtin:naive", "builtin:heuristic"],
    )  # fmt: skip
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    matches = list(run.played_matches.order_by("number"))
    assert [m.seat for m in matches] == [0, 1, 2]
    assert len({m.seed for m in matches}) == 1  # one deal, every rotation
    for m in matches:
        assert len(m.seats) == 3 and m.seats[m.seat]["name"] == playground.YOUR_BOT
        assert not any(s["fault_kind"] for s in m.seats)


def test_a_game_played_alone_takes_no_opponent(alice):
    basic = get_game("uth").builtin_path("basic").read_text()
    with pytest.raises(playground.PlaygroundError, match="takes no opponents"):
        queue(alice, game="uth", code=basic, opponents=["builtin:basic"])
    run = queue(alice, game="uth", code=basic, opponents=[], matches=2)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    matches = list(run.played_matches.order_by("number"))
    assert [len(m.seats) for m in matches] == [1, 1]
    assert matches[0].seed != matches[1].seed


def test_a_bot_that_crashes_is_faulted_and_restarted_for_the_next_match(alice):
    crash = misbehaving(
        """
        import os
        os._exit(3)
        """
    )
    run = queue(alice, code=crash, matches=3)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    kinds = [m.seats[m.seat]["fault_kind"] for m in run.played_matches.order_by("number")]
    assert kinds == ["crash", "crash", "crash"]


def test_a_bot_for_another_game_ends_the_run_before_its_first_match(alice):
    # (one whose text names the game's method, as a comment does here: its start tells)
    starter = get_game("rps-poker").starters["python"].read_text() + "# not act()\n"
    run = queue(alice, code=starter, game="goofspiel", opponents=["builtin:random"], matches=4)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.FAILED
    assert run.reason == (
        "Your bot could not start: class Bot has no method act. A Goofspiel bot needs "
        "act(obs); this file defines draft_pick, draft_receive, main_play, main_postprocess "
        "(RPS Poker's methods): is it for another game?"
    )
    assert run.played == 0 and not run.played_matches.exists()


def test_a_bot_with_the_contract_plays_its_first_match_in_the_process_checked(alice):
    # the process started to read the hello is the one the first match uses
    run = queue(alice, matches=1)
    assert worker().step() is True
    run.refresh_from_db()
    assert run.status == PlaygroundRun.DONE, run.reason
    only = run.played_matches.get()
    assert "restarting" not in only.stderr and not only.seats[only.seat]["fault_kind"]
