"""Sandbox uid slots as a managed resource, with real locks, processes and sandboxes (root):
the workers' reserve that live tables never take, a worker that waits for a free slot, and a
sweep that kills only what it can show is its own slot's."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bots import sandbox
from bots.running import playing
from bots.running.playing import Entry, Launching, ProcessCache
from bots.running.process import BotProcess, PlatformError, ProcessAgent
from bots.sandbox import SLOT_ENV, SandboxBusy, SandboxConfig, acquire_slot, sandbox_launch
from games.engine.agents import SeatInfo
from tests.sandbox.conftest import GAME, IS_ROOT, hostile, sandbox_processes

pytestmark = pytest.mark.skipif(not IS_ROOT, reason="sandbox uids are only used as root")


@contextmanager
def stray(uid: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A process running as ``uid`` (``env``: its environment), killed at the end."""
    proc = subprocess.Popen(
        ["/bin/sleep", "600"], user=uid, group=uid, extra_groups=[], cwd="/", env=env or {}
    )
    try:
        asleep(proc)
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=5)


def asleep(proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Wait until ``proc`` sleeps in ``sleep``: Popen returns once the exec has begun, and
    until the new program is loaded the kernel shows an empty environment (a sweep then
    could not see the mark it carries)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stat_line = Path(f"/proc/{proc.pid}/stat").read_text()
        if stat_line.rpartition(")")[2].split()[:1] == ["S"] and "(sleep)" in stat_line:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {proc.pid} never went to sleep")


def marker(config: SandboxConfig, uid: int) -> str:
    """What a launch in ``uid``'s slot of ``config`` carries in its environment."""
    return str(Path(config.lock_dir or sandbox.machine_lock_dir()) / f"slot-{uid}.lock")


def idle_uids(config: SandboxConfig, count: int) -> int:
    """The first of ``count`` uids in a row of the test range that nothing runs as (normally
    the range's first): the tests below put their own processes there. A process found on
    a uid before it is not that slot's, so the sweep skips that uid, and names the process
    in its log."""
    busy = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                busy.add(os.stat(f"/proc/{name}").st_uid)
    first = config.uid_base
    while any(uid in busy for uid in range(first, first + count)):
        first += 1
    assert first + count <= config.uid_base + config.slots, f"uids in use: {sorted(busy)}"
    return first


def lowest_slot(config: SandboxConfig) -> sandbox.Slot | None:
    """The lowest free slot of the range, as a live table takes it (a worker takes the
    highest), with no reserve in the way."""
    return acquire_slot(dataclasses.replace(config, worker_reserve=0), worker=False)


def test_a_sweep_kills_what_a_dead_worker_left_in_its_own_slot(sandbox_config, caplog):
    # A process of the slot's uid carrying the slot's mark: a leftover of a dead holder
    # (bwrap orphaned in its set-up, bubblewrap issue #633).
    uid = idle_uids(sandbox_config, 1)
    with stray(uid, {SLOT_ENV: marker(sandbox_config, uid)}) as left:
        slot = lowest_slot(sandbox_config)
        try:
            assert slot is not None and slot.uid == uid, caplog.text  # (what it skipped)
            assert left.wait(timeout=5) == -signal.SIGKILL
        finally:
            slot.release()


def test_a_sweep_leaves_alone_what_it_cannot_show_is_its_slots_and_skips_that_uid(
    sandbox_config, caplog
):
    # Another installation's process on the same uid (its own lock folder: another mark),
    # and one with no mark at all: neither is killed, and the uid is not shared with them.
    uid = idle_uids(sandbox_config, 3)
    other = dataclasses.replace(sandbox_config, lock_dir="/elsewhere")
    with stray(uid, {SLOT_ENV: marker(other, uid)}) as theirs, stray(uid + 1) as unmarked:
        slot = lowest_slot(sandbox_config)
        try:
            assert slot is not None and slot.uid == uid + 2
            assert theirs.poll() is None and unmarked.poll() is None
        finally:
            slot.release()
    assert "event=sandbox.slot_skipped" in caplog.text


def test_two_lock_folders_on_one_uid_range_never_kill_each_others_bots(tmp_path, sandbox_config):
    # The attack of issue 28: two runs whose slot locks are apart take the same uid range.
    # The second neither sweeps the first's running bot nor runs as its uid.
    bot = hostile(tmp_path, "fair.py")
    second = dataclasses.replace(sandbox_config, lock_dir=str(tmp_path / "other-locks"))
    first_launch = sandbox_launch(bot, game=GAME, config=sandbox_config)
    with BotProcess(first_launch, label="first") as first:
        first.start(10)
        second_launch = sandbox_launch(bot, game=GAME, config=second)
        with BotProcess(second_launch, label="second") as other:
            other.start(10)
            assert first_launch.user != second_launch.user
            # the first still answers: nothing of it was killed
            rid = first.request({"type": "begin", "game": GAME.slug, "seat": 0, "seats": 2})
            assert first.reply(rid, 5, "begin")[1]["type"] == "ok"


def _slot_of(launch) -> sandbox.Slot:
    """The slot a launch holds (in its cleanup's closure)."""
    cells = launch.cleanup.__closure__ or ()
    return next(c.cell_contents for c in cells if isinstance(c.cell_contents, sandbox.Slot))


def test_a_sweep_kills_a_real_sandbox_left_in_its_slot(tmp_path, sandbox_config):
    # The slot's lock is let go while its sandbox runs (as when its worker dies and the
    # sandbox outlives it): the next to take the slot kills that sandbox, bot and all.
    bot = hostile(tmp_path, "fair.py")
    launch = sandbox_launch(bot, game=GAME, config=sandbox_config)
    process = BotProcess(launch, label="left")
    try:
        process.start(10)
        _slot_of(launch).release()
        slot = acquire_slot(sandbox_config)
        try:
            assert slot is not None and slot.uid == launch.user
            assert process._proc is not None
            process._proc.wait(timeout=5)  # bwrap is gone: its sandbox with it
        finally:
            slot.release()
    finally:
        process.close()
    # the bot, orphaned by bwrap's death, is reaped by the machine's init in its own time
    deadline = time.monotonic() + 5
    while sandbox_processes(sandbox_config) and time.monotonic() < deadline:
        select.select([], [], [], 0.02)
    assert sandbox_processes(sandbox_config) == []


def test_live_tables_never_take_the_workers_reserve(sandbox_config):
    config = dataclasses.replace(sandbox_config, slots=4, worker_reserve=2, slot_wait_s=0)
    held = [acquire_slot(config, worker=False) for _ in range(2)]
    try:
        assert [s.uid for s in held] == [config.uid_base, config.uid_base + 1]
        with pytest.raises(SandboxBusy, match="2 more stay for the workers") as refused:
            acquire_slot(config, worker=False)
        assert isinstance(refused.value, PlatformError)
        for _ in range(2):  # the reserve is the workers'
            held.append(acquire_slot(config))
        assert [s.uid for s in held[2:]] == [config.uid_base + 3, config.uid_base + 2]
        with pytest.raises(SandboxBusy, match="all 4"):
            acquire_slot(config)
    finally:
        for slot in held:
            slot.release()


def test_workers_take_their_reserve_first_and_leave_the_tables_share_while_they_can(
    sandbox_config,
):
    """A worker keeps its bots' sandboxes between matches: taking the lowest uids, a few
    idle workers held every slot the live tables may take, and every table with an uploaded
    bot ended "the site is busy"."""
    config = dataclasses.replace(sandbox_config, slots=4, worker_reserve=2, slot_wait_s=0)
    held = [acquire_slot(config) for _ in range(2)]
    try:
        assert [s.uid for s in held] == [config.uid_base + 3, config.uid_base + 2]
        held += [acquire_slot(config, worker=False) for _ in range(2)]  # both still free
        assert [s.uid for s in held[2:]] == [config.uid_base, config.uid_base + 1]
    finally:
        for slot in held:
            slot.release()


def test_a_worker_waits_for_a_slot_to_come_free(sandbox_config, monkeypatch):
    config = dataclasses.replace(sandbox_config, slots=1, worker_reserve=0, slot_wait_s=30)
    taken = acquire_slot(config)
    waits = []
    sleep = time.sleep

    def pause(seconds: float) -> None:  # the slot comes free while the worker waits
        if threading.current_thread() is not threading.main_thread():
            sleep(seconds)  # (another thread's: the module is everyone's, the stall watch's)
            return
        waits.append(seconds)
        taken.release()

    monkeypatch.setattr(sandbox.time, "sleep", pause)
    slot = acquire_slot(config)
    try:
        assert slot is not None and slot.uid == config.uid_base and len(waits) == 1
    finally:
        slot.release()
    # a table never waits
    taken = acquire_slot(config)
    try:
        with pytest.raises(SandboxBusy):
            acquire_slot(dataclasses.replace(config, worker_reserve=0), worker=False)
        assert len(waits) == 1
    finally:
        taken.release()


def test_the_launchers_carry_the_slots_mark_and_the_bot_does_not(tmp_path, sandbox_config):
    bot = hostile(tmp_path, "fair.py")
    launch = sandbox_launch(bot, game=GAME, config=sandbox_config)
    with BotProcess(launch, label="marked") as process:
        process.start(10)
        assert process._proc is not None
        mark = f"{SLOT_ENV}={marker(sandbox_config, launch.user)}".encode()
        environ = Path(f"/proc/{process._proc.pid}/environ").read_bytes().split(b"\0")
        assert mark in environ  # bwrap's own (the bot's is cleared: test_sandbox_isolation
        # checks that it holds PATH, LANG, HOME, TMPDIR and PWD only)


def test_a_workers_kept_processes_give_their_slots_up_before_it_waits(sandbox_config):
    # Two slots; the cache keeps two idle bots. A third bot for a match that uses the second
    # takes the first's slot (the first is closed); a fourth, with both others in its match,
    # finds nothing idle to close, waits (here not at all) and gets no slot.
    config = dataclasses.replace(sandbox_config, slots=2, worker_reserve=0, slot_wait_s=0)
    launching = Launching(config=config)
    code = GAME.builtin_path("simple").read_text()
    cache = ProcessCache(8)
    folder = playing.CodeFolder()
    try:
        a, b, c, d = (Entry(name, code=code, key=name) for name in "abcd")
        first = cache.get(GAME, a, folder, 0, launching)
        second = cache.get(GAME, b, folder, 1, launching)
        third = cache.get(GAME, c, folder, 2, launching, busy=[second])
        assert len(cache) == 2 and first._closed and not second._closed
        assert third.launch.user == first.launch.user
        with pytest.raises(SandboxBusy):
            cache.get(GAME, d, folder, 3, launching, busy=[second, third])
        assert len(cache) == 2
    finally:
        cache.close()
        folder.close()


def test_a_match_of_kept_processes_writes_no_code_folder(sandbox_config, settings, monkeypatch):
    # The worker's matches: code is written (into a private folder) only when a process is
    # launched; a match whose bots are kept processes makes no folder at all.
    settings.SANDBOX_UID_BASE = sandbox_config.uid_base
    settings.SANDBOX_SLOTS = sandbox_config.slots
    settings.SANDBOX_LOCK_DIR = sandbox_config.lock_dir
    code = GAME.builtin_path("simple").read_text()
    made = []
    real = playing.CodeFolder.path.fget

    def path(folder):
        made.append(folder)
        return real(folder)

    monkeypatch.setattr(playing.CodeFolder, "path", property(path))
    entries = [Entry(name, code=code, key=name) for name in "ab"]
    cache = ProcessCache(8)
    try:
        first = playing.play(GAME, entries, seed=1, cache=cache)
        assert not first.outcome.faults and len(set(map(id, made))) == 1  # both seats, one
        made.clear()
        second = playing.play(GAME, entries, seed=2, cache=cache)
        assert not second.outcome.faults and made == []  # both kept: nothing written
    finally:
        cache.close()


def test_a_start_says_how_long_its_sandbox_took_to_set_itself_up(tmp_path, sandbox_config):
    """The sandbox's own set-up (until bwrap names its init, before any of the bot's code
    runs) is measured, and a ProcessAgent's begin passes it on as the machine's time
    (``platform_s``), which the runner leaves out of the seat's start."""
    bot = hostile(tmp_path, "fair.py")
    launch = sandbox_launch(bot, game=GAME, config=sandbox_config)
    with BotProcess(launch, label="timed") as process:
        began = time.monotonic()
        process.start(10)
        took = time.monotonic() - began
        assert 0.0 < process.sandbox_start_s < took
        agent = ProcessAgent(process, GAME.bot_call)
        process.kill()  # the next begin starts it again
        agent.begin(SeatInfo(GAME.slug, 0, 2, {}, None), 10)
        assert agent.platform_s == process.sandbox_start_s > 0.0
