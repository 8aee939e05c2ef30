"""Several server processes behind one address: ``python -m cardsite.serve --processes N``.

A Python process runs its event loop on one core, and one process holds some 600 live tables
(docs/live-tables.md). To use every core, this parent binds the address once and starts N
Daphne processes (``python -m cardsite.serve --fd FD ...``, Daphne's own option for a
listening socket it inherits), which all accept on that one socket: the kernel hands each new
connection to whichever process asks first, so a busy process takes fewer.

Why one inherited socket rather than each process binding the port with ``SO_REUSEPORT``:

- the address never goes dead. The parent holds the socket for its whole life, so while a
  process is being replaced new connections wait in the listen queue and are accepted by the
  others (with ``SO_REUSEPORT`` the connections queued on a dying process's own socket are
  reset, and Twisted, under Daphne, has no option to set it);
- nobody else can join: ``SO_REUSEPORT`` lets any program of the same user bind the same
  port and receive a share of the site's connections;
- a port already in use is said once, by the parent, before anything starts.

The processes share nothing but the socket, PostgreSQL and the channel layer. A table is
hosted by the process whose socket started it, and sockets of other processes at that table
reach it through the channel layer (games/live/hub.py). That needs a layer the processes
share, Redis (``REDIS_URL``): with the in-memory layer the parent refuses to start more than
one process.

A process that dies (a crash, the OOM killer, ``kill -9``) is replaced at once; the tables it
hosted are lost with it (the next socket that looks abandons them, as with one process), the
others play on. A process that dies within START_S of starting, START_FAILURES times in a row
in the same slot, is not a passing accident (a wrong setting, a broken import): the parent
then stops everything and exits with status 1. SIGTERM, SIGINT or SIGHUP to the parent stops
every process with SIGTERM (Daphne closes its connections), then SIGKILL for those still
running after STOP_S (or at a second signal). Each process runs in a session of its own, so a
Ctrl-C in a terminal reaches the parent alone, which passes it on once; each process stops by
itself if the parent disappears (``kill -9`` of the parent: see ``watch_parent``).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import select
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

#: Daphne's own defaults when neither --bind nor --port is given
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000
#: the environment variable that tells a server process who its parent is
PARENT_VARIABLE = "CARD_ARENA_SERVE_PARENT"
#: a process that dies this soon after starting has failed to start
START_S = 10.0
#: ... and this many such failures in a row in one slot stop the whole server
START_FAILURES = 3
#: how long the processes have to stop after SIGTERM (Daphne gives applications 10 s)
STOP_S = 15.0
#: the wait before replacing a process that failed to start
RESTART_DELAY_S = 1.0
STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class UsageError(ValueError):
    """The command line or the settings do not allow several processes (said to the user)."""


def split_processes(argv: list[str]) -> tuple[int, list[str]]:
    """``--processes N`` (1 if absent) and the rest of the command line, Daphne's."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--processes", type=int, default=1)
    options, rest = parser.parse_known_args(argv)
    return options.processes, rest


def address(count: int, daphne_args: list[str]) -> tuple[str, int, list[str]]:
    """The IPv4 address and port the processes are to share, and Daphne's other options;
    UsageError if several processes cannot serve them."""
    if count < 1:
        raise UsageError(f"--processes must be 1 or more, not {count}")
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("-b", "--bind", dest="host")
    parser.add_argument("-p", "--port", type=int)
    parser.add_argument("-u", "--unix-socket", dest="unix_socket")
    parser.add_argument("--fd", type=int, dest="file_descriptor")
    parser.add_argument("-e", "--endpoint", dest="socket_strings", action="append")
    options, rest = parser.parse_known_args(daphne_args)
    if options.unix_socket or options.file_descriptor is not None or options.socket_strings:
        raise UsageError(
            "--processes takes the address as --bind and --port (the processes share one "
            "TCP socket); --unix-socket, --fd and --endpoint are for one process"
        )
    host = options.host or DEFAULT_HOST
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        raise UsageError(
            f"--processes needs an IPv4 address to --bind (such as 127.0.0.1 or 0.0.0.0), "
            f"not {host!r}: Daphne's --fd adopts IPv4 sockets only"
        ) from None
    problem = shared_layer_problem()
    if problem:
        raise UsageError(problem)
    return host, DEFAULT_PORT if options.port is None else options.port, rest


