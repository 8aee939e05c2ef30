"""Matches played side by side by the same bot processes, each in a lane of its own.

A match is a conversation of many short turns, and a turn that crosses between processes
costs far more in wake-ups and cold caches than the work it carries (docs/sandbox.md, "The
arena against its floor"). A host that says ``lanes`` in its hello plays several matches at
once, each with its own bot, its requests marked with its lane (docs/bot-protocol.md,
"Lanes"). :class:`LanePlayer` then plays up to ``width`` matches at a time through the one
match loop (``MatchRunner.steps``): it runs every match until each waits for a reply, writes
each process's requests of that round in one write, and wakes the matches as their replies
come, many in one read. A process is written to once it has answered all it was asked, and
one that waits may be left waiting a moment (``HOLD_S``) for more, while replies that may
bring them are still to come: each wake-up of a process costs more than a request.

The rules a lane keeps:

- **Time.** A host answers its requests one after another, in order. So a request's time
  runs from when the host could start on it: its write, or the reply before it when that
  came later. A request waiting behind another match's is not charged for it, and the
  deadline of the one the host is on is enforced as a single match's would be (until its
  match waits for it, the longest any call is given). The host writes each reply as soon as
  it is made; replies that come in one read are stamped alike, which moves the moments the
  arena took to read them to the first of them, in the same process.
- **Faults.** A bot's fault in one lane is that match's, as always. A fault that ends the
  process (a timeout, a crash, memory, output over its allowance, a broken reply) is the
  fault of the match whose request the host was on, as it would be played alone (a death
  with no request out: the match begun first). The other matches the process was playing
  are not that bot's faults, nor its opponents' wins: they are played again from their
  start, by a new process and by opponents that start afresh (a new realm or process: they
  have seen the deal). Memory is the exception: the lanes of a process share its memory, so
  a process that runs out of it after playing in more than one lane may have run out for
  another match's sake. No match is charged for it: every match open on it is played again,
  and from then on that process plays one match at a time (``LaneHost.alone``), where
  running out of memory is the fault of the match that did, as when played alone. So a
  bot's results are the same whatever the number of lanes.
- **Deals.** A process is never dealt a deal it has seen (``BotProcess.dealt``): a match
  whose deal it has seen waits until the process has no match open, then gets a fresh realm
  (``renew``), as one played alone would. So no two seatings of a deal are ever in one
  process at the same time. Each lane plays in a realm of its own (the host's), so a bot
  cannot follow its other matches as they go.
- **Logs and output.** The host marks each line a bot writes with its lane (``[3] ...``: it
  cuts the bot's text into lines, so none passes for another lane's). The lines are sorted
  here into their matches: each match's part of the bot's log is written whole, under its
  header, when the match is handed back (:meth:`LaneAgent.write_log`), and a fault report
  quotes its own match's lines. The output allowance (bots.running.process,
  ``max_output``) holds in each lane: its replies and its lines. A match over it is an
  ``output`` fault, and its process is stopped as for any fault.
"""

from __future__ import annotations

import math
import re
import select
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from bots.running import stalls, starved
from bots.running.process import (
    _INT_RETURN,
    MAX_DEALT,
    MEMORY_MARKERS,
    STDERR_TAIL,
    BotProcess,
    PlatformError,
    ProcessAgent,
    output_over,
)
from games.engine import untrusted
from games.engine.agents import Agent, AgentFault, SeatInfo
from games.engine.game import GameState, Prompt
from games.engine.runner import MatchOutcome, MatchRunner, SeatStats, Steps, _Call, _made

#: seconds an ``end`` may take that no match waits for (the match was decided): as a bot
#: process played alone is given (ProcessAgent.end)
END_WAIT_S = 1.0

#: the start of a line of a lane's log, as the host marks it
_MARK = re.compile(rb"\[(\d{1,4})\] ")
_MARK_TEXT = re.compile(r"\[\d{1,4}\] ")
#: bytes of a log line's start read for its mark
_HEAD = 8
#: the most of a match's log kept for it (a process's log keeps 1 MiB in all)
PART_MAX = 1 << 20
#: the longest a process that waits for its next requests is left waiting, while replies
#: that may bring it more are still to come from others (see LanePlayer._round)
HOLD_S = 0.002


