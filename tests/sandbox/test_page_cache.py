"""The page cache is no message board between sandboxes: every file a sandboxed bot can read
is in memory whatever any bot does (a copy of its runtime's files on a tmpfs,
bots.sandbox.mirror), so timing a read tells it nothing. An audit's bot touched pages of
large files nobody reads under /usr/lib, chosen by the deal's cards, in its first seating,
and in its second (a fresh process, another sandbox) timed reads of them to learn the other
seating's cards (docs/sandbox.md, "The seccomp filter")."""

from __future__ import annotations

import json
import secrets

import pytest

from bots.languages import get_language
from bots.sandbox import mirror, resident
from tests.sandbox.conftest import hostile

#: a read that took longer than this came from the disk, not from memory
SLOW_NS = 30_000
#: file systems whose files are in memory (or are no files: /proc, device nodes)
IN_MEMORY = {"tmpfs", "proc", "devtmpfs", "devpts", "mqueue"}


def report(played, key: str) -> dict:
    """The bot's first JSON line that holds ``key`` (a Python bot's next process, forked
    ahead, says it again; both seatings write to one log)."""
    lines = [json.loads(line) for line in played.stderr.splitlines() if line.startswith("{")]
    return next(line for line in lines if key in line)


@pytest.mark.parametrize("name", ["mounts.py", "mounts.js"])
def test_a_bot_reads_nothing_but_its_runtime_and_all_of_it_from_memory(play, tmp_path, name):
    played = play(hostile(tmp_path, name))
    assert played.fault is None, played.stderr[-2000:]
    seen = report(played, "mounts")
    if name.endswith(".py"):
        # a Python match's process has an empty /proc, where it cannot read its mounts; its
        # sandbox is mounted as the JavaScript bot's is (bots.sandbox.sandbox_command), each
        # with its runtime's copy, and the keeper's two mounts are tmpfs
        assert seen["mounts"] is None
    else:
        # every mount of the sandbox is in memory: its runtime's files are a tmpfs copy
        on_disk = [(where, kind) for where, kind in seen["mounts"] if kind not in IN_MEMORY]
        assert on_disk == [], seen["mounts"]
        assert ["/usr", "tmpfs"] in seen["mounts"]
    # and nothing of /usr/lib is there beyond the runtime (gcc, the graphics drivers, the
    # Cloud SDK: gigabytes nobody reads, whose pages would carry a bit each)
    assert not any(seen["outside"].values()), seen["outside"]


def test_the_second_seating_cannot_read_the_first_seatings_marks_in_the_page_cache(play, tmp_path):
    key = secrets.token_hex(8)  # the real bot made it of the deal's cards
    for seating in ("first", "second"):
        (tmp_path / seating).mkdir()
    first = play(hostile(tmp_path / "first", "pages.py", mode="touch", key=key))
    assert first.fault is None, first.stderr[-2000:]
    assert report(first, "pages")["pages"] > 1000  # (it had pages to choose from)
    second = play(hostile(tmp_path / "second", "pages.py", mode="probe", key=key))
    assert second.fault is None, second.stderr[-2000:]
    times = report(second, "others")
    # The first seating's pages read fast, and so does every other page: all of them are in
    # memory, so the marks cannot be told from the rest. (Before, most other pages came from
    # the disk, 50 us to 20 ms, and the marked ones stood out.)
    # (and in the host's: on a virtual machine whose host had paged out a quarter of the
    # mirror, 72 of these 300 took 0.03-0.35 ms, until this process touched every page of
    # it every second, bots.sandbox.resident)
    slow = [ns for ns in times["others"] if ns > SLOW_NS]
    assert len(slow) <= len(times["others"]) // 5, sorted(times["others"])[-20:]
    assert mirror.mirror(get_language("python")) in resident.mapped()
