"""The bare design: the arena's round robin as the least a sandboxed design can do, to show
what such a design costs at best on this machine (issue 30, goal 1).

    .venv/bin/python bench/arena_bare.py [--rounds R] [--seed S] [--jobs J] [--lanes L]
        [--no-pin] [--marks] [--runner] BOT.js ...

It keeps what the arena's design cannot do without and drops the rest:

- **Kept**: every bot in a process of its own, in the project's real sandbox (bwrap, seccomp,
  the limits and the cgroups, launched by ``bots.running.launch.bot_launch`` and started by
  ``BotProcess``), a fresh bot object for every match, matches played in lanes (up to
  ``--lanes`` at once in each process, each process's requests of a round in one write, each
  reply written by the host as soon as it is made), notices folded into the next request,
  the jobs (``--jobs`` processes, each with its own bot processes, forked before they start,
  each with its bots on its own share of the CPUs as the arena places them, unless
  ``--no-pin``) and a check of every reply against the rules.
- **Dropped**: the engine's match loop (``MatchRunner``) and the games' rules objects (the
  rules of RPS Poker are written out here, in a few lines, as ``bench/arena_floor.js`` writes
  them), time controls (one deadline of ``DEADLINE_S`` for any reply), the bot protocol's
  ids, types and faults (``bench/arena_bare_host.js`` speaks a protocol of bare arrays), the
  realm of each lane (the bots run in the host's own context, Node's API in reach), logs,
  records, statistics and ratings.

So it is not a product: it is a measure of the floor of the product's design, of what the
operating system, Python, Node and the sandbox cost at best for this tournament. Prints one
JSON line of totals, as the floor does (``--marks``: and, on stderr, when its imports were
done, when each job's bots had said hello and when each job was done, and the CPU of this
process and of those it started: with ``--jobs 1``, its Python and its bots).
``bench/bench_arena_floor.py --bare`` runs it beside the floor and the arena.

``--runner`` puts the engine's match loop and RPS Poker's rules back: each match is played by
``MatchRunner.steps`` (on the monotonic clock, with its default time control) over the state
of ``games/rps_poker/rules.py``, each seat an Agent of the bare protocol (:class:`Seat`: its
notices folded into its next request, its questions and its end parked until the reply comes),
with the same I/O as the default (:func:`serve`). The deals are the same (the engine's deal
draws from ``random.Random(seed)`` with ``same_shuffle`` too, in the same order), so are the
requests, and so the totals (but for a failure in a match's last notices, which the loop
counts as the seat's fault and the default does not). It still drops the rest: the product's
protocol and host, the match's record (``MatchRunner.outcome``), logs and statistics, and any
time control enforced (the loop keeps each seat's time; the one deadline is still
``DEADLINE_S``).
``bench/bench_arena_floor.py --bare-runner`` runs both side by side.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import random
import resource
import select
import sys
import time

#: when this process began (its steps are timed from here: the project's imports included)
T0 = time.perf_counter()
# this checkout's code first (run as a script, Python finds the project where the
# environment says: a worktree sharing another checkout's environment would import that one's)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from collections import deque  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from bots.running import cpus  # noqa: E402
from bots.running.launch import bot_launch  # noqa: E402
from bots.running.process import BotProcess, _encode  # noqa: E402
from games.engine.agents import Agent, AgentFault, SeatInfo  # noqa: E402
from games.engine.chance import same_shuffle  # noqa: E402
from games.engine.game import GameState, Prompt  # noqa: E402
from games.engine.runner import MatchRunner, Steps, _Call  # noqa: E402
from games.registry import get_game  # noqa: E402
from games.rps_poker.botapi import bot_call  # noqa: E402
from games.rps_poker.cards import DRAFT_STEPS, FULL_DECK, GAMES, HAND_SIZE, beats  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: the longest any reply is waited for (the bare design keeps no time controls)
DEADLINE_S = 5.0
_decode = json.JSONDecoder().decode


def _settings() -> None:
    """The project's settings (the sandbox's among them), without Django's set-up of every
    app: as ``manage.py arena`` loads them."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    from django.conf import settings

    settings.DEBUG  # noqa: B018 - loads the settings