@dataclass(eq=False, slots=True)
class _Owed:
    """A reply a process owes: to a lane's call (``agent``) or to an ``end`` nobody waits for.
    A seat keeps one for its calls and fills it in again for each (a seat has one call out
    at a time: its match waits for the reply before it asks the seat again)."""

    rid: int
    agent: LaneAgent | None
    what: str
    #: when its request was written
    written: float = 0.0
    #: seconds it may take once the host is on it (set when its match waits for it)
    allowed: float | None = None
    #: the seat whose lane the reply frees (an end no match waits for: the lane is kept
    #: until then, so that no line of its log is taken for the next match's)
    ends: LaneAgent | None = None


class LaneHost:
    """A bot process that plays matches in lanes: which lanes are free, the replies it owes
    in the order it answers them, and why it was stopped, for the lanes still open."""

    def __init__(self, process: BotProcess, width: int) -> None:
        hello = process.hello
        assert hello is not None and hello.lanes >= 2
        self.process = process
        self.width = min(width, hello.lanes)
        self.free = list(range(self.width, 0, -1))
        #: the seats of the matches it plays, in the order they began
        self.open: dict[LaneAgent, None] = {}
        #: written since the last flush, then owed in order
        self.unwritten: list[_Owed] = []
        #: since when the first of ``unwritten`` waits for its write (see LanePlayer._round)
        self.held: float | None = None
        self.owed: deque[_Owed] = deque()
        #: when its last reply came
        self.last = 0.0
        #: the fault that stopped its process, for the matches it was playing then
        self.stopped: AgentFault | None = None
        #: the lanes its process has played in since it was fresh (started or renewed): each
        #: holds a realm, and whatever memory the bot keeps there
        self.used: set[int] = set()
        #: it plays one match at a time: its process ran out of memory while it played in
        #: more than one lane (see stop)
        self.alone = False
        #: the longest a call may take (its time control's per call and whole bank)
        self.longest = 0.0
        #: matches ended (see count_end)
        self.ended = 0
        #: the open lanes' seats, by lane
        self.lanes: dict[int, LaneAgent] = {}
        #: the run-queue baseline of the request the host is on (the first owed), read once
        #: it is PROBE_S old, and the seconds its deadline was moved on by: the time the
        #: machine kept the bot waiting for a CPU since (bots.running.starved)
        self.probe: starved.Probe | None = None
        self.grace = 0.0
        #: how late the worker took that baseline (its own wait), which is not the bot's
        self.late_s = 0.0
        #: each match's output allowance, and the log line being read: its start, until its
        #: lane's mark is read, then the seat it is written for (None: the host's own)
        self.limit = process.launch.max_output
        self._head = bytearray()
        self._reading = False
        self._to: LaneAgent | None = None
        process.holding = True
        process.lane_output = self._log
        process.stderr.sorted = True

    def count_end(self) -> bool:
        """A match ended: True every ``width`` matches, when the CPU the process has used is
        read again (its cgroup's count: a process over its CPU allowance starts afresh)."""
        self.ended += 1
        return self.ended % self.width == 0

    def take(self, agent: LaneAgent) -> int:
        """A free lane for ``agent``'s match."""
        lane = self.free.pop()
        self.open[agent] = None
        self.lanes[lane] = agent
        self.used.add(lane)
        return lane

    def release(self, agent: LaneAgent) -> None:
        if agent in self.open:
            del self.open[agent]
            del self.lanes[agent.lane]
            self.free.append(agent.lane)

    def _log(self, chunk: bytes) -> None:
        """Sort what the process wrote to its log into the matches whose lines they are, by
        their lanes' marks, and count it to their output."""
        start, size = 0, len(chunk)
        while start < size:
            end = chunk.find(b"\n", start)
            stop = size if end < 0 else end + 1
            piece = chunk[start:stop]
            start = stop
            if not self._reading:  # a line's start: whose is it?
                self._head += piece
                if len(self._head) < _HEAD and end < 0:
                    continue  # more of its start to come
                mark = _MARK.match(self._head)
                self._to = self.lanes.get(int(mark[1])) if mark else None
                piece = bytes(self._head[mark.end() :] if mark else self._head)
                self._head.clear()
                self._reading = True
            self._route(self._to, piece)
            if end >= 0:
                self._reading = False

    def _route(self, agent: LaneAgent | None, data: bytes) -> None:
        """A piece of a log line, into its match's part of the log, counted to its output (a
        reply is counted as it is read, in read)."""
        if agent is None or agent not in self.open:
            # the host's own line, or the rest of a line of a match that is over: as it comes
            self.process.stderr.write(data)
            return
        if len(agent.log) < PART_MAX:
            agent.log += data[: PART_MAX - len(agent.log)]
        agent.output += len(data)
        if self.limit is not None and agent.output > self.limit and self.stopped is None:
            self.stop(self._over(self.limit, "stderr", agent), agent.where)

    @staticmethod
    def _over(limit: int, stream: str, agent: LaneAgent) -> AgentFault:
        """The output fault of ``agent``'s match, naming the call its seat was on."""
        item = agent._item
        return AgentFault("output", output_over(limit, stream, item.what if item else None))

    def flush(self, now: float) -> None:
        """Write what the round asked of this process, in one write."""
        if not self.unwritten:
            return
        try:
            self.process.flush()
        except AgentFault as exc:
            self.stop(exc, "")
            return
        for owed in self.unwritten:
            owed.written = now
        self.owed.extend(self.unwritten)
        self.unwritten.clear()
        self.held = None

    def deadline(self) -> float | None:
        """When the reply the host is working on is late (None: it owes none). Until its
        match waits for it (it may wait for another seat first), a request may take the
        longest any call is given."""
        if not self.owed:
            return None
        head = self.owed[0]
        allowed = head.allowed if head.allowed is not None else self.longest
        start = head.written if head.written > self.last else self.last
        if self.probe is None and allowed > starved.PROBE_S:
            return start + starved.PROBE_S  # its baseline's time first (see late)
        return start + allowed + self.grace

    def stop(self, fault: AgentFault, where: str | None) -> None:
        """The process is gone or must go, for ``fault`` in the match ``where`` ("": not
        known, the match whose request is first, or else the one begun first; None: no
        match's, the host was on the end of a match already decided): it is killed, that
        match's seat hears the fault, and the other matches open on it are ``interrupted``
        (to be played again). A memory fault after playing in more than one lane is no
        match's: its lanes share the process's memory, and another match may hold what this
        one lacked. Every match open on it is played again, and it plays one match at a time
        from then on."""
        self.process.kill()
        if fault.kind == "memory" and not self.alone and len(self.used) > 1:
            self.alone = True
            where = None
            self.process.stderr.mark(
                f"--- {fault.reason}, after it played in {len(self.used)} lanes, which share "
                "its memory: no match is charged for it; the matches it was playing are played "
                "again, and from now on it plays one match at a time ---"
            )
        items = (*self.owed, *self.unwritten)
        for item in items:
            if item.ends is not None:
                self.release(item.ends)
        owed = [item.agent for item in items if item.agent is not None]
        self.owed.clear()
        self.unwritten.clear()
        self.held = None
        self.probe, self.grace, self.late_s = None, 0.0, 0.0
        if where == "":
            first = owed[0] if owed else next(iter(self.open), None)
            where = first.where if first is not None else None
        if self.stopped is None:
            self.stopped = AgentFault(fault.kind, fault.reason)
        for agent in owed:
            if agent.where == where:
                agent._got = fault  # (its reply: see read)
        for agent in self.open:
            if agent.where != where:
                agent.interrupted = True

    def restart(self, timeout: float) -> None:
        """A new process, once no match is open on the stopped one. Raises AgentFault."""
        self.stopped = None
        # the stopped process's last log line, cut off (by the output cap, say), is not the
        # new one's: its lines are sorted by their own marks (once, the new process's lines
        # went on to the match that had flooded the old one, which was over, and the match
        # played again was stopped and played again for ever)
        self._head.clear()
        self._reading = False
        self._to = None
        self.last = 0.0
        self.probe, self.grace, self.late_s = None, 0.0, 0.0
        self.owed.clear()
        self.unwritten.clear()
        self.held = None
        self.process.holding = False
        self.used.clear()
        try:
            self.process.start(timeout)
        finally:
            self.process.holding = True
        hello = self.process.hello
        if hello is None or hello.lanes < 2:
            self.process.kill()
            raise AgentFault("startup", "the bot's host no longer plays matches in lanes")

    def renew(self, timeout: float) -> bool:
        """A fresh realm or process, with no match open (see ``BotProcess.renew``)."""
        self.process.holding = False
        try:
            renewed = self.process.renew(timeout)
        finally:
            self.process.holding = True
        if renewed:
            self.used.clear()
        return renewed

    def read(self, out: bool) -> None:
        """Read what is ready on stdout (``out``) or stderr, and hand each complete reply to
        the lane that waits for it."""
        process = self.process
        child = process._child
        if child is None:
            return
        with process._io:
            process._pump(child, out)
        if process._child is not child:
            return  # stopped while reading (a match over its output allowance)
        lines = process._lines
        owed = self.owed
        limit = self.limit
        if owed and lines:
            self._judgeable(owed[0])
        while lines:
            arrived, line = lines.popleft()
            if not owed:  # it wrote with no request out, or it is gone
                if line is None:
                    self.stop(process._death_fault("a match"), "")
                else:
                    self.stop(AgentFault("protocol", "a reply to no request"), "")
                return
            head = owed[0]
            if line is None:
                self.stop(process._death_fault(head.what), self.head_where())
                return
            # (what BotProcess.parse does first, done here: the usual reply)
            quick = _INT_RETURN.fullmatch(line)
            if quick is not None:
                message = {"type": "return", "value": int(quick[1]), "id": int(quick[2])}
            else:
                try:
                    message = process.parse(line, head.what)
                except AgentFault as exc:
                    self.stop(exc, self.head_where())
                    return
            if message.get("id") != head.rid:
                self.stop(
                    AgentFault("protocol", f"reply to {head.what} has the wrong id"),
                    self.head_where(),
                )
                return
            owed.popleft()
            start = head.written
            if self.last > start:
                start = self.last
            self.last = arrived
            waited = 0.0
            if self.probe is not None:  # a request of over PROBE_S: what it was kept waiting
                waited = starved.credit(self.probe, self._probe(), process.launch.cpu_cores)
                self.probe, self.grace, self.late_s = None, 0.0, 0.0
            agent = head.agent
            if agent is None:
                if head.ends is not None:  # its lane's last lines are read, then it is free
                    process.settle_stderr()
                    self.release(head.ends)
                if self.stopped is not None:
                    return
                continue
            # its reply counts to its output, as its log lines do (_route)
            agent.output += len(line)
            if limit is not None and agent.output > limit and self.stopped is None:
                self.stop(self._over(limit, "stdout", agent), agent.where)
            if head.what == "end of match":  # its log, written before its end, is read now
                process.settle_stderr()
            if self.stopped is not None:
                return
            # the reply handed to its seat (taken by receive or confirm)
            agent._got = message
            agent._used = arrived - start if arrived > start else 0.0
            agent._starved = waited

    def _judgeable(self, head: _Owed, now: float | None = None) -> None:
        """Raise PlatformError (every match of the process stopped, none charged) if this
        process was held up while the bot had the call at ``head`` (bots.running.stalls):
        neither its reply's time nor its deadline can be told."""
        start = head.written if head.written > self.last else self.last
        stalled = stalls.held_up(start, now)
        if stalled:
            self.stop(AgentFault("crash", "the match's process was held up"), None)
            raise PlatformError(stalls.held_up_words(stalled, head.what))

    def _probe(self) -> starved.Probe:
        child = self.process._child
        return starved.probe(self.process.launch, child.proc.pid if child else None)

    def late(self, now: float) -> None:
        """The reply the host is working on is past its deadline: the match it belongs to
        times out (or ran out of memory, if that is what the bot was dying of)."""
        head = self.owed[0]
        process = self.process
        allowed = head.allowed if head.allowed is not None else self.longest
        start = head.written if head.written > self.last else self.last
        self._judgeable(head, now)
        if self.probe is None:
            self.probe = self._probe()
            due = start + starved.PROBE_S
            if now < start + allowed:
                return  # its baseline's time (see deadline), not its deadline
            if due < start + allowed:
                # the worker itself was kept from running past the deadline (a machine this
                # busy keeps the bot from it too): the time it was late is not the bot's
                self.late_s = self.grace = now - due
                return
        elif allowed > 0:
            # the deadline moved on by the time the machine kept the bot waiting for a CPU
            credit = starved.credit(self.probe, self._probe(), process.launch.cpu_cores)
            self.grace = self.late_s + credit
            if start + allowed + credit - now >= starved.MIN_STEP_S:
                if allowed + self.grace > starved.CAP * allowed:
                    self.stop(AgentFault("crash", "the machine is too busy"), None)
                    raise PlatformError(starved.too_busy(credit, head.what, allowed))
                return
        process.settle_stderr()
        said = own_lines(process)
        if any(marker in said for marker in MEMORY_MARKERS):
            fault = AgentFault("memory", f"the bot ran out of memory during {head.what}")
        else:
            more = starved.given_more(self.grace)
            fault = AgentFault("timeout", f"no answer to {head.what} within {allowed:.2f} s{more}")
        if head.agent is not None:
            head.agent._starved = self.grace
        self.stop(fault, self.head_where())

    def head_where(self) -> str | None:
        """The match of the request the host is on (None: an end no match waits for)."""
        head = self.owed[0] if self.owed else None
        if head is None:
            return ""
        return head.agent.where if head.agent is not None else None


