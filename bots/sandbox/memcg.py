"""A memory cgroup (cgroup v1) for each sandboxed bot: one limit for everything it holds.

RLIMIT_AS bounds a process's address space, not the memory it makes the kernel keep for
it: files in a tmpfs, System V or POSIX shared memory and memfd files outlive their
mappings. A memory cgroup charges all of these to the processes that made them (the page
cache of a tmpfs, shmem, anonymous memory, kernel memory), so one ``memory.limit_in_bytes``
(and ``memory.memsw.limit_in_bytes`` where swap is accounted, so that swap is no way out)
bounds them together; over it, the kernel's OOM killer ends the bot, and ``memory.oom_control``
counts the kill, which is how its death is reported as a ``memory`` fault.

The worker makes the cgroup under its own one (``card-arena/NAME``) before the bot starts,
hands its ``cgroup.procs`` file to the sandbox's uid, and the bot's first process (a shell
that then runs prlimit and bwrap) writes itself into it: every process of the sandbox is in
the cgroup before any bot code runs. Closing the bot kills what is left in the cgroup and
removes it.

Where no cgroup can be made (not root, no cgroup v1 memory controller), :func:`create`
returns None and logs why once; the sandbox then relies on its other bounds (see
docs/sandbox.md, "Memory").
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import time
from pathlib import Path

log = logging.getLogger("bots.sandbox")

#: where the cgroup v1 memory controller is mounted on these machines
MOUNT = Path("/sys/fs/cgroup/memory")
#: the folder, under the worker's own cgroup, that holds the sandboxes' cgroups
FOLDER = "card-arena"

_warned: set[str] = set()
_serial = itertools.count()


class MemoryCgroupError(OSError):
    """The cgroup cannot be made or set up; the message says why."""


def own_cgroup(mount: Path | None = None, controller: str = "memory") -> Path:
    """The worker's own cgroup of ``controller`` (cgroup v1), as a folder under ``mount``
    (default MOUNT, the memory controller's)."""
    mount = mount or MOUNT
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controller in controllers.split(","):
                folder = mount / path.lstrip("/")
                if folder.is_dir():
                    return folder
    return mount  # a cgroup namespace (or no line): the mount is the worker's own view


def slot_cgroup(name: str) -> str:
    """The memory cgroup ``name`` under this process's own, as :func:`cgroup_of` names it
    (whether or not it exists)."""
    return str(own_cgroup() / FOLDER / name)


def cgroup_of(pid: int | str) -> str | None:
    """The memory cgroup of process ``pid``, as a folder under MOUNT (None if it cannot be
    read, or the machine has no memory controller)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "memory" in controllers.split(","):
                return str(MOUNT / path.lstrip("/"))
    return None


class MemoryCgroup:
    """One sandbox's memory cgroup (see the module's docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def procs_file(self) -> str:
        """The file a process writes its pid into to join the cgroup."""
        return str(self.path / "cgroup.procs")

    def set_limit(self, limit: int) -> None:
        """Memory (and memory + swap, where accounted) of the cgroup: at most ``limit``
        bytes. memsw may never be below the memory limit, so the order depends on the way."""
        memory = self.path / "memory.limit_in_bytes"
        memsw = self.path / "memory.memsw.limit_in_bytes"
        files = [memory]
        if memsw.exists():
            files = [memsw, memory] if limit > self.read(memory.name) else [memory, memsw]
        for file in files:
            file.write_text(str(limit))

    def read(self, name: str) -> int:
        return int((self.path / name).read_text().split()[0])

    def oom_kills(self) -> int:
        """How many processes the OOM killer ended in this cgroup (``oom_kill`` of
        memory.oom_control, kernels from 4.13); memory.failcnt where it is missing."""
        try:
            text = (self.path / "memory.oom_control").read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        with contextlib.suppress(OSError, ValueError):
            return self.read("memory.failcnt")
        return 0

    def limit_reached(self) -> bool:
        """Whether the cgroup's usage ever reached its limit (memory.failcnt): an OOM kill
        without it was the machine's OOM killer, short of memory as a whole, not the
        limit's. True where that count cannot be read."""
        try:
            return self.read("memory.failcnt") > 0
        except (OSError, ValueError):
            return True

    def pids(self) -> list[int]:
        return cgroup_pids(self.path)

    def kill_all(self) -> None:
        for pid in self.pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Kill whatever is left in the cgroup and remove it (what it still charged goes
        with it). Never raises: a cgroup that will not go is logged and retried by the next
        worker that takes the slot."""
        remove_cgroup(self.path, "memory")


def cgroup_pids(path: Path) -> list[int]:
    """The processes in the cgroup at ``path`` now (the kernel's list), or none if it cannot
    be read."""
    try:
        return [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def remove_cgroup(path: Path, what: str) -> None:
    """Kill every process left in the cgroup at ``path`` and remove it, trying for about a
    second (a killed process leaves its cgroup a moment after the signal). Never raises: a
    cgroup that will not go is logged (``what``: the controller, for the log)."""
    for attempt in range(50):
        for pid in cgroup_pids(path):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if attempt == 49:
                log.warning("cannot remove the %s cgroup %s: %s", what, path, exc)
                return
        time.sleep(0.02)


def create(
    limit: int, *, uid: int | None, mount: Path | None = None, name: str | None = None
) -> MemoryCgroup | None:
    """A fresh memory cgroup of ``limit`` bytes whose ``cgroup.procs`` the sandbox's uid
    (``uid``, or the worker's own when None) may write, or None (logged once) where none
    can be made. A sandbox slot's cgroup is named after the slot (``name``, else its uid):
    one left by a dead worker is emptied and used again."""
    mount = mount or MOUNT
    if name is None:
        name = f"sandbox-{uid}" if uid is not None else f"worker-{os.getpid()}-{next(_serial)}"
    path = own_cgroup(mount) / FOLDER / name
    try:
        if not (mount / "memory.limit_in_bytes").exists():
            raise MemoryCgroupError(f"no cgroup v1 memory controller at {mount}")
        path.parent.mkdir(exist_ok=True)
        try:
            path.mkdir()
        except FileExistsError:
            MemoryCgroup(path).kill_all()  # a leftover of a worker that died
        cgroup = MemoryCgroup(path)
        cgroup.set_limit(limit)
        if uid is not None and uid != os.geteuid():
            os.chown(cgroup.procs_file, uid, -1)
    except OSError as exc:
        with contextlib.suppress(OSError):
            path.rmdir()
        warn_once("memory", exc)
        return None
    return cgroup


#: what a sandbox goes without, for each kind of cgroup it could not have: said once each
_WITHOUT = {
    "memory": "their memory is bounded by the address-space limit, the /tmp size and the "
    "seccomp filter only",
    "CPU": "a bot's threads may use more than one core, and its CPU time is what its host reports",
}


def warn_once(kind: str, exc: OSError) -> None:
    """Log once per process that sandboxes get no ``kind`` cgroup (see _WITHOUT), and why."""
    if kind not in _warned:
        _warned.add(kind)
        log.warning(
            "no %s cgroup for sandboxed bots (%s): %s (docs/sandbox.md)", kind, exc, _WITHOUT[kind]
        )
