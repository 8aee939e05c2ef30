"""A process that plays matches and is itself held up (stopped, a paused VM, swapped out)
never charges the bots for it: a reply it reads late, or a deadline that passed while it was
not running, is the platform's trouble (PlatformError), not a timeout of the bot's. Before,
a worker stopped for 20 s stored "main_play took 20.13 s, over the 1 s per call and the
10 s time bank" as a bot's fault, in a rated match and in a validation that rejected it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from bots.running import stalls
from bots.running.process import PlatformError
from tests.bots.test_process import make_process, play  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]


def test_a_tick_a_second_late_or_more_marks_a_stall(monkeypatch):
    watch = stalls._Watch()
    watch.thread = threading.current_thread()  # (watching: ticked by hand here)
    watch.ticked = 100.0
    monkeypatch.setattr(stalls, "_WATCH", watch)
    watch.seen(100.1)
    watch.seen(100.5)  # 0.3 s late: a busy machine, no stall
    assert watch.stalls == [] and stalls.held_up(99.0, 100.6) == 0.0
    watch.seen(103.6)  # 3 s late: held up from 100.6 to 103.6
    assert watch.stalls == [(100.6, 103.6)]
    assert stalls.held_up(101.0, 103.7) == pytest.approx(2.6)  # a call begun in it
    assert stalls.held_up(99.0, 103.7) == pytest.approx(3.0)  # one begun before
    assert stalls.held_up(99.0, 100.4) == 0.0  # a reply read before it
    assert stalls.held_up(103.6, 103.7) == 0.0  # a call begun after it
    # no tick for 1.5 s: held up now (the watch has not run since)
    assert stalls.held_up(103.65, 105.2) == pytest.approx(1.5, abs=0.06)
    assert stalls.held_up(103.65, 104.5) == 0.0


def _ticks(count: int) -> None:
    """Wait (5 s at most) until the watch has ticked ``count`` more times."""
    deadline = stalls._monotonic() + 5
    for _ in range(count):
        last = stalls._WATCH.ticked
        while stalls._WATCH.ticked == last and stalls._monotonic() < deadline:
            stalls._sleep(0.01)


def test_a_fake_clock_of_the_time_module_does_not_reach_the_watch(monkeypatch):
    """A test replaced ``time.monotonic`` with a clock an hour ahead, for a moment: the watch
    ticked on it and noted a stall ending an hour ahead, so every later call of that test
    process was "held up", a PlatformError (a job voided after 20 tries, a worker that never
    got to its end). The watch keeps the clock it was imported with."""
    stalls.watch()
    ahead = time.monotonic() + 3601
    monkeypatch.setattr(time, "monotonic", lambda: ahead)
    _ticks(2)
    monkeypatch.undo()
    now = time.monotonic()
    assert stalls.held_up(now - 0.2, now) == 0.0
    assert all(end <= now for _, end in stalls._WATCH.stalls)


def test_a_reply_read_after_a_stall_is_the_platforms_trouble(make_process):  # noqa: F811
    """The bot answers each call in 0.3 s; while it thinks, the process is held up: the
    match is not judged (the time the reply came is not known), and no bot is charged."""
    # (a plain process, outside the sandbox: it may signal this one as it starts to think)
    process = make_process(
        f"import os, signal, time; os.kill({os.getpid()}, signal.SIGUSR1); time.sleep(0.3); "
        "return 0"
    )
    process.start(10.0)
    thinking = threading.Event()
    before = signal.signal(signal.SIGUSR1, lambda *_: thinking.set())

    def held_up_while_it_thinks() -> None:
        # the bot is asked: a call of the match is open
        assert thinking.wait(60), "the bot was never asked to play"
        now = time.monotonic()
        stalls._WATCH.stalls = [*stalls._WATCH.stalls, (now - 0.1, now + 1.5)]

    thread = threading.Thread(target=held_up_while_it_thinks)
    thread.start()
    try:
        with pytest.raises(PlatformError, match="held up for .* s during main_play") as caught:
            play(process)
    finally:
        thread.join()
        signal.signal(signal.SIGUSR1, before)
    assert "no fault of the bot's" in str(caught.value)
    assert not process.alive  # (stopped: the next match starts a new one)


SLOW_BOT = """
import os, signal, time

TOLD = {pid}

class Bot:
    name = "slow"

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        os.kill(TOLD, signal.SIGUSR1)  # (run outside the sandbox: it may) it thinks now
        time.sleep(0.2)
        return 0

    def main_postprocess(self, card):
        pass
"""


def test_an_arena_stopped_for_seconds_blames_no_bot(tmp_path):
    """A real stop (SIGSTOP, as a paused container gets) of the process playing an arena's
    matches, while its bot thinks: the tournament stops, saying that no bot is to blame,
    instead of charging the bot a slow call of 2.5 s."""
    bot = tmp_path / "slow.py"
    bot.write_text(textwrap.dedent(SLOW_BOT).replace("{pid}", str(os.getpid())))
    thinking = threading.Event()
    before = signal.signal(signal.SIGUSR1, lambda *_: thinking.set())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env |= {"CARD_ARENA_VAR": str(tmp_path / "var"), "COLUMNS": "80"}
    arena = subprocess.Popen(
        [sys.executable, "manage.py", "arena", "--game", "rps-poker", str(bot),
         "builtin:minimal", "--rounds", "20", "--seed", "3", "--jobs", "1", "--no-progress",
         "--no-sandbox"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not thinking.wait(0.05):  # the bot thinks: a call of the match is open
            assert arena.poll() is None and time.monotonic() < deadline, arena.communicate()
            time.sleep(0.02)
        os.kill(arena.pid, signal.SIGSTOP)
        time.sleep(2.5)  # (the stop itself: what is tested)
        os.kill(arena.pid, signal.SIGCONT)
        _, err = arena.communicate(timeout=120)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
        signal.signal(signal.SIGUSR1, before)  # (its bot tells no more)
    assert arena.returncode != 0
    said = " ".join(err.split())
    assert (
        "this machine could not play the tournament: the process playing the match was held "
        "up for" in said
    ), err
    assert "No bot is to blame" in said and "Traceback" not in err
