"""The bare design: the arena's round robin as the least a sandboxed design can do, to show
what such a design costs at best on this machine (issue 30, goal 1).

    .venv/bin/python bench/arena_bare.py [--rounds R] [--seed S] [--jobs J] [--lanes L]
        [--no-pin] [--marks] BOT.js ...

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

from collections import deque  # noqa: E402
from pathlib import Path  # noqa: E402

from bots.running import cpus  # noqa: E402
from bots.running.launch import bot_launch  # noqa: E402
from bots.running.process import BotProcess, _encode  # noqa: E402
from games.engine.chance import same_shuffle  # noqa: E402
from games.registry import get_game  # noqa: E402
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
    playing: dict[int, tuple[Match, int]] = dataclasses.field(default_factory=dict)
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
    by_fd = {host.out: host for host in hosts}
    poller = select.poll()
    for host in hosts:
        poller.register(host.out, select.POLLIN)
    open_matches = 0

    def begin() -> None:
        nonlocal open_matches
        for _ in range(len(waiting)):
            a, b, seed = waiting[0]
            if not (hosts[a].lanes and hosts[b].lanes):
                break  # in order, as the arena deals them
            waiting.popleft()
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

    begin()
    while open_matches or waiting:
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
    mark(marks, "done")
    return {"points": points, "faults": faults}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--lanes", type=int, default=16)
    parser.add_argument("--no-pin", action="store_true", help="jobs run on any CPU")
    parser.add_argument("--marks", action="store_true", help="print when each step ended")
    parser.add_argument("bots", nargs="+")
    args = parser.parse_args()
    _settings()
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
            result = play(args.bots, schedule[job :: args.jobs], args.lanes, args.marks)
            with os.fdopen(write, "wb") as out:
                pickle.dump(result, out)
            os._exit(0)
        os.close(write)
        readers.append(read)
    if placed:
        cpus.pin(placed[0])
    totals = play(args.bots, schedule[:: args.jobs], args.lanes, args.marks)
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
