"""``manage.py arena`` as matches end and when it is stopped, as an auditor found it at an
80-column terminal: the progress bar stuck at "0/15" for 9 minutes while the job processes
had ended matches 2, 11, 12 and 13, and no bot's timeout said; Ctrl-C answered with ~55 lines
of traceback, the bar left up for 5 to 10 s, and the bots' logs of 9 minutes deleted; a run
refused at its start left a --logs folder of empty files that refused the rerun."""

from __future__ import annotations

import _thread
import io
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.management import CommandError
from rich.console import Console

from bots.arena import Arena, MatchEnd, command
from games.registry import get_game
from tests.arena.test_arena_command import arena

ROOT = Path(__file__).resolve().parents[2]


def test_a_match_that_ends_in_a_job_is_told_at_once(monkeypatch):
    # The bar and the first timeouts were moved by the tally, which takes the matches in
    # schedule order: a match still playing here held back every match a job had ended.
    # Here this process's first call waits until a match has been told (10 s at most):
    # the job's matches must be told while it waits, before anything is tallied.
    game = get_game("rps-poker")
    simple = game.builtin_class("simple")
    here, told, ended = os.getpid(), threading.Event(), []
    waited: list[bool] = []
    pick = simple.draft_pick

    def held_up(self, cards):
        if os.getpid() == here and not waited:  # (a job, forked, plays on)
            waited.append(told.wait(10))
        return pick(self, cards)

    monkeypatch.setattr(simple, "draft_pick", held_up)
    tallied: list[int] = []

    def on_end(count: int, match: MatchEnd) -> None:
        ended.append((count, match.number, len(tallied)))
        told.set()

    with Arena(game, ["builtin:simple", "builtin:minimal"], jobs=2) as played:
        summary = played.run(20, seed=3, on_end=on_end, on_match=lambda n, _o: tallied.append(n))
    assert waited == [True]  # told while this process's first match was still on
    assert ended[0][2] == 0  # (nothing tallied yet)
    assert [count for count, _, _ in ended] == list(range(1, 21))
    assert sorted(number for _, number, _ in ended) == list(range(1, 21))
    assert tallied == list(range(1, 21)) and summary["matches"] == 20


def test_a_first_timeout_names_its_call_and_is_said_once():
    # "py-slow timed out in match 3; the other matches go on": the call was missing where
    # the reason was 3 calls in a row
    err = Console(file=io.StringIO(), width=80)
    played = SimpleNamespace(entrants=[SimpleNamespace(name="py-slow"), SimpleNamespace(name="x")])
    said: set[int] = set()
    streak = (
        "3 calls in a row over the 1 s per call (main_play took 3.01 s; main_play took 3.00 s; "
        "no answer to main_play within 1.00 s): the 10 s time bank pays for occasional slow "
        "calls, not for 3 in a row"
    )
    command._say_first_timeouts(err, played, MatchEnd(3, (0, 1), {0: ("timeout", streak)}), said)
    command._say_first_timeouts(err, played, MatchEnd(5, (1, 0), {1: ("timeout", streak)}), said)
    notices = "the last notices took 1.20 s, over the 1 s per call and the 10 s time bank"
    command._say_first_timeouts(err, played, MatchEnd(6, (1, 0), {0: ("timeout", notices)}), said)
    assert err.file.getvalue().splitlines() == [
        "py-slow timed out in match 3 (main_play); the other matches go on",
        "x timed out in match 6; the other matches go on",
    ]


