"""Helpers for the sandbox tests: real bwrap, real bot files, real matches.

Every test plays its bot (seat 0) against a built-in bot (seat 1) through the MatchRunner, with
a short time control, and checks the recorded outcome and that the host came to no harm. The
sandboxes use their own uid range and slot locks, so that other sandboxes on the machine
(another test run, a worker) neither disturb the checks nor are disturbed.
"""

from __future__ import annotations

import fcntl
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bots.running.launch import bot_launch
from bots.running.process import BotProcess, ProcessAgent
from bots.sandbox import SandboxConfig, SandboxLimits, machine_lock_dir
from games.engine.agents import InProcessAgent
from games.engine.game import Fault
from games.engine.runner import MatchOutcome, MatchRunner, TimeControl
from games.registry import get_game

GAME = get_game("rps-poker")
BOTS = Path(__file__).resolve().parent / "bots"
#: short deadlines so that timeouts are quick: 0.5 s a call, 0.5 s of bank
FAST = TimeControl(move=0.5, bank=0.5, startup=10.0)
#: the uids of test sandboxes: ranges of SLOTS from here, one range per test run at a time
TEST_UIDS = 62000
SLOTS = 16
IS_ROOT = os.geteuid() == 0


@dataclass
class Played:
    outcomes: list[MatchOutcome]
    agent: ProcessAgent
    process: BotProcess
    stderr: str
    elapsed: float
    pids: set[int] = field(default_factory=set)

    @property
    def outcome(self) -> MatchOutcome:
        return self.outcomes[-1]

    @property
    def fault(self) -> Fault | None:
        return self.outcome.faults.get(0)

    @property
    def scores(self) -> list[int]:
        return self.outcome.result["scores"]


#: the built-in opponent, played in-process (and timed by its own work only)
Opponent = InProcessAgent


#: a host that gives JavaScript bots all of Node, as if they had escaped their realm (see
#: the file): the sandbox's walls are tested against it
ESCAPED_JS_HOST = Path(__file__).resolve().parent / "escaped_js_host.js"


