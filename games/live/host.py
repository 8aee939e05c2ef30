"""One live table's match, played on the web process's event loop through
:func:`bots.running.playing.play_async`.

The host is where a table's state lives: the engine's state inside the runner, and the last
view each audience was shown. It needs no thread of its own: while it waits for a person it
is a suspended coroutine, and built-in bots that decide within milliseconds are asked on the
loop; only what may block (a sandboxed bot's pipe, a built-in that thinks for long) goes to
one thread of the table's, made when first needed.

It speaks through one ``publish(audience, text)`` callable, called on the loop:
``seat:N`` (every socket of that seat), ``public`` (spectators), ``reply:NAME`` (one socket),
so the hub decides how messages travel and the host stays plain Python. A message is JSON
text, made once whoever hears it; the last one of each kind is kept, as text, for sockets
that (re)connect (text is not traced by the garbage collector: a table's views would be some
hundred containers more to trace in every collection). Every view comes
from the game's :class:`~games.engine.table.TableRules`, which shows a seat only what it may
see.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import json
import logging
import os
import re
import sys
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from django.core.cache import caches

from bots.outages import Backoff
from bots.running.playing import Entry, Played, play_async
from bots.running.process import PlatformError
from bots.sandbox import SandboxBusy, SandboxUnavailable, machine_lock_file
from games.engine.agents import BotCall, InProcessAgent
from games.engine.game import GameState, Prompt, faults_shown
from games.engine.journal import Journal, JournalMismatch
from games.engine.played_for import KEY as PLAYED_FOR
from games.engine.played_for import action_from, events_played_for
from games.engine.runner import TimeControl, refusal
from games.engine.table import TableRules, shown_names
from games.live.humans import GRACE_S, HumanAgent
from games.live.wire import message_text
from games.registry import GameSpec
from games.replays import card_view

log = logging.getLogger("games.live")

#: ``publish(audience, text)``: a message (JSON text) for an audience
Publish = Callable[[str, str], None]


class StepStore(Protocol):
    """Where a table's steps (games/engine/journal.py) are kept durably, so that another
    process can resume the match: the hub's, in the database."""

    def add(self, index: int, step: dict[str, Any]) -> None: ...

    def cut(self, index: int) -> None:
        """Forget the steps from ``index`` on."""


@dataclass
class SeatPlan:
    """Who sits in a seat: a person (``human``) or a bot (``entry`` says which)."""

    name: str
    kind: str  # human | bot
    entry: Entry | None = None


@dataclass
class Finish:
    """What the table's end hands to ``on_finish``: the match, or why there is none."""

    played: Played | None
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class TableLost(Exception):
    """What ``on_finish`` raises when the table is no longer this host's: another process
    took it over while this one was stuck, and plays it on. Nothing is stored or announced
    here (the new host ends the match for everyone)."""


class StoreWaits(Exception):
    """What ``on_finish`` raises when the database cannot take the table's end now (it is
    away, full, or locked past its timeout): nothing was stored. The host tells the people
    at the table that the match is over and its result waits to be saved, and tries again,
    after pauses that grow (:data:`STORE_RETRY_MOST_S`), until it is stored."""


