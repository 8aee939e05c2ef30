"""A live table survives its server process (docs/live-tables.md): real servers
(``python -m cardsite.serve``) killed with SIGKILL in the middle of a match, and the match
goes on from its stored steps with the same deal, the people in their seats.

With the run's PostgreSQL and Redis (the second run of scripts/run-tests) two servers share
them: the one hosting the table is killed, and the other, still running, takes the table over
(its sweep, once the host's heartbeat is stale), its people reconnecting to it. With SQLite
and the in-memory channel layer there is one server: it is killed and started again on the
same port, and resumes its tables at once. The servers get their own database (as the
browser tests' site does) and beat every second, stale after three."""

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
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import redis_url_for_site, site_database
from tests.ports import listening_socket
from tests.site.test_security import ASGI_APP, ROOT, environment

# the servers run on the run's backends: a test of both halves of scripts/run-tests
pytestmark = pytest.mark.backends

SHARED = bool(os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))

#: run in a server's environment: two tables, their tokens and the guests' session cookies
MAKE_TABLES = """
import json, django
django.setup()
from django.contrib.sessions.backends.db import SessionStore
from games.live import tables
bot, ann = tables.guest_table("rps-poker", ["me", "builtin:strong"])
duel, cy = tables.guest_table("rps-poker", ["me", "open"])
session = SessionStore()
dee = tables.person_of(None, session, create=True)
tables.keep_guest(session, dee)
session.save()
tables.take_seat(duel, 1, dee)
print(json.dumps({"bot": [bot.token, ann], "duel": [duel.token, cy, session.session_key]}))
"""


#: run in a server's environment: wait (argv: a table's token, {seat: answers}, seconds) until
#: the database keeps at least those answers of those seats; print the answers it keeps
ANSWERS_KEPT = """
import json, sys, time, django
django.setup()
from games.live import tables
from games.models import Table
token, wanted, timeout = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
table = Table.objects.get(token=token)
deadline = time.monotonic() + timeout
while True:
    steps = [step for _, step in tables.steps_of(table.pk) if "a" in step]
    kept = {seat: sum(step["s"] == int(seat) for step in steps) for seat in wanted}
    if all(kept[seat] >= n for seat, n in wanted.items()) or time.monotonic() > deadline:
        break
    time.sleep(0.05)
print(json.dumps(kept))
"""


