"""Daphne as Card Arena runs it::

    python -m cardsite.serve [--processes N] [daphne's options] cardsite.asgi:application

This is Daphne's own command line (every option is Daphne's but ``--processes``) with its
server extended in three ways that a process holding hundreds of live tables needs
(docs/live-tables.md):

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
import sys
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.http_protocol import WebRequest
from daphne.server import Server
from twisted.internet import defer

from cardsite import supervisor


class ArenaServer(Server):
    def run(self) -> None:
        from django.conf import settings
        from twisted.internet import reactor

        from cardsite import collector

        collector.tune(settings.GC_THRESHOLDS, freeze=settings.GC_FREEZE)
        supervisor.watch_parent()
        reactor.addSystemEventTrigger("before", "shutdown", hand_over_tables)
        super().run()

    def application_checker(self) -> None:
        """Daphne's periodic clean-up, then the connections it let go of are untied."""
        before = list(self.connections)
        super().application_checker()
        for protocol in before:
            if protocol not in self.connections:
                untie(protocol)


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