class TableHost:
    def __init__(
        self,
        spec: GameSpec,
        seats: list[SeatPlan],
        *,
        seed: int,
        publish: Publish,
        watched: Callable[[str], bool] | None = None,
        config: dict[str, Any] | None = None,
        turn_timer: float = 30.0,
        away_timer: float = 5.0,
        on_finish: Callable[[Finish], Awaitable[dict[str, Any] | None]] | None = None,
        clock: Callable[[], float] = time.monotonic,
        steps: Iterable[tuple[int, dict[str, Any]]] = (),
        store: StepStore | None = None,
        rated: bool = False,
        away_turns_end: int | None = None,
        share: str = "",
    ) -> None:
        if spec.table is None:
            raise ValueError(f"{spec.slug} cannot be played at a live table")
        self.spec = spec
        self.rules: TableRules = spec.table()
        self.plans = seats
        self.seed = seed
        self.config = config
        self.publish = publish
        #: whether anyone listens to an audience now (the hub knows its sockets): the
        #: spectators' view is not worked out for an empty gallery
        self.watched = watched or (lambda audience: True)
        self.turn_timer = turn_timer
        #: whether the table is rated as it starts (its end says whether its match was): told
        #: with the seats, since who sits down decides it (a guest makes it unrated)
        self.rated = rated
        self.on_finish = on_finish
        #: the table ends, unrated, when every person at it was away for this many turns of
        #: their own in a row (0: never)
        self.away_turns_end = AWAY_TURNS_END if away_turns_end is None else away_turns_end
        #: each person's turns in a row played by the timer (a move of their own: 0 again)
        self._away_turns: dict[int, int] = {}
        self._everyone_away = False
        #: while this process cannot reach its channel layer (Redis is away: no socket reaches
        #: the table), and the people whose turn was open meanwhile (see :meth:`layer_lost`)
        self.layer_down = False
        self._held: set[int] = set()
        #: people whose turn was given back, whose page is not back yet (see layer_back)
        self._rejoining: set[int] = set()
        self._play: asyncio.Future[Played] | None = None
        self.clock = clock
        self.humans: dict[int, HumanAgent] = {}
        #: the built-in bots that think for long (:class:`HeavyBuiltin`)
        self.heavy: list[HeavyBuiltin] = []
        #: the event loop the table plays on (set as it starts): a heavy bot's thread tells
        #: the table through it that the bot waits for its turn to think
        self._loop: asyncio.AbstractEventLoop | None = None
        #: the ``wait`` message of each bot seat that waits for its turn to think (kept for
        #: reloads), and the timer that says it once the wait is long enough
        self._waiting: dict[int, str] = {}
        self._wait_timers: dict[int, asyncio.TimerHandle] = {}
        steps = list(steps)
        #: while a resumed match is played again up to where it stopped, nobody is shown
        #: anything: the table is shown once it is there (and a bot that thinks for long
        #: does not think again about moves whose answers are kept)
        self.catching_up = bool(steps)
        entries = []
        for seat, plan in enumerate(seats):
            if plan.kind == "human":
                agent = HumanAgent(
                    plan.name,
                    self,
                    check=self._check,
                    default=self._default,
                    turn_timer=turn_timer,
                    away_timer=min(away_timer, turn_timer),
                    clock=clock,
                )
                self.humans[seat] = agent
                entries.append(Entry(name=plan.name, agent=agent))
            elif plan.entry is not None:
                entry = dataclasses.replace(plan.entry, name=plan.name)
                heavy = heavy_builtin(spec, entry)
                if heavy is not None:  # (it thinks for long: see HeavyBuiltin)
                    heavy.replaying = self.catching_up
                    heavy.share = share
                    heavy.on_wait = functools.partial(self._waits_from_thread, seat)
                    self.heavy.append(heavy)
                    entry = dataclasses.replace(entry, agent=heavy)
                entries.append(entry)
            else:
                raise ValueError(f"seat {seat}: a bot seat needs an entry")
        self.entries = entries
        self.state: GameState | None = None
        self.finished = False
        self.result: dict[str, Any] | None = None
        #: the last message of each kind an audience was sent (JSON text)
        self._views: dict[str, str] = {}
        #: each person's open turn: (its number, its deadline on self.clock)
        self._turns: dict[int, tuple[int, float]] = {}
        #: what each person was told besides the table (their time ran out), kept for reloads:
        #: each note with the keys of the seat's log then, so that a reload puts it back where
        #: it came in the log (before the first line newer than it)
        self._notes: dict[int | None, list[tuple[frozenset[str], str]]] = {}
        #: the "taken" messages each audience heard since its last view (the "bid in" marks of
        #: a simultaneous turn, a person's own move that is in), by seat, kept for reloads
        self._marks: dict[str, dict[int, str]] = {}
        #: how many notes each person was told in all (each note's key is its number)
        self._told: dict[int, int] = {}
        #: the moves played for people whose time ran out, for the match's record
        #: (games/engine/played_for.py): [seat, event index] of each action event, and the
        #: defaults chosen whose action is not in the log yet (seat, the log's length then)
        self._played_for: list[list[int]] = []
        self._chosen: list[tuple[int, int]] = []
        self._over: dict[str, str] = {}
        #: the table's thread for calls that may block, made when first needed
        self._executor: ThreadPoolExecutor | None = None
        #: set once the match is over and everyone has been told
        self.done = asyncio.Event()
        #: the steps kept of the match so far (a resumed table), and where new ones go
        self._steps = steps
        self._store = store
        #: the people whose answer to the turn still open was kept (a resumed table): by
        #: seat, their turn's number, whether the timer played it, and the log's length then
        self._kept: dict[int, tuple[int, bool, int]] = {}
        #: the seats whose page asked this host for the table (a snapshot)
        self._paged: set[int] = set()
        #: a resumed table: until when (self.clock) a person whose page has not come to this
        #: host yet has their turn's timer start only once it does (see :meth:`on_turn`)
        self._pages_by: float | None = None
        #: the people none of whose pages has followed the table for :data:`NO_PAGE_S` (every
        #: tab closed, their network gone): the others are told (``seats``: ``gone``), and
        #: the timer that says it of a seat whose last page just went
        self._gone: set[int] = set()
        self._gone_timers: dict[int, asyncio.TimerHandle] = {}

    # ---- life cycle -----------------------------------------------------------------------
    async def run(self) -> None:
        """Play the match to the end; never raises (but may be cancelled)."""
        self._loop = asyncio.get_running_loop()
        for seat in self.humans:  # (a person whose page is not here yet: see pages_changed)
            self.pages_changed(seat)
        try:
            await self._run()
        finally:
            for timer in [*self._wait_timers.values(), *self._gone_timers.values()]:
                timer.cancel()
            if self._executor is not None:
                self._executor.shutdown(wait=False)
            for agent in self.humans.values():
                agent.release()
            self.done.set()

    async def _run(self) -> None:
        human_tc = TimeControl(move=self.turn_timer + GRACE_S, bank=0.0, startup=GRACE_S)
        # everyone who is already watching hears who sits where: a page drawn while a seat
        # was still open (the inviter's) learns the name of the person who took it
        seats = self._seats_message()
        for audience in self._audiences():
            self.publish(audience, seats)
        finish: Finish
        journal = None
        if self._store is not None or self._steps:
            journal = _TableJournal(self, self._steps, self._store)
            self._steps = []
        try:
            self._play = asyncio.ensure_future(
                play_async(
                    self.spec,
                    self.entries,
                    seed=self.seed,
                    config=self.config,
                    seat_time_controls=dict.fromkeys(self.humans, human_tc),
                    observer=self._observe,
                    offload=self._offload,
                    journal=journal,
                )
            )
            played = await self._play
            self._find_played_for(played.outcome.state)
            if self._played_for:  # (a match without such a move: its record as ever)
                played.outcome.record[PLAYED_FOR] = sorted(self._played_for, key=lambda p: p[1])
            finish = Finish(played)
            if self.rated and self._pages_by is not None:
                # a resumed table (its server stopped: the site's trouble) whose people did
                # not all come back to it: the turns of those who did not were played for
                # them, a result no one chose to play out, so it is not rated
                names = [self.plans[seat].name for seat in self.humans if seat not in self._paged]
                if names:
                    finish.extra["unrated"] = resumed_unrated(names)
        except PlatformError as exc:  # the site's trouble, never the bot's: no result
            log.warning("event=table.platform_error game=%s error=%s", self.spec.slug, exc)
            # the runner shows the state once every bot has started: the match had begun
            finish = Finish(None, error=platform_trouble(exc, started=self.state is not None))
        except JournalMismatch as exc:  # the game's code changed since the table began
            log.warning("event=table.resume_failed game=%s error=%s", self.spec.slug, exc)
            finish = Finish(None, error=f"the table could not be resumed: its log does not "
                                        f"replay with the game as it is now ({exc})")  # fmt: skip
        except Exception as exc:  # a table must end, whatever broke, and say so
            log.exception("event=table.failed game=%s", self.spec.slug)
            finish = Finish(None, error=f"the table stopped: {type(exc).__name__}: {exc}")
        stored = await self._store_end(finish)
        if stored is not None:
            self._announce_end(*stored)

    async def _store_end(self, finish: Finish) -> tuple[Finish, dict[str, Any]] | None:
        """Store the table's end (``on_finish``): the end to announce and what its people are
        told with it, or None if another process hosts the table now. While the database
        cannot take it (:class:`StoreWaits`), the people are told the result, and that it is
        not saved yet, and it is tried again until it is. A store that fails otherwise (an
        error of the site's) stores the table as stopped, with words saying so."""
        if self.on_finish is None:
            return finish, {}
        backoff = Backoff(STORE_RETRY_MOST_S)
        while True:
            try:
                extra = await self.on_finish(finish) or {}
            except TableLost:
                log.warning("event=table.end_not_kept game=%s: another process hosts it now",
                            self.spec.slug)  # fmt: skip
                return None
            except StoreWaits as exc:
                pause = backoff.next_pause()
                log.warning("event=table.store_waiting game=%s error=%s retry_in=%.1f",
                            self.spec.slug, exc, pause)  # fmt: skip
                if backoff.failures == 1:  # told once: the result, and that it waits
                    told = {"pending": True, "note": store_waiting(self.rated)}
                    self._announce_end(finish, told if finish.played is not None else {})
                await asyncio.sleep(pause)
                continue
            except Exception:
                log.exception("event=table.store_failed game=%s", self.spec.slug)
                if finish.played is None:  # (its reason is what they hear, stored or not)
                    return finish, {}
                finish = Finish(None, error=NOT_STORED)  # stored as a table that stopped
                continue
            waited = backoff.reset()
            if waited is not None:
                log.warning("event=table.stored game=%s after_waiting=%.1fs", self.spec.slug,
                            waited)  # fmt: skip
            return finish, extra

    async def _offload(self, call: Callable[[], Any]) -> Any:
        """Run a call that may block in the table's own thread, one call after another as
        the runner makes them: a slow bot holds up its table, never the event loop."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="table")
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def close(self) -> None:
        """Everyone left: every person's moves are played by default at once, and a built-in
        bot that thinks for long plays its quick rule (a match nobody watches is not worth a
        core of the web process)."""
        for agent in self.humans.values():
            agent.hurry()
        for bot in self.heavy:
            bot.hurry()

    # ---- the browser's side ---------------------------------------------------------------
    def submit(
        self,
        seat: int,
        turn: Any,
        action: Any,
        reply_to: str | None = None,
        received_at: float | None = None,
    ) -> None:
        """A person's action; refusals go back to ``reply_to`` (the socket) alone.
        ``received_at``: when the person's socket received it (``time.time()``), which
        decides whether a move that comes after the turn's timer was in time."""
        agent = self.humans.get(seat)
        if agent is None:
            self._reply(reply_to, f"seat {seat} is not a person's seat")
            return
        self._paged.add(seat)  # (a page of theirs reaches this host)
        if self.finished:
            self._reply(reply_to, "the match is over")
            return
        if not isinstance(turn, int) or isinstance(turn, bool):
            self._reply(reply_to, "an action must say which turn it answers")
            return
        stamp = received_at if isinstance(received_at, float) else None
        refused = agent.offer(turn, action, stamp)
        if refused is not None:
            self._reply(reply_to, refused, seat=seat)

    def snapshot(self, seat: int | None) -> list[str]:
        """Everything a (re)connecting socket needs to draw the table: the view, whose turn
        it is, who is away, and the end if the match is over."""
        audience = "public" if seat is None else f"seat:{seat}"
        if seat is not None:
            self._paged.add(seat)
        if seat in self._rejoining:  # their page is back: their whole timer, from now
            self._rejoining.discard(seat)
            self._give_back(seat, self.humans[seat].timer)
        messages = [self._seats_message()]
        if seat is None and audience not in self._views and self.state is not None:
            self._views[audience] = self._view_message(self.state, None)  # first spectator
        notes = self._notes.get(seat, [])
        if audience in self._views:
            view = self._views[audience]
            # the notes in the log, each where it came (the page shows a line once)
            messages.append(_with_notes(view, notes) if notes else view)
        # the notes before the turn: each names the turn it was played for (a page ends its
        # turn only on a note of that very turn), and none of them is the turn asked now
        messages += [text for _, text in notes]
        if seat is not None and seat in self._turns and self.humans[seat].waiting:
            # the time left now, not the whole timer: a reload does not give a person time
            messages.append(self._turn_message(seat, *self._turns[seat]))
        messages += self._marks.get(audience, {}).values()
        messages += self._waiting.values()  # a bot waiting for its turn to think
        if audience in self._over:
            messages.append(self._over[audience])
        return messages

    # ---- the runner's side ----------------------------------------------------------------
    def _observe(self, state: GameState) -> None:
        self.state = state
        if self._chosen:
            self._find_played_for(state)
        if self.catching_up:
            return
        for seat in [None, *self.humans]:  # bots hear through their Agents
            audience = "public" if seat is None else f"seat:{seat}"
            if seat is None and not self.watched(audience):
                self._views.pop(audience, None)  # worked out when a spectator comes
                self._marks.pop(audience, None)
                continue
            message = self._view_message(state, seat)
            if self._views.get(audience) != message:
                self._views[audience] = message
                self._marks.pop(audience, None)  # the page clears them with a new view
                self.publish(audience, message)

    def _view_message(self, state: GameState, seat: int | None) -> str:
        return message_text(view_message(self.rules, state, seat, [p.name for p in self.plans]))

    def _check(self, seat: int, action: Any) -> str | None:
        state = self.state
        if state is None:
            return "the match has not started"
        return refusal(state, seat, action)

    def _default(self, seat: int) -> Any:
        """The safe move of a person whose time ran out; their log says what it was, and the
        match's record that it was played for them."""
        assert self.state is not None
        action = self.rules.default_action(self.state, seat)
        self._chosen.append((seat, len(self.state.log)))
        if not self.state.is_over():
            self.publish(f"seat:{seat}", self._note_played_for(seat, action))
        self._away_turns[seat] = self._away_turns.get(seat, 0) + 1
        self._end_if_everyone_away()
        return action

    def _end_if_everyone_away(self) -> None:
        """Every person at the table let :attr:`away_turns_end` turns of their own in a row
        pass: nobody plays it any more, so the rest of the match is played by the timer's
        defaults at once (as when everyone leaves, :meth:`close`), rather than holding its
        places in the people's limits while the timer plays on alone for up to its game's
        last turn. The match ends as it would have, its result stored (rated where the table
        is): walking away from a losing rated table does not void it."""
        most = self.away_turns_end
        if not most or self._everyone_away or self._play is None or self._play.done():
            return
        if all(self._away_turns.get(seat, 0) >= most for seat in self.humans):
            self._everyone_away = True
            log.info("event=table.everyone_away game=%s", self.spec.slug)
            self.close()

    def _note_played_for(self, seat: int, action: Any) -> str:
        """The note of a default played for ``seat`` now, kept for reloads."""
        assert self.state is not None
        notes = self._notes.setdefault(seat, [])
        number = self._told[seat] = self._told.get(seat, 0) + 1
        turn = self.humans[seat].turn  # (the turn the default answers: the person's last)
        note = played_for_note(self.rules, self.state, seat, action, number - 1, turn=turn)
        message = message_text(note)
        # the lines of the seat's log now: the note comes after them (before the move's)
        log = self.rules.frame(self.state, seat, [p.name for p in self.plans])["log"]
        notes.append((frozenset(entry["key"] for entry in log), message))
        del notes[:-NOTES_KEPT]
        return message

    def _find_played_for(self, state: GameState) -> None:
        """The defaults chosen so far that are in the log now: the record's pairs."""
        for seat, at in self._chosen:
            index = action_from(state.log, seat, at)
            if index is not None:
                self._played_for.append([seat, index])
        self._chosen = []

    # Journal (a resumed table)
    def _replayed(self, seat: int, step: dict[str, Any] | None) -> None:
        """A person's turn answered before the table was resumed: their turn count, whether
        they are away, and the note of a default played for them, as they were."""
        human = self.humans.get(seat)
        if human is None or step is None or "a" not in step:
            return
        defaulted = bool(step.get("d"))
        human.answered_before(defaulted)
        self._away_turns[seat] = self._away_turns.get(seat, 0) + 1 if defaulted else 0
        if self.state is not None:  # (its turn may still be open: see _caught_up)
            self._kept[seat] = (human.turn, defaulted, len(self.state.log))
        if defaulted and self.state is not None:
            self._chosen.append((seat, len(self.state.log)))
            if not self.state.is_over():
                self._note_played_for(seat, step["a"])

    def _caught_up(self) -> None:
        """The resumed match is where it stopped: show it (the people's open turns follow),
        with the moves that were in at a simultaneous turn still open marked as they were
        ("taken": the person's own pages, and everyone else's while others are awaited)."""
        if not self.catching_up:
            return
        self.catching_up = False
        for bot in self.heavy:
            bot.replaying = False  # (it thinks again from here on)
        self._pages_by = self.clock() + PAGE_WAIT_S
        seats = self._seats_message()
        for audience in self._audiences():
            self.publish(audience, seats)
        state = self.state
        if state is None:
            return
        self._observe(state)
        pending = state.pending()
        for seat, (turn, defaulted, at) in sorted(self._kept.items()):
            # kept since the log last grew, the seat still asked: the turn is still open
            if at == len(state.log) and seat in pending:
                self.humans[seat]._taken(turn, own=not defaulted)
        self._kept = {}

    # Listener (HumanAgent)
    def taken(self, audience: str, seat: int, text: str) -> None:
        """A ``taken`` message for ``audience``: sent if anyone listens, and kept until the
        audience's next view, so that a reload shows whose move is in."""
        self._marks.setdefault(audience, {})[seat] = text
        if self.watched(audience):
            self.publish(audience, text)

    def on_turn(self, seat: int, turn: int, deadline: float, away: bool) -> None:
        self._turns[seat] = (turn, deadline)
        self._rejoining.discard(seat)
        if self.layer_down:  # asked while nobody can answer: given back once they can
            self._held.add(seat)
        if self._pages_by is not None and seat not in self._paged and not away:
            # (once the agent has set the turn up: it is asking now)
            asyncio.get_running_loop().call_soon(self._wait_for_page, seat, turn)
        self.publish(f"seat:{seat}", self._turn_message(seat, turn, deadline))

    def _wait_for_page(self, seat: int, turn: int) -> None:
        """A resumed table asks a person none of whose pages has come to this host yet: it
        was left on the server that stopped (a server stuck for a while keeps its sockets
        until it notices), or is still connecting again. That is the site's trouble, so the
        turn's whole timer starts once their page comes (:meth:`snapshot`), and at the latest
        :data:`PAGE_WAIT_S` after the resume: a person who left is played for then."""
        agent = self.humans[seat]
        extra = (self._pages_by or 0.0) - self.clock()
        if seat in self._paged or agent.turn != turn or not agent.waiting or extra <= 0:
            return
        if self._give_back(seat, extra + agent.timer):
            self._rejoining.add(seat)

    def _turn_message(self, seat: int, turn: int, deadline: float) -> str:
        """The ``turn`` message of ``seat``: the time it has left now, and the move the table
        plays for it if that runs out, as its buttons name it (:func:`default_words`)."""
        return message_text({
            "type": "turn",
            "turn": turn,
            "seconds": round(max(deadline - self.clock(), 0.0), 1),
            "default": default_words(self.rules, self.state, seat),
        })  # fmt: skip

    def on_away(self, seat: int, away: bool) -> None:
        if not away:
            self._away_turns[seat] = 0  # a move of their own
        message = self._seats_message()
        for audience in self._audiences():
            self.publish(audience, message)

    # ---- the people's pages ---------------------------------------------------------------
    def pages_changed(self, seat: int) -> None:
        """A page of ``seat`` came to the table or left it (the hub counts them, here and in
        other processes). A person none of whose pages has followed the table for
        :data:`NO_PAGE_S` is said to be gone, to everyone at it (``seats``: ``gone``), until a
        page of theirs is back: the others then know why the table waits for them (their turns
        are played for them when their timer runs out, as ever). A reload, or a page that
        connects again after a short drop, is back before anyone is told."""
        if seat not in self.humans or self._loop is None or self.finished:
            return
        if self.watched(f"seat:{seat}"):
            timer = self._gone_timers.pop(seat, None)
            if timer is not None:
                timer.cancel()
            if seat in self._gone:
                self._gone.discard(seat)
                self._to_everyone(self._seats_message())
        elif seat not in self._gone and seat not in self._gone_timers:
            self._gone_timers[seat] = self._loop.call_later(NO_PAGE_S, self._no_page, seat)

    def _no_page(self, seat: int) -> None:
        self._gone_timers.pop(seat, None)
        if self.finished or seat in self._gone or self.watched(f"seat:{seat}"):
            return
        self._gone.add(seat)
        self._to_everyone(self._seats_message())

    # HeavyBuiltin: a bot that waits for its turn to think
    def _waits_from_thread(self, seat: int, waiting: bool) -> None:
        """From the table's thread: the bot of ``seat`` begins (or ends) waiting for its turn
        to think (:func:`place_to_think`)."""
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # (the loop closed: nobody to tell)
            loop.call_soon_threadsafe(self._bot_waits, seat, waiting)

    def _bot_waits(self, seat: int, waiting: bool) -> None:
        """The bot of ``seat`` waits for its turn to think (``waiting``), or has it now. A wait
        longer than :data:`WAIT_SAID_S` is said to everyone at the table (:data:`BOT_WAITS`),
        in a ``wait`` message, until the bot has its turn (the same message, without text)."""
        timer = self._wait_timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        if waiting:
            loop = asyncio.get_running_loop()
            self._wait_timers[seat] = loop.call_later(WAIT_SAID_S, self._say_waiting, seat)
        elif self._waiting.pop(seat, None) is not None:
            self._to_everyone(message_text({"type": "wait", "seat": seat, "text": ""}))

    def _say_waiting(self, seat: int) -> None:
        self._wait_timers.pop(seat, None)
        if self.finished:
            return
        said = BOT_WAITS.format(name=self.plans[seat].name)
        message = self._waiting[seat] = message_text({"type": "wait", "seat": seat, "text": said})
        self._to_everyone(message)

    def _to_everyone(self, message: str) -> None:
        """``message`` for every audience (the spectators' if anyone watches)."""
        for audience in self._audiences():
            if audience != "public" or self.watched(audience):
                self.publish(audience, message)

    # ---- the site's connection (the hub's channel layer) -------------------------------
    def layer_lost(self) -> None:
        """This process cannot reach its channel layer (Redis is away): no socket reaches
        the table and none can connect, so nobody can move. Until :meth:`layer_back`, a
        person's turn whose timer runs out is held, not played by default (see
        ``HumanAgent._time_up``), and every turn open meanwhile is given back: the site's
        trouble never plays a move for anyone, nor counts towards their being away."""
        if self.layer_down:
            return
        self.layer_down = True
        for seat, agent in self.humans.items():
            if agent.waiting:
                self._held.add(seat)
                agent.hold()

    def layer_back(self, seconds: float) -> None:
        """The channel layer answers again, after ``seconds``. Each turn open meanwhile gets
        its whole timer again, counted from when the person's page is back (its first
        snapshot; the pages try to connect again at least every :data:`REJOIN_S`), and
        everyone at the table is told in their log."""
        self.layer_down = False
        held, self._held = self._held, set()
        if self.finished:
            return
        lost = f"The site lost its connection for {max(round(seconds), 1)} s; "
        key = f"outage{time.time_ns() // 1_000_000}"  # (one a page has not had)
        for seat, agent in self.humans.items():
            given = seat in held and self._give_back(seat, REJOIN_S + agent.timer)
            if given:
                self._rejoining.add(seat)
            said = "your time was given back." if given else "no one's time ran out meanwhile."
            self._tell(seat, key, lost + said)
        self._tell(None, key, lost + "no one's time ran out meanwhile.")

    def stalled(self, seat: int, late: float) -> bool:
        """The person's turn timer fired ``late`` seconds late: this process was stalled
        (stopped, or its event loop held up), and no move could reach the table meanwhile.
        The site's trouble, as an outage is: the turn gets its whole timer again, from now,
        and the person is told. (A table another process took over meanwhile is let go of
        once this one notices, and nothing this one writes of it is kept: see
        ``tables.write_steps``.)"""
        if self.finished or not self._give_back(seat, self.humans[seat].timer):
            return False
        key = f"stall{time.time_ns() // 1_000_000}"
        self._tell(seat, key, f"{STALLED} {max(round(late), 1)} s; your time was given back.")
        return True

    def _give_back(self, seat: int, seconds: float) -> bool:
        """The person's open turn ends ``seconds`` from now; False if none is open."""
        agent = self.humans[seat]
        if not agent.give_back(seconds):
            return False
        assert agent.deadline is not None
        self._turns[seat] = (agent.turn, agent.deadline)
        self.publish(f"seat:{seat}", self._turn_message(seat, agent.turn, agent.deadline))
        return True

    def _tell(self, seat: int | None, key: str, text: str) -> None:
        """A note for ``seat``'s log (None: the spectators'), kept for reloads."""
        message = message_text({"type": "note", "key": key, "text": text})
        names = [p.name for p in self.plans]
        log = self.rules.frame(self.state, seat, names)["log"] if self.state is not None else []
        notes = self._notes.setdefault(seat, [])
        notes.append((frozenset(entry["key"] for entry in log), message))
        del notes[:-NOTES_KEPT]
        audience = "public" if seat is None else f"seat:{seat}"
        if seat is not None or self.watched(audience):
            self.publish(audience, message)

    # ---- helpers ----------------------------------------------------------------------
    def _audiences(self) -> list[str]:
        return ["public", *(f"seat:{seat}" for seat in self.humans)]

    def _seats_message(self) -> str:
        return message_text({
            "type": "seats",
            "seats": [
                {
                    "seat": seat,
                    "name": plan.name,
                    "kind": plan.kind,
                    "away": seat in self.humans and self.humans[seat].away,
                    "gone": seat in self._gone,
                }
                for seat, plan in enumerate(self.plans)
            ],
            "rated": self.rated,
        })  # fmt: skip

    def _reply(self, reply_to: str | None, reason: str, seat: int | None = None) -> None:
        message = message_text({"type": "error", "error": reason})
        if reply_to is not None:
            self.publish(f"reply:{reply_to}", message)
        elif seat is not None:
            self.publish(f"seat:{seat}", message)

    def _announce_end(self, finish: Finish, extra: dict[str, Any]) -> None:
        state = self.state
        self.finished = True
        for seat in [None, *self.humans]:
            audience = "public" if seat is None else f"seat:{seat}"
            if finish.played is not None and state is not None:
                self.result = finish.played.outcome.result
                names = [plan.name for plan in self.plans]
                message = over_message(self.rules, state, seat, names, extra)
            else:
                # no match was stored, so none was rated (the page's header says so)
                message = {"type": "over", "error": finish.error, "rated": False} | extra
            self._over[audience] = message_text(message)
        for audience in self._audiences():
            self.publish(audience, self._over[audience])


