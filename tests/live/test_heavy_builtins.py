"""Built-in bots that think for long (Blackjack++'s cfr solves each deal: half a second of the
web process's CPU) at live tables: one of them thinks at a time in a process, the wait charged
to none of the bot's time, and a table played out by default (everyone away) or played again
up to where it stopped plays the bot's quick rule, without a solve. One guest's five tables,
left alone, took every core of the web process before (docs/live-tables.md)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from django.core.cache import caches

from bots.sandbox import machine_lock_file
from games.blackjack_pp.bots import cfr
from games.engine.game import Prompt
from games.live import host as hosting
from games.live.host import HeavyBuiltin, SeatPlan, SharedWork, heavy_builtin
from games.registry import get_game
from tests.live.test_host import Wire, builtin, current_state, host, join, run

GAME = "blackjack-pp"
#: cfr's solved deals are kept in the site's cache (SharedWork): every test here may reach it
pytestmark = pytest.mark.backends


def counting_solves(monkeypatch) -> list[tuple]:
    """Every deal cfr solves from now on (its up cards, its hits)."""
    solves: list[tuple] = []
    solved = cfr.solved

    def counted(up, max_hits, budget=cfr.BUDGET_S, shared=None):
        solves.append((up, max_hits))
        return solved(up, max_hits, budget, shared)

    monkeypatch.setattr(cfr, "solved", counted)
    return solves


def test_only_built_in_bots_that_think_for_long_are_heavy():
    spec = get_game(GAME)
    assert isinstance(heavy_builtin(spec, builtin(GAME, "cfr").entry), HeavyBuiltin)
    assert heavy_builtin(spec, builtin(GAME, "simple").entry) is None  # quick: on the loop
    assert heavy_builtin(get_game("kuhn"), builtin("kuhn", "cfr").entry) is None


@pytest.mark.asyncio
async def test_a_table_played_out_by_default_has_its_bot_play_its_quick_rule(monkeypatch):
    """Everyone at the table is away (or gone): the rest is played at once, and cfr plays
    the simple rule for it, never solving a deal: nobody is there to play against it."""
    solves = counting_solves(monkeypatch)
    wire = Wire()
    table = host(GAME, [SeatPlan("ann", "human"), builtin(GAME, "cfr")], wire,
                 config={"hands": 10, "max_hits": 1})  # fmt: skip
    run(table)
    await wire.wait("seat:0", "turn")
    solved_before = len(solves)
    assert solved_before <= 1  # (the first deal's, if cfr acted first)
    table.close()  # as the host does once everyone was away for AWAY_TURNS_END turns
    assert await join(table, 20)
    assert len(table.result["scores"]) == 2 and not table.result["faults"]
    assert len(solves) == solved_before  # no deal solved once the table was played out


@pytest.mark.asyncio
async def test_a_table_played_by_people_still_has_its_bot_solve(monkeypatch):
    solves = counting_solves(monkeypatch)
    wire = Wire()
    table = host(GAME, [SeatPlan("ann", "human"), builtin(GAME, "cfr")], wire,
                 config={"hands": 2, "max_hits": 1})  # fmt: skip
    run(table)
    for asked in range(2):  # a deal each: ann stands
        turn = await wire.wait("seat:0", "turn", after=asked)
        actions = current_state(wire, "seat:0")["actions"]
        stand = next(a["value"] for a in actions if a["label"] == "Stand")
        table.submit(0, turn["turn"], stand, reply_to="ann")
    assert await join(table, 20)
    assert len(solves) == 2  # each deal solved: a table with someone at it plays its best


@contextlib.contextmanager
def thinking_elsewhere(where: str) -> Iterator[None]:
    """Another table's heavy bot thinks: in this web process (its place taken), or in
    another process of the machine (that process holds the machine's place: its flock)."""
    if where == "process":
        assert hosting._THINKING.acquire(timeout=5)
        try:
            yield
        finally:
            hosting._THINKING.release()
        return
    path = machine_lock_file("heavy-thinking-0")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDS_A_LOCK, str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.communicate("", timeout=10)  # (its end lets the lock go)


HOLDS_A_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("where", ["process", "machine"])
def test_one_heavy_bot_thinks_at_a_time_and_its_wait_is_not_its_own(monkeypatch, where):
    """Another table's bot thinks (the process's one place to think is taken, or the
    machine's, by another web process): this one waits for it, and the wait is its
    ``starved_s``, which the runner charges to none of its time."""
    spec = get_game(GAME)
    agent = heavy_builtin(spec, builtin(GAME, "cfr").entry)
    assert agent is not None
    agent.bot = cfr.Bot()
    solving = threading.Event()
    # (it solves nothing: the rule plays)
    monkeypatch.setattr(cfr, "solved", lambda up, hits, shared=None: solving.set())
    obs = {"up": ["6h", "Kc", "2s"], "max_hits": 1, "total": 12}
    monkeypatch.setattr(agent, "bot_call", lambda prompt: ("act", [obs]))
    prompt = Prompt("act", obs)
    with thinking_elsewhere(where):
        thread = threading.Thread(target=agent.send, args=(prompt,))
        thread.start()
        assert not solving.wait(0.2)  # it waits its turn
    thread.join(5)
    assert solving.is_set() and agent.receive(1.0) == "hit"
    assert agent.starved_s >= 0.2
    # a move of a table played out by default waits for nobody, and solves nothing
    solving.clear()
    agent.hurry()
    assert hosting._THINKING.acquire(timeout=5)
    try:
        agent.send(prompt)
        assert agent.receive(1.0) == "hit" and agent.starved_s == 0.0
        assert not solving.is_set()  # the simple rule: hit below 15
    finally:
        hosting._THINKING.release()


def test_a_resumed_table_does_not_solve_again_the_deals_it_replays():
    table = host(GAME, [SeatPlan("ann", "human"), builtin(GAME, "cfr")], Wire(),
                 steps=[(0, {"s": 0, "m": "begin"})])  # fmt: skip
    assert [bot.replaying for bot in table.heavy] == [True]
    table._caught_up()
    assert [bot.replaying for bot in table.heavy] == [False]
    fresh = host(GAME, [SeatPlan("ann", "human"), builtin(GAME, "cfr")], Wire())
    assert [bot.replaying for bot in fresh.heavy] == [False]


def test_a_deal_solved_in_one_web_process_is_not_solved_again_in_another(monkeypatch):
    """Each process has its own cache of solved deals; the site's cache (Redis, where the
    site has one) holds them for all: a second process plays a deal another solved without
    solving it. Only a whole solve is shared (one cut short by a loaded machine is not),
    and a cache that cannot be reached is a miss."""
    caches["default"].clear()
    cfr._SOLVED.clear()  # (what earlier tests of this process solved)
    deadline = cfr.Deadline
    monkeypatch.setattr(cfr, "Deadline", lambda cpu_s: deadline(60.0, 60.0))  # (whole solves)
    agent = heavy_builtin(get_game(GAME), builtin(GAME, "cfr").entry)
    assert agent is not None and agent.shared is SharedWork.of(cfr.Bot)
    agent.bot = cfr.Bot()
    state = get_game(GAME).state_class.new(3, config={"max_hits": 1})
    prompt = state.prompt(state.pending()[0])
    agent.send(prompt._replace(data=prompt.data | {"up": ["6h", "6d", "2c"]}))
    assert agent.bot.shared is agent.shared
    shared, up = agent.shared, (6, 6, 2)
    first = cfr._SOLVED[(up, 1)]
    assert cfr.whole(first, 1)

    cfr._SOLVED.clear()  # another process: its own cache is empty

    def iterate(solver):
        raise AssertionError("solved again")

    monkeypatch.setattr(cfr.Solver, "iterate", iterate)
    again = cfr.solved(up, 1, shared=shared)
    assert again is not first and again.iterations == first.iterations
    assert [again.strategy(0, [], d) for d in range(1, 11)] == [
        first.strategy(0, [], d) for d in range(1, 11)
    ]

    # a solve cut short is this process's alone; an unreachable cache is a miss
    monkeypatch.undo()
    cfr._SOLVED.clear()
    monkeypatch.setattr(cfr, "Deadline", lambda cpu_s: deadline(0.0, 0.0))
    short = cfr.solved((5, 7, 3), 1, shared=shared)
    assert short.iterations < cfr.ITERATIONS and shared.get(((5, 7, 3), 1)) is None

    class Down:
        def get(self, *args):
            raise ConnectionError("no cache")

        set = get

    monkeypatch.setattr(hosting, "caches", {"default": Down()})
    monkeypatch.setattr(cfr, "Deadline", lambda cpu_s: deadline(60.0, 60.0))
    cfr._SOLVED.clear()
    assert cfr.solved((4, 8, 3), 1, shared=shared).iterations == cfr.ITERATIONS
