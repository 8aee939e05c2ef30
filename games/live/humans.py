"""A person at a live table, as one more kind of Agent.

The runner asks a person for a decision the way it asks a bot: ``send`` a prompt, then
``receive`` the answer, which a person gives on the table's event loop (``receive_async``:
:meth:`MatchRunner.run_async`). The answer comes from the person's browser through the
table's host (:meth:`HumanAgent.offer`). The person's own turn timer runs inside it: when
it runs out, the game's safe default is played for them and they are marked *away*; an away
person gets a short timer until they act again, so a table never hangs on someone who left.
A move that reached the server before the deadline but is still on its way to the table's
host when the timer fires (a busy server's queues, a socket of another server process) is
waited for a moment (:data:`IN_FLIGHT_S`): the server's load is never the person's loss.
An intention the engine would refuse is refused to the person (who may try again within
the timer) and never reaches the rules, where a bot's illegal answer would cost it. A move
taken is said at once (a ``taken`` message): at a simultaneous turn the table moves on only
once the others have answered too, and until then the person's page (and, without the move,
everyone else's) says whose move is in and who is awaited.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from games.engine.agents import Agent, SeatInfo
from games.engine.game import Prompt
from games.live.wire import message_text

#: the runner's deadline for a person is the turn timer plus this; the person's own timer
#: always answers first
GRACE_S = 5.0
#: when a person's turn timer runs out, a move that their socket received before the
#: deadline may still be on its way to the table's host; it is waited for this long, plus
#: twice how late the timer itself fired (a loaded event loop is late for both), until half
#: of GRACE_S after the deadline at the latest. A move received after the deadline is
#: refused. An away person's short timer has no such wait: nothing of theirs is on its way
IN_FLIGHT_S = 1.0
#: a turn's timer that fires this many seconds late (or later) fired after this process was
#: stalled: stopped, or its event loop held up (a server under far more than it can serve).
#: No move could reach the table meanwhile, so that is the site's trouble: the turn is
#: given back (the listener's ``stalled``), never played by default
STALL_S = 2.0
#: the refusal of a move for a turn whose timer ran out (the page says "Refused: ...")
TIME_RAN_OUT = "time ran out for this turn: the default was played for you"


class Listener(Protocol):
    """What the host hears from its people (and what of it a person's answer reads: how it
    speaks to an audience, the people's seats, whether an audience listens, the state)."""

    humans: dict[int, Any]

    def publish(self, audience: str, text: str) -> None: ...

    def watched(self, audience: str) -> bool: ...

    def on_turn(self, seat: int, turn: int, deadline: float, away: bool) -> None: ...

    def on_away(self, seat: int, away: bool) -> None: ...

    def stalled(self, seat: int, late: float) -> bool:
        """The seat's turn timer fired ``late`` seconds late (see STALL_S): True if its turn
        was given back, False to play the default as usual."""
        ...

    def taken(self, audience: str, seat: int, text: str) -> None:
        """A ``taken`` message for ``audience``: published if it listens, kept for a reload."""


class HumanAgent(Agent):
    blocking = False
    #: a resumed table does not ask a person again what they answered (games/engine/journal.py)
    catch_up = False

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
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self.listener = listener
        self.check = check
        self.default = default
        self.turn_timer = turn_timer
        self.away_timer = away_timer
        self.clock = clock
        #: the time of day, which the sockets' processes stamp a move with when they receive
        #: it (they may run on other machines: their monotonic clocks are not this one's)
        self.wall = wall
        self.seat = 0
        self.turn = 0
        self.away = False
        #: whether the last answer was the default played when the timer ran out
        self.defaulted = False
        self.deadline: float | None = None
        #: the deadline as a time of day (see ``wall``)
        self.deadline_at: float | None = None
        self._prompt: Prompt | None = None
        #: while the person is asked: settled with their action, or with _LATE
        self._answer: asyncio.Future[Any] | None = None
        self._hurry = False
        #: the seconds of the turn asked now (the turn timer, or the away timer)
        self.timer = 0.0
        #: the seconds :meth:`give_back` moved its deadline on: the site's, not the person's
        self.given = 0.0
        #: the turn's timers set after its first: a moved deadline's, a move on its way
        #: waited for (:meth:`hold` drops them)
        self._later: list[asyncio.TimerHandle] = []
        self._moved = False

    # ---- the runner's side ----------------------------------------------------------------
    def begin(self, info: SeatInfo, timeout: float) -> None:
        self.seat = info.seat

    def send(self, prompt: Prompt) -> None:
        self._stop_timers()
        self.given, self._moved = 0.0, False
        self._prompt = prompt
        if not prompt.expects_answer:
            return  # a notice: the table's view already shows what happened
        self.turn += 1
        timer = 0.0 if self._hurry else (self.away_timer if self.away else self.turn_timer)
        self.timer = timer
        self.deadline = self.clock() + timer
        self.deadline_at = self.wall() + timer
        # One future a turn (and one timer while it is awaited): a waiting person costs the
        # event loop, and the garbage collector, a handful of objects. Made when asked, so an
        # answer that comes before the runner awaits it is kept.
        self._answer = asyncio.get_running_loop().create_future()
        if self._hurry:
            _settle(self._answer, _LATE)
        self.listener.on_turn(self.seat, self.turn, self.deadline, self.away)

    def receive(self, timeout: float) -> Any:
        raise RuntimeError("a person answers on an event loop: play with MatchRunner.run_async")

    async def receive_async(self, timeout: float) -> Any:
        try:
            action = await self._receive(timeout)
        finally:
            self._stop_timers()
        if self.given > 0.0:  # the time given back was the site's
            done = self.answered_at if self.answered_at is not None else self.clock()
            self.answered_at = done - self.given
        return action

    async def _receive(self, timeout: float) -> Any:
        prompt, answer = self._prompt, self._answer
        if prompt is None or not prompt.expects_answer or answer is None:
            return None
        assert self.deadline is not None
        limit = min(self.deadline, self.clock() + max(timeout - GRACE_S, 0.0))
        delay = max(limit - self.clock(), 0.0)
        loop = asyncio.get_running_loop()
        first = loop.call_later(delay, self._time_up, answer, loop.time() + delay)
        try:
            action = await answer
        finally:
            first.cancel()
            self._answer = None
            self.deadline = self.deadline_at = None
        self.defaulted = action is _LATE
        if action is not _LATE:
            if self.away:
                self.away = False
                self.listener.on_away(self.seat, False)
            return action
        if not self.away:
            self.away = True
            self.listener.on_away(self.seat, True)
        action = self.default(self.seat)  # (its note tells the person)
        if not self._hurry:
            self._taken(self.turn, own=False)  # the others: this seat is no longer awaited
        return action

    def answered_before(self, defaulted: bool) -> None:
        """A turn the person answered before the table was resumed (not asked again): the
        turns count on from it, and a default played for them leaves them away."""
        self.turn += 1
        self.away = self.defaulted = defaulted

    def _time_up(self, answer: asyncio.Future[Any], due: float, moved: bool = False) -> None:
        """The turn's timer ran out: the default is played, at once for an away person (or a
        closing table), else once a move received in time has had a moment to arrive. Not
        while the host cannot reach its sockets (the listener's ``layer_down``: the site's
        trouble), nor by the first timer of a turn whose deadline :meth:`give_back` moved on
        (``moved``: the later one's)."""
        if answer.done():
            return
        loop = asyncio.get_running_loop()
        late = max(loop.time() - due, 0.0)
        if not self._hurry:
            if self._moved and not moved:
                return
            if getattr(self.listener, "layer_down", False):
                return  # held: the host gives the turn back when its sockets are back
            if late >= STALL_S and self.listener.stalled(self.seat, late):
                return  # this process was stalled: the turn was given back
        if self.away or self._hurry:
            _settle(answer, _LATE)
            return
        # never past GRACE_S / 2 after the deadline: the runner's limit is GRACE_S beyond it
        wait = min(IN_FLIGHT_S + 2 * late, max(GRACE_S / 2 - late, 0.0))
        self._later.append(loop.call_later(wait, self._play_default, answer, loop.time() + wait))

    def _play_default(self, answer: asyncio.Future[Any], due: float) -> None:
        """A move on its way was waited for, and has not come: the default is played, unless
        this process was stalled meanwhile (then the turn is given back, as in
        :meth:`_time_up`)."""
        if answer.done():
            return
        late = max(asyncio.get_running_loop().time() - due, 0.0)
        if not self._hurry and late >= STALL_S and self.listener.stalled(self.seat, late):
            return
        _settle(answer, _LATE)

    def hold(self) -> None:
        """The site lost its connection: a default about to be played (the timer ran out, a
        move on its way is waited for) is not."""
        self._stop_timers()

    def give_back(self, seconds: float) -> bool:
        """The turn asked now ends ``seconds`` from now, the time added not the person's:
        the runner, which times the turn from when it was asked, is told the answer came that
        much sooner (:meth:`receive_async`). False if no turn is open."""
        answer = self._answer
        if answer is None or answer.done() or self._hurry or self.deadline is None:
            return False
        moved = self.clock() + seconds - self.deadline
        self.deadline += moved
        if self.deadline_at is not None:
            self.deadline_at += moved
        self.given = max(self.given + moved, 0.0)
        self._moved = True
        self._stop_timers()
        loop = asyncio.get_running_loop()
        due = loop.time() + seconds
        self._later.append(loop.call_later(seconds, self._time_up, answer, due, True))
        return True

    def _stop_timers(self) -> None:
        for timer in self._later:
            timer.cancel()
        self._later.clear()

    # ---- the browser's side (the same event loop) ------------------------------------------
    @property
    def waiting(self) -> bool:
        """True while the person is asked for a decision (and has not answered)."""
        return self._answer is not None and not self._answer.done()

    def offer(self, turn: int, action: Any, received_at: float | None = None) -> str | None:
        """A person's action: taken at once if it answers the turn asked and the rules allow
        it; otherwise why not (the caller tells the sender alone, who may try again).
        ``received_at``: when the person's socket received it (the time of day); once the
        turn's timer has run out, only a move received before the deadline is taken."""
        if self._answer is None:
            if turn == self.turn and self.turn > 0:
                # answered: by the default (the table awaits the others), or by another page
                # of the person's (a second tab), whose move the table has
                return TIME_RAN_OUT if self.defaulted else f"turn {self.turn} is already answered"
            return "it is not your turn"
        if turn == self.turn and self._answer.done():
            if self._answer.result() is _LATE:
                return TIME_RAN_OUT
            return f"turn {self.turn} is already answered"
        if turn != self.turn:
            return f"that action was for turn {turn}; it is turn {self.turn} now"
        if self.deadline is not None and self.clock() >= self.deadline:
            deadline_at = self.deadline_at
            if received_at is None or deadline_at is None or received_at > deadline_at:
                return TIME_RAN_OUT
        reason = self.check(self.seat, action)
        if reason is not None:
            return reason
        # when it came, on the runner's clock: not when the runner, busy with another seat
        # of a simultaneous turn, collects it
        self.answered_at = self.clock()
        self._answer.set_result(action)
        self._taken(turn)
        return None

    def _taken(self, turn: int, own: bool = True) -> None:
        """Tell the seat (all its pages; ``own``) that its move of ``turn`` is in: the server
        has it, whatever the table waits for now. At a simultaneous turn with others still to
        answer, everyone else hears that this seat's move is in (never which move), so they
        see who is awaited."""
        listener = self.listener
        if own:
            mine = {"type": "taken", "seat": self.seat, "turn": turn}
            listener.taken(f"seat:{self.seat}", self.seat, message_text(mine))
        state = getattr(listener, "state", None)
        if state is None or not any(s != self.seat for s in state.pending()):
            return  # nobody else is asked: the next view follows at once
        text = message_text({"type": "taken", "seat": self.seat})
        others = [f"seat:{seat}" for seat in listener.humans if seat != self.seat]
        for audience in ["public", *others]:
            listener.taken(audience, self.seat, text)  # (kept for a reload, sent if heard)

    def release(self) -> None:
        """The match is over: let go of the host (whose callables this holds, and which holds
        this), so that the table is freed as soon as it is dropped, not at the collector's
        next full pass."""
        self.listener = _Deaf()
        self.check = self.default = _gone

    def hurry(self) -> None:
        """The table is closing: play the default now and from now on."""
        self._hurry = True
        if self._answer is not None:
            _settle(self._answer, _LATE)


#: what a wait is settled with when the person's time is up (or the table closes)
_LATE = object()


def _settle(answer: asyncio.Future[Any], value: Any) -> None:
    if not answer.done():
        answer.set_result(value)


class _Deaf:
    humans: dict[int, Any] = {}

    def publish(self, audience: str, text: str) -> None:
        pass

    def watched(self, audience: str) -> bool:
        return False

    def on_turn(self, seat: int, turn: int, deadline: float, away: bool) -> None:
        pass

    def on_away(self, seat: int, away: bool) -> None:
        pass

    def stalled(self, seat: int, late: float) -> bool:
        return False

    def taken(self, audience: str, seat: int, text: str) -> None:
        pass


def _gone(*args: Any) -> Any:
    raise RuntimeError("the match is over")