class _TableJournal(Journal):
    """A table's journal: new steps go to the store (a person's answer says whether it was
    played for them), steps played again restore the people's turns."""

    def __init__(
        self,
        host: TableHost,
        steps: Iterable[tuple[int, dict[str, Any]]],
        store: StepStore | None,
    ) -> None:
        super().__init__(steps)
        self.host, self.store = host, store

    def record(self, index: int, step: dict[str, Any]) -> None:
        human = self.host.humans.get(step["s"])
        if human is not None and human.defaulted and "a" in step:
            step["d"] = 1
        if self.store is not None:
            self.store.add(index, step)

    def forget_from(self, index: int) -> None:
        if self.store is not None:
            self.store.cut(index)

    def replayed(self, seat: int, step: dict[str, Any] | None) -> None:
        self.host._replayed(seat, step)

    def caught_up(self) -> None:
        self.host._caught_up()


#: the notes of a person's table kept for a reload (the latest)
NOTES_KEPT = 20

#: the turns of their own in a row that every person at a table must have let pass (the timer
#: played them) for the rest of its match to be played by default at once: with the away
#: timer, over a minute and a half
#: of nobody at the table (a first whole timer, then the short ones), so that a short
#: absence (a phone asleep, a reload) never ends it, and an abandoned table does not play on
#: by itself for up to its game's last turn
AWAY_TURNS_END = 20