def test_ctrl_c_stops_the_jobs_at_once_and_keeps_what_they_played(tmp_path, bot_file):
    # After Ctrl-C the jobs' parts of the bots' logs were deleted, the logs left empty, and
    # the jobs waited for (5 s each) as they played on
    talker = bot_file(
        "talker.py",
        "import sys\n\n"
        "class Bot:\n"
        "    name = 'talker'\n\n"
        "    def __init__(self):\n"
        "        print('a new match', file=sys.stderr, flush=True)\n\n"
        "    def draft_pick(self, cards):\n        return 0\n\n"
        "    def draft_receive(self, card):\n        pass\n\n"
        "    def main_play(self, hand, base):\n        return 0\n\n"
        "    def main_postprocess(self, card):\n        pass\n",
    )
    logs = tmp_path / "logs"
    stopped_at: list[float] = []

    def on_end(count: int, _match: MatchEnd) -> None:
        if count == 12 and not stopped_at:
            stopped_at.append(time.monotonic())
            _thread.interrupt_main()  # (Ctrl-C, as this process's SIGINT)

    game = get_game("rps-poker")
    # (Ctrl-C's own handler, whatever an earlier test of this process left: a worker's)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        bots = [str(talker), "builtin:simple", "builtin:minimal"]
        with Arena(game, bots, logs=logs, jobs=2) as a:
            with pytest.raises(KeyboardInterrupt):
                a.run(40, seed=7, on_end=on_end)  # 120 matches
            ended = a.ended
    finally:
        signal.signal(signal.SIGINT, before)
    assert time.monotonic() - stopped_at[0] < 4.5  # (not a job's 5 s)
    assert multiprocessing.active_children() == []
    records = sorted((logs / "matches").glob("*.json"))
    assert 12 <= ended <= len(records) < 120  # (a job's last may be written, not yet told)
    assert [p.name for p in (logs / "stderr").iterdir()] == ["00-talker.stderr.log"]
    log = (logs / "stderr" / "00-talker.stderr.log").read_text()
    for record in records:  # each match the bot played is in its log, in whichever job
        number = int(record.name[:5])
        if "talker" in record.name:
            assert f"match {number} ({record.name})" in log
    assert log.count("a new match") >= sum("talker" in r.name for r in records)
    line = command.interrupted_line(ended, 120, 7, logs)
    assert line == (
        f"interrupted after {len(records)} of 120 matches (seed 7); the logs in {logs} hold the "
        "matches played"
    )


