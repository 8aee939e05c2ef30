"""The server's CPU per websocket connection: this checkout's ``python -m cardsite.serve``
against another checkout's (``--before``), side by side.

    .venv/bin/python bench/bench_connections.py --before /work/main [--connections 300]
                                                [--runs 3]

Each run starts each checkout's server in turn (one process, SQLite and the in-memory layer
in a folder of its own), opens --connections websockets one after another to a table that
does not exist (the socket is refused after its lookup: the handshake is what is measured,
not a match) and reads the server's CPU seconds from /proc before and after. It prints each
run, min and median milliseconds per connection, and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_tables import cpu_seconds, wait_for  # noqa: E402

from cardsite.localservices import free_port  # noqa: E402


async def knock(url: str, count: int) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    for _ in range(count):
        try:
            async with connect(f"{url}/ws/tables/no-such-table/", origin=url.replace("ws", "http")):
                pass
        except InvalidStatus:
            pass  # refused, as it should be


def per_connection(checkout: Path, var: Path, count: int) -> float:
    """Milliseconds of the server's CPU per connection."""
    env = {**os.environ, "CARD_ARENA_VAR": str(var), "DJANGO_SETTINGS_MODULE": "cardsite.settings"}
    env["LIVE_SOCKETS_PER_ADDRESS"] = "0"  # every connection comes from this machine
    for name in ("DATABASE_URL", "REDIS_URL"):
        env.pop(name, None)
    python = str(checkout / ".venv" / "bin" / "python")
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], cwd=checkout, env=env, check=True)
    port = free_port()
    server = subprocess.Popen(
        [python, "-m", "cardsite.serve", "-b", "127.0.0.1", "-p", str(port),
         "cardsite.asgi:application"],
        cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(f"http://127.0.0.1:{port}")
        asyncio.run(knock(f"ws://127.0.0.1:{port}", 20))  # warm up
        before = cpu_seconds(server.pid)
        asyncio.run(knock(f"ws://127.0.0.1:{port}", count))
        return 1000 * (cpu_seconds(server.pid) - before) / count
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout")
    parser.add_argument("--connections", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sides = {"before": args.before.resolve(), "after": ROOT}
    found: dict[str, list[float]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory(prefix="bench-connections-") as tmp:
        for run in range(args.runs):
            for name, checkout in sides.items():
                ms = per_connection(checkout, Path(tmp) / name, args.connections)
                found[name].append(ms)
                print(f"run {run + 1} {name:>6} ({checkout}): {ms:.2f} ms of CPU a connection",
                      flush=True)  # fmt: skip
    for name, values in found.items():
        print(f"{name:>6}: min {min(values):.2f} ms, median {statistics.median(values):.2f} ms")
    ratio = statistics.median(found["after"]) / statistics.median(found["before"])
    print(f"after / before (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