#: how long after a resume a person whose page has not come to the new host yet may take to
#: come before their turn's timer starts (see TableHost._wait_for_page)
PAGE_WAIT_S = 60.0

#: a person none of whose pages has followed their table for this long (every tab closed,
#: their network gone) is said to be gone to the others at it (TableHost.pages_changed): a
#: reload, or a page that connects again after a short drop, is back before that
NO_PAGE_S = 8.0

#: the longest a table's page waits before it tries to connect again (static/js/table.js):
#: a turn given back after the site lost its connection waits this long for the person's
#: page to be back, on top of its whole timer
REJOIN_S = 15.0

#: how many built-in bots that think for long (not ``quick``: Blackjack++'s cfr solves each
#: deal, half a second of CPU) think at once in a web process. Each table asks its bot from a
#: thread of its own: without this one person's five tables solved five deals at once, and
#: took every core of the machine from everyone else's pages (docs/live-tables.md). The wait
#: for a turn to think is the site's, not the bot's: it is charged to none of its time.
HEAVY_AT_ONCE = 1


class FairPlaces:
    """``count`` places, given in the order they were asked for. (threading's semaphore lets
    a thread that asks as a place frees take it ahead of the one waiting longest: the next
    table of a client whose turn had just passed took the place before another client's bot,
    which had waited its turn, woke.)"""

    def __init__(self, count: int) -> None:
        self._free = count
        self._waiting: collections.deque[object] = collections.deque()
        self._changed = threading.Condition()

    def acquire(self, timeout: float | None = None) -> bool:
        me = object()
        with self._changed:
            self._waiting.append(me)
            if not self._changed.wait_for(
                lambda: self._waiting[0] is me and self._free > 0, timeout
            ):
                self._waiting.remove(me)
                self._changed.notify_all()  # (the next in line may be first now)
                return False
            self._waiting.popleft()
            self._free -= 1
            self._changed.notify_all()
            return True

    def release(self) -> None:
        with self._changed:
            self._free += 1
            self._changed.notify_all()

    def __enter__(self) -> FairPlaces:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


