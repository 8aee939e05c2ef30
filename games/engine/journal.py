"""The steps of a match that decide what follows, kept so that the match can be resumed by
another process from its seed.

A match is its seed plus what its seats answered. The runner's loop
(:meth:`~games.engine.runner.MatchRunner._match`) is a generator of agent calls that, given
the same seed and the same replies, makes the same calls in the same order; so a match is
resumed by playing it again from the seed and handing the loop, call by call, the replies it
was given the first time. A :class:`Journal` keeps those replies, by the call's number:

- every answer to a question (``"a"``), with the seconds it took (``"t"``: time banks and
  slow streaks depend on them);
- every fault an agent raised (``"f"``: its kind and reason);
- a notice heard more slowly than the per-call time (it cost time from the bank);

and nothing for the calls that went as expected (a ``begin``, a ``send``, a notice heard in
time: their reply is None and their time changes no outcome). Each step also says its seat,
its call (``"m"``) and how long the engine's log was (``"n"``), which a resumed match checks:
a log that does not fit the game's code any more stops the resumption
(:class:`JournalMismatch`) instead of playing a different match.

Resuming (``MatchRunner.run_async(journal=...)``) plays the calls up to the last kept step
again. An agent whose :attr:`~games.engine.agents.Agent.catch_up` is True (a bot) hears each
of them as it did the first time, so that it reaches the same point, but what it answers is
not used: the kept reply is. If it fails where it did not the first time (a crash, a time
out), that is its fault at that point, as in any match: the steps kept after it are void
(:meth:`Journal.diverge`) and the match goes on from there. An agent that needs no catching
up (a person: the table shows them where the match is) is not called, except ``begin``; a
question it was sent whose answer was not kept is asked again when the match goes live.

This module is the bookkeeping; where steps are stored is the caller's: subclasses override
:meth:`Journal.record` (and the other hooks) to keep them durably.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class JournalMismatch(Exception):
    """Kept steps that the match, played again from its seed, does not make."""


class Journal:
    def __init__(self, steps: Iterable[tuple[int, dict[str, Any]]] = ()) -> None:
        #: the kept steps of the match so far, by call number
        self.steps: dict[int, dict[str, Any]] = dict(steps)
        #: the number of the last kept call: calls up to it are played again
        self.last = max(self.steps, default=-1)
        self.live = False

    def catching_up(self, index: int) -> bool:
        return index <= self.last

    def step(self, index: int, seat: int, method: str, log_length: int) -> dict[str, Any] | None:
        """The kept step of call ``index`` (None: it went as expected), checked against the
        call the match makes now."""
        step = self.steps.get(index)
        if step is None:
            return None
        made = (seat, method, log_length)
        kept = (step.get("s"), step.get("m"), step.get("n"))
        if made != kept:
            raise JournalMismatch(
                f"call {index} of the match is seat {seat}'s {method} after {log_length} events,"
                f" but the log kept seat {kept[0]}'s {kept[1]} after {kept[2]} events"
            )
        return step

    def go_live(self) -> bool:
        """Called before every call made for real; True the first time (then
        :meth:`caught_up` has been called)."""
        if self.live:
            return False
        self.live = True
        self.steps = {}  # played: no longer needed
        self.caught_up()
        return True

    def diverge(self, index: int, step: dict[str, Any]) -> None:
        """An agent failed at call ``index`` where it had not: the steps kept from there on
        are void, ``step`` (its fault) replaces them, and the match goes live after it."""
        self.steps = {i: s for i, s in self.steps.items() if i < index}
        self.last = index
        self.forget_from(index)
        self.record(index, step)

    # ---- hooks ----------------------------------------------------------------------------
    def record(self, index: int, step: dict[str, Any]) -> None:
        """A step of the live match to keep (JSON-ready)."""
        self.steps[index] = step

    def forget_from(self, index: int) -> None:
        """Steps kept from ``index`` on are void."""

    def replayed(self, seat: int, step: dict[str, Any] | None) -> None:
        """A call of seat ``seat`` was played again from ``step`` (None: nothing kept)."""

    def caught_up(self) -> None:
        """The match has reached the point where it stopped: what follows is live."""
