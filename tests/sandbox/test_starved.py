"""The machine's trouble is never the bot's fault (docs/sandbox.md, "Faults"): a bot the
machine keeps waiting for a CPU is given that time back (bots.running.starved), a machine
that starves it past the cap is a PlatformError, and so is a SIGKILL from outside, which a
bot cannot send itself (the seccomp filter refuses it).

Real sandboxes: the bot and a CPU hog share one CPU (the test pins itself, which the sandbox
inherits, and the hog), so that the bot gets about half of it."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bots.running import starved
from bots.running.launch import bot_launch
from bots.running.process import BotProcess, PlatformError, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchOutcome, MatchRunner, TimeControl
from tests.sandbox.conftest import GAME, IS_ROOT, Opponent, hostile

#: no time bank: a call over ``move`` times out, so only the per-call deadline decides
TIGHT = TimeControl(move=0.5, bank=0.0, startup=10.0)


@contextlib.contextmanager
def one_cpu_with_a_hog() -> Iterator[subprocess.Popen[bytes]]:
    """This process (and so every sandbox it starts) and a process spinning for ever on the
    same CPU; both undone at the end."""
    before = os.sched_getaffinity(0)
    cpu = {max(before)}

    def pin() -> None:
        os.sched_setaffinity(0, cpu)

    # a session of its own: where the machine groups tasks by session (autogroup), it weighs
    # as much as the sandbox's CPU cgroup
    hog = subprocess.Popen(
        [sys.executable, "-c", "while True: pass"], preexec_fn=pin, start_new_session=True
    )
    os.sched_setaffinity(0, cpu)
    try:
        yield hog
    finally:
        os.sched_setaffinity(0, before)
        hog.kill()
        hog.wait()


def run_match(
    path, config, tc: TimeControl, opponent: InProcessAgent | None = None
) -> tuple[MatchOutcome, ProcessAgent, float]:
    launch = bot_launch(path, game=GAME, config=config)
    with BotProcess(launch, label=path.stem) as process:
        agent = ProcessAgent(process, GAME.bot_call, startup_timeout=tc.startup)
        other = opponent or Opponent(GAME.builtin_class("simple"), GAME.bot_call, "simple")
        runner = MatchRunner(time.monotonic, tc)
        process.start(tc.startup)  # started before the clock runs: the start is not timed
        started = time.monotonic()
        outcome = runner.run(GAME.state_class.new(0, num_seats=2), [agent, other], seed=0)
        return outcome, agent, time.monotonic() - started


def test_a_bot_the_machine_keeps_waiting_for_a_cpu_does_not_time_out(tmp_path, sandbox_config):
    """0.3 s of CPU in a call of 0.5 s, on half a CPU: some 0.6 s of wall time, half of it
    waiting for the CPU. Counted by the wall clock alone it timed out (fault ``timeout``);
    its own time is within the allowance, so it plays the match without a fault."""
    bot = hostile(tmp_path, "cpu_once.py", burn=0.3)
    with one_cpu_with_a_hog():
        outcome, agent, _ = run_match(bot, sandbox_config, TIGHT)
    stats = outcome.stats[0]
    assert outcome.faults == {}, outcome.faults
    assert stats.slowest_s > TIGHT.move  # the wall clock alone: over the allowance
    assert stats.starved_s > 0.1  # the machine's share, charged to no time of the bot's
    assert stats.own_s < stats.startup_s + stats.think_s - 0.1
    assert agent.fault_reports == []


def test_a_busy_bot_on_a_busy_machine_still_times_out(tmp_path, sandbox_config):
    """An endless loop on half a CPU: its deadline moves on by the time the machine took from
    it, and it times out once its own time is over the allowance (not a PlatformError)."""
    bot = hostile(tmp_path, "cpu_once.py", burn=60)
    with one_cpu_with_a_hog():
        outcome, _, elapsed = run_match(bot, sandbox_config, TIGHT)
    fault = outcome.faults[0]
    assert fault.kind == "timeout", fault
    # one sentence: its limit, and the machine's wait it was not charged for
    assert re.search(
        r"within \d+\.\d\d s of its own time \(not counting the \d+\.\d\d s the busy "
        r"machine kept it waiting for a CPU\), the ",
        fault.reason,
    ), fault
    assert elapsed < starved.CAP * TIGHT.move


def test_a_sleeping_bot_on_a_busy_machine_still_times_out(tmp_path, sandbox_config):
    """A bot that sleeps waits by its own choice: no run-queue wait, no more time."""
    bot = hostile(tmp_path, "sleep.py")
    with one_cpu_with_a_hog():
        outcome, _, elapsed = run_match(bot, sandbox_config, TIGHT)
    fault = outcome.faults[0]
    assert fault.kind == "timeout", fault
    assert "machine" not in fault.reason, fault
    assert elapsed < 3 * TIGHT.move


def test_a_bot_that_yields_its_cpu_on_a_busy_machine_still_times_out(tmp_path, sandbox_config):
    """A bot that gives its CPU away in a loop (``sched_yield``) waits in the run queue by its
    own choice: were that wait credited until the cap made its match a PlatformError, a
    losing bot could have its match played again. It is not: a yield costs the bot its own
    CPU, of which it gets its share (the credit is at most the core's time it did not get),
    so it times out as a busy bot does."""
    bot = hostile(tmp_path, "yield_forever.py")
    with one_cpu_with_a_hog():
        outcome, _, elapsed = run_match(bot, sandbox_config, TIGHT)
    fault = outcome.faults[0]
    assert fault.kind == "timeout", fault
    assert elapsed < starved.CAP * TIGHT.move


def killer(kill: Callable[[], None], at: str = "draft_pick") -> InProcessAgent:
    """The built-in simple bot, which calls ``kill`` at its first call of the method ``at``
    (its seat is asked after the sandboxed bot's, which then works on the same call)."""
    base = GAME.builtin_class("simple")
    done: list[bool] = []

    def first(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not done:
            done.append(True)
            kill()
        return getattr(base, at)(self, *args, **kwargs)

    killing = type("Killer", (base,), {at: first})
    return InProcessAgent(killing, GAME.bot_call, "killer")


@pytest.mark.skipif(not IS_ROOT, reason="the sandbox's CPU cgroup is root's")
def test_a_machine_that_starves_the_bot_past_the_cap_is_a_platform_error(tmp_path, sandbox_config):
    """Once the bot works on its first call, its CPU cgroup's weight falls to 1/50 of the
    hog's: it gets about 2% of the CPU, and a call of 0.2 s would take some 10 s. Past 10
    times its allowance the match cannot be played fairly now: a PlatformError (the match is
    played again later), never a timeout."""
    bot = hostile(tmp_path, "cpu_once.py", burn=60)
    tc = TimeControl(move=0.2, bank=0.0, startup=10.0)
    launch = bot_launch(bot, game=GAME, config=sandbox_config)
    cgroup = getattr(launch.cpu_usage, "__self__", None)
    if cgroup is None:
        pytest.skip("no CPU cgroup on this machine")
    shares = cgroup.folders[0] / "cpu.shares"

    with one_cpu_with_a_hog(), BotProcess(launch, label=bot.stem) as process:
        agent = ProcessAgent(process, GAME.bot_call, startup_timeout=tc.startup)
        starve = killer(lambda: shares.write_text("20"))
        runner = MatchRunner(time.monotonic, tc)
        started = time.monotonic()
        with pytest.raises(PlatformError, match="too busy"):
            runner.run(GAME.state_class.new(0, num_seats=2), [agent, starve], seed=0)
        assert time.monotonic() - started < 2 * starved.CAP * tc.move
    assert agent.fault_reports == []


@pytest.mark.parametrize("ext", ["py", "js"])
def test_a_sigkill_from_outside_is_a_platform_error(tmp_path, sandbox_config, ext):
    """SIGKILL sent to the bot's process by someone else (the machine's OOM killer, an
    operator) while it works on a call: not the bot's crash, a PlatformError."""
    bot = hostile(tmp_path, f"sleep.{ext}")
    holder: list[BotProcess] = []

    def kill() -> None:
        child = holder[0]._child
        assert child is not None and child.init_pidfd is not None
        signal.pidfd_send_signal(child.init_pidfd, signal.SIGKILL)

    launch = bot_launch(bot, game=GAME, config=sandbox_config)
    with BotProcess(launch, label=bot.stem) as process:
        holder.append(process)
        agent = ProcessAgent(process, GAME.bot_call, startup_timeout=10.0)
        runner = MatchRunner(time.monotonic, TimeControl(move=5.0, bank=0.0, startup=10.0))
        with pytest.raises(PlatformError, match="SIGKILL from outside"):
            runner.run(GAME.state_class.new(0, num_seats=2), [agent, killer(kill)], seed=0)
    assert agent.fault_reports == []


def children(pid: int) -> list[int]:
    with contextlib.suppress(FileNotFoundError):
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def bot_processes(bwrap: int) -> list[int]:
    """The processes under the sandbox of ``bwrap`` that are not bubblewrap's own: the
    bot's (its runtime, and a Python host's match processes), the top one first."""
    found, todo = [], [bwrap]
    while todo:
        pid = todo.pop(0)
        todo += children(pid)
        with contextlib.suppress(FileNotFoundError):
            if Path(f"/proc/{pid}/comm").read_text().strip() != "bwrap":
                found.append(pid)
    return found


@pytest.mark.skipif(not IS_ROOT, reason="a worker's bot is stopped between matches as root")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_an_operators_signal_from_outside_is_a_platform_error(tmp_path, sandbox_config, sig):
    """A worker's bot, stopped between matches, is sent SIGTERM (or SIGINT, SIGHUP) by an
    operator or a service manager: the bot cannot send these to itself (its filter refuses
    them), so its death by one at the next match is not its crash but a PlatformError (it
    was stored as the bot's crash, "killed by SIGTERM during start of match", in a rated
    match)."""
    bot = tmp_path / "quick.py"
    bot.write_text(GAME.builtin_path("minimal").read_text())  # (it answers at once)
    launch = bot_launch(bot, game=GAME, config=sandbox_config)
    with BotProcess(launch, label=bot.stem) as process:
        agent = ProcessAgent(process, GAME.bot_call, startup_timeout=10.0)
        runner = MatchRunner(time.monotonic, TimeControl(move=5.0, bank=0.0, startup=10.0))

        def match(seed: int) -> MatchOutcome:
            opponent = Opponent(GAME.builtin_class("simple"), GAME.bot_call, "simple")
            return runner.run(GAME.state_class.new(seed, num_seats=2), [agent, opponent], seed=seed)

        assert not match(0).record["result"]["faults"]
        proc = process._proc
        assert proc is not None
        # the next match's process is forked ahead (a keeper and its child) before it stops
        deadline = time.monotonic() + 10
        while not any(children(pid) for pid in bot_processes(proc.pid)[1:]):
            assert time.monotonic() < deadline, "no match's process was forked ahead"
            time.sleep(0.01)
        process.pause()  # (as the worker's cache of processes does between matches)
        # (the sandbox's first process is its PID namespace's init, which the kernel keeps
        # from signals it does not handle: the processes under it that hold a match's bot,
        # those without children of their own)
        pids = [pid for pid in bot_processes(proc.pid)[1:] if not children(pid)]
        assert pids
        for pid in pids:
            os.kill(pid, sig)
        try:
            played = match(1)
        except PlatformError as exc:
            # (found pending as it was let go on; or, on a process not yet stopped, as it
            # ended: "killed by SIGHUP from outside during start of match")
            assert f"{sig.name} from outside" in str(exc)
        else:  # (its host saw the process it had forked ahead gone, and forked another)
            assert not played.record["result"]["faults"], played.record["result"]["faults"]
    assert agent.fault_reports == []


def wait_stopped(pid: int, within: float = 10.0) -> None:
    """Until process ``pid`` is stopped (state T in /proc), as a SIGSTOP sent it makes it."""
    deadline = time.monotonic() + within
    while Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "T":
        assert time.monotonic() < deadline, f"process {pid} was not stopped"
        time.sleep(0.005)


@pytest.mark.skipif(not IS_ROOT, reason="a worker's bot is stopped between matches as root")
def test_an_operators_signal_to_a_stopped_process_is_no_error_as_it_is_closed(
    tmp_path, sandbox_config
):
    """A kept process, stopped between matches, sent SIGTERM from outside and then closed
    (a worker releases its idle processes after a minute): closing raised the PlatformError
    meant for its next match, and took the worker, and the site with it, down."""
    bot = tmp_path / "quick.py"
    bot.write_text(GAME.builtin_path("minimal").read_text())
    launch = bot_launch(bot, game=GAME, config=sandbox_config)
    log = tmp_path / "quick.log"
    process = BotProcess(launch, label=bot.stem, stderr_log=log)
    agent = ProcessAgent(process, GAME.bot_call, startup_timeout=10.0)
    runner = MatchRunner(time.monotonic, TimeControl(move=5.0, bank=0.0, startup=10.0))
    opponent = Opponent(GAME.builtin_class("simple"), GAME.bot_call, "simple")
    try:
        outcome = runner.run(GAME.state_class.new(0, num_seats=2), [agent, opponent], seed=0)
        assert not outcome.record["result"]["faults"]
        proc = process._proc
        assert proc is not None
        process.pause()
        # (of the processes that hold a match's bot, those it stopped: one the host forks
        # after the pause ends at once, with nothing pending)
        stopped = set(process._stopped)
        pids = [p for p in bot_processes(proc.pid)[1:] if not children(p) and p in stopped]
        assert pids
        for pid in pids:
            # (SIGSTOP takes effect when the process next runs: a SIGTERM that comes first,
            # on a loaded machine, ends it at once, with nothing left pending)
            wait_stopped(pid)
            os.kill(pid, signal.SIGTERM)
    finally:
        process.close()  # (raised PlatformError)
    assert process._proc is None and proc.poll() is not None
    assert "sent SIGTERM from outside while it was stopped, as it ended" in log.read_text()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_an_operators_signal_during_a_call_is_a_platform_error(tmp_path, sandbox_config, sig):
    """SIGTERM (or SIGINT, SIGHUP) sent to a bot's process while it plays a match: the
    sandbox refuses the bot every way to send one to itself, so an operator or a service
    manager sent it (it was stored as the bot's crash, "killed by SIGTERM during act", a
    rated loss)."""
    bot = hostile(tmp_path, "sleep.py")
    holder: list[BotProcess] = []

    def signal_it() -> None:
        proc = holder[0]._proc
        assert proc is not None
        deadline = time.monotonic() + 10
        # (the sandbox's init ignores it: the processes under it that hold the bot)
        while not (pids := [p for p in bot_processes(proc.pid)[1:] if not children(p)]):
            assert time.monotonic() < deadline, "no bot process"
            time.sleep(0.01)
        for pid in pids:
            os.kill(pid, sig)

    launch = bot_launch(bot, game=GAME, config=sandbox_config)
    with BotProcess(launch, label=bot.stem) as process:
        holder.append(process)
        agent = ProcessAgent(process, GAME.bot_call, startup_timeout=10.0)
        runner = MatchRunner(time.monotonic, TimeControl(move=5.0, bank=0.0, startup=10.0))
        with pytest.raises(PlatformError, match=f"killed by {sig.name} from outside during"):
            # (at its first main_play: the sandboxed seat, asked first, sleeps in its own, so
            # its processes are the ones that play, not one about to be replaced, as at a
            # draft pick on a loaded machine once)
            killing = killer(signal_it, at="main_play")
            runner.run(GAME.state_class.new(0, num_seats=2), [agent, killing], seed=0)
    assert agent.fault_reports == []


def test_a_java_bot_plays_on_after_an_operators_sigterm(tmp_path, sandbox_config):
    """The JVM runs as its sandbox's first process, its PID namespace's init, which no
    signal it has no handler for reaches: it plays on. (The JVM's own handler ran its
    shutdown and exited with 143, which the sandbox ends a bot for: an operator's SIGTERM
    was the Java bot's crash, until the JVM was told to set none, -Xrs.)"""
    starter = GAME.starters["java"]
    bot = tmp_path / starter.name
    bot.write_text(starter.read_text())
    holder: list[BotProcess] = []

    def signal_it() -> None:
        proc = holder[0]._proc
        assert proc is not None
        (first,) = bot_processes(proc.pid)[:1]
        os.kill(first, signal.SIGTERM)
        time.sleep(0.3)  # (time for it to act on it, if it would)

    launch = bot_launch(bot, game=GAME, config=sandbox_config)
    with BotProcess(launch, label=bot.stem) as process:
        holder.append(process)
        agent = ProcessAgent(process, GAME.bot_call, startup_timeout=60.0)
        runner = MatchRunner(time.monotonic, TimeControl(move=5.0, bank=0.0, startup=60.0))
        state = GAME.state_class.new(0, num_seats=2)
        played = runner.run(state, [agent, killer(signal_it)], seed=0)
    assert played.faults == {}, played.faults
    assert agent.fault_reports == []


def test_a_crash_by_another_signal_stays_the_bots(play, tmp_path):
    """A death by SIGSEGV (a bad pointer, an abort) is the bot's own: its crash."""
    played = play(hostile(tmp_path, "segv.py"))
    assert played.fault is not None and played.fault.kind == "crash", played.fault
    assert "SIGSEGV" in played.fault.reason, played.fault


@pytest.mark.parametrize("ext", ["py", "js"])
def test_a_bot_cannot_have_sigkill_sent_to_itself(play, tmp_path, ext):
    """Else a losing bot could pass its own SIGKILL for the machine's and have its match
    played again: every way to it is refused (EPERM), and the bot plays on."""
    played = play(hostile(tmp_path, f"self_kill.{ext}"))
    assert played.fault is None, played.fault
    if ext == "py":
        refused = (
            "refused: kill,kill 0,tgkill,pidfd,kill SIGTERM,tgkill SIGTERM,kill SIGINT,"
            "tgkill SIGINT,kill SIGHUP,tgkill SIGHUP,setsid,setpgid,F_SETSIG,RLIMIT_CPU"
        )
        if os.uname().machine in ("x86_64", "aarch64"):
            # a signal or a command whose int's upper half is set, which the kernel drops
            refused += (
                ",kill (high bits),F_SETSIG (high bits),PR_SET_PDEATHSIG (high bits),"
                "RLIMIT_CPU (high bits)"
            )
        assert refused in played.stderr
    else:
        assert "refused: EPERM" in played.stderr