_THINKING = FairPlaces(HEAVY_AT_ONCE)


#: a bot that waits this long for its turn to think is said to wait, at its table
WAIT_SAID_S = 1.0
#: what everyone at the table reads meanwhile (after the table's status line)
BOT_WAITS = (
    "{name} is waiting for its turn to think: the site is busy, and bots that think for long "
    "think one at a time."
)

#: the turns of the openers (:func:`turn_of`) are flocks on this many files of the machine:
#: two openers whose keys fall on one file take turns with each other too
TURN_FILES = 1024
#: the same, in this process, where the machine's lock folder is not safe to use
_TURNS = [threading.Lock() for _ in range(TURN_FILES)]


@contextlib.contextmanager
def turn_of(share: str) -> Iterator[None]:
    """The turn of ``share`` (whose tables these are: the guests of one address, or one
    signed-in person, ``tables.thinking_share``) to queue for a place to think: one of its
    tables at a time, on this machine, waits for a place or thinks (an flock on a file of
    the machine's lock folder, so every web process of the machine keeps it). So one
    client's many tables wait behind each other, not ahead of everyone else's: each other
    table waits for one think of theirs at most, not one per table. No ``share``: no turn."""
    if not share:
        yield
        return
    number = zlib.crc32(share.encode()) % TURN_FILES
    try:
        path = machine_lock_file(f"heavy-turn-{number}")
    except SandboxUnavailable:
        with _TURNS[number]:
            yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (the lock goes with it)