def own_lines(process: BotProcess) -> str:
    """The end of what the process itself wrote to its log (V8's lines, the host's), without
    the bot's: each line of a lane starts with its mark, and a bot's words could say
    anything (that it ran out of memory, which in lanes is no match's fault: LaneHost.stop).
    The tail's first line, which may have lost its mark, is left out too."""
    tail = process.match_stderr(STDERR_TAIL)
    lines = tail.split("\n")
    if process.stderr.total - process._match_stderr > len(tail.encode("utf-8", "replace")):
        lines = lines[1:]  # (cut at the tail's start)
    return "\n".join(line for line in lines if not _MARK_TEXT.match(line))


class LaneAgent(ProcessAgent):
    """A seat of one match, played in a lane of a bot process: its requests are kept for the
    round's write, and its replies are handed to it by :class:`LanePlayer`."""

    def __init__(self, host: LaneHost, owner: ProcessAgent, where: str) -> None:
        super().__init__(host.process, owner.bot_call, startup_timeout=owner.startup_timeout)
        self.name = owner.name
        self.host = host
        self.lane = host.take(self)
        #: bytes it wrote in this match (see LaneHost._log)
        self.output = 0
        #: the match, as faults in the other lanes name it
        self.where = where
        self._names = owner._names
        #: its match's part of the bot's log: the lines of its lane, and the platform's own
        #: (faults), written to the log when the match is handed back (see write_log)
        self.log = bytearray()
        self._game = ""
        #: the reply handed over and not yet taken: the message, or the AgentFault
        self._got: dict[str, Any] | AgentFault | None = None
        #: its process was stopped for another match's fault: this match is to be played
        #: again (see :class:`LanePlayer`)
        self.interrupted = False
        self._used = 0.0
        #: what its process owes it: the reply it waits for (its ``_slot``, once asked)
        self._item: _Owed | None = None
        self._slot = _Owed(0, self, "")

    # ---- what the match loop calls ----------------------------------------------------
    def begin(self, info: SeatInfo, timeout: float) -> None:
        self._seat = info.seat
        process = self.process
        self._game = info.game
        self._raise_if_stopped()
        begin = {
            "lane": self.lane, "type": "begin", "game": info.game, "seat": info.seat,
            "seats": info.num_seats, "reply": False,
        }  # fmt: skip
        try:  # (rather than ``_reporting``, a generator's context: every match begins lanes)
            process.request(begin, reply=False)
        except AgentFault as exc:
            self._report(exc.kind, exc.reason)
            raise

    def started(self, timeout: float) -> None:
        """A lane's begin is answered with its first question (the host says quiet_begin)."""

    def send(self, prompt: Prompt) -> None:
        # (this runs for every question and notice: what _raise_if_stopped, _name and _owe
        # do, done here)
        method, args = self.bot_call(prompt)
        self._pending = None
        host = self.host
        try:
            stopped = host.stopped
            if stopped is not None:
                raise stopped
            if not prompt.expects_answer:
                self.process.call(method, args, reply=False, lane=self.lane)
                self._told.append(method)
                return
            rid = self.process.call(method, args, lane=self.lane)
        except AgentFault as exc:
            self._report(exc.kind, exc.reason)
            raise
        name = self._names.get(method)
        if name is None:
            name = self._name(method)
        self._pending = (rid, name)
        self.parks = True
        self._item = item = self._slot
        item.rid, item.what, item.allowed = rid, name, None
        host.unwritten.append(item)

    def _owe(self, rid: int, what: str) -> None:
        self.parks = True
        self._item = item = self._slot
        item.rid, item.what, item.allowed = rid, what, None
        self.host.unwritten.append(item)

    def receive(self, timeout: float) -> Any:
        pending = self._pending
        if pending is None:  # a notice: its failure, if any, comes with the next reply
            self.answered_at = None
            return None
        got = self._got
        what = pending[1]
        if got.__class__ is dict and got.get("type") == "return" and what != "end of match":
            # the usual reply (what _take and _check do with it, done here)
            self._got = self._item = self._pending = None
            self.parks = False
            if self._told:
                self._told = []
            self.answered_at = self._asked + self._used
            return got.get("value")
        return self._take(what)

    def ask_confirm(self) -> None:
        try:  # (rather than ``_reporting``: see begin)
            self._raise_if_stopped()
            rid = self.process.request({"lane": self.lane, "type": "end"})
        except AgentFault as exc:
            self._report(exc.kind, exc.reason)
            raise
        self._end_asked = rid
        self._owe(rid, "end of match")

    def confirm(self, timeout: float) -> None:
        self._end_asked = None
        self._ended = True
        try:
            self._take("end of match")
        finally:
            self.host.release(self)

    def end(self, result: dict[str, Any]) -> None:
        if self._ended:
            return
        if self.host.stopped is not None:
            self.host.release(self)
            return
        try:
            rid = self.process.request({"lane": self.lane, "type": "end"})
        except AgentFault as exc:
            self.host.release(self)
            if exc.kind == "output":
                self._report(exc.kind, exc.reason)
            return
        # its lane is freed by the reply (LaneHost.read)
        owed = _Owed(rid, None, "end of match", allowed=END_WAIT_S, ends=self)
        self.host.unwritten.append(owed)

    # ---- inside ------------------------------------------------------------------------
    def _take(self, what: str) -> Any:
        got, self._got = self._got, None
        self._item = None
        self._pending = None
        self.parks = False
        try:
            if got is None:
                raise AgentFault("crash", f"no reply to {what}")
            if isinstance(got, AgentFault):
                raise got
            self.answered_at = self._asked + self._used
            value = self._check(self.answered_at, got, what=what)
            if what == "end of match" and self.host.count_end():
                self._take_cpu(got)
            return value
        except AgentFault as exc:
            self._report(exc.kind, exc.reason)
            raise

    #: when the match loop asked for the reply being waited for (its clock), so that
    #: ``answered_at`` says the time the request took, not its wait behind other lanes
    _asked = 0.0
    #: seconds the machine kept the bot waiting for a CPU in its last request (LaneHost)
    _starved = 0.0

    @property
    def starved_s(self) -> float:
        return self._starved

    def _raise_if_stopped(self) -> None:
        """(A process that died unseen is found by its next write or read.)"""
        stopped = self.host.stopped
        if stopped is not None:
            raise stopped

    def _note(self, text: str) -> None:
        self.log += text.encode("utf-8", "replace") + b"\n"

    def log_tail(self, limit: int) -> str:
        """The end of its match's part of the log, as text safe to show and store."""
        return untrusted.decode(bytes(self.log[-limit:]))

    def write_log(self) -> None:
        """Write its match's part into the bot's log, whole, under its header (as a match
        played alone has it)."""
        where = self.match_label or f"seat {self._seat}"
        sink = self.process.stderr
        sink.mark(f"--- match start: {self._game}, {where} ---")
        sink.write(bytes(self.log))


