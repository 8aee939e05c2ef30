"""Where a worker or an arena job runs, with the bots it starts: a share of the CPUs.

A match is a conversation of many short turns between the process that plays it and its
bots (an RPS Poker match: 32 questions and 32 notices). When both sides share a CPU, each
turn hands over on it; when they do not, every turn wakes another CPU, and on a virtual
machine whose idle CPUs halt, that wake-up costs more than the turn itself (a bare round trip
of one JSON line between Python and Node: 10 us of wall time on one CPU, 48 us across two,
on the 2-core development machine). So N processes that play matches side by side each run,
with the bots they start, on a share of the CPUs: with as many processes as CPUs or more, one
CPU each (in turn); with fewer, equal parts. A match's bots that think at the same time then
share their player's CPU, as they would share the machine's CPUs with the other players' bots
otherwise: the seats of a match are slowed alike.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator

#: the highest CPU number a list may name (Linux's default CPU mask size, less one)
MAX_CPU = 4095


class CpuError(ValueError):
    """CPUs that cannot be used, in one line."""


def cpu_list(text: str) -> list[int]:
    """CPU numbers and ranges, comma-separated (``0-3,6``), as ``taskset -c`` reads them.
    Raises CpuError."""
    cpus: set[int] = set()
    for part in text.split(","):
        given = re.fullmatch(r"\s*(\d+)(?:-(\d+))?\s*", part)
        low, high = (int(given[1]), int(given[2] or given[1])) if given else (0, -1)
        if high < low or high > MAX_CPU:
            raise CpuError(f"{text!r} is not a list of CPUs (numbers and ranges: 2, 0-3, 0,2)")
        cpus.update(range(low, high + 1))
    return sorted(cpus)


def allowed() -> list[int]:
    """The CPUs this process may run on."""
    return sorted(os.sched_getaffinity(0))


def shares(count: int) -> list[list[int]] | None:
    """The CPUs of each of ``count`` processes playing side by side: the CPUs this process
    may use, shared out in equal parts in order, or one each in turn when there are as many
    processes or more. None with a single CPU (nothing to share)."""
    cpus = allowed()
    if len(cpus) < 2 or count < 1:
        return None
    if count >= len(cpus):
        return [[cpus[i % len(cpus)]] for i in range(count)]
    share, extra = divmod(len(cpus), count)
    placed, start = [], 0
    for i in range(count):
        size = share + (1 if i < extra else 0)
        placed.append(cpus[start : start + size])
        start += size
    return placed


def pin(cpus: list[int]) -> None:
    """Run this process, and every process it starts from now on (its bots' sandboxes), on
    ``cpus`` only (any of the machine's, not only those this process runs on now: a forked
    job leaves its parent's share). Raises CpuError, the process left where it was, for a
    CPU it may not use (not on the machine, or outside its cgroup's cpuset)."""
    before = allowed()
    try:
        os.sched_setaffinity(0, cpus)
    except (OSError, ValueError, OverflowError):
        got: list[int] = []
    else:
        got = allowed()
    refused = [cpu for cpu in cpus if cpu not in got]
    if refused:
        os.sched_setaffinity(0, before)
        raise CpuError(f"this process may not run on CPU {', '.join(map(str, refused))}")


@contextlib.contextmanager
def pinned(cpus: list[int] | None) -> Iterator[None]:
    """:func:`pin` for a while (None: nowhere in particular): this process is let go where it
    was allowed before, after (a command run in another's process, a test's, leaves it as it
    was)."""
    if not cpus:
        yield
        return
    before = allowed()
    pin(cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def label(cpus: list[int]) -> str:
    return ",".join(map(str, cpus))
