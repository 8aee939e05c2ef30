"""No bot process is shown a deal twice (issue: a fair competition under attack): a bot that
tries every way to remember what it saw, in the real sandbox with the real hosts, keeps its
memory from one deal to the next within its process, and loses all of it (memory, /tmp,
threads, its realm's globals) before a deal its process has played."""

from __future__ import annotations

import json
import os

import pytest

from bots.arena import Arena
from tests.sandbox.conftest import GAME, hostile


def lingered(stderr: str) -> list[str]:
    """What a lingering process read after its part (only the quit that ends its sandbox)."""
    return [line for line in stderr.splitlines() if line.startswith("LINGERED")]


def said(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


@pytest.mark.real_js_host
@pytest.mark.parametrize("name", ["remembers.py", "remembers.js"])
def test_a_bot_dealt_a_deal_again_remembers_nothing_of_it(play, tmp_path, name):
    # deals 0 and 1, then 0 again (its process has played it: a fresh one), then 2 and 1
    # (new to the fresh process: it goes on)
    played = play(hostile(tmp_path, name), seeds=[0, 1, 0, 2, 1])
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1  # one sandbox served all five matches
    seen = said(played.stderr)
    assert [m["matches"] for m in seen] == [1, 2, 1, 2, 3]
    assert not any(m["again"] for m in seen)  # never a deal it knows
    # memory carries over between deals of one process, never into a fresh one
    assert [m["module"] > 0 for m in seen] == [False, True, False, True, True]
    for match in seen:
        if name.endswith(".py"):
            assert match["files"] == match["module"]  # /tmp is emptied with the process
            assert match["threads"] == 0  # a match's process may start none
            assert match["fork"].startswith("refused") and match["host"].startswith("refused")
        else:
            assert (match["prototypes"] > 0) == (match["matches"] > 1)
            assert match["host"] == "unreachable"


@pytest.mark.real_js_host
def test_the_arena_keeps_a_bot_s_process_for_its_new_deals(tmp_path, sandbox_config):
    # The arena deals every table anew: each bot's one process plays all its matches.
    sources = [str(hostile(tmp_path, n)) for n in ("remembers.py", "remembers.js")]
    logs = tmp_path / "logs"
    with Arena(GAME, [*sources, "builtin:simple"], sandbox_config=sandbox_config, logs=logs) as a:
        summary = a.run(rounds=2, seed=5)
    assert summary["matches"] == 2 * 3
    for log in sorted((logs / "stderr").glob("*remembers*.stderr.log")):
        seen = said(log.read_text())
        assert [m["matches"] for m in seen] == [1, 2, 3, 4], log.name  # 2 rounds x 2 opponents
        assert not any(m["again"] for m in seen), seen


def test_a_process_that_outlives_its_renewal_never_sees_the_next_match(play, tmp_path):
    # the same deal three times: before the second and third, the process that played it
    # is told to end (renew), and stays to read what comes next
    played = play(hostile(tmp_path, "lingers.py", when="match"), seeds=[0, 0, 0], bound=20)
    assert all(not o.faults for o in played.outcomes)  # each match played to its end
    assert lingered(played.stderr) == ['LINGERED: {"type":"quit"}'] * 2  # no match's lines
    # the controller waited for the host to say the process was gone; it never was, so the
    # next match started a fresh sandbox instead (no fault: the bot only lost time)
    assert played.process.starts == 3
    assert played.stderr.count("it did not start afresh") == 2


def test_a_bot_whose_hello_process_stays_cannot_start(play, tmp_path):
    played = play(hostile(tmp_path, "lingers.py", when="hello"), bound=20)
    assert played.fault.kind == "startup"
    assert "did not end after its hello" in played.fault.reason
    assert lingered(played.stderr) == ['LINGERED: {"type":"quit"}']  # never the match's begin


def test_a_match_process_can_leave_no_mark_on_the_next_or_on_the_host(play, tmp_path):
    """The next process is forked ahead and waits while a match is played; neither it nor
    the zygote (whose nice value, affinity and limits children inherit) can be signalled,
    stopped, reprioritised, pinned or limited from a match's process. Nor can a match's
    process leave a mark in what every process of the sandbox shares, kept by the kernel
    for a pipe or an open file description, not for a process: the pipes' sizes, their
    descriptions' status flags, owner, signal and locks (an audit's bot wrote the first cards
    it was offered into the pipes' sizes, and read them in its fresh process, dealt the same
    deal), bytes left unread in them; /tmp's times, mode, attributes and inode flags, and
    how many files were made in it (a tmpfs numbers new files from one counter: each
    process has a /tmp of its own); the page faults and CPU time the zygote counts of its
    children (/proc/1/stat, not there: its /proc is empty). (One deal three times: each
    match is played by a fresh process.)"""
    played = play(hostile(tmp_path, "marks.py"), seeds=[0, 0, 0])
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1
    seen = said(played.stderr)
    assert len(seen) == 3
    for match in seen:
        # each match starts as the first did: nothing an earlier one tried stuck to it
        assert match["found"] == seen[0]["found"]
        found = match["found"]
        assert found["nice"] == 0 and found["nofile"] > 20
        # (what the zygote counts of its children, in /proc/1/stat: a match's process has an
        # empty /proc, where there is nothing to read)
        assert found["zygote"] is None
        assert {fd: state["unread"] for fd, state in found["fds"].items()} == {
            "0": None, "1": 0, "2": 0, "3": 0
        }  # fmt: skip
        assert found["fds"]["2"]["pipe_size"] == 65536
        assert found["tmp"]["xattrs"] == [] and found["tmp"]["mode"] == "0o40700"
        tried = match["tried"]
        groups = {k.split(":")[0] for k in tried}
        assert groups >= {"zygote", "group", "user", "self", "shared", "tmp"}
        # (its /proc files, root and working folder, and its /proc folder as a pidfd: not
        # there, in an empty /proc)
        through = (":root", ":cwd", ":pidfd_send_signal")
        paths = {k: why for k, why in tried.items() if k.endswith(through)}
        assert paths and set(paths.values()) == {"ENOENT"}, paths
        others = {k: why for k, why in tried.items() if not k.startswith("self")}
        assert all(why == "EPERM" for k, why in others.items() if k not in paths), tried
        assert tried["self:kill 0"] == "ok" and tried["self:setpriority"] == "ok"
        # what a bot may change of it, the host puts back before the next process starts
        assert set(match["left"].values()) == {"ok"}, match["left"]
    # the spare was there to be tried on from the second match on
    assert any(k.startswith("next:") for k in seen[1]["tried"])


def test_the_host_puts_back_what_a_child_changed_of_what_it_shares(tmp_path):
    """What a match's process shares with the next, and cannot change in the sandbox (its
    rules refuse it), the host's keeper puts back all the same once it is gone: a way round
    those rules would leave no mark either."""
    import fcntl
    import signal
    import struct

    from bots.languages.python import host

    read_end, write_end = os.pipe()
    folder = tmp_path / "tmp"
    folder.mkdir()
    shared = host.Shared(str(folder), fds=(read_end, write_end))
    before = {fd: host.fd_state(fd) for fd in (read_end, write_end)}
    times = os.stat(folder).st_mtime_ns
    # a child's marks
    fcntl.fcntl(write_end, host.F_SETPIPE_SZ, 1 << 20)
    fcntl.fcntl(write_end, fcntl.F_SETFL, os.O_APPEND | os.O_NONBLOCK)
    fcntl.fcntl(read_end, host.F_SETOWN_EX, struct.pack("ii", 1, os.getpid()))
    fcntl.fcntl(read_end, host.F_SETSIG, signal.SIGUSR1)
    fcntl.flock(read_end, fcntl.LOCK_EX)
    (folder / "left.txt").write_text("R5")
    os.setxattr(folder, "user.mark", b"R5")
    os.utime(folder, ns=(1, 2))
    assert {fd: host.fd_state(fd) for fd in before} != before
    assert shared.restore_fds()
    shared.restore_tmp()
    assert {fd: host.fd_state(fd) for fd in before} == before
    other = os.open(f"/proc/self/fd/{read_end}", os.O_RDONLY)  # another description
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the lock is gone
    assert os.listdir(folder) == [] and os.listxattr(folder) == []
    assert os.stat(folder).st_mtime_ns == times
    for fd in (read_end, write_end, other):
        os.close(fd)
