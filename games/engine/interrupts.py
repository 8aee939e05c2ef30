"""Stopping a long command (``manage.py arena``, ``solve``, ``upload_bot``) with Ctrl-C or a
SIGTERM: both end in the same clean-up (processes stopped, what is worth keeping kept,
temporary folders removed) and one line saying where the command had got to, never
Python's traceback.

Inside :func:`interruptible`, Ctrl-C raises KeyboardInterrupt as ever and a SIGTERM raises
:class:`Terminated`, a KeyboardInterrupt too, so that a ``kill`` runs the clean-up Ctrl-C
runs (its default action ended the process at once, leaving its temporary folders). The
same signal again while that clean-up runs (Ctrl-C pressed twice) is let be for a few
seconds, so that the clean-up is not cut short by a traceback of its own."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TextIO

#: how long after a first Ctrl-C (or SIGTERM) the next is let be: the clean-up's time
GRACE_S = 10.0


class Terminated(KeyboardInterrupt):
    """A SIGTERM, raised where Ctrl-C raises KeyboardInterrupt (see :func:`interruptible`)."""


def stopping_handler() -> Callable[[int, Any], None]:
    """A handler of SIGINT and SIGTERM that raises KeyboardInterrupt (:class:`Terminated` for
    a SIGTERM), then lets the next ones be for :data:`GRACE_S`."""
    first: list[float] = []

    def handler(signum: int, _frame: Any) -> None:
        now = time.monotonic()
        if first and now - first[0] < GRACE_S:
            return
        first[:] = [now]
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    return handler


def install() -> dict[int, Any]:
    """Stop on SIGINT and SIGTERM by :func:`stopping_handler` in this (main) thread; returns
    the handlers before. A SIGINT ignored (a command started in the background) stays so."""
    handler = stopping_handler()
    before = {signal.SIGTERM: signal.signal(signal.SIGTERM, handler)}
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        before[signal.SIGINT] = signal.signal(signal.SIGINT, handler)
    return before


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While in it, Ctrl-C and a SIGTERM stop the command by a KeyboardInterrupt (see the
    module's docstring; a process forked meanwhile inherits it); as they were after. Off the
    main thread (where signals cannot be handled) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = install()
    try:
        yield
    finally:
        for signum, handler in before.items():
            if handler is not None:  # (None: one not set from Python, left as it is)
                signal.signal(signum, handler)


def exit_status(exc: BaseException) -> int:
    """A shell's status for a command stopped by ``exc``'s signal: 128 + its number (130 for
    Ctrl-C, 143 for a SIGTERM)."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


def stop(line: str, exc: BaseException, stream: TextIO | None = None) -> NoReturn:
    """Say ``line`` (what the command had done when it was stopped) on ``stream`` (stderr),
    and exit with :func:`exit_status`."""
    stream = stream or sys.stderr
    stream.write(line.rstrip("\n") + "\n")
    stream.flush()
    raise SystemExit(exit_status(exc))
