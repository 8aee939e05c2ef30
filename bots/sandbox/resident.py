"""The runtime mirrors (bots.sandbox.mirror) kept in memory for real: a process that starts
sandboxes maps every file of each mirror it uses and touches every page of them every
:data:`SWEEP_S`, and a worker does so again before each match whose deal a bot of it may
have been dealt before (:func:`touch`, bots.competition.deals_seen).

Why: a tmpfs is in the memory of the machine its kernel sees. A virtual machine's memory is
not always in its host's: a host short of memory pages out what its guests have not touched
lately, and a guest restored from a snapshot gets its memory back a page at a time, as it is
first touched. Such a page then takes 0.1-10 ms to read, against 1-3 us for one in memory.
On the virtual machines our tests run on, a mirror built minutes earlier had up to a
quarter of its pages out, so a bot's first seating of a deal could again mark pages by
reading them, and its second seating, another process, tell the marked pages from the rest
by timing reads (tests/sandbox/test_page_cache.py). A worker plays a deal's seatings one
after the other (bots.competition, "a deal's seatings, one at a time") and touches every
page before all but the first: the second seating is dealt its cards with every page in
memory, whatever the first read. The touches between keep each of them cheap (a page the
host paged out costs about 0.35 ms to bring back).

A touch reads one byte a page through the mappings, 64 pages a slice: about 0.5 ms for
Python's 12,900 pages once they are in memory, 1.2 ms for Java's 46,900.
"""

from __future__ import annotations

import ctypes
import logging
import mmap
import os
import threading
import time
from pathlib import Path

log = logging.getLogger("bots.sandbox")

#: how often this process touches every page of the mirrors it uses (seconds)
SWEEP_S = 1.0
#: pages a slice reads (another thread may take the GIL between two)
SLICE_PAGES = 64
PAGE = mmap.PAGESIZE


# mmap(2) and munmap(2) themselves: a mapping of the mmap module keeps a descriptor of its
# file open (Python 3.11 has no ``trackfd``), and Python's mirror alone has 1,430 files
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (
    ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long
)  # fmt: skip
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_FAILED = ctypes.c_void_p(-1).value
# a read-only memoryview of memory that is not Python's (PyBUF_READ)
_view = ctypes.pythonapi.PyMemoryView_FromMemory
_view.restype = ctypes.py_object
_view.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int)
_PYBUF_READ = 0x100


class Mapped:
    """Every non-empty regular file of the mirror ``path``, mapped read-only, no descriptor
    kept (links are not followed). The mirror's files never change (read-only, and never
    cut short: a newer copy is built beside it); once it is removed, its pages stay in
    memory until :meth:`close`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: held while the mappings are read or let go (reading one let go would crash)
        self.lock = threading.Lock()
        #: (address, bytes, a view of them) per file
        self.regions: list[tuple[int, int, memoryview]] = []
        for where, _, names in os.walk(path):
            for name in names:
                try:
                    fd = os.open(os.path.join(where, name), os.O_RDONLY | os.O_NOFOLLOW)
                except OSError:
                    continue  # (a link, or gone)
                try:
                    size = os.fstat(fd).st_size
                    if size:
                        at = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
                        if at not in (None, _FAILED):
                            self.regions.append((at, size, _view(at, size, _PYBUF_READ)))
                finally:
                    os.close(fd)

    def touch(self) -> int:
        """Read a byte of every page; how many pages."""
        pages = 0
        step = SLICE_PAGES * PAGE
        with self.lock:
            for _, size, view in self.regions:
                for start in range(0, size, step):
                    pages += len(view[start : start + step : PAGE].tobytes())
        return pages

    def close(self) -> None:
        with self.lock:
            for at, size, view in self.regions:
                view.release()
                _libc.munmap(at, size)
            self.regions = []


_guard = threading.Lock()
_thread: threading.Thread | None = None
#: set to touch before the period is over (a test's shorter period)
_wake = threading.Event()
#: the mirrors this process has started sandboxes of, mapped
_mapped: dict[Path, Mapped] = {}


def _after_fork() -> None:
    """In a forked child (the arena's jobs): locks of its own (the parent's thread may have
    held one at the fork), and a thread of its own at its next sandbox."""
    global _guard, _thread, _wake
    _guard, _thread, _wake = threading.Lock(), None, threading.Event()
    for mirror in _mapped.values():
        mirror.lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork)


def keep(path: Path) -> None:
    """Before a sandbox of the mirror ``path`` starts: map it and touch it whole the first
    time in this process, and have this process's thread touching it every period."""
    global _thread
    with _guard:
        mapped = _mapped.get(path)
        first = mapped is None
        if mapped is None:
            mapped = _mapped[path] = Mapped(path)
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_touching, name="mirror-touches", daemon=True)
            _thread.start()
    if first:
        started = time.monotonic()
        pages = mapped.touch()
        log.debug(
            "event=sandbox.mirror_mapped path=%s files=%d pages=%d seconds=%.3f",
            path, len(mapped.regions), pages, time.monotonic() - started,
        )  # fmt: skip


def mapped() -> list[Path]:
    """The mirrors this process keeps touched."""
    with _guard:
        return sorted(_mapped)


def touch() -> int:
    """Touch every page of the mirrors this process uses (a worker, before each match);
    how many pages. Mirrors removed since are let go."""
    with _guard:
        held = list(_mapped.values())
    pages = 0
    for mirror in held:
        if mirror.path.is_dir():
            pages += mirror.touch()
            continue
        with _guard:
            _mapped.pop(mirror.path, None)
        mirror.close()
    return pages


def _touching() -> None:
    while True:
        _wake.wait(SWEEP_S)
        _wake.clear()
        try:
            touch()
        except Exception:  # best effort: the next one comes
            log.exception("event=sandbox.touch_failed")