@pytest.fixture(autouse=True)
def escaped_js_host(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox tests' JavaScript bots reach for Node (require, process, Buffer) to attack
    the sandbox: they run with ESCAPED_JS_HOST, unless the test is marked real_js_host."""
    if request.node.get_closest_marker("real_js_host"):
        return
    import bots.languages

    real = bots.languages._source
    escaped = ESCAPED_JS_HOST.read_bytes()
    js_host = bots.languages.get_language("javascript").host

    def source(path: Path) -> bytes:  # what a language's host_source reads
        return escaped if path == js_host else real(path)

    monkeypatch.setattr(bots.languages, "_source", source)


@pytest.fixture(scope="session")
def sandbox_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxConfig]:
    """A range of sandbox uids of this test run's own, held for the whole session, so that
    test runs side by side (or a worker) never share a uid and their checks stay apart."""
    # beside the sandbox's own slot locks: one folder for the machine, whatever TMPDIR is
    folder = machine_lock_dir().with_name(f"card-arena-test-uids-{os.geteuid()}")
    folder.mkdir(mode=0o700, exist_ok=True)
    for base in range(TEST_UIDS, TEST_UIDS + 32 * SLOTS, SLOTS):
        fd = os.open(folder / f"range-{base}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            slots = str(tmp_path_factory.mktemp("slots"))
            yield SandboxConfig(uid_base=base, slots=SLOTS, lock_dir=slots)
        finally:
            os.close(fd)
        return
    pytest.fail("every range of test sandbox uids is in use")


def hostile(tmp_path: Path, name: str, **fill: object) -> Path:
    """A copy of tests/sandbox/bots/NAME in its own folder under tmp_path, with every
    ``__KEY__`` placeholder replaced by ``fill[key]``."""
    text = (BOTS / name).read_text()
    for key, value in fill.items():
        text = text.replace(f"__{key.upper()}__", str(value))
    assert not re.search(r"__[A-Z][A-Z_]*__", text), f"{name}: a placeholder is left unfilled"
    folder = tmp_path / "bots"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture
def play(tmp_path: Path, sandbox_config: SandboxConfig):
    """``play(path, matches=1, tc=FAST, limits=None, opponent="simple", bound=10,
    seeds=None)``: run matches of the sandboxed bot against a built-in one, on the deals of
    ``seeds`` (by default 0, 1, 2...: a new deal each); returns a :class:`Played` once the
    bot process is closed, which must be within ``bound`` seconds."""

    def run(
        path: Path,
        *,
        matches: int = 1,
        tc: TimeControl = FAST,
        limits: SandboxLimits | None = None,
        opponent: str = "simple",
        bound: float = 10.0,
        seeds: list[int] | None = None,
    ) -> Played:
        log = tmp_path / f"{path.stem}.stderr.log"
        launch = bot_launch(path, game=GAME, limits=limits, config=sandbox_config)
        process = BotProcess(launch, label=path.stem, stderr_log=log)
        agent = ProcessAgent(process, GAME.bot_call, startup_timeout=tc.startup)
        other = Opponent(GAME.builtin_class(opponent), GAME.bot_call, opponent)
        runner = MatchRunner(time.monotonic, tc)
        outcomes, pids = [], set()
        started = time.monotonic()
        with process:
            for seed in seeds if seeds is not None else range(matches):
                state = GAME.state_class.new(seed, num_seats=2)
                outcome = runner.run(state, [agent, other], seed=seed)
                if 0 in outcome.faults:  # as the arena does: rule faults reach the owner too
                    agent.record_fault(outcome.faults[0].kind, outcome.faults[0].reason)
                outcomes.append(outcome)
                if process.alive:
                    pids.add(process._proc.pid)  # type: ignore[union-attr]
        elapsed = time.monotonic() - started
        assert elapsed < bound, f"{path.name}: {len(outcomes)} matches took {elapsed:.1f} s"
        return Played(outcomes, agent, process, log.read_text(errors="replace"), elapsed, pids)

    return run


def sandbox_processes(config: SandboxConfig) -> list[str]:
    """Processes of this test run's sandbox users (root) or running a sandboxed host."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        uid = int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])
        ours = config.uid_base <= uid < config.uid_base + SLOTS if IS_ROOT else False
        if ours or (not IS_ROOT and uid == os.getuid() and "/sandbox/" in cmdline):
            found.append(f"{pid} uid {uid}: {cmdline.strip()[:120]}")
    return found


def processes_with(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(f"{pid}: {cmdline.decode(errors='replace')}")
    return found


@pytest.fixture(autouse=True)
def no_sandbox_left(sandbox_config: SandboxConfig) -> Iterator[None]:
    """After every test: no process of a sandbox is left on the machine."""
    yield
    assert sandbox_processes(sandbox_config) == [], "a sandboxed process outlived its test"


def assert_forfeited(played: Played, kind: str, *words: str, bound: float = 5.0) -> None:
    """The bot at seat 0 faulted with ``kind`` (reason holding ``words``), lost every game
    not yet played, the owner got a report, and it all ended within ``bound`` seconds."""
    fault = played.fault
    assert fault is not None, f"no fault; stderr: {played.stderr[-2000:]}"
    assert fault.kind == kind, f"{fault}; stderr: {played.stderr[-2000:]}"
    for word in words:
        assert word in fault.reason, fault
    record_fault = next(e for e in played.outcome.record["events"] if e["type"] == "fault")
    assert record_fault["faults"]["0"] == {"kind": kind, "reason": fault.reason}
    result = played.outcome.result
    assert result["scores"][1] == 10 - result["scores"][0]
    assert result["forfeited_games"] == 10 - len(result["games"])
    report = played.agent.fault_reports[-1]
    assert (report.kind, report.reason, report.seat) == (kind, fault.reason, 0)
    assert f"--- fault ({kind})" in played.stderr
    assert played.elapsed < bound, f"took {played.elapsed:.1f} s"
    for pid in played.pids:
        assert not Path(f"/proc/{pid}").exists() or _is_other(pid), f"process {pid} is left"


def _is_other(pid: int) -> bool:
    """A reused pid: the process there now is not a sandbox of ours."""
    try:
        return b"bwrap" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def alone_but_for_the_host(seen: dict) -> bool:
    """What a match's Python process saw of its PID namespace: no process at all. Its /proc
    is an empty one of its own (bots/languages/python/host.py, PrivateTmp.mount), so it can
    look at none, its own included: not the host's zygote (pid 1), nor its own keeper (the
    number before its own), nor the next match's process and keeper, forked ahead. Its own
    number comes after the zygote's and the first keeper's."""
    return seen["proc"] == [] and seen["processes"] == [] and seen["pid"] > 2