class Match:
    """One match of RPS Poker, played by the rules of ``games/rps_poker`` (the deal drawn with
    ``random.Random(seed)``): its questions, and each seat's answer."""

    __slots__ = (
        "answers",
        "asked",
        "deck",
        "decks",
        "ended",
        "fault",
        "hands",
        "lanes",
        "phase",
        "played",
        "points",
        "remaining",
        "rng",
        "seats",
        "step",
        "told",
    )  # fmt: skip

    def __init__(self, seats: tuple[int, int], seed: int) -> None:
        self.seats = seats
        #: each seat's lane in its bot's process, and what it was last asked ("end": the end)
        self.lanes = [0, 0]
        self.asked: list[str | None] = [None, None]
        #: its seats that have answered its end
        self.ended = 0
        self.rng = random.Random(seed)
        self.deck = list(FULL_DECK)
        same_shuffle(self.rng, self.deck)
        self.decks: list[list[str]] = [[], []]
        self.hands: list[list[str]] = [[], []]
        self.remaining: list[str] = []
        self.step = 0
        self.phase = "draft"
        self.answers: list[object] = [None, None]
        #: each seat's notices not sent yet (JSON text of [method, args])
        self.told: list[list[str]] = [[], []]
        self.points = [0, 0]
        self.fault: int | None = None
        self.played = 0

    def question(self, seat: int) -> tuple[str, str]:
        """The seat's next request: its method and its arguments as JSON text."""
        if self.phase == "draft":
            top = 4 * self.step + 2 * seat
            return "draft_pick", _encode([self.deck[top : top + 2]])
        return "main_play", _encode([self.hands[seat], self.remaining[self.step]])

    def answer(self, seat: int, value: object) -> bool:
        """Takes the seat's answer; True once both seats answered this turn and it is
        played. A wrong answer ends the match: that seat's fault."""
        size = 2 if self.phase == "draft" else len(self.hands[seat])
        if type(value) is not int or not 0 <= value < size:
            self.forfeit(seat)
            return True
        self.answers[seat] = value
        if self.answers[1 - seat] is None:
            return False
        if self.phase == "draft":
            self._draft()
        else:
            self._game()
        self.answers = [None, None]
        return True

    def forfeit(self, seat: int) -> None:
        self.fault = seat
        self.points[1 - seat] += 10 - self.played
        self.phase = "over"

    def _draft(self) -> None:
        top = 4 * self.step
        offers = (self.deck[top : top + 2], self.deck[top + 2 : top + 4])
        for seat in (0, 1):
            kept = self.answers[seat]
            assert isinstance(kept, int)
            self.decks[seat].append(offers[seat][kept])
            self.decks[1 - seat].append(offers[seat][1 - kept])
            self.told[1 - seat].append(_encode(["draft_receive", [offers[seat][1 - kept]]]))
        self.step += 1
        if self.step == DRAFT_STEPS:
            self.remaining = self.deck[4 * DRAFT_STEPS :]
            same_shuffle(self.rng, self.remaining)
            for seat in (0, 1):
                same_shuffle(self.rng, self.decks[seat])
                self.hands[seat] = self.decks[seat][:HAND_SIZE]
                del self.decks[seat][:HAND_SIZE]
            self.phase, self.step = "main", 0

    def _game(self) -> None:
        base = self.remaining[self.step]
        cards = [self.hands[seat].pop(self.answers[seat]) for seat in (0, 1)]  # type: ignore[call-overload]
        self.points[0 if beats(cards[0], cards[1], base) else 1] += 1
        self.played += 1
        for seat in (0, 1):
            self.told[seat].append(_encode(["main_postprocess", [cards[1 - seat]]]))
            if self.decks[seat]:
                self.hands[seat].append(self.decks[seat].pop(0))
        self.step += 1
        if self.step == GAMES:
            self.phase = "end"


@dataclasses.dataclass(eq=False)
class Host:
    """One bot's sandboxed process, as the bare design uses it: its pipes, its free lanes,
    what each lane is playing, and its requests of this round."""

    process: BotProcess
    into: int
    out: int
    lanes: list[int]
    #: what each lane plays: (its Match, the seat), or (``--runner``) its Seat
    playing: dict[int, Any] = dataclasses.field(default_factory=dict)
    outbox: bytearray = dataclasses.field(default_factory=bytearray)
    pending: bytes = b""
    #: requests in ``outbox`` that take a reply, and replies owed for those written
    asked: int = 0
    owed: int = 0


