"""The machine's counters are out of a sandboxed bot's reach: a process could leave a count
in them for a later one, the next seating of a deal, in another sandbox. Those in /proc
(what every process did since it started: bots.sandbox.GLOBAL_COUNTERS) it cannot read;
the one that numbers pipes and sockets it cannot move (bots.sandbox.seccomp.INODE_CALLS),
nor read the one that numbers processes and threads (pidfs: bots.sandbox.seccomp.PIDFD_CALLS)."""

from __future__ import annotations

import errno
import json
import os
import secrets
import subprocess
import sys

import pytest

from bots.languages import get_language
from bots.sandbox import GLOBAL_COUNTERS
from bots.sandbox.seccomp import inode_filter_bpf
from tests.sandbox.conftest import hostile


def report(played, mode: str) -> dict:
    """The bot's first JSON line of ``mode`` (a Python bot's next process, forked ahead,
    says it again)."""
    lines = [json.loads(line) for line in played.stderr.splitlines() if line.startswith("{")]
    return next(line for line in lines if line.get("mode") == mode)


def test_a_bot_reads_none_of_the_machines_counters_and_passes_nothing_through_them(play, tmp_path):
    here = [path for path in GLOBAL_COUNTERS if os.path.exists(path)]
    assert "/proc/vmstat" in here and "/proc/stat" in here
    # (the machine's idle time since it started: the CPU time of every process, a bot's too)
    assert "/proc/uptime" in here
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
        # none is there: a Python match's process has an empty /proc (before, /proc/vmstat
        # was read whole, and the second process read the first one's key in
        # thp_fault_alloc)
        assert seen["files"] == dict.fromkeys(here, errno.ENOENT), seen["files"]
        assert seen["count"] is None
        # glibc counts the CPUs without /proc/stat
        assert seen["cpus"] and seen["cpus"] >= 1


def test_where_a_bot_has_proc_each_of_the_machines_counters_is_refused(play, tmp_path):
    # a JavaScript host keeps /proc (a Python match's process has an empty one, a C++ program
    # and a JVM none): each counter there is covered by /dev/null, refused as the files /proc
    # keeps for root are, even to a bot out of its realm (the tests' escaped host)
    here = [path for path in GLOBAL_COUNTERS if os.path.exists(path)]
    played = play(hostile(tmp_path, "counters.js", paths=",".join(here)))
    assert played.fault is None, played.stderr[-2000:]
    assert report(played, "node")["files"] == dict.fromkeys(here, "EACCES")


#: loads the seccomp filter named on its command line (none if empty), then makes a pipe,
#: sockets, an eventfd and pidfds; prints how each ended
INODE_PROBE = """
import ctypes, errno, json, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
assert libc.prctl(38, 1, 0, 0, 0) == 0  # no new privileges, as under bwrap
program = open(sys.argv[1], "rb").read()
buffer = ctypes.create_string_buffer(program, len(program))
loaded = Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
assert not program or libc.prctl(22, 2, ctypes.addressof(loaded), 0, 0) == 0
def clone_pidfd():
    where = ctypes.c_int(0)
    flags = 0x1000 | 0x100000 | 0x10000 | 0x800 | 0x100  # PIDFD, PARENT_SETTID, THREAD...
    if libc.syscall(56, flags, 0, ctypes.byref(where), ctypes.byref(where), 0) < 0:
        raise OSError(ctypes.get_errno(), "clone")
def outcome(action):
    try:
        action()
    except OSError as exc:
        return errno.errorcode[exc.errno]
    return "ok"
print(json.dumps({
    "pipe": outcome(os.pipe),
    "socketpair": outcome(socket.socketpair),
    "unix": outcome(lambda: socket.socket(socket.AF_UNIX)),
    "inet": outcome(lambda: socket.socket(socket.AF_INET)),
    "eventfd": outcome(lambda: os.eventfd(0)),
    "pidfd": outcome(lambda: os.close(os.pidfd_open(os.getpid()))),
    # a thread with a pidfd: clone(CLONE_PIDFD | CLONE_PARENT_SETTID...) with one pointer for
    # both, which the kernel refuses (EINVAL) before it makes anything, unless the filter has
    "clone_pidfd": outcome(lambda: clone_pidfd()),
}))
"""


