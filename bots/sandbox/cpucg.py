"""A CPU cgroup (cgroup v1 ``cpu`` and ``cpuacct``) for each sandboxed bot: at most its own
core, and its CPU time read from outside.

A bot's threads can use every core of the machine (hashing, compression and NumPy-like work
release Python's GIL), slowing the bots that share it; and the CPU time a bot reports of
itself is whatever its code says. So each sandbox gets a cgroup in the ``cpu`` controller
whose CFS quota is ``SandboxLimits.cpu_cores`` cores (``cpu.cfs_quota_us`` over
``cpu.cfs_period_us``: one core by default), and one in ``cpuacct`` whose ``cpuacct.usage``
counts the CPU time of every process and thread of the sandbox, which the worker reads: the
bot has no say in it.

They are made as the memory cgroup is (:mod:`bots.sandbox.memcg`): under the worker's own cgroup of
each controller (``card-arena/sandbox-UID``), handed to the sandbox's uid, joined by the
sandbox's first process before any bot code runs, emptied and removed when the bot is closed.
Where they cannot be made (not root, no such controller) :func:`create` returns None and logs
why once: the bot then runs without a CPU cap, its CPU time bounded by RLIMIT_CPU.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from bots.sandbox.memcg import own_cgroup, remove_cgroup, warn_once

log = logging.getLogger("bots.sandbox")

#: where the cgroup v1 controllers are mounted on these machines (they may be one hierarchy)
CPU_MOUNT = Path("/sys/fs/cgroup/cpu")
ACCT_MOUNT = Path("/sys/fs/cgroup/cpuacct")
FOLDER = "card-arena"
#: the CFS period: the quota is this many microseconds per core allowed
PERIOD_US = 100_000


class CpuCgroup:
    """One sandbox's CPU cgroups: the quota's and the accounting's (one folder when the two
    controllers share a hierarchy)."""

    def __init__(self, folders: list[Path], acct: Path) -> None:
        self.folders = folders
        self.acct = acct
        #: ``cpuacct.usage``, kept open: read at offset 0 it is counted afresh each time, for
        #: a microsecond where opening it again costs about 13 (it is read at every match)
        self._usage_fd: int | None = None
        #: ``cgroup.procs``, kept open the same way: read after every reply of a bot that
        #: could run unasked (``BotProcess.pause``), a microsecond instead of about ten
        self._procs_fd: int | None = None

    @property
    def procs_files(self) -> list[str]:
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def usage_s(self) -> float | None:
        """CPU seconds used by every process that has been in the cgroup (None if unreadable)."""
        try:
            if self._usage_fd is None:
                self._usage_fd = os.open(self.acct / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(self._usage_fd, 64, 0)) / 1e9
        except (OSError, ValueError):
            return None

    def pids(self) -> list[int]:
        """The processes in the cgroup now (the kernel's list: every process of the sandbox,
        whatever the bot did), or none if it cannot be read."""
        try:
            if self._procs_fd is None:
                self._procs_fd = os.open(self.acct / "cgroup.procs", os.O_RDONLY | os.O_CLOEXEC)
            # (a sandbox has at most SandboxLimits.processes: well within a read)
            return [int(pid) for pid in os.pread(self._procs_fd, 65536, 0).split()]
        except (OSError, ValueError):
            return []

    def remove(self) -> None:
        """Kill whatever is left in the cgroups and remove them; never raises."""
        for fd in (self._usage_fd, self._procs_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._usage_fd = self._procs_fd = None
        for folder in self.folders:
            remove_cgroup(folder, "CPU")


def create(
    cores: float,
    *,
    uid: int | None,
    name: str | None = None,
    cpu_mount: Path | None = None,
    acct_mount: Path | None = None,
) -> CpuCgroup | None:
    """Fresh CPU cgroups allowing ``cores`` cores (0: no cap, accounting only), whose
    ``cgroup.procs`` the sandbox's uid may write, or None (logged once) where none can be
    made. Named ``name`` (the slot's, as its memory cgroup: see bots.sandbox.Slot), else
    after the uid: one left by a dead worker of the same slot is emptied and reused."""
    if uid is None:
        return None  # not root: no sandbox uid to name it after, and no right to make it
    cpu_mount, acct_mount = cpu_mount or CPU_MOUNT, acct_mount or ACCT_MOUNT
    name = name or f"sandbox-{uid}"
    made: list[Path] = []
    try:
        for mount, file in ((cpu_mount, "cpu.cfs_quota_us"), (acct_mount, "cpuacct.usage")):
            if not (mount / file).exists():
                raise OSError(f"no cgroup v1 {file.split('.')[0]} controller at {mount}")
        # the quota's cgroup sits right under the worker's own, a sibling of the machine's
        # other groups of tasks (its sessions' autogroups, services): one more level would
        # put every sandbox in one group, whose single share the busy sandboxes would split
        cpu = own_cgroup(cpu_mount, "cpu") / f"{FOLDER}-{name}"
        acct = own_cgroup(acct_mount, "cpuacct") / FOLDER / name
        folders = [cpu] if cpu.resolve() == acct.resolve() else [cpu, acct]
        for folder in folders:
            folder.parent.mkdir(exist_ok=True)
            try:
                folder.mkdir()
                made.append(folder)
            except FileExistsError:
                CpuCgroup([folder], acct).remove()  # a leftover of a worker that died
                folder.mkdir()
                made.append(folder)
        (cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        quota = int(PERIOD_US * cores) if cores > 0 else -1
        (cpu / "cpu.cfs_quota_us").write_text(str(quota))
        cgroup = CpuCgroup(folders, acct)
        if uid != os.geteuid():
            for procs in cgroup.procs_files:
                os.chown(procs, uid, -1)
    except OSError as exc:
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        warn_once("CPU", exc)
        return None
    return cgroup
