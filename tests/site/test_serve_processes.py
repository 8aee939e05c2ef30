"""Several server processes on one address (``python -m cardsite.serve --processes 2``,
cardsite/supervisor.py), for real: PostgreSQL and Redis of the test's own, the parent and its
two Daphne processes.

Which process a connection lands on is the kernel's choice; a test decides it by stopping
the other process (SIGSTOP) while the connection is accepted: a stopped process cannot
accept, and the connection waits in the shared listen queue for the one that runs. Which
process hosts a table is read from the database: a table's ``host_channel`` is its host's
hub channel, and channels-redis names a process's channels after that process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ports import free_port
from tests.processes import children_of
from tests.site.test_security import ASGI_APP, ROOT, environment

#: makes tables in the site's database: a guest against builtin:strong at RPS Poker each
MAKE_TABLES = """
import json, sys
import django
django.setup()
from games.live import tables
made = []
for _ in range(int(sys.argv[1])):
    table, key = tables.guest_table("rps-poker", ["me", "builtin:strong"])
    made.append({"token": table.token, "cookie": f"sessionid={key}"})
print(json.dumps(made))
"""
#: the host channel of each table named
HOSTS = """
import json, sys
import django
django.setup()
from games.models import Table
rows = Table.objects.filter(token__in=sys.argv[1:]).values_list("token", "host_channel")
print(json.dumps(dict(rows)))
"""


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    """A migrated PostgreSQL database and a Redis of this module's own: the environment."""
    from cardsite.localservices import postgres_server, redis_server

    base = tmp_path_factory.mktemp("serve-processes")
    os.chmod(base, 0o711)  # PostgreSQL may run as its own user
    with postgres_server(base) as pg, redis_server(base) as redis:
        env = environment(base, DEBUG="0", DATABASE_URL=pg.url, REDIS_URL=redis.url)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0"],
            cwd=ROOT, env=env, check=True, timeout=300,
        )  # fmt: skip
        yield env


def django(env: dict[str, str], script: str, *args: str):
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Server:
    """``cardsite.serve --processes 2`` on a free port, its output in a file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.log = log
        with open(log, "wb") as out:
            self.parent = subprocess.Popen(
                [sys.executable, "-m", "cardsite.serve", "--processes", "2",
                 "-b", "127.0.0.1", "-p", str(self.port), ASGI_APP],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def children(self, count: int = 2, timeout: float = 60) -> list[int]:
        """The parent's server processes, once there are ``count``."""
        deadline = time.monotonic() + timeout
        while len(found := children_of(self.parent.pid)) != count:
            assert self.parent.poll() is None, self.output()
            assert time.monotonic() < deadline, (found, self.output())
            time.sleep(0.2)
        return found

    @contextlib.contextmanager
    def only(self, pid: int):
        """While inside, the other server processes are stopped: new connections go to
        ``pid``."""
        others = [p for p in children_of(self.parent.pid) if p != pid]
        for other in others:
            os.kill(other, signal.SIGSTOP)
        try:
            yield
        finally:
            for other in others:
                os.kill(other, signal.SIGCONT)

    def url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def stop(self) -> int:
        if self.parent.poll() is None:
            self.parent.terminate()
        return self.parent.wait(timeout=60)


