"""What a sandboxed bot can see and do: checked from inside (the bot reports on stderr) and
from the host (no connection, no file, no process, no secret in any log)."""

from __future__ import annotations

import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from bots.sandbox import MiB, SandboxError, SandboxLimits, sandbox_launch
from games.engine.runner import TimeControl
from tests.sandbox.conftest import (
    GAME,
    IS_ROOT,
    SLOTS,
    alone_but_for_the_host,
    hostile,
    processes_with,
    sandbox_processes,
)

ROOT = Path(__file__).resolve().parents[2]
#: the whole environment of a sandboxed bot (bwrap adds PWD)
SANDBOX_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp",
               "PWD": "/tmp"}  # fmt: skip


def reports(played) -> list[dict]:
    """The JSON lines a fair bot wrote about its surroundings, one per match."""
    return [json.loads(line) for line in played.stderr.splitlines() if line.startswith("{")]


def test_it_runs_the_bot_alone_as_an_unprivileged_user_in_namespaces_of_its_own(
    play, tmp_path, sandbox_config
):
    played = play(hostile(tmp_path, "fair.py"))
    assert played.fault is None
    (seen,) = reports(played)
    if IS_ROOT:
        assert sandbox_config.uid_base <= seen["uid"] < sandbox_config.uid_base + SLOTS
        assert seen["gid"] == seen["uid"]
        assert seen["groups"] == []
    else:
        assert seen["uid"] == os.getuid()
    # its own PID namespace, where the only other processes are the host's zygote (pid 1),
    # the keeper that forked this match's process (the second child, each after its keeper:
    # the first said hello), and the next match's, forked ahead with its keeper; and it can
    # look at none of them, nor at itself: its /proc is empty
    assert seen["pid"] == 5 and alone_but_for_the_host(seen)
    assert seen["hostname"] == "sandbox"
    # no /proc to read the network's interfaces in, and no socket of any family (below); the
    # sandbox's network reaches nothing (test_it_lets_no_connection_out)
    assert seen["net"] is None
    assert seen["cap_eff"] == "0000000000000000"
    assert set(seen["caps"].values()) == {"0000000000000000"}, seen["caps"]
    assert (seen["seccomp"], seen["no_new_privs"]) == ("2", "1")
    # A read-only system, the bot's own file, the host script, a private /tmp: nothing else.
    assert set(seen["root"]) <= {"bin", "bot", "dev", "etc", "lib", "lib64", "proc", "sandbox",
                                 "sbin", "tmp", "usr"}  # fmt: skip
    assert seen["bot_dir"] == ["fair.py"]
    assert seen["cwd"] == "/tmp"
    # Of /usr, the interpreter and the libraries: no /usr/local, no other program.
    assert set(seen["usr"]) <= {"bin", "lib", "lib32", "lib64", "libx32"}
    assert seen["usr_bin"] and all(name.startswith("python3") for name in seen["usr_bin"])


def test_it_gives_the_bot_an_environment_with_nothing_but_what_the_host_needs(
    play, tmp_path, monkeypatch
):
    monkeypatch.setenv("SECRET_KEY", "worker-secret-key")
    monkeypatch.setenv("DATABASE_URL", "postgres://worker:password@db/arena")
    played = play(hostile(tmp_path, "fair.py"))
    (seen,) = reports(played)
    assert seen["env"] == SANDBOX_ENV
    assert "worker-secret-key" not in played.stderr and "password" not in played.stderr


def test_it_applies_the_resource_limits(play, tmp_path):
    limits = SandboxLimits(memory_mb=200, cpu_s=100, file_mb=8, open_files=48, processes=32)
    played = play(hostile(tmp_path, "fair.py"), limits=limits)
    got = reports(played)[0]["limits"]
    assert got["RLIMIT_AS"] == [(200 - 16) * MiB] * 2  # a full /tmp (16 MiB) counts too
    assert got["RLIMIT_CPU"] == [100, 105]
    assert got["RLIMIT_FSIZE"] == [8 * MiB] * 2
    assert got["RLIMIT_NOFILE"] == [48, 48]
    assert got["RLIMIT_CORE"] == [0, 0]
    if IS_ROOT:  # counted per uid, so only set for a sandbox uid of its own
        assert got["RLIMIT_NPROC"] == [32, 32]


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="raw system call numbers of x86_64")
def test_it_filters_system_calls(play, tmp_path):
    (seen,) = reports(play(hostile(tmp_path, "fair.py")))
    assert seen["calls"] == {
        # a Python match's process starts neither threads (each would take a number from
        # the process IDs' counter, which the next match's process could read) nor processes
        "thread": "RuntimeError: can't start new thread",
        "fork": "EPERM",
        "inet": "EAFNOSUPPORT",
        "inet6": "EAFNOSUPPORT",
        "netlink": "EAFNOSUPPORT",
        # no pipe or socket, each of which numbers its inode from a counter of the machine's
        # (a process that made many passed their count to the next: seccomp.INODE_CALLS)
        "unix": "EAFNOSUPPORT",
        "socketpair": "EAFNOSUPPORT",
        "pipe": "EPERM",
        "unshare": "EPERM",
        "unshare_mount": "EPERM",
        "mount": "EPERM",
        "ptrace": "EPERM",
        "io_uring_setup": "ENOSYS",
        "clone3": "ENOSYS",  # so that the C library falls back to clone, which is inspected
        "bpf": "EPERM",
        # the page cache every sandbox shares is no message board
        "fadvise": "EPERM",
        "nowait_read": "ENOTSUP",  # (EOPNOTSUPP: the same number)
        "mincore": "EPERM",
        "readahead": "EPERM",
    }