@contextlib.contextmanager
def place_to_think(share: str = "") -> Iterator[None]:
    """One of the machine's :data:`HEAVY_AT_ONCE` places for a built-in bot that thinks for
    long, held while it thinks: first its opener's turn (:func:`turn_of`), then this
    process's place (a semaphore), then the machine's (an flock on one of that many files,
    shared by every web process of the machine), so that ``WEB_PROCESSES=N`` do not think
    on N cores at once. A machine whose lock folder is not safe to use (bots.sandbox) keeps
    the process's place alone."""
    with turn_of(share), _THINKING:
        try:
            paths = [machine_lock_file(f"heavy-thinking-{n}") for n in range(HEAVY_AT_ONCE)]
        except SandboxUnavailable:
            yield
            return
        wait = 0 if len(paths) == 1 else fcntl.LOCK_NB  # (one place: wait on it)
        while True:
            for path in paths:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | wait)
                except BlockingIOError:
                    os.close(fd)
                    continue
                try:
                    yield
                finally:
                    os.close(fd)  # (the lock goes with it)
                return
            time.sleep(0.01)


def thinks_for_long(spec: GameSpec, builtin: str) -> bool:
    """Whether the game's built-in bot ``builtin`` thinks for long (its class is not
    ``quick``)."""
    return not getattr(spec.builtin_class(builtin), "quick", False)


def heavy_builtin(spec: GameSpec, entry: Entry) -> HeavyBuiltin | None:
    """The agent of ``entry`` if it is a built-in bot that thinks for long, played in this
    process; None for any other seat."""
    if entry.builtin is None or entry.agent is not None:
        return None
    if not thinks_for_long(spec, entry.builtin):
        return None
    return HeavyBuiltin(spec.builtin_class(entry.builtin), spec.bot_call, entry.name)


