"""The runtime mirrors (bots.sandbox.mirror) kept in memory for real: every page of them is
read again every :data:`SWEEP_S`, by one process of the machine at a time.

Why: a tmpfs is in the memory of the machine its kernel sees. A virtual machine's memory is
not always in the host's: a host short of memory pages out what its guests have not touched
lately, and a guest restored from a snapshot gets its memory back page by page as it is
first touched. Such a page then takes 0.1-10 ms to read, against 1-3 us for one in memory.
On the machines our tests run on, a mirror built minutes earlier had up to a quarter of its
pages out, so a bot's first seating of a deal could again mark pages by reading them and
its second seating, a fresh process in another sandbox, tell the marked pages from the rest
by timing reads (tests/sandbox/test_page_cache.py). Pages all read within the last seconds
read alike.

A process that starts a sandbox (:func:`keep`) first reads the mirror itself if no process
of the machine has swept it for :data:`STALE_S` (no bot of its language ran lately, or the
machine has just started), and runs a thread that sweeps each mirror it started sandboxes
of every period, unless another process just did: a sweep holds a machine-wide lock of its
mirror and stamps its end beside it. The reads are ``os.preadv`` calls into one buffer,
which let go of the GIL: a sweep holds up no other thread of its process, even while the
host is slow to give pages back.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from pathlib import Path

log = logging.getLogger("bots.sandbox")

#: how often every page of the machine's mirrors is read (seconds)
SWEEP_S = 10.0
#: a mirror the machine has not swept for this long is read before a sandbox of it starts
STALE_S = 2 * SWEEP_S
#: bytes a read asks for
CHUNK = 1 << 20

# the clock as imported (a test that patches the time module's does not reach the sweeps)
_wall = time.time

_guard = threading.Lock()
_thread: threading.Thread | None = None
#: set to sweep before the period is over (a test's shorter period)
_wake = threading.Event()
#: the mirrors this process has started sandboxes of
_mirrors: set[Path] = set()
#: the descriptors of the sweep locks this process holds now, opened under ``_forking``
_held: set[int] = set()
_forking = threading.Lock()


def _after_fork() -> None:
    """In a forked child (the arena's jobs): no copy of a lock that a sweep of the parent's
    held at the fork (the child would hold it as long as it runs), and a thread of its own
    at its first sandbox."""
    global _guard, _thread, _wake
    for fd in list(_held):
        with contextlib.suppress(OSError):
            os.close(fd)
    _held.clear()
    _guard, _thread, _wake = threading.Lock(), None, threading.Event()
    _forking.release()


os.register_at_fork(
    before=_forking.acquire, after_in_parent=_forking.release, after_in_child=_after_fork
)


def read_all(folder: Path) -> int:
    """Read every byte of every regular file under ``folder`` (links are not followed, and
    files that go away meanwhile are passed over); how many bytes were read."""
    view = memoryview(bytearray(CHUNK))
    total = 0
    for where, _, names in os.walk(folder):
        for name in names:
            try:
                fd = os.open(os.path.join(where, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue  # (a link, or gone)
            try:
                offset = 0
                while got := os.preadv(fd, [view], offset):
                    offset += got
                total += offset
            except OSError:
                pass
            finally:
                os.close(fd)
    return total


def stamp_of(path: Path) -> Path:
    """The file beside the mirror ``path`` whose time is the end of its last sweep (its lock
    is beside it too: names that start with a dot are no mirror's)."""
    return path.parent / f".{path.name}.swept"


def lock_of(path: Path) -> Path:
    return path.parent / f".{path.name}.sweep.lock"


def last_sweep(path: Path) -> float | None:
    """When the last sweep of the mirror ``path`` ended (the wall clock), or None."""
    try:
        return stamp_of(path).stat().st_mtime
    except OSError:
        return None


def _recent(ended: float | None, within_s: float) -> bool:
    """Whether a sweep that ended at ``ended`` did so less than ``within_s`` ago (one dated
    ahead of the clock, which was set back, is not)."""
    return ended is not None and 0 <= _wall() - ended < within_s


def sweep(path: Path, *, fresh_s: float, wait: bool = False) -> bool:
    """Read the mirror ``path`` whole unless its last sweep by any process of the machine
    ended less than ``fresh_s`` ago; under its machine-wide lock, which ``wait`` waits for
    (else a sweep under way elsewhere does). Whether this call read it."""
    with _forking:  # (no fork between the open and the note of it)
        try:
            fd = os.open(
                lock_of(path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
            )
        except OSError:
            return False
        _held.add(fd)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False  # (another process is sweeping it now)
        if _recent(last_sweep(path), fresh_s) or not path.is_dir():
            return False
        started = time.monotonic()
        read = read_all(path)
        stamp_of(path).touch()
        log.debug(
            "event=sandbox.mirror_swept path=%s mib=%.1f seconds=%.3f",
            path, read / (1 << 20), time.monotonic() - started,
        )  # fmt: skip
        return True
    finally:
        _held.discard(fd)
        os.close(fd)


def forget(path: Path) -> None:
    """The mirror ``path`` was removed: its stamp and lock go too."""
    for beside in (stamp_of(path), lock_of(path)):
        with contextlib.suppress(OSError):
            beside.unlink()


def keep(path: Path) -> None:
    """Before a sandbox of the mirror ``path`` starts: read it now if the machine has not
    swept it lately, and have this process's sweeping thread running."""
    if not _recent(last_sweep(path), STALE_S):
        sweep(path, fresh_s=STALE_S, wait=True)
    global _thread
    with _guard:
        _mirrors.add(path)
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_sweeping, name="mirror-sweeps", daemon=True)
            _thread.start()


def _sweeping() -> None:
    while True:
        _wake.wait(SWEEP_S)
        _wake.clear()
        with _guard:
            paths = sorted(_mirrors)
        for path in paths:
            try:
                sweep(path, fresh_s=SWEEP_S * 0.9)
            except Exception:  # best effort: the next one comes
                log.exception("event=sandbox.sweep_failed path=%s", path)
            if not path.exists():  # (removed: a newer copy replaced it)
                with _guard:
                    _mirrors.discard(path)