#: loads the seccomp filters named on its command line, then tries what a Python host's
#: keeper does to give its child a /tmp of its own, and more; prints how each ended
NAMESPACE_PROBE = """
import ctypes, errno, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
def check(result):
    return "ok" if result == 0 else errno.errorcode[ctypes.get_errno()]
# a mount namespace of its own whose mounts reach no other (before any filter)
assert libc.unshare(0x20000) == 0 and libc.mount(None, b"/", None, 0x4000 | 0x40000, None) == 0
assert libc.prctl(38, 1, 0, 0, 0) == 0  # no new privileges, as under bwrap
for path in sys.argv[2:]:
    program = open(path, "rb").read()
    buffer = ctypes.create_string_buffer(program, len(program))
    loaded = Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    assert libc.prctl(22, 2, ctypes.addressof(loaded), 0, 0) == 0
folder = sys.argv[1].encode()
print(json.dumps({
    "unshare mount": check(libc.unshare(0x20000)),
    "unshare mount and network": check(libc.unshare(0x20000 | 0x40000000)),
    "unshare user": check(libc.unshare(0x10000000)),
    "mount tmpfs": check(libc.mount(b"tmpfs", folder, b"tmpfs", 0x2 | 0x4, b"size=65536")),
    "mount tmpfs, other flags": check(libc.mount(b"tmpfs", folder, b"tmpfs", 0, b"size=65536")),
    "setns": check(libc.setns(0, 0)),
}))
"""


@pytest.mark.skipif(not IS_ROOT, reason="a mount namespace outside the sandbox: root only")
def test_only_the_python_host_s_keepers_may_make_a_mount_namespace_and_mount_a_tmpfs(tmp_path):
    """The filter bwrap loads for the Python host lets its zygote and keepers make a mount
    namespace and mount a tmpfs (each match's process its own /tmp) with those arguments
    only; the rules each match's process loads on top refuse both, and any namespace."""
    from bots.sandbox.seccomp import filter_bpf, process_filter_bpf

    filters = {}
    for name, program in (("host", filter_bpf(processes=False)), ("child", process_filter_bpf())):
        filters[name] = tmp_path / f"{name}.bpf"
        filters[name].write_bytes(program)
    (tmp_path / "mounted").mkdir()

    def probe(*loaded: Path) -> dict[str, str]:
        argv = [sys.executable, "-c", NAMESPACE_PROBE, str(tmp_path / "mounted"), *map(str, loaded)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True)
        return json.loads(done.stdout)

    assert probe(filters["host"]) == {
        "unshare mount": "ok",
        "unshare mount and network": "EPERM",
        "unshare user": "EPERM",
        "mount tmpfs": "ok",
        "mount tmpfs, other flags": "EPERM",
        "setns": "EPERM",
    }
    assert set(probe(filters["host"], filters["child"]).values()) == {"EPERM"}
    assert not os.listdir(tmp_path / "mounted")  # (the tmpfs was another namespace's)


def test_it_serves_matches_from_one_sandbox_with_a_fresh_python_process_for_a_deal_again(
    play, tmp_path
):
    played = play(hostile(tmp_path, "fair.py"), seeds=[0, 1, 1])
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1  # one sandbox...
    seen = reports(played)
    # ...one process for the first two deals (the module's count of matches goes on), and a
    # fresh one for deal 1 again, alone with the zygote and the next one
    assert [r["match"] for r in seen] == [1, 2, 1]
    pids = [r["pid"] for r in seen]
    assert pids[0] == pids[1] == 5 and pids[2] > 5
    assert all(alone_but_for_the_host(r) for r in seen)
    # and a fresh Bot() per match: its count of calls starts again every time.
    assert played.stderr.count("calls so far this match: 10\n") == 30
    assert "calls so far this match: 20" not in played.stderr