class Site:
    """The servers of one test, sharing a database (and Redis, when the run has one)."""

    def __init__(self, env: dict[str, str], var: Path) -> None:
        self.env, self.var = env, var
        self.servers: dict[int, subprocess.Popen] = {}
        #: each port's listening socket, kept across its servers (tests.ports)
        self.sockets: dict[int, socket.socket] = {}

    def start(self, port: int | None = None) -> int:
        """A server on a new port, or on ``port`` again (the socket the last one had)."""
        if port is None:
            sock, port = listening_socket()
            self.sockets[port] = sock
        fd = self.sockets[port].fileno()
        with open(self.var / f"server-{port}.log", "ab") as log:  # the server writes it
            self.servers[port] = subprocess.Popen(
                [sys.executable, "-m", "cardsite.serve", "--fd", str(fd), ASGI_APP],
                cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True, pass_fds=[fd],
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5):
                    return port
            except OSError:
                assert self.servers[port].poll() is None, self.logs()
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.2)

    def kill(self, port: int) -> None:
        """SIGKILL: no clean-up of any kind, as when a machine or a process dies."""
        server = self.servers.pop(port)
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)

    def terminate(self, port: int) -> int:
        """SIGTERM, as a service manager stops a server (a restart, a deploy): its status."""
        server = self.servers.pop(port)
        server.send_signal(signal.SIGTERM)
        return server.wait(timeout=30)

    def stop(self) -> None:
        for port in list(self.servers):
            self.kill(port)
        for sock in self.sockets.values():
            sock.close()

    def logs(self) -> str:
        return "\n".join(
            path.read_text(errors="replace")[-4000:] for path in self.var.glob("*.log")
        )


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The servers' environment, its database migrated once for the module's tests (each
    makes tables of its own in it)."""
    var = tmp_path_factory.mktemp("tables-survive")
    env = environment(var, DEBUG="0", TABLE_HEARTBEAT_S="1", TABLE_HOST_STALE_S="3")
    if SHARED:
        env["DATABASE_URL"] = os.environ["DATABASE_URL"]
        env["REDIS_URL"] = redis_url_for_site(os.environ["REDIS_URL"])
    with site_database(env):
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        yield env


@pytest.fixture
def site(migrated: dict[str, str], tmp_path: Path) -> Iterator[Site]:
    made = Site(dict(migrated), tmp_path)  # (the servers' logs in the test's own folder)
    try:
        yield made
    finally:
        made.stop()


def make_tables(site: Site) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", MAKE_TABLES],
        cwd=ROOT, env=site.env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


class Person:
    """A browser at a table: its socket (reconnected after a drop, as the page does) and
    everything it heard."""

    def __init__(self, token: str, session_key: str) -> None:
        self.token, self.cookie = token, f"sessionid={session_key}"
        self.frames: list[dict[str, Any]] = []
        self.answered: set[int] = set()
        self.ws: Any = None

    async def connect(self, port: int) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(
            f"ws://127.0.0.1:{port}/ws/tables/{self.token}/",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": self.cookie},
            open_timeout=30,
        )

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()

    async def next(self, timeout: float = 60) -> dict[str, Any]:
        frame = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.frames.append(frame)
        return frame

    async def until(self, kind: str, timeout: float = 60) -> dict[str, Any]:
        while (frame := await self.next(timeout))["type"] != kind:
            pass
        return frame

    def seat(self) -> int:
        """The seat the table's first hello gave this person."""
        return next(f for f in self.frames if f["type"] == "hello")["seat"]

    def last(self, kind: str) -> dict[str, Any]:
        return next(f for f in reversed(self.frames) if f["type"] == kind)

    async def act(self, turn: int) -> None:
        self.answered.add(turn)
        action = self.last("state")["actions"][0]["value"]
        await self.ws.send(json.dumps({"type": "act", "turn": turn, "action": action}))

    async def play(self, turns: int) -> dict[str, Any]:
        """Answer the next ``turns`` turns; then the next turn asked (left open)."""
        while True:
            turn = await self.until("turn")
            if turn["turn"] in self.answered:
                continue
            if turns == 0:
                return turn
            await self.act(turn["turn"])
            turns -= 1

    async def to_the_end(self) -> dict[str, Any]:
        while (frame := await self.next())["type"] != "over":
            if frame["type"] == "turn" and frame["turn"] not in self.answered:
                await self.act(frame["turn"])
        return frame


async def answers_kept(site: Site, token: str, people: list[Person], timeout: float = 60):
    """Wait until the database keeps every answer ``people`` sent at the table ``token`` (the
    host writes each as it comes, in one write a trip)."""
    wanted = {str(p.seat()): len(p.answered) for p in people}
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", ANSWERS_KEPT, token, json.dumps(wanted), str(timeout)],
        cwd=ROOT, env=site.env, capture_output=True, text=True, timeout=timeout + 120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    kept = json.loads(done.stdout.splitlines()[-1])
    assert all(kept[seat] >= n for seat, n in wanted.items()), (
        f"after {timeout:g} s the database keeps {kept} answers by seat, not {wanted}"
    )


async def back(person: Person, port: int, open_turn: dict[str, Any], seen: dict[str, Any]):
    """``person`` reconnects (to ``port``) and finds the table where it was: the same view,
    the open turn asked again."""
    await person.close()
    await person.connect(port)
    assert (await person.next())["type"] == "hello"
    await resumed(person, open_turn, seen)


