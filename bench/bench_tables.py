"""Live tables under load: simulated people, each at their own table against a built-in bot,
over real websockets to the site's server (``python -m cardsite.serve``, as the site runs)
with Redis and PostgreSQL.

    .venv/bin/python bench/bench_tables.py [--levels 100,250,500,750] [--seconds 20]
                                           [--think 1.0,3.0] [--game rps-poker]
                                           [--arrive 30] [--server daphne|...]
                                           [--processes 1,2] [--runs 1]
                                           [--profile PREFIX] [--bot NAME[,NAME]]

``--bot NAME`` seats that built-in bot of the game (default: its strongest, as below;
``none`` for a table of the person alone, UTH's); a trivial bot (RPS Poker's ``minimal``)
leaves the platform's own cost per action, printed as the server's CPU milliseconds per
action (every server process, table starts and ends included). Several names
(``--bot minimal,strong``) measure each level with each bot in turn: the difference is the
heavier bot's thinking. ``--processes 1,2``
measures each level with one server process and then with two behind the same address
(``--processes 2`` of ``cardsite.serve``), side by side, ``--runs`` times each (in turn: 1,
2, 1, 2, ...); with several runs a summary gives the min and median p99 of each.
``--profile PREFIX`` runs the (one) server process under cProfile, timed in CPU seconds (what
others run on the machine does not move it), and writes its statistics to PREFIX-<tables>.prof
for each level (the event loop's thread: where a table's CPU goes; the profiler slows the
server down, so its latencies are not the server's).

For each level N it starts a fresh server process (the tables of the level before play on
by their timers after their people leave, and would load the next), opens N tables (a guest
in seat 0, the game's built-in bot beside them), connects N clients with the ``websockets``
library, and lets each one act after a human-like pause (uniform in --think seconds)
whenever it is asked to. It measures, per action, the time from sending the action to
receiving the next view of the table, and reports p50/p99/max, the actions per second, and
whether p99 stayed under 100 ms. A client whose match ends opens a new table and carries on,
so every level is N tables in play for --seconds. The clients come one by one over --arrive
seconds (about one match's length), as people do: all at once, their matches would end
together, every half minute, in waves of hundreds of tables stored and started in the same
few seconds (``--arrive 0`` measures that). The window opens once every client sits at a
started table.

The clients run in this process, on the same 2 cores as the server: their CPU is part of the
load. The server's share is printed too (its CPU seconds over the run, every process's), the
clients' own, how the tables fell to the server processes (by the hub channel each table's
host names), and
the p99 of how late the clients' event loop woke up ("client lag"): the instrument's error.
The clients run with their garbage collector off during a level (its pauses would count as
latency).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardsite.localservices import free_port, postgres_server, redis_server  # noqa: E402

BOTS = {"rps-poker": "strong", "last-card": "heuristic", "uth": None}


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    import django

    django.setup()


def make_tables(game: str, count: int, bot: str | None) -> list[tuple[str, str]]:
    """``count`` tables, each with a guest (a session of its own) against the built-in
    ``bot`` (None: alone): (table token, session cookie)."""
    from games.live import tables

    made = []
    for _ in range(count):
        seats = ["me"] + ([f"builtin:{bot}"] if bot else [])
        config = {"max_rounds": 50} if game == "uth" else None
        table, key = tables.guest_table(game, seats, turn_timer=60.0, config=config)
        made.append((table.token, f"sessionid={key}"))
    return made


class Stats:
    """What the clients measured. Actions count only inside the window, which opens once
    every client sits at a started table (connecting hundreds of sockets is the ramp, not
    the steady state that is measured)."""

    def __init__(self, clients: int) -> None:
        self.latencies: list[float] = []
        self.errors = 0
        self.matches = 0
        self.refused: list[str] = []
        #: sockets the server closed on a client (1011: an error inside the application)
        self.dropped = 0
        self.clients = clients
        self.seated = 0
        self.all_seated = asyncio.Event()
        self.start = float("inf")
        self.stop = float("inf")
        #: people arrive over a few seconds, not in one burst: at most this many handshakes
        #: at once (a burst of hundreds overflows the server's listen backlog, and the SYN
        #: retries then measure the kernel, not the site)
        self.arriving = asyncio.Semaphore(25)

    def seat(self) -> None:
        self.seated += 1
        if self.seated == self.clients:
            self.all_seated.set()

    def counts(self, at: float) -> bool:
        return self.start <= at <= self.stop


def pick_action(game: str, actions: list[dict], rng: random.Random):
    """One of the seat's actions as the table offers them (a person's click); a choice of
    several cards (Last Card's) is left for its plain alternative, the draw."""
    plain = [action for action in actions if "several" not in action]
    if plain:
        return rng.choice(plain)["value"]
    return {"cards": [], "suit": None, "last_card": False}


async def client(url: str, game: str, fresh, think: tuple[float, float], stats: Stats,
                 seed: int, arrive: float) -> None:  # fmt: skip
    """One person: comes some time within ``arrive`` seconds, then plays a table after
    another until the window closes."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    person = Person(stats, random.Random(seed), think, game)
    await asyncio.sleep(person.rng.uniform(0, arrive))
    while time.monotonic() < stats.stop:
        token, cookie = await fresh()
        try:
            async with stats.arriving:
                ws = await connect(
                    f"{url}/ws/tables/{token}/",
                    origin=url.replace("ws://", "http://", 1),  # the site's own origin
                    additional_headers={"Cookie": cookie},
                    open_timeout=60,
                )
        except (OSError, TimeoutError, InvalidHandshake):
            stats.dropped += 1  # refused or cut during the handshake: come back a bit later
            await asyncio.sleep(1)
            continue
        try:
            async with ws:
                await person.play(ws)
        except ConnectionClosed:
            stats.dropped += 1


class Person:
    def __init__(self, stats: Stats, rng: random.Random, think, game: str) -> None:
        self.stats, self.rng, self.think, self.game = stats, rng, think, game
        self.seated = False

    async def play(self, ws) -> None:
        """One table, until its match is over or the window closes."""
        stats = self.stats
        actions: list[dict] = []
        answered: set[int] = set()
        sent_at: float | None = None
        async for raw in ws:
            message = json.loads(raw)
            kind = message["type"]
            if kind == "state":
                actions = message["actions"]
                if sent_at is not None:
                    if stats.counts(sent_at):
                        stats.latencies.append(time.monotonic() - sent_at)
                    sent_at = None
            elif kind == "turn":
                if not self.seated:
                    self.seated = True
                    stats.seat()
                if time.monotonic() >= stats.stop:
                    return
                if message["turn"] in answered:
                    continue  # heard twice (live and in a catch-up)
                answered.add(message["turn"])
                await asyncio.sleep(self.rng.uniform(*self.think))
                sent_at = time.monotonic()
                action = {"type": "act", "turn": message["turn"],
                          "action": pick_action(self.game, actions, self.rng)}  # fmt: skip
                await ws.send(json.dumps(action))
            elif kind == "error":
                stats.errors += 1
                stats.refused.append(message["error"])
                sent_at = None
            elif kind == "over":
                if stats.counts(time.monotonic()):
                    stats.matches += 1
                return


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int) -> float:
    """CPU seconds of a process and of its children (a server's processes, with
    ``--processes``), each counted while it runs."""
    return sum(_own_cpu(p) for p in [pid, *children_of(pid)])


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _own_cpu(pid: int) -> float:
    try:
        fields = _stat(pid)
    except OSError:  # gone
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(int(entry.name))[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def tables_per_process(channels_before: set[str]) -> list[int]:
    """How many of the tables started since ``channels_before`` each hub hosted, most first
    (a process has one hub channel)."""
    from django.db.models import Count

    from games.models import Table

    rows = Table.objects.exclude(host_channel="").values("host_channel").annotate(n=Count("id"))
    counts = {row["host_channel"]: row["n"] for row in rows}
    fresh = [n for channel, n in counts.items() if channel not in channels_before]
    channels_before.update(counts)
    return sorted(fresh, reverse=True)


async def level(url: str, game: str, bot: str | None, n: int, seconds: float, think,
                server_pid: int, arrive: float) -> dict:  # fmt: skip
    from asgiref.sync import sync_to_async

    pool: list[tuple[str, str]] = await sync_to_async(make_tables)(game, n * 2, bot)

    async def fresh() -> tuple[str, str]:
        if not pool:
            pool.extend(await sync_to_async(make_tables)(game, 50, bot))
        return pool.pop()

    lags: list[float] = []

    async def lag_probe() -> None:
        """How late the clients' own event loop wakes up: a late client would count its
        lateness as the server's latency, so it is reported beside it."""
        while True:
            asked = time.monotonic()
            await asyncio.sleep(0.01)
            if stats.counts(asked):
                lags.append(time.monotonic() - asked - 0.01)

    # The clients are the measuring instrument: their own collector's pauses (100+ ms with
    # Django loaded here) would be counted as the server's latency. No cyclic collection
    # while a level runs; what it leaves is collected between levels.
    gc.collect()
    gc.freeze()
    gc.disable()
    stats = Stats(n)
    probe = asyncio.create_task(lag_probe())
    ramp_started = time.monotonic()
    clients = asyncio.gather(
        *(client(url, game, fresh, think, stats, seed, arrive) for seed in range(n))
    )
    try:
        await asyncio.wait_for(asyncio.shield(stats.all_seated.wait()), timeout=arrive + 120)
    except TimeoutError:
        print(f"        only {stats.seated} of {n} clients were seated after {arrive + 120:g} s")
    ramp = time.monotonic() - ramp_started
    cpu0, own0 = cpu_seconds(server_pid), time.process_time()
    stats.start = time.monotonic()
    stats.stop = stats.start + seconds
    await clients
    probe.cancel()
    gc.enable()
    gc.unfreeze()
    gc.collect()
    wall = seconds
    cpu, own = cpu_seconds(server_pid) - cpu0, time.process_time() - own0
    lat = stats.latencies
    return {
        "tables": n,
        "actions": len(lat),
        "actions_per_s": len(lat) / wall,
        "p50_ms": 1000 * percentile(lat, 0.50),
        "p99_ms": 1000 * percentile(lat, 0.99),
        "max_ms": 1000 * max(lat) if lat else float("nan"),
        "mean_ms": 1000 * statistics.fmean(lat) if lat else float("nan"),
        "matches": stats.matches,
        "errors": stats.errors,
        "dropped": stats.dropped,
        "server_cpu": cpu / (time.monotonic() - stats.start),
        # the server's CPU over the window, table starts and ends included, per action
        "cpu_ms_per_action": 1000 * cpu / len(lat) if lat else float("nan"),
        "client_cpu": own / (time.monotonic() - stats.start),
        "ramp_s": ramp,
        "client_lag_p99_ms": 1000 * percentile(lags, 0.99),
        "refused": sorted(set(stats.refused))[:3],
    }


def wait_for(url: str, timeout: float = 60.0) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit("the server did not answer /healthz")


@contextlib.contextmanager
def services(prefix: str):
    """A throwaway PostgreSQL (migrated) and Redis, and Django set up on them in this process:
    (the folder, the environment for server processes)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        os.chmod(tmp, 0o711)  # PostgreSQL runs as its own user when we are root
        with postgres_server(tmp) as pg, redis_server(tmp) as redis:
            env = {
                "DATABASE_URL": pg.url,
                "REDIS_URL": redis.url,
                "CARD_ARENA_VAR": f"{tmp}/var",
                "DJANGO_SETTINGS_MODULE": "cardsite.settings",
                # the load clients all come from this machine: no limit of sockets an address
                "LIVE_SOCKETS_PER_ADDRESS": "0",
            }
            server_env = {**os.environ, **env}
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "-v", "0"],
                cwd=ROOT, env=server_env, check=True,
            )  # fmt: skip
            setup_django(env)
            yield tmp, server_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="100,250,500,750")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", default="1.0,3.0", help="min,max seconds between actions")
    parser.add_argument("--game", default="rps-poker", choices=sorted(BOTS))
    parser.add_argument(
        "--arrive",
        type=float,
        default=30.0,
        help="the clients come one by one over this many seconds (0: all at once)",
    )
    parser.add_argument(
        "--processes",
        default="1",
        help="server processes behind the address, a list to compare side by side (1,2)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs of each level and count")
    parser.add_argument(
        "--bot",
        help="the built-in bot at each table, or several to compare (default: the game's "
        "strongest; none)",
    )
    parser.add_argument("--profile", help="cProfile the server into PREFIX-<tables>.prof")
    parser.add_argument(
        "--server",
        default="daphne",
        choices=("daphne", "plain-daphne", "uvicorn"),
        help="the ASGI server: the site's (daphne: python -m cardsite.serve), Daphne's own "
        "command, or uvicorn (not a dependency: pip install 'uvicorn[standard]')",
    )
    args = parser.parse_args()
    think = tuple(float(x) for x in args.think.split(","))
    bots = [None if b == "none" else b for b in (args.bot or str(BOTS[args.game])).split(",")]
    levels = [int(n) for n in args.levels.split(",")]
    counts = [int(n) for n in args.processes.split(",")]
    if counts != [1] and args.server != "daphne":
        parser.error("--processes is an option of the site's server (--server daphne)")
    if args.profile and counts != [1]:
        parser.error("--profile profiles one server process (--processes 1)")
    with services("bench-tables-") as (tmp, server_env):
        print(
            f"{args.game}: a guest against {' or '.join(f'builtin:{b}' for b in bots)} per table; "
            f"arriving over {args.arrive:g} s, think {think[0]:g}-{think[1]:g} s; "
            f"{args.seconds:g} s per level; "
            f"{args.server} with {args.processes} processes, Redis, PostgreSQL; "
            f"{os.cpu_count()} CPUs"
        )
        header = (f"{'bot':>9} {'procs':>5} {'tables':>7} {'ramp s':>7} {'actions':>8} "
                  f"{'act/s':>7} "
                  f"{'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'matches':>8} "
                  f"{'errors':>7} {'server CPU':>10} {'ms/action':>9} {'client CPU':>10} "
                  f"{'client lag':>10}"
                  "  p99<100ms")  # fmt: skip
        print(header)
        seen: set[str] = set()
        rows: dict[tuple[int, int, str | None], list[dict]] = {}
        for n in levels:
            for _run in range(args.runs):
                for count in counts:
                    for bot in bots:
                        row = measure(args, server_env, Path(tmp), n, count, think, bot)
                        rows.setdefault((n, count, bot), []).append(row)
                        report(row, count, tables_per_process(seen), bot)
        if args.runs > 1 or len(bots) > 1:
            print("over the runs: p99 ms and the server's CPU ms per action, min / median (max)")
            for (n, count, bot), measured in rows.items():
                p99 = [row["p99_ms"] for row in measured]
                cpu = [row["cpu_ms_per_action"] for row in measured]
                print(f"  {n:>5} tables, {count} processes, builtin:{bot}: p99 "
                      f"{min(p99):.1f} / {statistics.median(p99):.1f} ({max(p99):.1f}); "
                      f"CPU {min(cpu):.2f} / {statistics.median(cpu):.2f} "
                      f"({max(cpu):.2f})")  # fmt: skip


def measure(args, server_env: dict[str, str], tmp: Path, n: int, count: int, think,
            bot: str | None) -> dict:  # fmt: skip
    """One level: a fresh server (the tables of the last one play on after their people have
    left, by their timers, and would load this one)."""
    profile = f"{args.profile}-{n}.prof" if args.profile else None
    with serving(args.server, server_env, tmp, count, profile) as (url, pid):
        return asyncio.run(level(url.replace("http", "ws"), args.game, bot, n,
                                 args.seconds, think, pid, args.arrive))  # fmt: skip


def report(row: dict, count: int, split: list[int], bot: str | None) -> None:
    ok = "yes" if row["p99_ms"] < 100 else "no"
    print(
        f"{str(bot)[:9]:>9} {count:>5} {row['tables']:>7} {row['ramp_s']:>7.1f} "
        f"{row['actions']:>8} "
        f"{row['actions_per_s']:>7.1f} "
        f"{row['p50_ms']:>8.1f} {row['p99_ms']:>8.1f} {row['max_ms']:>8.1f} "
        f"{row['matches']:>8} {row['errors']:>7} "
        f"{100 * row['server_cpu']:>9.0f}% {row['cpu_ms_per_action']:>9.2f} "
        f"{100 * row['client_cpu']:>9.0f}% "
        f"{row['client_lag_p99_ms']:>7.1f} ms"
        f"  {ok}",
        flush=True,
    )
    if count > 1:
        print(f"        tables hosted per process: {' / '.join(map(str, split))}")
    if row["refused"]:
        print(f"        refusals: {row['refused']}")
    if row["dropped"]:
        print(f"        {row['dropped']} sockets closed by the server")


#: ``python -c PROFILED OUT [cardsite.serve's arguments]``: the server, its CPU time profiled
PROFILED = """
import cProfile, runpy, sys, time
out = sys.argv.pop(1)
profile = cProfile.Profile(time.process_time)
profile.enable()
try:
    runpy.run_module("cardsite.serve", run_name="__main__", alter_sys=True)
finally:
    profile.disable()
    profile.dump_stats(out)
"""


@contextlib.contextmanager
def serving(kind: str, env: dict[str, str], tmp: Path, processes: int = 1,
            profile: str | None = None):  # fmt: skip
    """The server on a free port: (its URL, its pid); its log is checked at the end."""
    port = free_port()
    command = {
        "daphne": ["-m", "cardsite.serve", "-b", "127.0.0.1", "-p", str(port),
                   *(["--processes", str(processes)] if processes > 1 else [])],
        "plain-daphne": ["-m", "daphne", "-b", "127.0.0.1", "-p", str(port)],
        "uvicorn": ["-m", "uvicorn", "--host", "127.0.0.1", "--port", str(port),
                    "--ws", "websockets", "--no-access-log"],
    }[kind]  # fmt: skip
    if profile:  # the same module under cProfile, on CPU time (the machine may be busy)
        assert command[:2] == ["-m", "cardsite.serve"]
        command = ["-c", PROFILED, str(Path(profile).resolve()), *command[2:]]
    log_path = tmp / f"server-{port}.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [sys.executable, *command, "cardsite.asgi:application"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(url)
            yield url, server.pid
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    text = log_path.read_text(errors="replace")
    markers = ("Exception inside application", "Exception in ASGI application")
    errors = sum(text.count(marker) for marker in markers)
    if errors or server.returncode not in (0, -15):
        print(f"the server logged {errors} application errors; the last lines:")
        print(text[-3000:])


if __name__ == "__main__":
    main()
