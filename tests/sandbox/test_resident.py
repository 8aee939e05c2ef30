"""The runtime mirrors kept in the host's memory too (bots.sandbox.resident): every page of a
mirror in use is read again every few seconds, by one process of the machine at a time, and
a mirror no process read lately is read before a sandbox of it starts. Without it, on a
virtual machine whose host had paged out a quarter of a mirror, a bot's second seating of a
deal told the pages its first seating had read from the rest by timing reads of them
(tests/sandbox/test_page_cache.py)."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots.sandbox import mirror, resident


@pytest.fixture
def copy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A mirror of the test's own (two files, a folder, a link), in a folder of its own on
    the tmpfs; the reads of it counted in ``reads``."""
    root = Path(tempfile.mkdtemp(prefix="card-arena-test-resident-", dir=mirror.SHM))
    path = root / "test-0123"
    (path / "usr" / "lib").mkdir(parents=True)
    (path / "usr" / "lib" / "big.so").write_bytes(os.urandom(3 * resident.CHUNK + 5))
    (path / "usr" / "small").write_bytes(b"x" * 100)
    (path / "usr" / "link").symlink_to("/etc/passwd")  # (never followed)
    yield path
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []
    real = resident.read_all

    def counted(folder: Path) -> int:
        seen.append(folder)
        return real(folder)

    monkeypatch.setattr(resident, "read_all", counted)
    return seen


def test_a_sweep_reads_every_byte_of_the_mirrors_files_and_follows_no_link(copy):
    assert resident.read_all(copy) == 3 * resident.CHUNK + 5 + 100


def test_a_mirror_nobody_swept_lately_is_read_before_its_sandbox_starts(copy, reads):
    resident.keep(copy)
    assert reads == [copy]  # read before keep returned (no process had swept it)
    assert time.time() - resident.last_sweep(copy) < 5
    resident.keep(copy)  # swept a moment ago: the next sandbox starts at once
    assert reads == [copy]
    # no process of the machine has read it for longer than STALE_S: read again first
    when = time.time() - resident.STALE_S - 1
    os.utime(resident.stamp_of(copy), (when, when))
    resident.keep(copy)
    assert reads == [copy, copy]
    # a stamp dated ahead of the clock (the clock was set back) is no recent sweep
    when = time.time() + 3600
    os.utime(resident.stamp_of(copy), (when, when))
    resident.keep(copy)
    assert reads == [copy, copy, copy]


def test_one_process_of_the_machine_sweeps_a_mirror_at_a_time(copy, reads):
    fd = os.open(resident.lock_of(copy), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another process's sweep under way
        assert not resident.sweep(copy, fresh_s=0)  # the thread's: that sweep will do
        waited = threading.Thread(
            target=resident.sweep, args=(copy,), kwargs={"fresh_s": 0, "wait": True}
        )
        waited.start()  # a sandbox's start after a long idle waits for it to end
        waited.join(0.3)
        assert waited.is_alive() and reads == []
    finally:
        os.close(fd)
    waited.join(10)
    assert reads == [copy]
    # and a sweep another process just ended is not done again
    assert not resident.sweep(copy, fresh_s=resident.SWEEP_S * 0.9)
    assert reads == [copy]


def test_the_process_sweeps_its_mirrors_every_period_until_they_are_removed(
    copy, reads, monkeypatch
):
    monkeypatch.setattr(resident, "SWEEP_S", 0.05)
    resident.keep(copy)
    resident._wake.set()  # (a thread an earlier test started waits out its 10 s otherwise)

    def swept(times: int) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if reads.count(copy) >= times:
                return True
            time.sleep(0.01)
        return False

    assert swept(3)  # the first read, then the thread's, one a period
    shutil.rmtree(copy)  # a newer copy replaced it
    assert swept_away(copy)


def swept_away(path: Path) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with resident._guard:
            if path not in resident._mirrors:
                return True
        time.sleep(0.01)
    return False


def test_a_child_forked_during_a_sweep_holds_no_copy_of_its_lock(copy, monkeypatch):
    # (the arena's jobs are forked: one that kept a copy of the lock for as long as it ran
    # would keep every other process from sweeping the mirror, and hold up the start of
    # their sandboxes after an idle time)
    inside, go_on = threading.Event(), threading.Event()

    def held(folder: Path) -> int:
        inside.set()
        go_on.wait(10)
        return 0

    monkeypatch.setattr(resident, "read_all", held)
    sweeping = threading.Thread(target=resident.sweep, args=(copy,), kwargs={"fresh_s": 0})
    sweeping.start()
    assert inside.wait(10)
    ends, ending = os.pipe()
    told, tell = os.pipe()
    child = os.fork()
    if child == 0:  # past its fork's handlers, it says so, then lives until the pipe closes
        os.close(ending)
        os.write(tell, b"!")
        os.read(ends, 1)
        os._exit(0)
    os.close(ends)
    os.close(tell)
    try:
        assert os.read(told, 1) == b"!"
        go_on.set()
        sweeping.join(10)
        fd = os.open(resident.lock_of(copy), os.O_RDWR)
        try:  # the parent's sweep ended: the lock is free, though the child runs on
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        os.close(ending)
        os.close(told)
        os.waitpid(child, 0)
