"""Memory the address-space limit does not see (shared memory, memfd files, tmpfs) is
bounded with the heap by one limit, and nothing a bot took outlives its process, a process
the worker keeps warm between matches included (see docs/sandbox.md, "Memory")."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest

from bots import sandbox
from bots.languages import get_language
from bots.running.playing import Entry, ProcessCache, play
from bots.sandbox import MiB, SandboxLimits, memcg, memory_limit
from games.engine.runner import TimeControl
from tests.sandbox.conftest import GAME, IS_ROOT, hostile

#: a small limit, and bots that try for four times as much
LIMITS = SandboxLimits(memory_mb=128)
HOG_MIB = 512
#: time enough to write half a GiB on a busy machine
PATIENT = TimeControl(move=5.0, bank=0.0, startup=10.0)
#: what other work on the machine may add to or take from its shared memory meanwhile
NOISE = 24 * MiB
HAS_CGROUP = IS_ROOT and (memcg.MOUNT / "memory.limit_in_bytes").exists()


def shmem() -> int:
    """The machine's shared memory (tmpfs, System V and POSIX shm, memfd), bytes."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no Shmem in /proc/meminfo")


def shmem_settles(before: int, within: int = NOISE, timeout: float = 5.0) -> int:
    """The machine's shared memory above ``before``, once it is below ``within``, or after
    ``timeout`` seconds: the kernel frees a dead IPC namespace's segments a moment later, from
    a work queue."""
    deadline = time.monotonic() + timeout
    while (grown := shmem() - before) >= within and time.monotonic() < deadline:
        time.sleep(0.05)
    return grown


@pytest.fixture
def small_limits(monkeypatch, settings, sandbox_config):
    """The worker's own launches (bots.running.playing) use the test uids and LIMITS."""
    settings.SANDBOX_UID_BASE = sandbox_config.uid_base
    settings.SANDBOX_SLOTS = sandbox_config.slots
    settings.SANDBOX_LOCK_DIR = sandbox_config.lock_dir
    monkeypatch.setattr(sandbox, "limits_for", lambda game: LIMITS)


@pytest.mark.parametrize("mode", ["sysv", "posix", "posix_mmap", "memfd", "memfd_mmap", "tmp"])
def test_it_bounds_memory_outside_the_heap_and_frees_it_with_the_process(
    tmp_path, small_limits, mode
):
    code = hostile(tmp_path, "hogs.py", mode=mode, mib=HOG_MIB).read_text()
    seats = [
        Entry("hog", code=code, filename="hogs.py", key=mode),
        Entry("simple", builtin="simple"),
    ]
    cache = ProcessCache()
    before = shmem()
    try:
        kept = None  # the process that lived through a match holding what it took
        for seed in range(2):  # the second match is played by the process kept warm
            report = play(GAME, seats, seed=seed, time_control=PATIENT, cache=cache).seats[0]
            refused = f"REFUSED {mode} after" in report.stderr
            if kept is None:
                # a new process: it is stopped at its limit, or refused more and plays on
                assert report.fault_kind == "memory" or refused, report
            else:
                # the warm process takes nothing more and plays the match through
                assert not report.fault_kind, report
                assert "GOT " not in report.stderr and not refused, report.stderr[-2000:]
                assert tuple(cache._items.values()) == (kept,)
            # The bot holds what it got, in a live process: within its limit.
            held = shmem_settles(before, within=LIMITS.memory_mb * MiB)
            assert held < LIMITS.memory_mb * MiB, report.stderr[-2000:]
            (process,) = cache._items.values()
            if not report.fault_kind:
                kept = process
            cgroup = process.launch.memory_cgroup
            if HAS_CGROUP:
                assert cgroup is not None
                allowed = memory_limit(LIMITS, get_language("python"))
                assert cgroup.read("memory.max_usage_in_bytes") <= allowed
    finally:
        cache.close()
    assert shmem_settles(before) < NOISE  # the sandbox's tmpfs and IPC namespace went with it
    if HAS_CGROUP:
        assert not cgroup.path.exists()


def test_it_reports_a_bot_killed_over_its_memory_cgroup_as_a_memory_fault(play, tmp_path):
    if not HAS_CGROUP:
        pytest.skip("needs root and a cgroup v1 memory controller")
    # Node's buffers live outside its heap; with room enough in the address space, the
    # cgroup (64 + 128 MiB) is what stops them.
    limits = SandboxLimits(memory_mb=64, node_reserve_mb=2048)
    played = play(hostile(tmp_path, "buffers.js"), limits=limits, tc=PATIENT)
    fault = played.fault
    assert fault is not None and fault.kind == "memory", (fault, played.stderr[-2000:])
    assert "went over its memory limit during draftPick" in fault.reason  # its own name
    assert played.agent.fault_reports[-1].kind == "memory"
    cgroup = played.process.launch.memory_cgroup
    assert not cgroup.path.exists()  # removed with the process


def test_it_plays_a_js_bot_within_its_memory_cgroup(play, tmp_path):
    played = play(hostile(tmp_path, "fair.js"), matches=2)
    assert all(not o.faults for o in played.outcomes), played.stderr[-2000:]


@pytest.mark.parametrize("mode", ["sysv", "memfd_mmap", "tmp"])
def test_without_a_memory_cgroup_it_says_so_and_still_bounds_memory(
    tmp_path, small_limits, monkeypatch, caplog, mode
):
    # As on a machine with no cgroup v1 memory controller (or a worker that is not root).
    monkeypatch.setattr(memcg, "MOUNT", tmp_path / "no-cgroup")
    monkeypatch.setattr(memcg, "_warned", set())
    code = hostile(tmp_path, "hogs.py", mode=mode, mib=HOG_MIB).read_text()
    fair = hostile(tmp_path, "fair.py").read_text()
    simple = Entry("simple", builtin="simple")
    cache = ProcessCache()
    before = shmem()
    with caplog.at_level(logging.WARNING, logger="bots.sandbox"):
        try:
            hog = Entry("hog", code=code, filename="hogs.py", key=1)
            report = play(GAME, [hog, simple], seed=0, time_control=PATIENT, cache=cache).seats[0]
            (process,) = cache._items.values()
            assert process.launch.memory_cgroup is None
            assert f"REFUSED {mode} after" in report.stderr, report
            # (what others on the machine hold meanwhile, a browser's shared memory say, goes)
            assert shmem_settles(before, within=LIMITS.tmp_mb * MiB + NOISE) <= (
                LIMITS.tmp_mb * MiB + NOISE
            )
            # The heap's address space and a full /tmp stay within the memory limit.
            entry = Entry("fair", code=fair, filename="fair.py", key=2)
            report = play(GAME, [entry, simple], seed=0, cache=cache).seats[0]
            seen = json.loads(next(x for x in report.stderr.splitlines() if x.startswith("{")))
            heap = seen["limits"]["RLIMIT_AS"][0]
            assert heap + LIMITS.tmp_mb * MiB <= LIMITS.memory_mb * MiB
        finally:
            cache.close()
    assert "no memory cgroup for sandboxed bots" in caplog.text
    assert shmem_settles(before) < NOISE
