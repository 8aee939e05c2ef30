"""Several web processes and several workers on one PostgreSQL and one Redis, as
docs/deploy.md runs the site past one machine.

Two web processes (``python -m cardsite.serve``, each on its own port, as they would be on two
machines behind a load balancer) and two tournament workers (``manage.py worker``) share one
database and one Redis and nothing else. What one process did, the others must see: the
workers validate and place the built-in bots between them, both web processes show the same
leaderboards, a person's session made at one process is theirs at the other, and two people
play a live table together while their sockets are on different processes (the table hosted by
one, the other's moves reaching it through Redis).

PostgreSQL and Redis are the test run's own (the second run of scripts/run-tests), each with a
database of this test's, or servers started here (the first run has none).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser.conftest import (
    SMALL_PLACEMENT,
    LiveSite,
    Process,
    redis_url_for_site,
    site_database,
)
from tests.ports import listening_socket

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
#: validating every built-in bot and playing their placement matches, two workers sharing it
SETTLE_TIMEOUT = 600.0
PASSWORD = "a long pass phrase 42"
SIGNUP_LIMIT = 4


@dataclass
class Deployment:
    site: LiveSite
    web: list[str]  # the base URL of each web process
    workers: list[Process]


def _started(url: str, process: Process) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    last = "no answer yet"
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise AssertionError(f"{process.name} exited {process.popen.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            last = str(exc)
        time.sleep(0.2)
    raise AssertionError(f"{process.name} did not answer /healthz: {last}")


@contextlib.contextmanager
def services(env: dict[str, str]) -> Iterator[None]:
    """DATABASE_URL and REDIS_URL in ``env``: a database of this test's own on the run's
    PostgreSQL and another Redis database number, or servers started here when the run has
    none (its first pass, on SQLite)."""
    database, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if database and redis:
        env["REDIS_URL"] = redis_url_for_site(redis)
        with site_database(env):  # reads the run's DATABASE_URL, sets the site's in env
            yield
        return
    import tempfile

    from cardsite.localservices import postgres_server, start_redis

    with tempfile.TemporaryDirectory(prefix="card-arena-deploy-") as base:
        os.chmod(base, 0o711)  # PostgreSQL runs as its own user when we are root
        with postgres_server(Path(base)) as pg, start_redis(Path(base) / "redis") as rd:
            env["DATABASE_URL"], env["REDIS_URL"] = pg.url, rd.url
            yield


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    var = tmp_path_factory.mktemp("deploy")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_SETT"))}
    env.update(
        CARD_ARENA_VAR=str(var),
        DJANGO_SETTINGS_MODULE="cardsite.settings",
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE="0",
        PYTHONUNBUFFERED="1",
        LOG_LEVEL="INFO",
        LADDER_INTERVAL_S="0",
        # the sign-up test comes from an address of its own, as a proxy would say
        TRUSTED_PROXIES="1",
        SIGNUP_LIMIT=str(SIGNUP_LIMIT),
        **SMALL_PLACEMENT,
    )
    with services(env):
        site = LiveSite(var=var, env=env, database="postgresql")
        try:
            site.manage("migrate", "--noinput", "-v", "0")
            site.manage("collectstatic", "--noinput", "-v", "0")
            site.manage("seed_builtins")
            web = []
            for n in (1, 2):
                sock, port = listening_socket()
                site.sockets.append(sock)
                url = f"http://127.0.0.1:{port}"
                argv = [sys.executable, "-m", "cardsite.serve", "--fd", str(sock.fileno()),
                        "cardsite.asgi:application"]  # fmt: skip
                _started(url, site.spawn(f"web{n}", argv, pass_fds=[sock.fileno()]))
                web.append(url)
            worker = [sys.executable, str(ROOT / "manage.py"), "worker", "--display", "log",
                      "--poll", "0.2", "--ladder-interval", "0"]  # fmt: skip
            workers = [site.spawn(f"worker{n}", [*worker, "--name", f"worker{n}"])
                       for n in (1, 2)]  # fmt: skip
            yield Deployment(site, web, workers)
        finally:
            site.stop()


# --------------------------------------------------------------------------------------------
# a person's browser, without the browser: cookies shared by every process of the site


class Person:
    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.name == name), "")

    def get(self, url: str) -> tuple[str, str]:
        with self.opener.open(url, timeout=15) as response:
            return response.geturl(), response.read().decode()

    def get_json(self, url: str) -> dict:
        return json.loads(self.get(url)[1])

    def post(self, url: str, form: dict[str, str], **headers: str) -> tuple[str, str]:
        """A form sent like a browser sends it: with the CSRF token and the page's origin."""
        origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(url))
        data = urllib.parse.urlencode({**form, "csrfmiddlewaretoken": self.cookie("csrftoken")})
        request = urllib.request.Request(
            url, data=data.encode(), headers={"Origin": origin, "Referer": url, **headers}
        )
        with self.opener.open(request, timeout=15) as response:
            return response.geturl(), response.read().decode()

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)