def probe_inodes(tmp_path, program: bytes) -> dict[str, str]:
    path = tmp_path / "filter.bpf"
    path.write_bytes(program)
    argv = [sys.executable, "-c", INODE_PROBE, str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True)
    return json.loads(done.stdout)


def test_a_cpp_program_makes_no_pipe_or_socket_whose_number_counts_the_machines(tmp_path):
    # each takes its inode's number from one counter of the machine's, which a process that
    # made many left for the next to read (bots.sandbox.seccomp.INODE_CALLS)
    program = get_language("cpp").seccomp_data()["{seccomp}"]
    assert probe_inodes(tmp_path, program) == {
        "pipe": "EPERM",
        "socketpair": "EAFNOSUPPORT",
        "unix": "EAFNOSUPPORT",
        "inet": "EAFNOSUPPORT",
        "eventfd": "ok",  # (one inode for them all)
        "pidfd": "EPERM",  # (see the next test)
        "clone_pidfd": "EPERM",
    }
    # a Java bot's JVM makes a socket pair as it starts: its host loads the same rules once
    # it has (bots/languages/java/seal.c), before the bot's class
    assert probe_inodes(tmp_path, inode_filter_bpf()) == {
        "pipe": "EPERM",
        "socketpair": "EAFNOSUPPORT",
        "unix": "EAFNOSUPPORT",
        "inet": "EAFNOSUPPORT",
        "eventfd": "ok",
        "pidfd": "EPERM",
        "clone_pidfd": "EPERM",
    }
    # Node makes pipes of its own as it starts (and a JavaScript realm has no call for one)
    node = get_language("javascript").seccomp_data()["{seccomp}"]
    assert probe_inodes(tmp_path, node)["pipe"] == "ok"
    # the probe itself: unfiltered, its clone is refused by the kernel, not made
    assert probe_inodes(tmp_path, b"")["clone_pidfd"] == "EINVAL"


def test_a_bots_threads_pass_nothing_on_through_the_numbers_of_its_pidfds(play, tmp_path):
    # every thread and process the machine makes takes a number from one counter (pidfs,
    # a pidfd's inode number): a C++ bot that started threads until one's number was a card
    # left it for its next process, in another sandbox, to read in its own (it read the key
    # 2-10 past, on a busy machine). No pidfd for a bot that may start threads
    # (bots.sandbox.seccomp.PIDFD_CALLS)
    key = secrets.randbelow(97)
    for seating in ("first", "second"):
        (tmp_path / seating).mkdir()
    first = play(hostile(tmp_path / "first", "pidfs.cpp", mode="mark", key=key), bound=60)
    assert first.fault is None, first.stderr[-2000:]
    second = play(hostile(tmp_path / "second", "pidfs.cpp", mode="read", key=key), bound=60)
    assert second.fault is None, second.stderr[-2000:]
    for played, mode in ((first, "mark"), (second, "read")):
        seen = report(played, mode)
        assert seen.get("error") == os.strerror(errno.EPERM), seen
        assert "count" not in seen


@pytest.mark.parametrize(
    ("bot", "refused"),
    [("procfs.cpp", os.strerror(errno.ENOENT)), ("ProcFiles.java", "NoSuchFileException")],
)
def test_a_bot_passes_nothing_on_through_the_numbers_of_its_files_in_proc(
    play, tmp_path, bot, refused
):
    # each entry of a process's own in /proc takes its number from the counter the machine's
    # pipes and sockets take theirs from: a C++ bot that looked entries of /proc/self/fd up
    # anew until the last one's number was a card, on each CPU in turn, left it for its next
    # process, in another sandbox, to read in its first (12-67 past, on a busy machine; a
    # Java bot's, 6-18 past in 2 runs of 3). A native program and the JVM run without /proc
    # (bots.sandbox.proc_args)
    key = secrets.randbelow(97)
    for seating in ("first", "second"):
        (tmp_path / seating).mkdir()
    first = play(hostile(tmp_path / "first", bot, mode="mark", key=key), bound=60)
    assert first.fault is None, first.stderr[-2000:]
    second = play(hostile(tmp_path / "second", bot, mode="read", key=key), bound=60)
    assert second.fault is None, second.stderr[-2000:]
    for played, mode in ((first, "mark"), (second, "read")):
        seen = report(played, mode)
        assert seen.get("error") == refused, seen
        assert "count" not in seen
