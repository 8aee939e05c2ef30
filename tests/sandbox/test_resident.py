"""The runtime mirrors kept in the host's memory too (bots.sandbox.resident): a process that
starts sandboxes maps each mirror it uses and touches every page of it every second, and a
worker touches them all before each match. Without it, on a virtual machine whose host had
paged out a quarter of a mirror, a bot's second seating of a deal told the pages its first
seating had read from the rest by timing reads of them (tests/sandbox/test_page_cache.py)."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bots.sandbox import mirror, resident

#: a file of the test's mirror: three pages and a bit
BIG = 3 * resident.PAGE + 5


@pytest.fixture
def copy() -> Iterator[Path]:
    """A mirror of the test's own (files in a folder, an empty one, a link), in a folder of
    its own on the tmpfs; let go by this process after the test."""
    root = Path(tempfile.mkdtemp(prefix="card-arena-test-resident-", dir=mirror.SHM))
    path = root / "test-0123"
    (path / "usr" / "lib").mkdir(parents=True)
    (path / "usr" / "lib" / "big.so").write_bytes(os.urandom(BIG))
    (path / "usr" / "small").write_bytes(b"x" * 100)
    (path / "usr" / "empty").write_bytes(b"")
    (path / "usr" / "link").symlink_to("/etc/passwd")  # (never followed)
    yield path
    shutil.rmtree(root, ignore_errors=True)
    resident.touch()  # (lets a removed mirror go)


@pytest.fixture
def touches(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The mirrors touched, one entry a touch."""
    seen: list[Path] = []
    real = resident.Mapped.touch

    def counted(self: resident.Mapped) -> int:
        seen.append(self.path)
        return real(self)

    monkeypatch.setattr(resident.Mapped, "touch", counted)
    return seen


def until(condition: Callable[[], bool], within_s: float = 10) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_every_page_of_every_file_is_touched_and_no_link_followed(copy):
    mapped = resident.Mapped(copy)
    try:
        assert len(mapped.regions) == 2  # (the empty file has no page, the link is not followed)
        assert mapped.touch() == 4 + 1  # a byte of each page of each file
    finally:
        mapped.close()


def test_a_mirror_is_touched_whole_before_its_first_sandbox_and_then_every_period(
    copy, touches, monkeypatch
):
    resident.keep(copy)
    assert touches == [copy]  # before keep returned: the first sandbox meets it in memory
    assert copy in resident.mapped()
    resident.keep(copy)  # the next sandbox: nothing more to do
    assert touches == [copy]
    monkeypatch.setattr(resident, "SWEEP_S", 0.05)
    resident._wake.set()  # (a thread an earlier test started waits out its period otherwise)
    assert until(lambda: touches.count(copy) >= 3)  # one a period, by the thread


def test_a_removed_mirror_is_let_go(copy, touches):
    resident.keep(copy)
    shutil.rmtree(copy)  # a newer copy replaced it
    resident.touch()
    assert copy not in resident.mapped()


def test_a_forked_child_touches_with_a_thread_of_its_own(copy):
    # (the arena's jobs are forked: the parent's thread is not the child's, and a lock it
    # held at the fork would never be let go there)
    resident.keep(copy)
    told, tell = os.pipe()
    held, let_go = threading.Event(), threading.Event()

    def holding() -> None:
        with resident._guard:
            held.set()
            let_go.wait(10)

    thread = threading.Thread(target=holding)
    thread.start()
    assert held.wait(10)
    child = os.fork()  # while the parent's lock is held
    if child == 0:
        try:
            resident.keep(copy)
            alive = resident._thread is not None and resident._thread.is_alive()
            pages = resident.touch()  # (with the mirrors of the tests before too)
            os.write(tell, b"y" if alive and pages >= 5 and copy in resident.mapped() else b"n")
        finally:
            os._exit(0)
    let_go.set()  # (in the parent, once it forked)
    os.close(tell)
    try:
        ready = select.poll()
        ready.register(told, select.POLLIN)
        assert ready.poll(10_000), "the child is stuck on a lock its parent held at the fork"
        assert os.read(told, 1) == b"y"
    finally:
        os.close(told)
        thread.join()
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