def test_it_keeps_one_js_bot_object_across_matches_as_the_original_controller(
    play, tmp_path, sandbox_config
):
    played = play(hostile(tmp_path, "fair.js"), matches=3)
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1
    seen = reports(played)
    assert [r["match"] for r in seen] == [1, 2, 3]  # state kept in this.matches
    assert all(r["deck"] == 30 for r in seen)  # the global fullDeck
    assert seen[0]["pid"] == 1 and seen[0]["seccomp"] == "2"
    assert seen[0]["env"] == SANDBOX_ENV
    if IS_ROOT:
        assert sandbox_config.uid_base <= seen[0]["uid"] < sandbox_config.uid_base + SLOTS


def test_it_loads_a_js_bot_written_as_a_module(play, tmp_path):
    played = play(hostile(tmp_path, "module.js"), matches=2)
    assert all(not o.faults for o in played.outcomes)
    assert played.process.hello is not None and played.process.hello.name == "Module JS"


@pytest.mark.parametrize("ext", ["py", "js"])
def test_it_lets_no_connection_out(play, tmp_path, ext):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.bind(("127.0.0.1", port))
            played = play(hostile(tmp_path, f"network.{ext}", port=port))
            listener.setblocking(False)
            with pytest.raises(BlockingIOError):
                listener.accept()  # nobody ever connected
            udp.setblocking(False)
            with pytest.raises(BlockingIOError):
                udp.recv(100)  # nothing ever arrived
    assert played.fault is None
    assert "REACHED" not in played.stderr
    if ext == "py":
        for what in ("tcp4", "tcp6", "udp", "raw", "dns"):
            assert f"blocked {what}:" in played.stderr
    else:
        assert "blocked python:" in played.stderr  # no process to do it for it either


@pytest.mark.parametrize("ext", ["py", "js"])
def test_it_keeps_files_outside_the_bots_folder_out_of_reach(play, tmp_path, ext):
    secret = "secret-" + secrets.token_hex(16)
    (tmp_path / "secret.txt").write_text(secret + "\n")
    targets = [
        tmp_path / "secret.txt",
        ROOT / "cardsite" / "settings.py",
        Path(settings.VAR_DIR) / "secret_key",
        Path(settings.VAR_DIR) / "db.sqlite3",
        Path(str(settings.DATABASES["default"]["NAME"])),
        ROOT / "pyproject.toml",
        Path("/etc/passwd"),
        Path("/usr/local/etc/npmrc"),  # the host's /usr/local is not there
        Path("/usr/bin/env"),  # nor any program but the bot's interpreter
        Path(f"/proc/{os.getpid()}/environ"),
    ]
    paths = [str(p) for p in targets]
    played = play(hostile(tmp_path, f"reads_secrets.{ext}", paths=json.dumps(paths)))
    assert played.fault is None
    assert "READ" not in played.stderr
    for path in paths:
        assert f"cannot read {path}: " in played.stderr
    assert played.stderr.count("cannot read ") == len(paths) + 1  # and ../secret.txt
    everything = played.stderr + json.dumps(played.outcome.record)
    everything += json.dumps([r.as_dict() for r in played.agent.fault_reports])
    assert secret not in everything
    assert settings.SECRET_KEY not in everything


@pytest.mark.parametrize("ext", ["py", "js"])
def test_it_lets_the_bot_write_to_its_own_small_tmp_only(play, tmp_path, ext):
    host_path = tmp_path / "escape.txt"
    played = play(hostile(tmp_path, f"writes.{ext}", host_path=host_path))
    assert played.fault is None
    assert not host_path.exists()
    assert not Path("/escape.txt").exists() and not Path("/escape2.txt").exists()
    assert not list(ROOT.glob("**/escape*.txt"))
    assert "WROTE /tmp/ok.txt" in played.stderr
    assert "cannot write 64 MiB into /tmp" in played.stderr  # the file-size and /tmp limits
    assert played.stderr.count("cannot write /") == 8


@pytest.mark.parametrize("ext", ["py", "js"])
def test_it_leaves_no_background_process_behind(play, tmp_path, ext):
    marker = str(random.randrange(10**8, 10**9))
    played = play(hostile(tmp_path, f"background.{ext}", marker=marker), matches=2)
    assert all(not o.faults for o in played.outcomes)
    assert "STARTED" not in played.stderr
    assert "blocked" in played.stderr
    assert processes_with(marker) == []