class HeavyBuiltin(InProcessAgent):
    """A built-in bot that thinks for long, at a live table. It thinks in its table's thread
    (it is ``blocking``), one such bot of the process at a time (:data:`HEAVY_AT_ONCE`); the
    wait for its turn is its ``starved_s``, which the runner charges to none of its time. At
    a table played out by default (:meth:`TableHost.close`: everyone is away), or played again
    up to where it stopped (a resumed match: the answers are kept), it plays its quick rule at
    once, if its class has one: a class that does has a ``hurried`` attribute, which is set on
    its bot for such moves (Blackjack++'s cfr: the simple rule, no solve)."""

    def __init__(self, factory: Callable[[], Any], bot_call: BotCall, name: str) -> None:
        super().__init__(factory, bot_call, name)
        #: the table is played out by default: from now on, the quick rule
        self.hurried = False
        #: a resumed match is played again up to where it stopped: the quick rule meanwhile
        self.replaying = False
        #: how long the last call waited for its turn to think (the site's time, not the bot's)
        self.starved_s = 0.0
        #: whose tables its table is (``tables.thinking_share``): their bots take one turn
        #: at a time (:func:`turn_of`)
        self.share = ""
        #: told (from the table's thread) as it begins to wait for its turn to think (True)
        #: and as it has it (False): its table says so to everyone at it
        self.on_wait: Callable[[bool], None] | None = None
        self.quick_rule = hasattr(factory, "hurried")
        #: where what it works out is kept for every web process, if its class can use it
        self.shared = SharedWork.of(factory) if hasattr(factory, "shared") else None

    def hurry(self) -> None:
        self.hurried = True

    def send(self, prompt: Prompt) -> None:
        self.starved_s = 0.0
        quick = self.hurried or self.replaying
        if self.quick_rule and self.bot is not None:
            self.bot.hurried = quick
        if self.shared is not None and self.bot is not None:
            self.bot.shared = self.shared
        if not prompt.expects_answer or (quick and self.quick_rule):
            super().send(prompt)  # a notice, or the quick rule: at once
            return
        asked = time.monotonic()
        tell = self.on_wait or (lambda waiting: None)
        tell(True)
        waits = True
        try:
            with place_to_think(self.share):
                self.starved_s = time.monotonic() - asked
                waits = False
                tell(False)
                super().send(prompt)
        finally:
            if waits:  # (no place was had: the wait is over all the same)
                tell(False)


#: how long the site keeps what a heavy built-in worked out (a solved deal): a solution
#: never changes for the bot's code that made it, and a deal not played for a week is
#: solved again if it comes
SHARED_WORK_S = 7 * 24 * 3600


class SharedWork:
    """What a heavy built-in bot works out (Blackjack++'s cfr: a deal's solution, half a
    second of CPU), kept in the site's default cache (Redis, where the site has one) so that
    no web process works out again what another already has: a site of many processes and
    tables solves each deal once, not once a process. Keys are the bot's own, under its
    module and a digest of that module's source (a changed bot never reads what an older
    one worked out). The cache saves time and never decides a move: one that cannot be
    reached is a miss, and the bot works it out itself."""

    _made: dict[type, SharedWork] = {}

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @classmethod
    def of(cls, factory: Any) -> SharedWork:
        made = cls._made.get(factory)
        if made is None:
            module = sys.modules[factory.__module__]
            source = Path(module.__file__ or "").read_bytes()
            digest = hashlib.sha256(source).hexdigest()[:16]
            made = cls._made[factory] = cls(f"heavy-work:{factory.__module__}:{digest}")
        return made

    def _key(self, key: Any) -> str:
        return f"{self.prefix}:{json.dumps(key, separators=(',', ':'))}"

    def get(self, key: Any) -> Any:
        try:
            return caches["default"].get(self._key(key))
        except Exception:  # an unreachable cache is a miss
            log.warning("event=shared_work.unreachable prefix=%s", self.prefix, exc_info=True)
            return None

    def set(self, key: Any, value: Any) -> None:
        try:
            caches["default"].set(self._key(key), value, SHARED_WORK_S)
        except Exception:  # kept in this process anyway
            log.warning("event=shared_work.unreachable prefix=%s", self.prefix, exc_info=True)


#: what a person whose turn's timer ran out while the table's server was stalled is told
#: (then "N s; your time was given back."): see TableHost.stalled
STALLED = "The server running this table was held up for"


#: a table's end that the database cannot take now is tried again after 0.5 s, then after
#: twice as long each time, up to this many seconds (bots.outages.Backoff)
STORE_RETRY_MOST_S = 10.0


def resumed_unrated(names: list[str]) -> str:
    """Why a resumed table is not rated: ``names``' pages never came back to it."""
    whose = " and ".join(names)
    return (
        f"The site's server stopped during this table, and {whose} did not come back to it: "
        "their turns were played for them, so this table is not rated."
    )


def store_waiting(rated: bool) -> str:
    """What the people at a table are told, after its result, while the database cannot
    take the match (:class:`StoreWaits`)."""
    saved = "saved and rated" if rated else "saved"
    return (
        "Not saved yet: the site cannot write to its database just now. The result is "
        f"{saved} as soon as the site can write again; this page says so then."
    )


#: why a table stopped whose match was played to its end but could not be stored, for an
#: error of the site's that is not the database being away
NOT_STORED = (
    "the match was played to its end, but the site could not save it (an error of the "
    "site's, not yours): it has no replay and is not rated"
)

#: what the people at a table hear when the site has no sandbox for its uploaded bot
SITE_BUSY = "the bot could not start: the site is busy; this table is not rated"
#: what they hear when the site lost the process of a bot that had started (its sandbox was
#: killed under it, say): the site's trouble too, never the bot's
PROCESS_LOST = (
    "the site lost the bot's process (its trouble, not the bot's); this table is not rated."
)
#: what they hear when the web process playing the table was held up (stopped, swapped out)
#: while the bot thought: its reply's time cannot be told (bots.running.stalls)
SERVER_HELD_UP = (
    "the site's server was held up for {seconds} s while the bot thought (its trouble, not the "
    "bot's); this table is not rated."
)
#: what they hear when the machine was too busy to give a bot that had started its time
TOO_BUSY = (
    "the site's machine was too busy to give the bot its time (its trouble, not the bot's); "
    "this table is not rated."
)


def platform_trouble(exc: PlatformError, started: bool = False) -> str:
    """Why a table ends whose bot the platform could not start or, ``started`` (the bots
    had started and the match had begun), could not keep running, for its people: never a
    result (no one wins or loses, nothing is rated)."""
    if started:
        said = str(exc)
        # (bots.running.stalls: this web process was held up while the bot thought)
        held = re.match(r"the process playing the match was held up for ([\d.]+) s", said)
        if held:
            return SERVER_HELD_UP.format(seconds=held[1])
        # (bots.running.starved.too_busy: the machine kept the bot waiting for a CPU)
        return TOO_BUSY if said.startswith("the machine is too busy") else PROCESS_LOST
    if isinstance(exc, SandboxBusy) or "did not start within" in str(exc):
        return SITE_BUSY
    return (
        "the bot could not start: the site cannot run uploaded bots right now (its trouble, "
        "not the bot's); this table is not rated"
    )


def view_message(
    rules: TableRules, state: GameState, seat: int | None, names: list[str]
) -> dict[str, Any]:
    """The ``state`` message: the table as ``seat`` (None: a spectator) sees it now, its
    actions and the cards they show. ``names``: the seats' names."""
    frame = rules.frame(state, seat, names)
    actions = [] if seat is None or state.is_over() else rules.actions(state, seat)
    return {"type": "state", "frame": frame, "actions": actions, "cards": cards_of(frame, actions)}