def start_hosts(files: list[str], lanes: int) -> list[Host]:
    """Each bot's process in the project's sandbox, started side by side, running the bare
    host instead of the project's."""
    game = get_game("rps-poker")
    bare = (HERE / "arena_bare_host.js").read_bytes()
    processes = []
    for file in files:
        launch = bot_launch(Path(file), game=game)
        launch = dataclasses.replace(launch, fd_data={**launch.fd_data, "{host}": bare})
        process = BotProcess(launch, label=Path(file).stem)
        process.spawn(10.0)
        processes.append(process)
    hosts = []
    for process in processes:
        process.greet(10.0)
        proc = process._proc  # (the bare design speaks to the pipes itself)
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        os.set_blocking(proc.stdin.fileno(), True)
        hosts.append(Host(process, proc.stdin.fileno(), proc.stdout.fileno(), list(range(lanes))))
    return hosts


def ask(host: Host, match: Match, seat: int) -> None:
    """Adds the seat's next request (or the match's end) to its host's round."""
    lane, told = match.lanes[seat], match.told[seat]
    notices = "[" + ",".join(told) + "]" if told else "null"
    told.clear()
    if match.phase == "end" or match.phase == "over":
        line = f'[{lane},"end",null,{notices}]\n'
        match.asked[seat] = "end"
    else:
        method, args = match.question(seat)
        line = f'[{lane},"{method}",{args},{notices}]\n'
        match.asked[seat] = method
    host.outbox += line.encode()
    host.asked += 1


def dealable(
    waiting: deque[tuple[int, int, int]], hosts: list[Host]
) -> Iterator[tuple[int, int, int]]:
    """The next matches of ``waiting`` (seat 0's bot, seat 1's bot, seed), taken off it in
    order, as the arena deals them, while both their bots' processes have a free lane (each
    is checked once the one before it has taken its lanes)."""
    while waiting and hosts[waiting[0][0]].lanes and hosts[waiting[0][1]].lanes:
        yield waiting.popleft()


def mark(marks: bool, what: str) -> None:
    if marks:
        print(f"{what} at {time.perf_counter() - T0:.3f} s (pid {os.getpid()})", file=sys.stderr)


def play(
    files: list[str], schedule: list[tuple[int, int, int]], lanes: int, marks: bool
) -> dict[str, list[int]]:
    """Plays ``schedule`` ((seat 0's bot, seat 1's bot, seed) each) with one process a bot;
    returns each bot's points and faults."""
    hosts = start_hosts(files, lanes)
    mark(marks, "hellos")
    points, faults = [0] * len(files), [0] * len(files)
    waiting = deque(schedule)
    open_matches = 0

    def begin() -> None:
        nonlocal open_matches
        for a, b, seed in dealable(waiting, hosts):
            match = Match((a, b), seed)
            open_matches += 1
            for seat, bot in enumerate((a, b)):
                host = hosts[bot]
                lane = host.lanes.pop()
                host.playing[lane] = (match, seat)
                match.lanes[seat] = lane
                host.outbox += f'[{lane},"begin"]\n'.encode()
                ask(host, match, seat)

    def reply(host: Host, line: bytes) -> None:
        nonlocal open_matches
        message = _decode(line.decode())
        if not (isinstance(message, list) and len(message) >= 2 and type(message[0]) is int):
            raise SystemExit(f"{host.process.label}: a reply that is not one: {line[:80]!r}")
        lane, value = message[0], message[1]
        match, seat = host.playing[lane]
        asked, match.asked[seat] = match.asked[seat], None
        if asked == "end":
            host.playing.pop(lane)
            host.lanes.append(lane)
            match.ended += 1
            if match.ended < 2:
                return
            open_matches -= 1
            for s, bot in enumerate(match.seats):
                points[bot] += match.points[s]
            if match.fault is not None:
                faults[match.seats[match.fault]] += 1
            return
        if match.phase == "over":  # (its opponent faulted while it thought)
            ask(host, match, seat)
            return
        if len(message) > 2:  # the bot failed
            match.forfeit(seat)
        elif not match.answer(seat, value):
            return
        for s, bot in enumerate(match.seats):
            if match.asked[s] is None:  # (one that faulted: its opponent may still think)
                ask(hosts[bot], match, s)

    serve(hosts, begin, reply, lambda: bool(open_matches or waiting))
    mark(marks, "done")
    return {"points": points, "faults": faults}


#: a seat's reply not come yet
_NOTHING = object()


