"""A live table played from a socket of the process that hosts it and from a socket of another
process (through Redis), side by side: what the channel layer adds to an action.

    .venv/bin/python bench/bench_cross_process.py [--tables 20] [--seconds 30]
                                                  [--think 0.2,0.6]

Starts PostgreSQL, Redis and ``python -m cardsite.serve --processes 2`` (as
bench/bench_tables.py does), then opens --tables tables (a guest against ``builtin:strong``
at RPS Poker), each with two sockets of its guest: one accepted by the process that hosts the
table (it started the table) and one accepted by the other process. Which process accepts a
connection is the kernel's choice; this bench makes it by stopping the other process
(SIGSTOP) while the connection is accepted, and lets it run again at once: during the
measurement both run. The two sockets take turns: even turns are answered from the hosting
process's socket, odd turns from the other's, each after a pause of --think seconds; each
measures the time from its action to the next view of the table it receives. The remote
path is: the socket's process sends the action to the host's channel in Redis, the hosting
process plays it and sends the view to the seat's group in Redis, and the socket's process
hands it to the socket.

It prints p50/p99/max of both and their ratio; the load is light (a few actions a second), so
this is the path's own cost, not a saturated server's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_tables import children_of, make_tables, percentile, services, serving  # noqa: E402


@contextlib.contextmanager
def only(pid: int, processes: list[int]):
    """New connections go to ``pid``: the other server processes are stopped meanwhile."""
    others = [p for p in processes if p != pid]
    for other in others:
        os.kill(other, signal.SIGSTOP)
    try:
        yield
    finally:
        for other in others:
            os.kill(other, signal.SIGCONT)


async def open_socket(url: str, token: str, cookie: str):
    from websockets.asyncio.client import connect

    return await connect(
        f"{url}/ws/tables/{token}/",
        origin=url.replace("ws://", "http://", 1),
        additional_headers={"Cookie": cookie},
        open_timeout=60,
    )


async def first(ws, kind: str) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if message["type"] == kind:
            return message


async def play(ws, parity: int, think, rng: random.Random, stop: float, out: list[float]):
    """Answer the turns of one parity from this socket, timing each answer's next view."""
    sent_at = None
    actions: list[dict] = []
    answered: set[int] = set()
    async for raw in ws:
        message = json.loads(raw)
        kind = message["type"]
        if kind == "state":
            actions = message["actions"] or actions
            if sent_at is not None:
                out.append(time.monotonic() - sent_at)
                sent_at = None
        elif kind == "turn":
            turn = message["turn"]
            if time.monotonic() >= stop:
                return
            if turn % 2 != parity or turn in answered or not actions:
                continue
            answered.add(turn)
            await asyncio.sleep(rng.uniform(*think))
            sent_at = time.monotonic()
            action = rng.choice(actions)["value"]
            await ws.send(json.dumps({"type": "act", "turn": turn, "action": action}))
        elif kind == "over":
            return


async def run(url: str, processes: list[int], tables, seconds: float, think) -> dict:
    pairs = []
    for i, (token, cookie) in enumerate(tables):
        host, other = processes[i % 2], processes[(i + 1) % 2]
        with only(host, processes):  # this socket starts the table: its process hosts it
            local = await open_socket(url, token, cookie)
        await first(local, "turn")
        with only(other, processes):
            remote = await open_socket(url, token, cookie)
        pairs.append((local, remote))
    local_times: list[float] = []
    remote_times: list[float] = []
    stop = time.monotonic() + seconds
    rng = random.Random(1)
    await asyncio.gather(
        *(play(local, 0, think, random.Random(rng.random()), stop, local_times)
          for local, _ in pairs),
        *(play(remote, 1, think, random.Random(rng.random()), stop, remote_times)
          for _, remote in pairs),
    )  # fmt: skip
    for local, remote in pairs:
        await local.close()
        await remote.close()
    return {"local": local_times, "remote": remote_times}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--think", default="0.2,0.6", help="min,max seconds before answering")
    args = parser.parse_args()
    think = tuple(float(x) for x in args.think.split(","))
    with services("bench-cross-") as (tmp, server_env):
        tables = make_tables("rps-poker", args.tables, "strong")  # (its docstring's bot)
        with serving("daphne", server_env, Path(tmp), 2) as (url, parent):
            processes = children_of(parent)
            assert len(processes) == 2, processes
            times = asyncio.run(
                run(url.replace("http", "ws"), processes, tables, args.seconds, think)
            )
    print(
        f"rps-poker, {args.tables} tables, each with a socket on its hosting process and one "
        f"on the other (2 server processes, Redis, PostgreSQL); think "
        f"{think[0]:g}-{think[1]:g} s; {args.seconds:g} s"
    )
    print(f"{'socket':>28} {'actions':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, label in (("local", "on the hosting process"), ("remote", "on the other (Redis)")):
        values = times[name]
        print(
            f"{label:>28} {len(values):>8} {1000 * percentile(values, 0.5):>8.1f} "
            f"{1000 * percentile(values, 0.99):>8.1f} {1000 * max(values, default=0):>8.1f}"
        )
    local, remote = times["local"], times["remote"]
    if local and remote:
        print(
            f"remote / local: p50 {percentile(remote, 0.5) / percentile(local, 0.5):.2f}x, "
            f"p99 {percentile(remote, 0.99) / percentile(local, 0.99):.2f}x"
        )


if __name__ == "__main__":
    main()
