"""The site's server (cardsite/serve.py): Daphne, freeing what each closed connection leaves
behind without the garbage collector, and tuning the collector only when it serves."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
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


def answer_of(conn: socket.socket, within: float = 30.0) -> bytes:
    """What the server writes on ``conn`` until it closes it (or ``within`` seconds pass)."""
    conn.settimeout(within)
    said = b""
    while chunk := conn.recv(65536):
        said += chunk
    return said


def test_a_request_body_over_the_limit_is_refused_before_it_is_read(tmp_path):
    """A guest's one POST of 400 MiB held every page, table and websocket of the process for
    14 s while Daphne took the body in, and left the process 400 MB larger: the view that
    refused it (413) ran only once all of it had been read."""
    sock, port = listening_socket()
    limit = 256 * 1024
    server = subprocess.Popen(
        [sys.executable, "-m", "cardsite.serve", "--fd", str(sock.fileno()), ASGI_APP],
        cwd=ROOT, env=environment(tmp_path, DEBUG="0", REQUEST_BODY_MAX_BYTES=str(limit)),
        pass_fds=[sock.fileno()], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    sock.close()  # (the server has its own; connections wait in its backlog until it serves)
    head = "POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    try:
        # it says 400 MiB: answered at once, with none of it sent
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(f"{head}Content-Length: {400 * 2**20}\r\n\r\n".encode())
            said = answer_of(conn).decode()
        assert said.startswith("HTTP/1.1 413 "), said
        assert said.endswith(
            "Request too large: this site takes at most 256 KiB in one request, and it says "
            "it holds 400 MiB. None of it was read.\n"
        ), said
        # chunked, no length said: cut off as it passes the limit
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(f"{head}Transfer-Encoding: chunked\r\n\r\n".encode())
            chunk, sent = b"%x\r\n%s\r\n" % (65536, b"x" * 65536), 0
            with contextlib.suppress(OSError):  # (the server closes while the client sends)
                while sent < 40 * limit:
                    conn.sendall(chunk)
                    sent += 65536
            said = answer_of(conn).decode()
        assert said.startswith("HTTP/1.1 413 "), said
        assert "it sent more than that without saying its length" in said, said
        assert sent < 40 * limit  # (it stopped reading: the client's sends failed)
        # a body within the limit goes on to the site as ever (a POST the health check
        # refuses: no CSRF token)
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(f"{head}Content-Length: 1000\r\nConnection: close\r\n\r\n".encode())
            conn.sendall(b"x" * 1000)
            said = answer_of(conn).decode()
        assert said.startswith("HTTP/1.1 403 "), said
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert errors.count(b"event=request.too_large") == 2, errors