class Seat(Agent):
    """One seat of a match played by the product's match loop (``--runner``): an Agent of
    the bare protocol. Its questions are queued in its host's round and ``park`` the match
    (the loop yields their ``receive``), its notices are folded into its next request, and
    its reply is handed to it by :func:`play_runner`."""

    #: its notices are answered with its next reply (the match loop does not wait for them)
    hears_later = True
    #: its replies come from another process (the loop then collects its seats in order)
    blocking = True

    def __init__(self, host: Host, game: Game) -> None:
        self.host = host
        self.game = game
        self.lane = host.lanes.pop()
        host.playing[self.lane] = self
        #: the notices not sent yet (JSON text of [method, args])
        self.told: list[str] = []
        #: its reply (a value, or the AgentFault of a failure) and when it was read
        self.got: Any = _NOTHING
        self.came_at = 0.0
        #: its end was asked: the reply to it frees its lane
        self.ended = False

    def begin(self, info: SeatInfo, timeout: float) -> None:
        self.host.outbox += f'[{self.lane},"begin"]\n'.encode()

    def send(self, prompt: Prompt) -> None:
        method, args = bot_call(prompt)
        if prompt.expects_answer:
            self._ask(method, _encode(args))
        else:
            self.told.append(_encode([method, args]))
            self.unconfirmed = True

    def receive(self, timeout: float) -> Any:
        return self._take()

    def ask_confirm(self) -> None:
        self._ask("end", "null")
        self.ended = True

    def confirm(self, timeout: float) -> None:
        self._take()

    def end(self, result: dict[str, Any]) -> None:
        if not self.ended:  # (a seat whose end no match waits for: it frees its lane)
            self._ask("end", "null")
            self.ended = True
            self.parks = False

    def _ask(self, method: str, args: str) -> None:
        told = self.told
        notices = "[" + ",".join(told) + "]" if told else "null"
        told.clear()
        self.host.outbox += f'[{self.lane},"{method}",{args},{notices}]\n'.encode()
        self.host.asked += 1
        self.parks = True
        self.unconfirmed = False

    def _take(self) -> Any:
        got, self.got = self.got, _NOTHING
        self.parks = False
        self.answered_at = self.came_at
        if isinstance(got, AgentFault):
            raise got
        return got


@dataclasses.dataclass(eq=False)
class Game:
    """A match played by the product's match loop: its bots, its rules' state, its steps,
    and the call they wait on."""

    bots: tuple[int, int]
    state: GameState
    agents: list[Seat] = dataclasses.field(default_factory=list)
    steps: Steps | None = None
    waiting: _Call | None = None


def play_runner(
    files: list[str], schedule: list[tuple[int, int, int]], lanes: int, marks: bool
) -> dict[str, list[int]]:
    """:func:`play`, each match played by the product's match loop (``MatchRunner.steps``,
    on the monotonic clock, with its default time control) and RPS Poker's own rules."""
    hosts = start_hosts(files, lanes)
    mark(marks, "hellos")
    points, faults = [0] * len(files), [0] * len(files)
    waiting = deque(schedule)
    runner = MatchRunner(time.monotonic)
    new_state = get_game("rps-poker").state_class.new
    open_matches = 0

    def advance(game: Game, reply: Any) -> None:
        """Runs the match until it waits for a reply that has not come, or ends."""
        nonlocal open_matches
        steps = game.steps
        assert steps is not None
        while True:
            try:
                call = steps.send(reply)  # (only a parked seat's receive or confirm)
            except StopIteration:
                open_matches -= 1
                state = game.state
                for seat, bot in enumerate(game.bots):
                    points[bot] += state.scores[seat]  # type: ignore[attr-defined]
                for seat in state.faults:
                    faults[game.bots[seat]] += 1
                return
            seat = game.agents[call.seat]
            if seat.got is _NOTHING:
                game.waiting = call
                return
            reply = made(seat, call)

    def begin() -> None:
        nonlocal open_matches
        for a, b, seed in dealable(waiting, hosts):
            game = Game((a, b), new_state(seed, num_seats=2, config={}))
            game.agents = [Seat(hosts[a], game), Seat(hosts[b], game)]
            game.steps, _ = runner.steps(game.state, game.agents, seed=seed)
            open_matches += 1
            advance(game, None)

    def reply(host: Host, line: bytes) -> None:
        message = _decode(line.decode())
        if not (isinstance(message, list) and len(message) >= 2 and type(message[0]) is int):
            raise SystemExit(f"{host.process.label}: a reply that is not one: {line[:80]!r}")
        lane = message[0]
        seat: Seat = host.playing[lane]
        if len(message) > 2:  # the bot failed
            seat.got = AgentFault("exception", str(message[2])[:200])
        else:
            seat.got = message[1]
        seat.came_at = time.monotonic()
        if seat.ended:
            host.playing.pop(lane)
            host.lanes.append(lane)
        game = seat.game
        call = game.waiting
        if call is not None and game.agents[call.seat] is seat:
            game.waiting = None
            advance(game, made(seat, call))

    serve(hosts, begin, reply, lambda: bool(open_matches or waiting))
    mark(marks, "done")
    return {"points": points, "faults": faults}