def signals_as_a_shell_leaves_them() -> None:
    """In the arena's process, before it starts: Ctrl-C, SIGTERM and SIGCHLD at their
    defaults, as a terminal's shell starts a foreground job. A signal ignored is inherited
    by the commands a process starts: a test process left ignoring SIGINT by an earlier test
    started an arena that ignored Ctrl-C too (it played its 9,000 matches and exited 0)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)


def started_arena(tmp_path: Path, *args: str) -> subprocess.Popen:
    """``manage.py arena ARGS`` in a session of its own (as a terminal's foreground job),
    its temporary folders in ``tmp_path``, once it has begun its tournament."""
    env = {**os.environ, "COLUMNS": "80", "TMPDIR": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "arena", "--game", "rps-poker", *args],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=signals_as_a_shell_leaves_them,
    )  # fmt: skip
    header = process.stderr.readline()
    assert header.startswith("RPS Poker: 3 bots, 3000 rounds, 9000 matches, seed 4"), header
    return process


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_run_says_how_far_it_got_in_a_line(tmp_path, signum, status):
    # Ctrl-C (SIGINT to the whole foreground group) or a kill (SIGTERM, to the arena alone):
    # one line, no traceback, no process left, no temporary folder left that no line names
    bots = ["builtin:strong", "builtin:simple", "builtin:minimal"]
    process = started_arena(tmp_path, *bots, "--rounds", "3000", "--seed", "4", "--jobs", "2")
    if signum == signal.SIGINT:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert "Traceback" not in err and out == ""
    said = " ".join(err.split())
    assert re.fullmatch(r"interrupted after \d+ of 9000 matches \(seed 4\)", said), err
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # (nothing left of it: its jobs neither)
    assert list(tmp_path.iterdir()) == []  # (its bots' temporary logs: gone)


def test_a_stopped_run_keeps_its_logs_and_says_where(tmp_path):
    logs = tmp_path / "logs"
    bots = ["builtin:strong", "builtin:simple", "builtin:minimal"]
    process = started_arena(
        tmp_path, *bots, "--rounds", "3000", "--seed", "4", "--jobs", "2", "--logs", str(logs)
    )
    while not (logs / "matches").is_dir() or not any((logs / "matches").iterdir()):
        assert process.poll() is None
        time.sleep(0.05)  # (until a match has ended)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    count = len(list((logs / "matches").glob("*.json")))
    assert " ".join(err.split()) == (
        f"interrupted after {count} of 9000 matches (seed 4); the logs in {logs} hold the "
        "matches played"
    )
    assert all(len(line) <= 80 for line in err.splitlines())


def test_a_start_refused_leaves_the_logs_folder_as_it_was(tmp_path, bot_file):
    # "the bot exited with status 3 during start-up" left logs/stderr/ with an empty file per
    # bot, and the rerun was refused: "--logs DIR is not empty (an earlier run's logs?)"
    quiet = bot_file("quiet.py", "import os\nos._exit(3)\n")
    logs = tmp_path / "logs"
    with pytest.raises(CommandError, match=r"exited with status 3 during start-up$"):
        arena("builtin:simple", str(quiet), "--logs", str(logs))
    assert not logs.exists()
    logs.mkdir()  # (a folder given empty stays, empty)
    with pytest.raises(CommandError, match=r"exited with status 3 during start-up$"):
        arena("builtin:simple", str(quiet), "--logs", str(logs))
    assert list(logs.iterdir()) == []
    # a bot that said why: what it wrote is kept, and the error says where
    said = bot_file("said.py", "import os, sys\nprint('no config', file=sys.stderr)\nos._exit(3)\n")
    with pytest.raises(CommandError) as refused:
        arena("builtin:simple", str(said), "--logs", str(logs))
    log = logs / "stderr" / "01-said.stderr.log"
    assert str(refused.value).endswith(
        f"the bot exited with status 3 during start-up (what it wrote to stderr: {log})"
    )
    assert list(logs.rglob("*.log")) == [log] and log.read_text() == "no config\n"


class _Sent:
    """What a job sends its parent (a multiprocessing queue's two calls it makes)."""

    def __init__(self) -> None:
        self.put_items: list[object] = []
        self.cancelled = False

    def put(self, item: object) -> None:
        self.put_items.append(item)

    def cancel_join_thread(self) -> None:
        self.cancelled = True


def test_a_job_stopped_while_it_reports_its_error_ends_quietly(tmp_path, monkeypatch):
    """A job whose bot failed its start reports the error to its parent; the parent, failing
    on the same bot, stops its jobs with SIGTERM. Arriving while the job formatted its
    traceback, the signal's Terminated left the handler: "Process ForkProcess-1:" and a
    traceback printed above the arena's one-line error (a full test run at 80 columns)."""
    import bots.arena as arena_module
    from bots.arena import ArenaError
    from games.engine import interrupts

    def failing(*args, **kwargs):
        raise ArenaError("mine.py: class Bot has no method act")

    def stopped(*args, **kwargs):
        raise interrupts.Terminated

    monkeypatch.setattr(arena_module, "Arena", failing)
    monkeypatch.setattr(arena_module.interrupts, "install", lambda: None)
    monkeypatch.setattr(arena_module.traceback, "format_exc", stopped)
    jobs = SimpleNamespace(parts=tmp_path, results=_Sent(), ends=_Sent())
    job = SimpleNamespace(entrants=[], _args=(), _kwargs={})
    before = signal.getsignal(signal.SIGTERM)
    try:
        Arena._job(job, jobs, 0)  # (the class's own method: the module's name is the fake)
    finally:
        signal.signal(signal.SIGTERM, before)
    assert jobs.results.put_items == [] and jobs.results.cancelled and jobs.ends.cancelled


def _report_mask(jobs, number, cpus=None):
    """A job's work in the test below: its signal mask as it begins, sent back."""
    jobs.results.put(sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))


def test_a_job_is_forked_with_ctrl_c_held_back_until_it_can_take_it(tmp_path):
    """A Ctrl-C that came while multiprocessing started a job's process (before the job's
    own handler) printed multiprocessing's traceback under the arena's line. The signals
    are held back while the jobs are forked: the job takes them once its handler is in
    (Arena._job), and the arena's own mask is as it was."""
    from bots.arena import STOPPING

    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    fake = SimpleNamespace(_job=_report_mask, error_dir=tmp_path)
    jobs = Arena._fork_jobs(fake, 1, [])
    try:
        held = set(jobs.results.get(timeout=30))
    finally:
        for worker in jobs.workers:
            worker.join(30)
    assert held >= STOPPING
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
