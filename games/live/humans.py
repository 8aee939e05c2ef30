"""A person at a live table, as one more kind of Agent.

The runner asks a person for a decision the way it asks a bot: ``send`` a prompt, then
``receive`` the answer, which a person gives on the table's event loop (``receive_async``:
:meth:`MatchRunner.run_async`). The answer comes from the person's browser through the
table's host (:meth:`HumanAgent.offer`). The person's own turn timer runs inside it: when
it runs out, the game's safe default is played for them and they are marked *away*; an away
person gets a short timer until they act again, so a table never hangs on someone who left.
An intention the engine would refuse is refused to the person (who may try again within
the timer) and never reaches the rules, where a bot's illegal answer would cost it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from games.engine.agents import Agent, SeatInfo
from games.engine.game import Prompt

#: the runner's deadline for a person is the turn timer plus this; the person's own timer
#: always answers first
GRACE_S = 5.0


@dataclass(frozen=True)
class Intent:
    """An action a person asked for: the turn it answers and the socket it came from."""

    turn: int
    action: Any
    reply_to: str | None = None


class Listener(Protocol):
    """What the host hears from its people."""

    def on_turn(self, seat: int, turn: int, deadline: float, away: bool) -> None: ...

    def on_refused(self, seat: int, reply_to: str | None, reason: str) -> None: ...

    def on_away(self, seat: int, away: bool) -> None: ...


class HumanAgent(Agent):
    blocking = False

    def __init__(
        self,
        name: str,
        listener: Listener,
        *,
        check: Callable[[int, Any], str | None],
        default: Callable[[int], Any],
        turn_timer: float = 30.0,
        away_timer: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.listener = listener
        self.check = check
        self.default = default
        self.turn_timer = turn_timer
        self.away_timer = away_timer
        self.clock = clock
        self.seat = 0
        self.turn = 0
        self.away = False
        self.deadline: float | None = None
        self._prompt: Prompt | None = None
        self._waiting = False
        self._inbox: asyncio.Queue[Intent | None] = asyncio.Queue()
        self._hurry = False

    # ---- the runner's side ----------------------------------------------------------------
    def begin(self, info: SeatInfo, timeout: float) -> None:
        self.seat = info.seat

    def send(self, prompt: Prompt) -> None:
        self._prompt = prompt
        if not prompt.expects_answer:
            return  # a notice: the table's view already shows what happened
        self.turn += 1
        timer = 0.0 if self._hurry else (self.away_timer if self.away else self.turn_timer)
        self.deadline = self.clock() + timer
        self._waiting = True
        self.listener.on_turn(self.seat, self.turn, self.deadline, self.away)

    def receive(self, timeout: float) -> Any:
        raise RuntimeError("a person answers on an event loop: play with MatchRunner.run_async")

    async def receive_async(self, timeout: float) -> Any:
        prompt = self._prompt
        if prompt is None or not prompt.expects_answer:
            return None
        assert self.deadline is not None
        limit = min(self.deadline, self.clock() + max(timeout - GRACE_S, 0.0))
        try:
            while (remaining := limit - self.clock()) > 0:
                try:
                    intent = await asyncio.wait_for(self._inbox.get(), remaining)
                except TimeoutError:
                    break
                if intent is None:
                    break  # hurried: the table is closing
                action = self._accept(intent)
                if action is not _REFUSED:
                    if self.away:
                        self.away = False
                        self.listener.on_away(self.seat, False)
                    return action
            if not self.away:
                self.away = True
                self.listener.on_away(self.seat, True)
            return self.default(self.seat)
        finally:
            self._waiting = False
            self.deadline = None

    def _accept(self, intent: Intent) -> Any:
        if intent.turn != self.turn:
            self.listener.on_refused(
                self.seat,
                intent.reply_to,
                f"that action was for turn {intent.turn}; it is turn {self.turn} now",
            )
            return _REFUSED
        reason = self.check(self.seat, intent.action)
        if reason is not None:
            self.listener.on_refused(self.seat, intent.reply_to, reason)
            return _REFUSED
        return intent.action

    # ---- the browser's side (the same event loop) ------------------------------------------
    @property
    def waiting(self) -> bool:
        """True while the person is asked for a decision."""
        return self._waiting

    def offer(self, intent: Intent) -> str | None:
        """Hand over a person's action; returns why it is refused at once (not their turn),
        else None (the engine's verdict comes later, through the listener)."""
        if not self._waiting:
            return "it is not your turn"
        if intent.turn != self.turn:
            return f"that action was for turn {intent.turn}; it is turn {self.turn} now"
        self._inbox.put_nowait(intent)
        return None

    def release(self) -> None:
        """The match is over: let go of the host (whose callables this holds, and which holds
        this), so that the table is freed as soon as it is dropped, not at the collector's
        next full pass."""
        self.listener = _Deaf()
        self.check = self.default = _gone

    def hurry(self) -> None:
        """The table is closing: play the default now and from now on."""
        self._hurry = True
        self._inbox.put_nowait(None)


_REFUSED = object()


class _Deaf:
    def on_turn(self, seat: int, turn: int, deadline: float, away: bool) -> None:
        pass

    def on_refused(self, seat: int, reply_to: str | None, reason: str) -> None:
        pass

    def on_away(self, seat: int, away: bool) -> None:
        pass


def _gone(*args: Any) -> Any:
    raise RuntimeError("the match is over")