def made(agent: Agent, call: _Call) -> Any:
    """``call`` made on ``agent``: what it returned, or the AgentFault it raised (what the
    match loop is sent back)."""
    try:
        return getattr(agent, call.method)(*call.args)
    except AgentFault as exc:
        return exc


def serve(
    hosts: list[Host],
    begin: Callable[[], None],
    reply: Callable[[Host, bytes], None],
    busy: Callable[[], bool],
) -> None:
    """The bare design's I/O, whoever plays the matches: ``begin`` the matches there is room
    for, write each host's requests of the round in one write (once it has answered all it
    was asked, as the arena writes), hand each reply read to ``reply``, while ``busy``; then
    tell the hosts to quit."""
    by_fd = {host.out: host for host in hosts}
    poller = select.poll()
    for host in hosts:
        poller.register(host.out, select.POLLIN)
    begin()
    while busy():
        for host in hosts:
            # (written once it has answered all it was asked, as the arena writes)
            if host.outbox and not host.owed:
                os.write(host.into, host.outbox)
                host.outbox.clear()
                host.owed, host.asked = host.asked, 0
        ready = poller.poll(DEADLINE_S * 1000)
        if not ready:
            raise SystemExit("no reply within the deadline")
        for fd, _ in ready:
            host = by_fd[fd]
            data = os.read(fd, 65536)
            if not data:
                raise SystemExit(f"{host.process.label} ended")
            lines = (host.pending + data).split(b"\n")
            host.pending = lines.pop()
            host.owed -= len(lines)
            for line in lines:
                reply(host, line)
        begin()
    for host in hosts:
        os.write(host.into, b'[0,"quit"]\n')
        host.process.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--lanes", type=int, default=16)
    parser.add_argument("--no-pin", action="store_true", help="jobs run on any CPU")
    parser.add_argument("--marks", action="store_true", help="print when each step ended")
    parser.add_argument(
        "--runner", action="store_true", help="each match played by the engine's match loop"
    )
    parser.add_argument("bots", nargs="+")
    args = parser.parse_args()
    _settings()
    play_matches = play_runner if args.runner else play
    mark(args.marks, "imports")
    n = len(args.bots)
    schedule = []
    for r in range(args.rounds):
        for i in range(n):
            for j in range(i + 1, n):
                seats = (i, j) if r % 2 == 0 else (j, i)
                schedule.append((*seats, args.seed * 1_000_003 + len(schedule)))
    readers = []
    # each job on its own share of the CPUs, with its bots, as the arena places them
    placed = cpus.shares(args.jobs) if args.jobs > 1 and not args.no_pin else None
    for job in range(1, args.jobs):
        read, write = os.pipe()
        if os.fork() == 0:
            os.close(read)
            if placed:
                cpus.pin(placed[job])
            result = play_matches(args.bots, schedule[job :: args.jobs], args.lanes, args.marks)
            with os.fdopen(write, "wb") as out:
                pickle.dump(result, out)
            os._exit(0)
        os.close(write)
        readers.append(read)
    if placed:
        cpus.pin(placed[0])
    totals = play_matches(args.bots, schedule[:: args.jobs], args.lanes, args.marks)
    for read in readers:
        with os.fdopen(read, "rb") as got:
            result = pickle.load(got)
        for key in totals:
            totals[key] = [x + y for x, y in zip(totals[key], result[key], strict=True)]
    for _ in readers:
        os.wait()
    if args.marks:
        own, waited = (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
        print(f"cpu: this process {own.ru_utime + own.ru_stime:.3f} s, the processes it started "
              f"{waited.ru_utime + waited.ru_stime:.3f} s", file=sys.stderr)  # fmt: skip
    table = [
        {"bot": Path(file).stem, "score": totals["points"][k], "faults": totals["faults"][k]}
        for k, file in enumerate(args.bots)
    ]
    elapsed = time.perf_counter() - T0
    print(json.dumps({"matches": len(schedule), "elapsed_s": round(elapsed, 3), "bots": table}))


if __name__ == "__main__":
    main()
