"""Daphne as Card Arena runs it::

    python -m cardsite.serve [--processes N] [daphne's options] cardsite.asgi:application

This is Daphne's own command line (every option is Daphne's but ``--processes``) with its
server extended in four ways that a process holding hundreds of live tables needs
(docs/live-tables.md):

- **A request body is held to a limit before it is read** (``REQUEST_BODY_MAX_BYTES``):
  Daphne takes in a whole body (into a temporary file, then all of it into memory for the
  application) before any view can look at its size, and while it does, every page, table
  and websocket of the process waits: one guest's 400 MiB POST held them all for 14 s and
  left the process 400 MB larger. A request that says it is larger is answered 413 at once
  and its connection closed, none of its body read; a body sent without a length (chunked)
  is cut off as it passes the limit. tests/site/test_serve.py sends both to a real server.

- **The garbage collector is tuned** once the application is loaded and before the first
  connection (:mod:`cardsite.collector`): what start-up made is set aside for good and full
  collections become rare. Importing the application alone (tests, ``manage.py``) leaves the
  collector as it is.
- **A closed connection is freed at once.** Daphne leaves two reference cycles behind every
  websocket: autobahn resolves the protocol's ``is_closed`` with the protocol itself, and the
  HTTP request that was upgraded and its Twisted channel point at each other (Twisted breaks
  that pair when an HTTP connection is lost, but an upgraded one is never lost as HTTP). Only
  the collector's full pass would free them: some 60 objects a connection, which made that
  pass both longer and more frequent while people come and go. Once Daphne has let go of a
  connection (its application finished, the socket closed), the server breaks both cycles and
  reference counting frees the rest. tests/site/test_serve.py holds a real server to it.
- **Its live tables are handed over when it stops** (SIGTERM, Ctrl-C, its parent gone):
  before Daphne closes its connections, the tables it hosts are left for another process to
  take over at once (:func:`hand_over_tables`), not once their heartbeat is stale; with one
  process, their steps are written and the server started again resumes them.
  tests/site/test_tables_survive.py stops a real server so.

``--processes N`` (default 1: one process, as above) runs N such processes on one address,
to use every core: a parent binds it and supervises them (:mod:`cardsite.supervisor`; it
needs Redis, ``REDIS_URL``).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.server import Server
from twisted.internet import defer

from cardsite import supervisor

logger = logging.getLogger("cardsite.serve")


class ArenaServer(Server):
    def run(self) -> None:
        from django.conf import settings
        from twisted.internet import reactor

        from cardsite import collector

        collector.tune(settings.GC_THRESHOLDS, freeze=settings.GC_FREEZE)
        BoundedRequest.limit = settings.REQUEST_BODY_MAX_BYTES
        supervisor.watch_parent()
        reactor.addSystemEventTrigger("before", "shutdown", hand_over_tables)
        super().run()

    # Daphne makes its HTTP factory in run(), as its own class: the server's is the one
    # whose requests are held to the body limit
    @property
    def http_factory(self) -> HTTPFactory:
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory: HTTPFactory) -> None:
        self._http_factory = BoundedHTTPFactory(self)

    def application_checker(self) -> None:
        """Daphne's periodic clean-up, then the connections it let go of are untied."""
        before = list(self.connections)
        super().application_checker()
        for protocol in before:
            if protocol not in self.connections:
                untie(protocol)


class BoundedRequest(WebRequest):
    """Daphne's request, its body held to :attr:`limit` bytes before any is kept (see the
    module): over it, the client is answered 413 and the connection closed."""

    #: the server's REQUEST_BODY_MAX_BYTES (set as it starts)
    limit = 0
    refused = False
    received = 0

    def gotLength(self, length: int | None) -> None:
        if self.limit and length is not None and length > self.limit:
            super().gotLength(0)  # (an empty body, never written to)
            self.refuse(f"it says it holds {_size(length)}")
        else:
            super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self.refused:
            return
        self.received += len(data)
        if self.limit and self.received > self.limit:
            self.refuse("it sent more than that without saying its length")
            return
        super().handleContentChunk(data)

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        if not self.refused:  # (a refused body that ended in the data already read)
            super().requestReceived(command, path, version)

    def refuse(self, why: str) -> None:
        self.refused = True
        # no "100 Continue" asks the client for the body
        self.requestHeaders.removeHeader(b"expect")
        said = (
            f"Request too large: this site takes at most {_size(self.limit)} in one request, "
            f"and {why}. None of it was read.\n"
        ).encode()
        transport = self.channel.transport
        transport.write(
            b"HTTP/1.1 413 Content Too Large\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(said), said)
        )
        transport.loseConnection()
        peer = transport.getPeer()
        logger.warning(
            "event=request.too_large client=%s limit=%d %s",
            getattr(peer, "host", "?"), self.limit, why.replace(" ", "_"),
        )  # fmt: skip


def _size(n: int) -> str:
    """A request's size as the 413 says it: "1280 KiB", "400 MiB"."""
    return f"{n / 2**20:.0f} MiB" if n >= 10 * 2**20 else f"{n / 1024:.0f} KiB"


class BoundedHTTPFactory(HTTPFactory):
    def buildProtocol(self, addr: Any) -> Any:
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = BoundedRequest
        return protocol


def hand_over_tables() -> defer.Deferred | None:
    """The server stops (SIGTERM, Ctrl-C, its parent gone): before its connections close,
    the live tables it hosts go to another process at once (``Hub.hand_over``), rather than
    after their heartbeat goes stale; with one process (the in-memory channel layer) their
    steps are all written, and the server started again resumes them."""
    from games.live.hub import hub

    if hub.loop is None or hub.loop.is_closed():
        return None  # it never hosted a table
    return defer.Deferred.fromFuture(asyncio.ensure_future(hub.hand_over(), loop=hub.loop))


def untie(protocol: Any) -> None:
    """Break the reference cycles of a connection Daphne is done with (see the module)."""
    closed = getattr(protocol, "is_closed", None)
    if isinstance(closed, defer.Deferred) and closed.called:
        # autobahn resolves it once, with the protocol, when the connection is closed; a late
        # listener still hears that it is closed
        protocol.is_closed = defer.succeed(None)
    if isinstance(protocol, WebRequest):
        channel = protocol.channel
        # upgraded to a websocket: Daphne handed its transport on (a plain request that is
        # done has already left its channel)
        if channel is not None and protocol.transport is None and protocol in channel.requests:
            channel.requests.remove(protocol)


class ArenaCommandLine(CommandLineInterface):
    server_class = ArenaServer


def main(argv: list[str] | None = None) -> None:
    count, daphne_args = supervisor.split_processes(sys.argv[1:] if argv is None else argv)
    if count == 1:
        ArenaCommandLine().run(daphne_args)
    else:
        sys.exit(supervisor.serve_processes(count, daphne_args))


if __name__ == "__main__":
    main()
