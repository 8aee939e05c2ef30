"""CPU is at most the bot's own core, measured from outside: each sandbox's CPU cgroup caps
all its threads together at SandboxLimits.cpu_cores (one core) and counts its CPU time,
which the arena keeps whatever the bot says of itself; between matches a kept sandbox uses
none. (bench/bench_cpu_hog.py measures what the cap spares a neighbouring bot.)"""

from __future__ import annotations

import time

import pytest

from bots.sandbox import SandboxLimits
from tests.sandbox.conftest import IS_ROOT, hostile

pytestmark = pytest.mark.skipif(not IS_ROOT, reason="CPU cgroups are made by a root worker")


def test_a_bots_threads_get_one_core_counted_from_outside(play, tmp_path):
    # three threads of Node's pool hashing (a JavaScript bot that escaped its realm: all of
    # Node) would use every core; the cap keeps them to one (a CFS period of 0.1 s may run
    # over by one period)
    started = time.monotonic()
    played = play(hostile(tmp_path, "cpu_hog.js", threads=3, hold=0.4), matches=1)
    wall = time.monotonic() - started
    assert not played.outcome.faults
    used = played.process.cpu_s  # the cgroup's count, kept at the match's end
    assert 0.5 < used <= wall + 0.15, (used, wall)


def test_a_python_bot_starts_no_thread_and_its_cpu_is_counted_from_outside(play, tmp_path):
    played = play(hostile(tmp_path, "cpu_hog.py", threads=3, hold=0.4), matches=1)
    assert not played.outcome.faults
    assert "THREADS REFUSED: can't start new thread" in played.stderr
    # it burned in its three calls (1.2 s of a busy machine), whatever it says of itself
    # (os.times: 0)
    assert played.process.cpu_s > 0.2
    assert played.agent.process.hello.isolation == "process"


def test_a_kept_sandbox_uses_no_cpu_between_matches(play, tmp_path, sandbox_config):
    from bots.running.process import BotProcess, ProcessAgent
    from bots.sandbox import sandbox_launch
    from games.engine.agents import InProcessAgent
    from games.engine.runner import MatchRunner
    from tests.sandbox.conftest import FAST, GAME

    path = hostile(tmp_path, "cpu_hog.py", threads=2, hold=0.1)
    with BotProcess(sandbox_launch(path, game=GAME, config=sandbox_config), label="hog") as process:
        agent = ProcessAgent(process, GAME.bot_call)
        other = InProcessAgent(GAME.builtin_class("simple"), GAME.bot_call, "simple")
        MatchRunner(time.monotonic, FAST).run(GAME.state_class.new(1), [agent, other], seed=1)
        assert process.alive  # kept for its next match
        before = process.measured_cpu_s()
        time.sleep(0.5)  # its match's process is gone (and could start no thread)
        assert process.measured_cpu_s() - before < 0.05


@pytest.mark.parametrize("fails", ["no", "yes"])
def test_a_bot_s_timer_runs_nothing_between_matches(tmp_path, sandbox_config, fails):
    from pathlib import Path

    from bots.running.process import BotProcess, ProcessAgent
    from bots.sandbox import sandbox_launch
    from games.engine.agents import InProcessAgent
    from games.engine.runner import MatchRunner
    from tests.sandbox.conftest import FAST, GAME

    # its process lasts from one deal to the next, with the timer it set in its first match
    path = hostile(tmp_path, "ticks.py", fails=fails)
    launch = sandbox_launch(path, game=GAME, config=sandbox_config)
    with BotProcess(launch, label="ticks") as process:
        agent = ProcessAgent(process, GAME.bot_call)
        other = InProcessAgent(GAME.builtin_class("simple"), GAME.bot_call, "simple")
        runner = MatchRunner(time.monotonic, FAST)
        faults = runner.run(GAME.state_class.new(1), [agent, other], seed=1).faults
        # (a fault in its match's last notice ends its match all the same)
        assert [f.kind for f in faults.values()] == (["exception"] if fails == "yes" else [])
        pids = process.launch.pids()

        def states() -> set[str]:
            return {Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] for p in pids}

        # every process of the sandbox stops (state T: SIGSTOP takes effect at once, or as
        # soon as one running elsewhere enters the kernel) until the next match
        deadline = time.monotonic() + 2
        while states() != {"T"} and time.monotonic() < deadline:
            time.sleep(0.001)
        assert pids and states() == {"T"}, states()
        before = process.measured_cpu_s()
        time.sleep(0.3)  # a window in which its timer would burn about half a core
        assert process.measured_cpu_s() - before < 0.01
        outcome = runner.run(GAME.state_class.new(2), [agent, other], seed=2)
        assert len(outcome.faults) == len(faults) and process.starts == 1  # the same process


