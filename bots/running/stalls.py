"""When this process itself was held up: stopped (SIGSTOP, a paused container or VM), swapped
out, or kept from running for a second or more.

A bot's reply is timed by when the process that plays its match reads it. A process held up
for 20 s reads a reply the bot wrote in 0.25 s as 20 s late, and a call's deadline passes
while nobody was there to read: the bot would be charged a timeout fault, a rated loss, a
rejected upload, all for the platform's trouble. So a thread of the process ticks every
:data:`TICK_S`; a tick that comes :data:`STALL_S` or more late marks the time between as a
stall, and a call whose time overlaps one is not judged at all (:func:`held_up`): its match
is the platform's trouble (``PlatformError``: a tournament plays it again, a live table ends
unrated). The machine's load alone (a bot kept waiting for a CPU) is credited elsewhere
(bots.running.starved); this is the process that reads the replies.

The tick is a sleep: a few microseconds of CPU ten times a second. The check is two float
reads, made where a call's reply is read or its deadline passes, never per line of output.
A thread's tick can itself be late without a stall, while this process holds the GIL in one
long C call for a second; the replies it reads are then as late, which is the platform's
trouble too.
"""

from __future__ import annotations

import os
import threading
import time

#: how often the watch ticks
TICK_S = 0.1
#: how late a tick must be for the time between to count as a stall (a machine merely
#: busy delays a sleeping thread by milliseconds)
STALL_S = 1.0
#: the stalls remembered (a call is judged within seconds of its start: a few suffice)
KEPT = 8
#: the watch's own clock and sleep, as the time module had them when this module was
#: imported: code that replaces the time module's functions for a while (a test's fake
#: clock) cannot stop the watch or move its ticks, which would make every later call of
#: the process look held up
_monotonic = time.monotonic
_sleep = time.sleep


class _Watch:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        #: when the watch last ticked (monotonic)
        self.ticked = 0.0
        #: the stalls seen, (start, end), the latest last
        self.stalls: list[tuple[float, float]] = []

    def start(self) -> None:
        with self.lock:
            if self.thread is not None and self.thread.is_alive():
                return
            self.ticked = _monotonic()
            self.thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)
            self.thread.start()

    def alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def _run(self) -> None:
        while True:
            _sleep(TICK_S)
            self.seen(_monotonic())

    def seen(self, now: float) -> None:
        """A tick at ``now``: the time since the last, beyond the tick, is a stall if it is
        :data:`STALL_S` or more."""
        last, self.ticked = self.ticked, now
        if now - last - TICK_S >= STALL_S:
            self.stalls = [*self.stalls[-(KEPT - 1) :], (last + TICK_S, now)]

    def after_fork(self) -> None:
        """A forked child has no thread of its parent's: it starts its own when first asked."""
        self.lock = threading.Lock()
        self.thread = None
        self.stalls = []


_WATCH = _Watch()
os.register_at_fork(after_in_child=_WATCH.after_fork)


def watch() -> None:
    """Start watching this process (once; again in a forked child, or if the watch ended).
    Calls made before it are not covered."""
    if not _WATCH.alive():
        _WATCH.start()


def held_up(since: float, now: float | None = None) -> float:
    """Seconds this process was held up between ``since`` and ``now`` (monotonic; now if
    None), in a stall of :data:`STALL_S` or more: one seen, or one going on now (the watch
    has not ticked for that long: it is held up too, or has just woken with the rest of the
    process and not run yet); else 0.0. Without :func:`watch` first, or if the watch has
    ended, always 0.0: a watch that no longer ticks says nothing of this process."""
    if not _WATCH.alive():
        return 0.0
    if now is None:
        now = _monotonic()
    begun = _WATCH.ticked + TICK_S
    if now - begun >= STALL_S and now > since:
        return now - max(begun, since)
    for start, end in reversed(_WATCH.stalls):
        if end <= since:
            break
        overlap = min(end, now) - max(start, since)
        if overlap > 0.0:
            return overlap
    return 0.0


def held_up_words(stalled: float, what: str) -> str:
    """What a PlatformError says of a call a stall made unjudgeable."""
    return (
        f"the process playing the match was held up for {stalled:.1f} s during {what} "
        "(stopped, or kept from running), so the bot's time cannot be told: no fault of "
        "the bot's"
    )