async def resumed(person: Person, open_turn: dict[str, Any], seen: dict[str, Any]) -> None:
    state = await person.until("state")
    assert state["frame"] == seen["frame"]  # the same deal, at the same point
    turn = await person.until("turn")
    assert turn["turn"] == open_turn["turn"]
    await person.act(turn["turn"])


def test_a_person_and_a_bot_play_on_after_the_server_is_killed(site: Site):
    asyncio.run(person_and_bot(site))


async def person_and_bot(site: Site) -> None:
    made = make_tables(site)
    port = site.start()
    other = site.start() if SHARED else port
    ann = Person(*made["bot"])
    await ann.connect(port)
    open_turn = await ann.play(4)
    seen = ann.last("state")
    await answers_kept(site, made["bot"][0], [ann])
    site.kill(port)
    if not SHARED:
        site.start(port)  # the one server, started again
    await back(ann, other, open_turn, seen)
    over = await ann.to_the_end()
    assert sum(over["result"]["scores"]) == 10
    with urllib.request.urlopen(f"http://127.0.0.1:{other}{over['url']}") as page:
        assert page.status == 200
    await ann.close()


def test_two_people_play_on_after_the_server_hosting_their_table_is_killed(site: Site):
    asyncio.run(two_people(site))


async def duel(site: Site) -> tuple[str, Person, Person, int, int, list, list]:
    """The table of two people, three turns in: cy at the server that hosts it, dee at the
    other one (the same, with one server); their ports, the turns they played, the last
    states they saw."""
    token, cy_key, dee_key = make_tables(site)["duel"]
    port = site.start()
    other = site.start() if SHARED else port
    cy, dee = Person(token, cy_key), Person(token, dee_key)
    await cy.connect(port)  # she starts the table: this server hosts it
    await dee.connect(other)  # with two servers, he is at the other one
    turns = await asyncio.gather(cy.play(3), dee.play(3))
    return token, cy, dee, port, other, turns, [cy.last("state"), dee.last("state")]


async def two_people(site: Site) -> None:
    token, cy, dee, port, other, turns, seen = await duel(site)
    await answers_kept(site, token, [cy, dee])
    site.kill(port)
    if SHARED:
        # dee's socket never dropped: the other server takes the table over and he hears it
        await asyncio.gather(back(cy, other, turns[0], seen[0]), resumed(dee, turns[1], seen[1]))
    else:
        site.start(port)
        await asyncio.gather(back(cy, port, turns[0], seen[0]), back(dee, port, turns[1], seen[1]))
    ends = await asyncio.gather(cy.to_the_end(), dee.to_the_end())
    assert ends[0]["match"] == ends[1]["match"]
    assert sum(ends[0]["result"]["scores"]) == 10
    await cy.close()
    await dee.close()


def test_a_server_that_is_stopped_hands_its_tables_over_at_once(site: Site):
    asyncio.run(handed_over(site))


async def handed_over(site: Site) -> None:
    """SIGTERM to the server hosting a table of two people: with two servers the other takes
    the table over at once (well within the stale limit, a minute here), the person at it
    hearing so; with one, the server stops and, started again, resumes the table. Either
    way every move it took is kept, though the server stopped right after taking it."""
    site.env["TABLE_HOST_STALE_S"] = "60"  # a table taken over sooner was handed over
    _, cy, dee, port, other, turns, seen = await duel(site)
    assert site.terminate(port) == 0
    said = "The server running this table stopped; the table "
    assert (await cy.until("moved", timeout=20))["text"].startswith(said)
    if SHARED:
        moved = await dee.until("moved", timeout=20)  # his socket stayed: told at once
        assert moved["text"] == said + "is moving to another server."
        await asyncio.gather(back(cy, other, turns[0], seen[0]), resumed(dee, turns[1], seen[1]))
    else:
        site.start(port)
        await asyncio.gather(back(cy, port, turns[0], seen[0]), back(dee, port, turns[1], seen[1]))
    ends = await asyncio.gather(cy.to_the_end(), dee.to_the_end())
    assert ends[0]["match"] == ends[1]["match"]
    await cy.close()
    await dee.close()