def test_it_stops_a_bot_at_the_cpu_time_limit(play, tmp_path):
    # Each match's process has the whole limit (1 s here): three picks of 0.45 s of CPU
    # each run past it in the first match, on the third, whatever the machine's load.
    slow = TimeControl(move=5.0, bank=5.0, startup=10.0)
    played = play(
        hostile(tmp_path, "cpu_burn.py", burn=0.45), limits=SandboxLimits(cpu_s=1), tc=slow
    )
    assert 0 in played.outcome.faults, played.stderr[-500:]
    fault = played.outcome.faults[0]
    assert fault.kind == "timeout" and "CPU-time limit" in fault.reason
    assert played.elapsed < 10


def test_it_restarts_a_bot_between_matches_once_it_has_used_much_cpu(play, tmp_path):
    played = play(hostile(tmp_path, "fair.py"), limits=SandboxLimits(recycle_cpu_s=0), matches=3)
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 3
    assert played.stderr.count("--- restarting the bot: it used") == 2


def test_it_caps_output_per_match_not_per_process(play, tmp_path):
    # 700 kB a match: three matches write more than the 1 MiB cap, none alone does.
    played = play(hostile(tmp_path, "chatty.py", bytes=700_000), matches=3)
    assert all(not o.faults for o in played.outcomes)


@pytest.mark.skipif(not IS_ROOT, reason="sandbox uids are only used when the worker is root")
def test_it_runs_concurrent_sandboxes_as_different_users(tmp_path, sandbox_config):
    from bots.running.process import BotProcess

    bot = hostile(tmp_path, "fair.py")
    launches = [sandbox_launch(bot, game=GAME, config=sandbox_config) for _ in range(3)]
    with BotProcess(launches[0], label="a") as a, BotProcess(launches[1], label="b") as b:
        a.start(10)
        b.start(10)
        assert len({launch.user for launch in launches}) == 3
    for launch in launches:
        launch.cleanup()


def test_it_kills_the_sandbox_when_the_worker_dies(tmp_path, sandbox_config):
    bot = hostile(tmp_path, "loop.py")
    script = f"""
import sys, time
from pathlib import Path
from bots.running.process import BotProcess
from bots.sandbox import SandboxConfig, sandbox_launch
config = SandboxConfig(**{sandbox_config.__dict__!r})
process = BotProcess(sandbox_launch(Path({str(bot)!r}), game="rps-poker", config=config), label="x")
process.start(10)
process.request({{"type": "begin"}})
process.request({{"type": "call", "method": "draft_pick", "args": [["R1", "P2"]]}})
print("busy", flush=True)
time.sleep(60)
"""
    with subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as worker:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "busy"
        assert sandbox_processes(sandbox_config), "the sandboxed bot is not running"
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=5)
        deadline = time.monotonic() + 5
        while sandbox_processes(sandbox_config) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sandbox_processes(sandbox_config) == []


def test_it_refuses_a_symlink_or_an_oversized_bot_file(tmp_path):
    real = hostile(tmp_path, "fair.py")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    with pytest.raises(SandboxError, match="cannot open"):
        sandbox_launch(link, game=GAME)
    big = tmp_path / "big.py"
    big.write_text("# " + "x" * (2 * MiB) + "\n")
    with pytest.raises(SandboxError, match="over 1 MiB"):
        sandbox_launch(big, game=GAME)


def test_it_gives_a_slow_bot_its_time_bank_but_no_more(play, tmp_path):
    # The bot answers main_play in 0.15 s: 0.1 s over the 0.05 s a call, 1 s over in a match.
    bot = hostile(tmp_path, "slow.py")
    roomy = play(bot, tc=TimeControl(move=0.05, bank=2.0, startup=10))
    assert roomy.fault is None, roomy.fault
    # less what a busy machine kept the bot waiting for a CPU after its sleeps (not its time)
    starved = roomy.outcome.stats[0].starved_s
    assert roomy.outcome.record["stats"][0]["bank_left"] < 1.1 + starved
    tight = play(bot, tc=TimeControl(move=0.05, bank=0.3, startup=10))
    assert tight.fault is not None and tight.fault.kind == "timeout"


@pytest.mark.real_js_host
def test_a_js_bot_that_replaces_its_realm_s_built_ins_changes_nothing_the_host_reads(
    play, tmp_path
):
    # its realm lasts from one deal to the next; what the host reads and writes is made with
    # the built-ins the realm had before any of the bot's code ran (JSON's functions, String,
    # Array.isArray): no reply of the bot's own making, no call or notice refused
    played = play(hostile(tmp_path, "patches_json.js"), matches=3)
    assert all(not o.faults for o in played.outcomes)
    assert played.process.starts == 1
