"""How long the machine kept a bot waiting for a CPU: its run-queue wait.

A call's deadline is wall-clock time, and on a loaded machine a bot that needs a fraction
of its allowance of CPU may still not be given that CPU within it. The kernel counts, for
each thread, how long it was runnable but not run (the second field of
``/proc/<tid>/schedstat``, nanoseconds; the first is the time it ran). Summed over every
thread of every process of the bot, the growth of that count during a call is the time the
machine, not the bot, took from it; a deadline is moved on by that much (docs/sandbox.md,
"Faults": a bot times out only once its own time, CPU or waiting of its choosing, passes its
allowance; a machine that keeps it waiting past :data:`CAP` times the allowance is the
platform's trouble).

The counts are read only for a call that is still unanswered :data:`PROBE_S` after it began
(a baseline, :func:`probe`) and at its deadlines (:func:`credit`): never on the path of a
quick call. So the first :data:`PROBE_S` of a call are not counted for it (an error on the
bot's side of at most that), and what the machine takes from it there is not credited.

What is credited is bounded by what the bot could have used: ``cores`` (its CPU cgroup's
quota: one core) times the window, less the CPU its threads had. Several threads of one bot
that wait for its single core wait on each other, the bot's own doing; so do threads that
lowered their own priority (a nice above 0, or a policy other than the normal one: their
waits count for nothing).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from typing import Any

#: seconds after a call began when its baseline is read, if it has not been answered
PROBE_S = 0.05
#: a deadline is moved on only by at least this much (less: the bot times out)
MIN_STEP_S = 0.005
#: the most a call may last, in times its allowance, while the machine keeps the bot
#: waiting: past it, the match cannot be played fairly now (a PlatformError)
CAP = 10.0
#: scheduling policies a thread may have for its waits to count (SCHED_OTHER)
_NORMAL_POLICIES = (0,)


@dataclass(frozen=True, slots=True)
class Probe:
    """The bot's threads' counts at a moment: {tid: (ran ns, waited ns, times it gave up
    the CPU of its own accord, runnable now)}."""

    at: float
    threads: dict[int, tuple[int, int, int, bool]]


def bot_threads(launch: Any, pid: int | None) -> list[int]:
    """Every thread of every process of the bot: its memory cgroup's ``tasks`` (every
    thread of the sandbox, whatever the bot did), or else the threads of the process tree
    under ``pid`` (the bot started without a sandbox or cgroups)."""
    cgroup = getattr(launch, "memory_cgroup", None)
    if cgroup is not None:
        with contextlib.suppress(OSError, ValueError):
            return [int(tid) for tid in (cgroup.path / "tasks").read_text().split()]
    pids = launch.pids() if getattr(launch, "pids", None) is not None else []
    if not pids and pid is not None:
        pids = _tree(pid)
    tids: list[int] = []
    for each in pids:
        with contextlib.suppress(OSError, ValueError):
            tids += [int(tid) for tid in os.listdir(f"/proc/{each}/task")]
    return tids


def _tree(root: int) -> list[int]:
    """``root`` and its descendants (by each process's parent, as /proc/PID/stat says)."""
    return _descendants(root, _proc_stats())


def tree_cpu_s(root: int) -> float:
    """CPU seconds the process ``root`` and its descendants have used so far: each one's
    own and that of the children it has reaped (``/proc/PID/stat``: utime, stime, cutime,
    cstime); 0.0 if there is no such process."""
    stats = _proc_stats()
    ticks = sum(
        sum(int(value) for value in stats[pid][11:15])
        for pid in _descendants(root, stats)
        if pid in stats
    )
    return ticks / os.sysconf("SC_CLK_TCK")


def _proc_stats() -> dict[int, list[bytes]]:
    """Every process's fields of /proc/PID/stat after its command's name (its state, its
    parent, ...: the times are the 12th to 15th of them)."""
    stats: dict[int, list[bytes]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read()
            stats[int(name)] = stat[stat.rindex(b")") + 2 :].split()
    return stats


def _descendants(root: int, stats: dict[int, list[bytes]]) -> list[int]:
    """``root`` and the processes under it, by each one's parent in ``stats``."""
    children: dict[int, list[int]] = {}
    for pid, fields in stats.items():
        with contextlib.suppress(ValueError, IndexError):
            children.setdefault(int(fields[1]), []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _counts(tid: int) -> tuple[int, int, int, bool] | None:
    """(ran ns, waited ns, voluntary switches, runnable) of thread ``tid``, or None if it is
    gone. A thread that lowered its own priority waited by its own choice: its wait reads
    as 0, and it never counts as runnable."""
    try:
        with open(f"/proc/{tid}/schedstat", "rb") as file:
            ran, waited, _ = file.read().split(None, 2)
        with open(f"/proc/{tid}/stat", "rb") as file:
            stat = file.read()
        with open(f"/proc/{tid}/status", "rb") as file:
            status = file.read()
    except (OSError, ValueError):
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()
    # (fields from the state, the 3rd of stat: nice is the 19th, policy the 41st)
    try:
        nice, policy = int(fields[16]), int(fields[38])
    except (IndexError, ValueError):
        nice, policy = 0, 0
    at = status.find(b"\nvoluntary_ctxt_switches:")
    voluntary = int(status[at:].split(None, 2)[1]) if at >= 0 else -1
    if nice > 0 or policy not in _NORMAL_POLICIES:
        return int(ran), 0, voluntary, False
    return int(ran), int(waited), voluntary, fields[:1] == [b"R"]


def probe(launch: Any, pid: int | None) -> Probe:
    """The bot's counts now (see :class:`Probe`)."""
    threads = {}
    for tid in bot_threads(launch, pid):
        counts = _counts(tid)
        if counts is not None:
            threads[tid] = counts
    return Probe(time.monotonic(), threads)


def credit(base: Probe, now: Probe, cores: float = 1.0) -> float:
    """Seconds the machine kept the bot waiting for a CPU between ``base`` and ``now``: its
    threads' run-queue wait, at most what ``cores`` cores would have given it beyond the CPU
    it had (see the module's docstring)."""
    window = max(now.at - base.at, 0.0)
    ran = waited = 0
    for tid, (run, wait, voluntary, runnable) in now.threads.items():
        run0, wait0, voluntary0, runnable0 = base.threads.get(tid, (0, 0, -2, False))
        if run < run0:  # a thread number used again: a new thread, counted from its start
            run0, wait0, voluntary0, runnable0 = 0, 0, -2, False
        ran += run - run0
        # (the kernel adds a wait to the count once the thread runs again: a thread waiting
        # now and at ``base``, that never gave up the CPU of its own accord between, was
        # waiting all the window but for the time it ran. One asleep at ``base`` and woken
        # since has made no new switch of its own accord either: it was asleep, its own
        # choice, not waiting; a bot that slept 1.6 s a call was once credited 0.6 s of each)
        if runnable and runnable0 and voluntary == voluntary0 >= 0:
            waited += max(int(window * 1e9) - (run - run0), wait - wait0, 0)
        else:
            waited += max(wait - wait0, 0)
    return max(min(waited / 1e9, cores * window - ran / 1e9), 0.0)


def given_more(waited: float) -> str:
    """What a timeout's reason adds for the time its deadline was moved on by, after its
    limit ("no answer to main_play within 1.00 s"): " of its own time (not counting the 0.62
    s the busy machine kept it waiting for a CPU)", or nothing under :data:`MIN_STEP_S`.
    One sentence with the limit: the wait is not a second limit, nor the bot's."""
    if waited < MIN_STEP_S:
        return ""
    return (
        f" of its own time (not counting the {waited:.2f} s the busy machine kept it waiting "
        "for a CPU)"
    )


def too_busy(credit: float, what: str, allowance: float) -> str:
    """The PlatformError's reason for a call the machine kept waiting past :data:`CAP`."""
    return (
        f"the machine is too busy: it kept the bot waiting for a CPU for {credit:.2f} s during "
        f"{what}, whose allowance is {allowance:.2f} s"
    )