def over_message(
    rules: TableRules,
    state: GameState,
    seat: int | None,
    names: list[str],
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The ``over`` message of a match played to its end, for ``seat``: the result as the
    seat may see it, in one sentence too, and ``extra`` (the stored match's address, whether
    it was rated, a ``note`` saying why it was not)."""
    return result_message(rules, rules.result(state, seat), seat, names, extra)


def result_message(
    rules: TableRules,
    result: dict[str, Any],
    seat: int | None,
    names: list[str],
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The ``over`` message of ``result`` as ``seat`` may see it (see :func:`over_message`);
    the reasons of its faults on one line, escaped and cut, as every page shows them."""
    result = faults_shown({"result": result})["result"]
    summary = rules.ending(result, shown_names(names), seat)
    if extra.get("note"):  # why the result is not rated, say
        summary = f"{summary} {extra['note']}"
    return {"type": "over", "result": result, "summary": summary} | extra


#: the log lines a table's page keeps (static/js/table.js's LOG_KEPT): the oldest go
LOG_KEPT = 200


def played_for_note(
    rules: TableRules,
    state: GameState,
    seat: int,
    action: Any,
    number: int,
    turn: int | None = None,
) -> dict[str, Any]:
    """The ``note`` telling ``seat`` that ``action`` is played for it now (in ``state``), its
    time having run out: "Time ran out, so this was played for you: fold." ``number``: how
    many notes the seat was told before (its key); ``turn``: the number of the seat's turn it
    answers (the page ends that turn, and no other, on it: a reload hears the notes of earlier
    turns too)."""
    said = action_words(rules.actions(state, seat), action)
    what = said or rules.default_action_text
    note: dict[str, Any] = {
        "type": "note",
        "key": f"timeout{number}",
        "text": f"Time ran out, so this was played for you: {what}.",
    }
    if turn is not None:
        note["turn"] = turn
    return note


def final_messages(
    spec: GameSpec, record: dict[str, Any], seat: int | None, names: list[str],
    extra: dict[str, Any],
) -> list[dict[str, Any]]:  # fmt: skip
    """What the page of ``seat`` (None: a spectator) showed when the match of ``record`` (as
    stored: every card) ended: the last ``state`` message, whose log holds every line that
    page was shown, in order (the last :data:`LOG_KEPT`), and the ``over`` message.

    The match is played again from its record and each state is shown to ``seat`` as the
    host showed it, so a finished table looks as it did, to whoever looks, long after the
    process that played it is gone; and it keeps as secret what the table kept secret (a
    view built for a seat holds only what that seat may see). A person's log has its notes
    back ("Time ran out, so this was played for you: fold."), each where the page showed
    it, before the line of the move: the record says which moves the table played for whom
    (games/engine/played_for.py; a record stored before it said so has none)."""
    rules: TableRules = spec.table()
    record = faults_shown(record)  # the reasons of faults as every page shows them
    events = record["events"]
    played_for = events_played_for(record) if seat is not None else {}
    #: the event each step of the replay plays next (a chance event is no step)
    played = [
        index
        for index, event in enumerate(events)
        if not (isinstance(event, dict) and event.get("type") == "chance")
    ]
    logged: dict[str, dict[str, Any]] = {}  # by key, the first text a page was shown of it
    notes = 0
    state = None
    steps = spec.state_class.replay_steps(events, len(record["seats"]), record["config"])
    for step, (_, state) in enumerate(steps):
        for entry in rules.frame(state, seat, names)["log"]:
            logged.setdefault(entry["key"], entry)
        index = played[step] if step < len(played) else -1
        if seat is not None and played_for.get(index) == seat and not state.is_over():
            # what the host told the seat as its default was chosen, in this very state, with
            # the key it had (its number among the seat's notes)
            action = events[index]["action"]
            note = played_for_note(rules, state, seat, action, notes)
            logged.setdefault(note["key"], {"key": note["key"], "text": note["text"],
                                            "mine": True})  # fmt: skip
            notes += 1
    assert state is not None
    view = view_message(rules, state, seat, names)
    lines = list(logged.values())
    view["frame"]["log"] = lines[-LOG_KEPT:]
    if len(lines) > LOG_KEPT:
        # the lines before these, which the page counts on from (its list starts past them)
        view["frame"]["log_dropped"] = len(lines) - LOG_KEPT
    return [view, over_message(rules, state, seat, names, extra)]


def _with_notes(view: str, notes: list[tuple[frozenset[str], str]]) -> str:
    """The ``state`` message ``view`` (JSON text) with the ``notes`` in its log, each where
    the live page showed it: before the first line that was not in the log when it came (the
    line of the move played for the person), as :func:`final_messages` places them at the
    end."""
    message = json.loads(view)
    merged: list[dict[str, Any]] = []
    waiting = list(notes)
    for entry in message["frame"]["log"]:
        while waiting and entry["key"] not in waiting[0][0]:
            note = json.loads(waiting.pop(0)[1])
            merged.append({"key": note["key"], "text": note["text"], "mine": True})
        merged.append(entry)
    for _, text in waiting:
        note = json.loads(text)
        merged.append({"key": note["key"], "text": note["text"], "mine": True})
    message["frame"]["log"] = merged
    return message_text(message)


def cards_of(frame: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Every card a table frame and its actions show, described for drawing."""
    zones = [*frame["shared"], *frame.get("hand", ())]
    zones += [z for seat in frame["seats"] for z in seat["zones"]]
    codes = {code for z in zones for code in z["cards"]}
    codes |= {a["card"] for a in actions if a.get("card") is not None}
    codes |= {c for a in actions if "several" in a for c in a["several"]["cards"]}
    return {code: card_view(code) for code in sorted(codes)}


def default_words(rules: TableRules, state: GameState | None, seat: int) -> str:
    """The move the table would play for ``seat`` now, its time having run out, as the seat's
    buttons name it ("check", "bid 10", "draw 2 cards"): the default of this very state, not
    the game's rule for every state ("check, or fold facing a bet"), which stands in for it
    only where no button sends it. It is sent to the seat alone, and is made of what its own
    buttons say."""
    if state is None or state.is_over():
        return rules.default_action_text
    said = action_words(rules.actions(state, seat), rules.default_action(state, seat))
    return said or rules.default_action_text


def action_words(actions: list[dict[str, Any]], value: Any) -> str:
    """An action as a person reads it ("keep rock 4", "check"), found among the seat's
    actions by its value; "" if none of them sends it."""
    for action in actions:
        if action["value"] == value and "several" not in action:
            text = action["label"]
            if action.get("card") is not None:
                text += " " + card_view(action["card"])["label"]
            return text[:1].lower() + text[1:]
    return ""
