"""The platform's own start-up is never a bot's fault: a sandbox that fails, or is too slow,
before it names its init (before any of the bot's code runs) is a PlatformError, and so is a
program of the platform's that cannot be started at all. Plain processes stand in for bwrap
(the real sandbox has its tests in tests/sandbox)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from bots.running import process as process_module
from bots.running.playing import Entry, play
from bots.running.process import INFO_FD, BotProcess, Launch, PlatformError, ProcessAgent
from games.engine.agents import AgentFault, SeatInfo
from games.registry import get_game

GAME = get_game("rps-poker")


def fake_sandbox(script: str) -> Launch:
    """A launch that is handled as bwrap's (an --info-fd to name its init on), running the
    shell ``script`` instead: ``$1`` is the info descriptor."""
    return Launch(
        argv=["/bin/sh", "-c", script, "sh", INFO_FD], env={"PATH": "/usr/bin:/bin"}, sandbox=True
    )


def test_a_sandbox_that_fails_in_its_own_set_up_is_the_platforms_trouble():
    launch = fake_sandbox("echo 'bwrap: Creating new namespace failed: No space left' >&2; exit 1")
    with BotProcess(launch, label="x") as process:
        with pytest.raises(PlatformError, match="failed in its own set-up: bwrap: Creating new"):
            process.start(5)
        assert not process.alive


def test_a_sandbox_too_slow_to_start_is_the_platforms_trouble(monkeypatch):
    monkeypatch.setattr(process_module, "SANDBOX_START_S", 0.2)
    with BotProcess(fake_sandbox("exec sleep 30"), label="x") as process:
        with pytest.raises(PlatformError, match=r"did not start within 0.2 s \(the machine is"):
            process.start(5)
        assert not process.alive


def test_a_bot_that_dies_once_its_sandbox_named_its_init_is_the_bots_fault():
    # bwrap names the init, then the bot exits at once: that is the bot's start-up
    named = "import os, sys; os.write(int(sys.argv[1]), b'{\"child-pid\": %d}' % os.getpid())"
    launch = Launch(
        argv=[sys.executable, "-c", f"{named}; sys.exit(3)", INFO_FD], env={}, sandbox=True
    )
    with BotProcess(launch, label="x") as process, pytest.raises(AgentFault) as fault:
        process.start(5)
    assert fault.value.kind == "crash"


def test_a_program_that_cannot_be_started_is_the_platforms_trouble():
    launch = Launch(argv=["/nonexistent/bwrap"], env={})
    refused = pytest.raises(PlatformError, match="cannot start /nonexistent/bwrap")
    with BotProcess(launch, label="x") as process, refused:
        process.start(5)


def test_a_match_never_makes_platform_trouble_a_seats_fault(monkeypatch):
    # The seat's sandbox cannot start: the match is not played (no outcome, no fault
    # recorded for the bot); its caller plays it later or ends it unrated.
    def no_slot(*args, **kwargs):
        raise process_module.PlatformError("no free sandbox slot: all 64 in use")

    monkeypatch.setattr("bots.running.playing.bot_launch", no_slot)
    entries = [Entry(name="uploaded", code="class Bot: pass\n"), Entry("b", builtin="simple")]
    with pytest.raises(PlatformError, match="no free sandbox slot"):
        play(GAME, entries, seed=1)


def test_an_agent_passes_platform_trouble_on_instead_of_reporting_a_fault(monkeypatch):
    monkeypatch.setattr(process_module, "SANDBOX_START_S", 0.2)
    process = BotProcess(fake_sandbox("exec sleep 30"), label="x")
    agent = ProcessAgent(process, GAME.bot_call)
    with process, pytest.raises(PlatformError):
        agent.begin(SeatInfo(game=GAME.slug, seat=0, num_seats=2, config={}), 5)
    assert agent.fault_reports == []


def test_a_sandbox_killed_before_its_hello_takes_the_init_it_named_with_it(tmp_path):
    # spawn does not wait for bwrap to name its init (bots start side by side: greet reads
    # it). A process killed before that reads it then, and kills the init by its pidfd: an
    # init in a session of its own (as bwrap's) is not in the killed process group.
    pid_file = tmp_path / "init.pid"
    script = (
        "import os, sys, time\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    os.setsid(); time.sleep(60); os._exit(0)\n"
        f"open({str(pid_file)!r}, 'w').write(str(child))\n"
        "os.write(int(sys.argv[1]), b'{\"child-pid\": %d}' % child)\n"
        "time.sleep(60)\n"
    )
    launch = Launch(argv=[sys.executable, "-c", script, INFO_FD], env={}, sandbox=True)
    with BotProcess(launch, label="x") as process:
        process.spawn(5)
        _until(lambda: pid_file.exists() and pid_file.read_text() != "")  # it named the init
        init = int(pid_file.read_text())
        process.kill()
        assert not process.alive
    assert _until(lambda: not Path(f"/proc/{init}").exists() or "Z" in _state(init))


def _until(condition, seconds: float = 5.0) -> bool:
    """Whether ``condition()`` holds within ``seconds`` (looked at every 10 ms)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