def gone(pids: list[int], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


@pytest.fixture
def server(services, tmp_path):
    running = Server(services, tmp_path / "server.log")
    yield running
    if running.parent.poll() is None:
        running.parent.kill()
        running.parent.wait()
    for pid in children_of(running.parent.pid):
        os.kill(pid, signal.SIGKILL)


async def connect(server: Server, table: dict[str, str]):
    from websockets.asyncio.client import connect as ws_connect

    return await ws_connect(
        server.url(f"/ws/tables/{table['token']}/"),
        origin=f"http://127.0.0.1:{server.port}",
        additional_headers={"Cookie": table["cookie"]},
        open_timeout=60,
    )


async def until(ws, kind: str) -> dict:
    """The socket's next message of ``kind``."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if message["type"] == kind:
            return message


async def sit(server: Server, table: dict[str, str]) -> int:
    """A guest sits at their table and is asked for a move: the turn's number."""
    async with await connect(server, table) as ws:
        return (await until(ws, "turn"))["turn"]


def process_of(channel: str) -> str:
    """The process part of a channels-redis channel name (``specific.PROCESS!CHANNEL``)."""
    assert channel.startswith("specific.") and "!" in channel, channel
    return channel.split("!", 1)[0]


@pytest.mark.services
def test_two_processes_serve_one_address_and_play_each_others_tables(server, services):
    first, second = server.children()
    at_first, at_second = django(services, MAKE_TABLES, "2")

    with server.only(first):
        asyncio.run(sit(server, at_first))
    with server.only(second):
        asyncio.run(sit(server, at_second))
    hosts = django(services, HOSTS, at_first["token"], at_second["token"])
    # each process started (and hosts) the table whose socket it accepted
    assert process_of(hosts[at_first["token"]]) != process_of(hosts[at_second["token"]])

    async def play_at_first_through_second() -> tuple[int, int]:
        with server.only(second):  # the socket lands on the process that does not host
            ws = await connect(server, at_first)
        async with ws:  # the host (running again) answers through Redis
            turn = (await until(ws, "turn"))["turn"]
            await ws.send(json.dumps({"type": "act", "turn": turn, "action": 0}))
            await until(ws, "state")
            return turn, (await until(ws, "turn"))["turn"]

    turn, then = asyncio.run(play_at_first_through_second())
    assert then > turn  # the move was played and the next one asked
    hosts_after = django(services, HOSTS, at_first["token"])
    assert hosts_after[at_first["token"]] == hosts[at_first["token"]]  # still hosted there

    assert server.stop() == 0
    assert gone([first, second])
    assert "SIGTERM: stopping 2 processes" in server.output()


@pytest.mark.services
def test_a_killed_process_is_replaced_and_the_address_stays_served(server, services):
    first, second = server.children()
    (table,) = django(services, MAKE_TABLES, "1")
    with server.only(first):  # both serve before the kill
        asyncio.run(sit(server, table))

    os.kill(first, signal.SIGKILL)
    # the other one serves meanwhile: the address is never dead
    (meanwhile,) = django(services, MAKE_TABLES, "1")
    with server.only(second):
        asyncio.run(sit(server, meanwhile))
    deadline = time.monotonic() + 60
    while first in (now := server.children()) or len(now) != 2:
        assert time.monotonic() < deadline, server.output()
        time.sleep(0.2)
    (replacement,) = set(now) - {second}
    (fresh,) = django(services, MAKE_TABLES, "1")
    with server.only(replacement):
        asyncio.run(sit(server, fresh))
    assert f"(pid {first}) exited with status -9" in server.output()
    assert server.parent.poll() is None


@pytest.mark.services
def test_the_processes_stop_when_the_parent_is_killed(server):
    children = server.children()
    server.parent.kill()
    server.parent.wait()
    assert gone(children), "the server processes outlived their parent"


def test_several_processes_need_a_shared_channel_layer(tmp_path):
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "cardsite.serve", "--processes", "2", "-b", "127.0.0.1",
         "-p", str(port), ASGI_APP],
        cwd=ROOT, env=environment(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--processes above 1 needs a channel layer the processes share: set REDIS_URL" in (
        done.stderr
    )
    with pytest.raises(OSError):  # nothing was left listening
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


@pytest.mark.parametrize(
    ("args", "refusal"),
    [
        (["--processes", "0"], "--processes must be 1 or more, not 0"),
        (["--processes", "2", "-b", "::1"], "needs an IPv4 address to --bind"),
        (["--processes", "2", "-u", "/tmp/site.sock"], "--unix-socket, --fd and --endpoint"),
    ],
)
def test_an_address_several_processes_cannot_share_is_refused(tmp_path, args, refusal):
    done = subprocess.run(
        [sys.executable, "-m", "cardsite.serve", *args, ASGI_APP],
        cwd=ROOT, env=environment(tmp_path, REDIS_URL="redis://127.0.0.1:1/0"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert refusal in done.stderr


def test_processes_that_cannot_start_stop_the_server(tmp_path):
    """A process that dies at once, again and again (here: an application that does not
    import), is not replaced for ever: the parent gives up and says why."""
    done = subprocess.run(
        [sys.executable, "-m", "cardsite.serve", "--processes", "2", "-b", "127.0.0.1",
         "-p", str(free_port()), "no_such_module:application"],
        cwd=ROOT, env=environment(tmp_path, REDIS_URL="redis://127.0.0.1:1/0"),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "3 times in a row; stopping" in done.stderr