@pytest.mark.parametrize("stops_unasked", [True, False])
def test_a_bot_s_timer_runs_nothing_between_its_calls(tmp_path, sandbox_config, stops_unasked):
    """A bot whose timer burns CPU would think while the other seat takes its turn (a
    person's turn at a live table may last minutes), on a CPU others need, and on a time
    nobody counts. A live table's bot (``stops_unasked``) is stopped from each reply to the
    next request; a worker's once it is found using CPU unasked (in its first match), with
    a line in its log."""
    from bots.running.process import UNASKED_CPU_S, BotProcess, ProcessAgent
    from bots.sandbox import sandbox_launch
    from games.engine.agents import InProcessAgent
    from games.engine.runner import MatchRunner
    from tests.sandbox.conftest import FAST, GAME

    simple = GAME.builtin_class("simple")

    class Slow(simple):  # the other seat: 40 ms a call, about 0.7 s in a match
        def draft_pick(self, cards):
            time.sleep(0.04)
            return super().draft_pick(cards)

        def main_play(self, hand, base):
            time.sleep(0.04)
            return super().main_play(hand, base)

    path = hostile(tmp_path, "ticks.py", fails="no")
    log = tmp_path / "ticks.log"
    launch = sandbox_launch(path, game=GAME, config=sandbox_config)
    with BotProcess(launch, label="ticks", stderr_log=log, stops_unasked=stops_unasked) as process:
        agent = ProcessAgent(process, GAME.bot_call)
        other = InProcessAgent(Slow, GAME.bot_call, "slow")
        runner = MatchRunner(time.monotonic, FAST)
        # (the other seat first: an in-process bot thinks when it is sent its question, so
        # the bot behind it is asked once it has answered; the other way round, the bot
        # would be asked, answer and wait, rightly running, until the runner reads it)
        runner.run(GAME.state_class.new(1), [other, agent], seed=1)  # its timer is set
        found = "while it was not asked" in log.read_text()
        assert found is not stops_unasked
        assert process.stops_unasked
        assert process.unasked_s <= (0.0 if stops_unasked else UNASKED_CPU_S + 0.1)
        before = process.measured_cpu_s()
        started = time.monotonic()
        outcome = runner.run(GAME.state_class.new(2), [other, agent], seed=2)
        waited = time.monotonic() - started
        used = process.measured_cpu_s() - before
        assert not outcome.faults and waited > 0.6, waited
        # its timer would burn half of every wait (0.3 s or more); asked, it burns at most
        # its timer's 5 ms a request (the signal that came due while it was stopped) and
        # answers at once: about 0.1 s in a match
        assert used < 0.2, (used, waited)


def test_a_bot_that_does_nothing_unasked_is_not_stopped_between_its_calls(play, tmp_path):
    played = play(hostile(tmp_path, "fair.py"), matches=2)
    assert not played.outcome.faults
    assert not played.process.stops_unasked and played.process.unasked_s < 0.005


def test_without_a_cap_the_cgroup_still_counts(play, tmp_path):
    limits = SandboxLimits(cpu_cores=0)
    played = play(hostile(tmp_path, "cpu_hog.py", threads=1, hold=0.2), limits=limits)
    assert not played.outcome.faults
    assert played.process.cpu_s > 0.2
