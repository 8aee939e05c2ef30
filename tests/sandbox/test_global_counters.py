"""The machine's counters in /proc (what every process did since it started) are out of a
sandboxed bot's sight: a process could leave a count in them for a later one, the next
seating of a deal, in another sandbox (bots.sandbox.GLOBAL_COUNTERS)."""

from __future__ import annotations

import errno
import json
import os
import secrets

from bots.sandbox import GLOBAL_COUNTERS
from tests.sandbox.conftest import hostile


def report(played, mode: str) -> dict:
    """The bot's first JSON line of ``mode`` (a Python bot's next process, forked ahead,
    says it again)."""
    lines = [json.loads(line) for line in played.stderr.splitlines() if line.startswith("{")]
    return next(line for line in lines if line.get("mode") == mode)


def test_a_bot_reads_none_of_the_machines_counters_and_passes_nothing_through_them(play, tmp_path):
    here = [path for path in GLOBAL_COUNTERS if os.path.exists(path)]
    assert "/proc/vmstat" in here and "/proc/stat" in here
    key = secrets.randbelow(97)
    fill = {"key": key, "paths": ",".join(here)}
    for seating in ("first", "second"):
        (tmp_path / seating).mkdir()
    first = play(hostile(tmp_path / "first", "counters.py", mode="mark", **fill))
    assert first.fault is None, first.stderr[-2000:]
    second = play(hostile(tmp_path / "second", "counters.py", mode="read", **fill))
    assert second.fault is None, second.stderr[-2000:]
    for played, mode in ((first, "mark"), (second, "read")):
        seen = report(played, mode)
        # each is refused as the files /proc keeps for root are (before, /proc/vmstat read
        # whole, and the second process read the first one's key in thp_fault_alloc)
        assert seen["files"] == dict.fromkeys(here, errno.EACCES), seen["files"]
        assert seen["count"] is None
        # glibc counts the CPUs without /proc/stat
        assert seen["cpus"] and seen["cpus"] >= 1