def wait_until_settled(site: LiveSite) -> None:
    """Every validation and placement match of the built-in bots done."""
    import psycopg

    deadline = time.monotonic() + SETTLE_TIMEOUT
    with psycopg.connect(site.env["DATABASE_URL"], autocommit=True) as conn:
        while time.monotonic() < deadline:
            jobs = conn.execute(
                "SELECT count(*) FROM bots_matchjob WHERE status IN ('queued', 'running')"
            ).fetchone()[0]
            pending = conn.execute(
                "SELECT count(*) FROM bots_botversion WHERE status IN ('pending', 'validating')"
            ).fetchone()[0]
            done = conn.execute("SELECT count(*) FROM bots_matchjob").fetchone()[0]
            if jobs == 0 and pending == 0 and done > 0:
                return
            time.sleep(0.5)
    raise AssertionError("the workers did not settle the built-in bots in time")


def sql(site: LiveSite, query: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(site.env["DATABASE_URL"], autocommit=True) as conn:
        return conn.execute(query).fetchall()


# --------------------------------------------------------------------------------------------


def test_two_workers_share_the_tournament_and_both_web_processes_show_it(deployment):
    site = deployment.site
    wait_until_settled(site)
    played_by = {
        worker: count
        for worker, count in sql(site, "SELECT worker, count(*) FROM bots_match GROUP BY worker")
    }
    # the workers are named worker1 and worker2 (a worker's matches carry its name)
    assert played_by and set(played_by) <= {"worker1", "worker2"}, played_by
    # both took part: a worker busy with a slow validation may see the other play every
    # placement match meanwhile (they are claimed several at a time), so a worker's share is
    # its validations and its matches together, as its log tells them
    worked = {
        worker.name
        for worker in deployment.workers
        if re.search(r"event=(version\.validated|job\.done) ", worker.log_path.read_text())
    }
    assert worked == {"worker1", "worker2"}, played_by
    failed = sql(site, "SELECT id, error FROM bots_matchjob WHERE status = 'failed'")
    assert failed == []

    a, b = deployment.web
    person = Person()
    games = person.get_json(a + "/api/games/")["results"]
    assert games
    for game in games:
        path = f"/api/games/{game['slug']}/leaderboard/"
        seen_a, seen_b = person.get_json(a + path), person.get_json(b + path)
        assert seen_a == seen_b, game["slug"]
        assert seen_a["results"], game["slug"]


def test_a_session_made_at_one_process_is_the_persons_at_the_other(deployment):
    a, b = deployment.web
    person = Person()
    person.get(a + "/accounts/signup/")
    name = f"deploy{os.getpid()}"
    landed, _ = person.post(
        a + "/accounts/signup/",
        {"username": name, "password1": PASSWORD, "password2": PASSWORD},
    )
    assert "/accounts/signup/" not in landed
    _, page = person.get(b + "/my/bots/")
    assert name in page


def test_the_sign_up_limit_is_counted_across_the_processes(deployment):
    """SIGNUP_LIMIT accounts made from one address, whichever process they reach, then 429;
    forms that make no account do not use them up."""
    a, b = deployment.web
    address = {"X-Forwarded-For": "203.0.113.7"}  # as the one trusted proxy says
    mismatched = {"username": "throttled", "password1": PASSWORD, "password2": "another"}
    for n in range(SIGNUP_LIMIT):
        person = Person()  # a new visitor each time (one signed in is sent past the form)
        url = (a, b)[n % 2] + "/accounts/signup/"
        person.get(url)
        _, page = person.post(url, mismatched, **address)
        assert "fields didn" in page  # refused for the passwords, not for the limit
        form = {"username": f"counted{n}", "password1": PASSWORD, "password2": PASSWORD}
        landed, _ = person.post(url, form, **address)
        assert "/accounts/signup/" not in landed
    person = Person()
    person.get(b + "/accounts/signup/")
    form = {"username": "one-too-many", "password1": PASSWORD, "password2": PASSWORD}
    with pytest.raises(urllib.error.HTTPError) as refused:
        person.post(b + "/accounts/signup/", form, **address)
    refused.value.close()
    assert refused.value.code == 429
    # another address is not held back by this one's sign-ups
    landed, _ = person.post(a + "/accounts/signup/", form, **{"X-Forwarded-For": "203.0.113.8"})
    assert "/accounts/signup/" not in landed


async def _play(url: str, token: str, person: Person, seat: int) -> dict:
    """One person's socket until the match is over: each time asked, the first choice."""
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://", 1) + f"/ws/tables/{token}/"
    actions: list = []
    answered: set[int] = set()
    async with connect(
        ws_url, origin=url, additional_headers={"Cookie": person.cookie_header()}
    ) as ws:
        async with asyncio.timeout(120):
            async for raw in ws:
                message = json.loads(raw)
                kind = message["type"]
                if kind == "hello":
                    assert message["seat"] == seat
                elif kind == "state":
                    actions = message.get("actions") or []
                elif kind == "turn" and message["turn"] not in answered and actions:
                    answered.add(message["turn"])
                    await ws.send(json.dumps(
                        {"type": "act", "turn": message["turn"], "action": actions[0]["value"]}
                    ))  # fmt: skip
                elif kind == "error":
                    raise AssertionError(f"seat {seat} was refused: {message}")
                elif kind == "over":
                    return message
    raise AssertionError(f"seat {seat}'s socket closed before the end")


def test_two_people_play_a_table_from_two_processes(deployment):
    a, b = deployment.web
    host, guest = Person(), Person()
    lobby = a + "/games/rps-poker/tables/"
    host.get(lobby)
    landed, _ = host.post(
        lobby, {"players": "2", "turn_timer": "30", "seat_0": "me", "seat_1": "open"}
    )
    match = re.search(r"/tables/([\w-]+)/$", landed)
    assert match, landed
    token = match.group(1)

    guest.get(f"{b}/tables/{token}/")
    guest.post(f"{b}/tables/{token}/join/1/", {})

    async def both() -> list[dict]:
        return await asyncio.gather(_play(a, token, host, 0), _play(b, token, guest, 1))

    over = asyncio.run(both())
    assert over[0].get("result") and over[0]["result"] == over[1]["result"], over
    ((state, channel, match_id),) = sql(
        deployment.site,
        f"SELECT state, host_channel, match_id FROM games_table WHERE token = '{token}'",
    )
    assert state == "finished" and channel
    # stored once, and both processes show its replay to a stranger
    assert over[0]["url"] == over[1]["url"] == f"/matches/{match_id}/"
    for url in (a, b):
        _, page = Person().get(url + over[0]["url"])
        assert f'data-replay-url="/matches/{match_id}/replay.json"' in page


def test_a_solve_asked_at_one_process_is_followed_at_the_other(deployment):
    """The explorer's solves are jobs that the workers run: any web process answers a poll,
    and the same solve asked again, at the other process, is the same job, already done."""
    a, b = deployment.web
    person = Person()
    person.get(a + "/solver/")
    form = {"game": "kuhn", "algorithm": "cfr+", "iterations": "500"}
    landed, _ = person.post(a + "/solver/", form)
    job = re.search(r"/solver/jobs/([\w-]+)/$", landed)
    assert job, landed
    deadline = time.monotonic() + 120
    progress: dict = {}
    while time.monotonic() < deadline:
        progress = person.get_json(f"{b}/solver/jobs/{job.group(1)}.json")
        if progress["state"] in ("done", "failed"):
            break
        time.sleep(0.3)
    assert progress.get("state") == "done", progress
    (solved_by,) = sql(deployment.site, "SELECT worker FROM games_solvejob WHERE status = 'done'")[
        0
    ]
    assert solved_by.startswith("worker"), solved_by
    again, _ = person.post(b + "/solver/", form)
    assert again == landed.replace(a, b)
    assert sql(deployment.site, "SELECT count(*) FROM games_solvejob") == [(1,)]