def shared_layer_problem() -> str:
    """Why the settings' channel layer cannot serve several processes ("" if it can)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    from django.conf import settings

    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    if backend.rsplit(".", 1)[-1] == "InMemoryChannelLayer":
        return (
            "--processes above 1 needs a channel layer the processes share: set REDIS_URL. "
            "With the in-memory layer (no REDIS_URL) a table hosted by one process cannot "
            "be reached by the sockets of another"
        )
    return ""


def listen(host: str, port: int) -> socket.socket:
    """The one listening socket, inherited by every process (a deep queue: people arrive in
    bursts, and a connection waits there while a process is replaced)."""
    listener = socket.create_server((host, port), backlog=socket.SOMAXCONN)
    listener.set_inheritable(True)
    return listener


@dataclass
class Child:
    slot: int
    process: subprocess.Popen
    started: float


def say(text: str) -> None:
    print(f"serve: {text}", file=sys.stderr, flush=True)


class Supervisor:
    """Starts ``count`` server processes on ``listener``, replaces those that die, and stops
    them all when told (see the module)."""

    def __init__(self, count: int, listener: socket.socket, daphne_args: list[str]) -> None:
        self.count = count
        self.listener = listener
        self.command = [sys.executable, "-m", "cardsite.serve",
                        "--fd", str(listener.fileno()), *daphne_args]  # fmt: skip
        self.children: dict[int, Child] = {}
        #: slots waiting to be started again: the time to start them
        self.pending: dict[int, float] = {}
        self.failures: dict[int, int] = dict.fromkeys(range(count), 0)
        self.signals: list[int] = []
        self.status = 0

    def run(self) -> int:
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        old_wakeup = signal.set_wakeup_fd(wake_write)
        old = {sig: signal.signal(sig, self._on_signal) for sig in STOPPING_SIGNALS}
        old[signal.SIGCHLD] = signal.signal(signal.SIGCHLD, lambda *_: None)
        try:
            for slot in range(self.count):
                self._start(slot)
            while not self.signals and not self.status:
                timeout = 1.0
                if self.pending:
                    timeout = max(0.0, min(self.pending.values()) - time.monotonic())
                if select.select([wake_read], [], [], timeout)[0]:
                    os.read(wake_read, 512)
                self._reap()
                self._start_pending()
            self._stop_all(wake_read)
            return self.status
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
            signal.set_wakeup_fd(old_wakeup)
            os.close(wake_read)
            os.close(wake_write)

    def _on_signal(self, signum: int, frame: object) -> None:
        self.signals.append(signum)

    def _start(self, slot: int) -> None:
        env = {**os.environ, PARENT_VARIABLE: str(os.getpid())}
        process = subprocess.Popen(
            self.command, env=env, pass_fds=(self.listener.fileno(),), start_new_session=True
        )
        self.children[slot] = Child(slot, process, time.monotonic())
        say(f"process {slot + 1} of {self.count} started (pid {process.pid})")

    def _reap(self) -> None:
        for slot, child in list(self.children.items()):
            code = child.process.poll()
            if code is None:
                continue
            del self.children[slot]
            lived = time.monotonic() - child.started
            if lived >= START_S:
                self.failures[slot] = 0
                say(
                    f"process {slot + 1} (pid {child.process.pid}) exited with status {code} "
                    "after serving; starting another"
                )
                self._start(slot)
                continue
            self.failures[slot] += 1
            if self.failures[slot] >= START_FAILURES:
                say(
                    f"process {slot + 1} exited with status {code} within {START_S:g} s of "
                    f"starting, {START_FAILURES} times in a row; stopping"
                )
                self.status = 1
                return
            say(
                f"process {slot + 1} (pid {child.process.pid}) exited with status {code} "
                f"{lived:.1f} s after starting; starting another in {RESTART_DELAY_S:g} s"
            )
            self.pending[slot] = time.monotonic() + RESTART_DELAY_S

    def _start_pending(self) -> None:
        now = time.monotonic()
        for slot, when in list(self.pending.items()):
            if when <= now:
                del self.pending[slot]
                self._start(slot)

    def _stop_all(self, wake_read: int) -> None:
        """SIGTERM to every process; SIGKILL to those still running after STOP_S or at
        another signal."""
        if self.signals:
            say(f"{signal.Signals(self.signals[0]).name}: stopping {len(self.children)} processes")
        heard = len(self.signals)
        for child in self.children.values():
            child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_S
        while self.children:
            left = deadline - time.monotonic()
            if left <= 0 or len(self.signals) > heard:
                for child in self.children.values():
                    child.process.kill()
                for child in self.children.values():
                    child.process.wait()
                break
            if select.select([wake_read], [], [], min(left, 0.5))[0]:
                os.read(wake_read, 512)
            for slot, child in list(self.children.items()):
                if child.process.poll() is not None:
                    del self.children[slot]
        self.listener.close()


def serve_processes(count: int, daphne_args: list[str]) -> int:
    """The parent: checks, binds, supervises; its exit status."""
    try:
        host, port, rest = address(count, daphne_args)
    except UsageError as exc:
        say(f"error: {exc}")
        return 2
    try:
        listener = listen(host, port)
    except OSError as exc:
        say(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}")
        return 1
    say(f"listening on http://{host}:{port}/ with {count} processes")
    return Supervisor(count, listener, rest).run()


def watch_parent() -> None:
    """In a server process started by the parent: stop when the parent is gone (its
    processes would otherwise serve on, unsupervised, until someone finds them)."""
    parent = os.environ.pop(PARENT_VARIABLE, "")
    if not parent:
        return
    from twisted.internet import reactor, task

    def check_parent() -> None:
        if os.getppid() != int(parent):
            say(f"the parent (pid {parent}) is gone; stopping")
            loop.stop()
            reactor.stop()

    loop = task.LoopingCall(check_parent)
    reactor.callWhenRunning(loop.start, 1.0, False)
