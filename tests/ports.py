"""Ports on the loopback for the servers tests start."""

from __future__ import annotations

import socket


def listening_socket() -> tuple[socket.socket, int]:
    """A socket listening on a port of 127.0.0.1 the system chose, and its port: handed to a
    server (``cardsite.serve --fd N``, with ``pass_fds``), it cannot be taken by another
    process between the choice and the server's start, nor between a server's death and the
    next one's on the same port (connections wait in its backlog meanwhile). The test keeps
    it open for as long as servers use the port, and closes it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock, sock.getsockname()[1]


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now (the system's choice; another process
    may still take it before the test's server binds it): for a server that cannot be handed
    a listening socket (:func:`listening_socket`), such as several processes of
    ``cardsite.serve --processes``, or ``scripts/run-site``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
