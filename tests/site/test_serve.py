"""The site's server (cardsite/serve.py): Daphne, freeing what each closed connection leaves
behind without the garbage collector, and tuning the collector only when it serves."""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import time

from tests.ports import listening_socket
from tests.site.test_security import ASGI_APP, ROOT, environment

CONNECTIONS = ("WebSocketProtocol", "WebRequest", "HTTPChannel", "TableConsumer")


async def sit_and_leave(port: int, table: dict[str, str]) -> list[str]:
    """A guest opens their table's socket, waits to be asked for a move, and closes the tab."""
    from websockets.asyncio.client import connect

    kinds = []
    async with connect(
        f"ws://127.0.0.1:{port}/ws/tables/{table['token']}/",
        origin=f"http://127.0.0.1:{port}",
        additional_headers={"Cookie": table["cookie"]},
        open_timeout=30,
    ) as ws:
        while "turn" not in kinds:
            kinds.append(json.loads(await asyncio.wait_for(ws.recv(), 30))["type"])
    return kinds


def test_a_closed_connection_is_freed_by_reference_counting(tmp_path):
    sock, port = listening_socket()
    server = subprocess.Popen(
        [sys.executable, "tests/site/serve_census.py", "5", "--fd", str(sock.fileno()), ASGI_APP],
        cwd=ROOT, env=environment(tmp_path, DEBUG="0"), text=True, pass_fds=[sock.fileno()],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    sock.close()  # (the server has its own; it listens while it runs)

    def said(what: str) -> dict | list:
        """The server's next line saying ``what`` (its access log shares the stream)."""
        for line in server.stdout:
            if line.startswith(what + " "):
                return json.loads(line.removeprefix(what + " "))
        raise AssertionError(f"the server stopped: {server.stderr.read()}")

    def census() -> dict[str, int]:
        server.stdin.write("census\n")
        server.stdin.flush()
        return said("census")

    try:
        made = said("tables")  # (connections wait in the socket's backlog until it serves)

        async def everyone() -> list[list[str]]:
            return await asyncio.gather(*(sit_and_leave(port, table) for table in made))

        seen = asyncio.run(everyone())
        assert all(kinds[0] == "hello" and "state" in kinds for kinds in seen), seen
        # Daphne lets go of a closed connection at its next clean-up (every second), once the
        # application has finished
        deadline = time.monotonic() + 15
        while (alive := census()) and any(alive[name] for name in CONNECTIONS):
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert {name: alive[name] for name in CONNECTIONS} == dict.fromkeys(CONNECTIONS, 0)
        assert alive["TableHost"] == len(made)  # the matches go on (the guests are away)
    finally:
        server.terminate()
        server.wait(timeout=30)
        for stream in (server.stdin, server.stdout, server.stderr):
            stream.close()


def test_the_collector_is_tuned_by_the_server_not_by_importing_the_application():
    thresholds = gc.get_threshold()
    import cardsite.asgi  # noqa: F401

    assert gc.get_threshold() == thresholds