@dataclass(eq=False)
class LaneMatch:
    """A match to play: its deal (``deal`` makes its state, again if it is played again),
    and who sits in each seat: a lane of a process (:class:`LaneHost`, with the entrant's own
    agent, whose name and contract its lane takes) or an agent made for the match (a
    built-in in this process)."""

    deal: Callable[[], GameState]
    seed: int | None
    seats: list[tuple[LaneHost, ProcessAgent] | Callable[[], Agent]]
    names: list[str]
    #: each seat's label in its bot's stderr log (the arena's: number, file, opponents)
    labels: list[str] = field(default_factory=list)
    #: the match, as the faults of the other matches of its processes name it
    where: str = ""
    #: the caller's own (the arena's table and number)
    tag: Any = None
    state: GameState | None = None
    agents: list[Agent] = field(default_factory=list)
    steps: Steps | None = None
    stats: list[SeatStats] = field(default_factory=list)
    #: the call the match waits on, and its seat's agent
    waiting: tuple[LaneAgent, _Call] | None = None

    def hosts(self) -> list[LaneHost]:
        return [seat[0] for seat in self.seats if isinstance(seat, tuple)]


class LanePlayer:
    """Plays matches up to ``width`` at a time over the lanes of their processes (see the
    module)."""

    def __init__(self, runner: MatchRunner, *, width: int, startup_timeout: float = 10.0) -> None:
        self.runner = runner
        self.width = width
        #: the runner's, for the times it reads (the processes' replies are timed on the
        #: monotonic clock, as durations)
        self.clock = runner.clock
        self.startup_timeout = startup_timeout
        #: the pipes the rounds wait on, in one poll object (registered as they come and go)
        self._poller = select.poll()
        self._watched: dict[int, tuple[LaneHost, bool]] = {}

    def play(self, matches: Iterator[LaneMatch]) -> Iterator[tuple[LaneMatch, MatchOutcome]]:
        """Play ``matches``, beginning them in their order, and yield each with its outcome
        as it ends."""
        running: list[LaneMatch] = []
        ready: deque[tuple[LaneMatch, Any]] = deque()
        #: matches to play again (their process stopped for another match's fault), first
        again: deque[LaneMatch] = deque()
        queued: LaneMatch | None = None
        hosts: dict[int, LaneHost] = {}
        tc = self.runner.tc
        longest = tc.move + max(tc.bank, 0.0)
        while True:
            while len(running) < self.width:  # begin matches while there is room
                if queued is None:
                    queued = again.popleft() if again else next(matches, None)
                    if queued is None:
                        break
                for host in queued.hosts():  # read from now on, whether it can begin or not
                    hosts[id(host)] = host
                    host.longest = longest
                if not self._can_begin(queued):
                    break
                match, queued = queued, None
                for host in match.hosts():
                    # dealt now, before the next match is weighed (its seats begin later)
                    host.process.played += 1
                    if match.seed is not None:
                        host.process.dealt.add(match.seed)
                match.state = match.deal()
                match.agents = [self._seat(match, i) for i in range(len(match.seats))]
                match.steps, match.stats = self.runner.steps(
                    match.state, match.agents, seed=match.seed
                )
                running.append(match)
                ready.append((match, None))
            finished = []
            while ready:  # run every match until it waits for a reply or ends
                match, reply = ready.popleft()
                if self._advance(match, reply):
                    running.remove(match)
                    finished.append(match)
            for match in finished:
                assert match.state is not None
                outcome = self.runner.outcome(
                    match.state, match.agents, match.stats, seed=match.seed,
                    seat_names=match.names,
                )  # fmt: skip
                yield match, outcome
            if finished:
                continue
            if not running and queued is None:
                return
            # (with none running, a match waits for its processes' last replies)
            self._round(hosts.values(), running, ready, again)

    def _seat(self, match: LaneMatch, seat: int) -> Agent:
        sitter = match.seats[seat]
        if not isinstance(sitter, tuple):
            return sitter()
        host, owner = sitter
        agent = LaneAgent(host, owner, match.where)
        if seat < len(match.labels):
            agent.match_label = match.labels[seat]
        return agent

    def _can_begin(self, match: LaneMatch) -> bool:
        """Whether ``match`` can begin now: each of its processes has a free lane and may be
        dealt its deal. A process that is gone, has used its CPU allowance or has seen the
        deal starts afresh (a new process, or a renewed realm) once it has no match open;
        until then the match waits."""
        hosts = match.hosts()
        if len({id(h) for h in hosts}) < len(hosts):
            raise ValueError("two seats of a match in one process")
        for host in hosts:
            if not host.free or (host.alone and host.open):
                return False
            process = host.process
            seen = match.seed is None or match.seed in process.dealt
            seen = process.played > 0 and (seen or len(process.dealt) >= MAX_DEALT)
            recycle = process.launch.recycle_cpu_s
            spent = recycle is not None and process.cpu_s >= recycle
            # (a process that dies while it plays is found by its reads and writes)
            gone = host.stopped is not None or (not host.open and not process.alive)
            if not (gone or spent or seen):
                continue
            if host.open or host.owed or host.unwritten:
                return False  # once the matches it plays are over, and their ends answered
            if not gone and not spent and host.renew(self.startup_timeout):
                continue
            process.kill()
            try:
                host.restart(self.startup_timeout)
            except AgentFault as exc:
                host.stopped = exc  # the match's seat faults at its start, with this reason
        return True

    def _advance(self, match: LaneMatch, reply: Any) -> bool:
        """Run ``match`` until it waits for a reply (False) or ends (True)."""
        steps = match.steps
        assert steps is not None
        agents = match.agents
        clock = self.clock
        while True:
            try:
                call = steps.send(reply)  # (only a lane's receive or confirm comes out)
            except StopIteration:
                return True
            agent = agents[call.seat]
            assert isinstance(agent, LaneAgent)
            now = clock()
            started = call.started
            if started is None:
                agent._asked = started = now
            else:
                agent._asked = started
            # The match waits for the seat's reply, which may take the call's timeout once
            # the host is on it (LaneHost.deadline); unless it has come, or cannot come.
            item = agent._item
            if item is not None:
                item.allowed = call.args[0] + (now - started)
            if agent._got is None:
                stopped = agent.host.stopped
                if stopped is None or agent.interrupted:
                    match.waiting = (agent, call)
                    return False
                agent._got = stopped  # no reply can come (its process stopped)
            reply = _made(agents, call)

    def _round(
        self,
        hosts: Collection[LaneHost],
        running: list[LaneMatch],
        ready: deque[tuple[LaneMatch, Any]],
        again: deque[LaneMatch],
    ) -> None:
        """Write every process's requests of the round, wait until a reply comes or a
        deadline passes, and hand the matches it wakes to ``ready`` (and those a stopped
        process interrupted to ``again``)."""
        now = time.monotonic()
        busy = False
        for host in hosts:
            if host.owed:
                busy = True
                break
        for host in hosts:
            # Each wake-up of a process costs it (and the machine) more than a request: a
            # process is written to once it has answered all it was asked (what it is asked
            # meanwhile would be read by it in the same read, or in one more), and one that
            # waits is left waiting, while replies that may bring it more are still to come,
            # until every match it plays has asked it, or HOLD_S. (A request's time runs
            # from its write: holding it back charges no one.)
            if host.unwritten and not host.owed:
                if host.held is None:
                    host.held = now
                if not busy or len(host.unwritten) >= len(host.open) or now >= host.held + HOLD_S:
                    host.flush(now)
        if self._wait(hosts):
            self._interrupted(running, again)
        for match in running:
            waiting = match.waiting
            if waiting is not None and waiting[0]._got is not None:  # its reply came
                match.waiting = None
                ready.append((match, _made(match.agents, waiting[1])))

    def _interrupted(self, running: list[LaneMatch], again: deque[LaneMatch]) -> None:
        """Move the matches a stopped process interrupted from ``running`` to ``again``."""
        stopped = [m for m in running if any(getattr(a, "interrupted", 0) for a in m.agents)]
        for match in stopped:
            running.remove(match)
            self._abandon(match)
            again.append(match)

    def _abandon(self, match: LaneMatch) -> None:
        """Drop an interrupted match, to be played again from its start: the lanes its other
        processes play it in are ended (their replies are not waited for)."""
        if match.steps is not None:
            match.steps.close()
        for agent in match.agents:
            if isinstance(agent, LaneAgent):
                agent.end({})
        match.state, match.agents, match.steps, match.stats = None, [], None, []
        match.waiting = None

    def _wait(self, hosts: Collection[LaneHost]) -> bool:
        """Wait until a pipe of ``hosts`` is ready or a deadline passes, read what is ready,
        and time out the replies past their deadlines. True if a process is stopped."""
        ends: dict[int, tuple[LaneHost, bool]] = {}
        soonest: float | None = None
        for host in hosts:
            child = host.process._child
            if child is None:
                continue
            if host.owed:
                if not child.out_done:
                    ends[child.out_fd] = (host, True)
                deadline = host.deadline()
                if deadline is not None and (soonest is None or deadline < soonest):
                    soonest = deadline
            if not child.err_done:
                ends[child.err_fd] = (host, False)
            if host.held is not None and (soonest is None or host.held + HOLD_S < soonest):
                soonest = host.held + HOLD_S
        if not ends and soonest is None:  # (a match waits for a process that owes nothing)
            raise RuntimeError("matches in lanes wait for replies that no process owes")
        watched = self._watched
        if ends.keys() != watched.keys():  # the pipes watched change (one poll object)
            poller = self._poller
            for fd in watched.keys() - ends.keys():
                poller.unregister(fd)
            for fd in ends.keys() - watched.keys():
                poller.register(fd, select.POLLIN)
        self._watched = ends
        timeout = None if soonest is None else max(soonest - time.monotonic(), 0.0)
        events = self._poller.poll(None if timeout is None else math.ceil(timeout * 1000))
        for fd, _ in events:
            host, out = ends[fd]
            host.read(out)
        now = time.monotonic()
        stopped = False
        for host in hosts:
            if host.owed:
                deadline = host.deadline()
                if deadline is not None and deadline <= now:
                    host.late(now)
            if host.stopped is not None:
                stopped = True
        return stopped
