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
import time
from collections.abc import Iterator

import pytest
from django.core.cache import caches

from bots.sandbox import machine_lock_file
from games.blackjack_pp.bots import cfr
from games.engine.game import Prompt
from games.live import host as hosting
from games.live.host import HeavyBuiltin, SeatPlan, SharedWork, heavy_builtin
from games.registry import get_game
from tests.live.test_host import Wire, builtin, current_state, host, join, run, snapshot

GAME = "blackjack-pp"
#: cfr's solved deals are kept in the site's cache (SharedWork): every test here may reach it
pytestmark = pytest.mark.backends


@pytest.fixture(autouse=True)
def deals_are_solved(monkeypatch):
    """cfr looks the moves of a deal of one hit up in the tables it holds, solving nothing:
    these tests, about the deals it solves (2 or 3 hits), set the tables aside so that deals
    of one hit, quick to solve, are solved as such deals are."""
    monkeypatch.setattr(cfr, "one_hit", lambda up: None)


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
    with thinking_elsewhere_file("heavy-thinking-0"):
        yield


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


def test_one_clients_many_tables_wait_behind_each_other_not_ahead_of_others(monkeypatch, tmp_path):
    """One client's tables (a guest address's five, twenty) each queued a think, first come
    first served, and everyone else's bot waited behind all of them (20-27 s a deal). Now a
    client's tables take one turn at a time (an flock of the machine per client), so another
    client's bot waits for one of theirs at most."""
    # (the machine's flocks of this test alone: a test process beside it, thinking or
    # holding a turn, would hold up the other client's bot here)
    monkeypatch.setattr(hosting, "machine_lock_file", lambda name: tmp_path / f"{name}.lock")
    order: list[str] = []

    def think(share: str, name: str) -> None:
        with hosting.place_to_think(share):
            order.append(name)

    def waiting(count: int) -> None:
        """Until ``count`` tables wait for the process's place to think."""
        deadline = time.monotonic() + 10
        while len(hosting._THINKING._waiting) < count:
            assert time.monotonic() < deadline, "no table came to wait for the place"
            time.sleep(0.005)

    flood = [threading.Thread(target=think, args=("address:flood", f"flood{n}")) for n in range(5)]
    other = threading.Thread(target=think, args=("user:7", "other"))
    assert hosting._THINKING.acquire(timeout=5)  # (another table thinks meanwhile)
    try:
        for thread in flood:
            thread.start()
        waiting(1)  # one flood table at the place, the rest behind it for their turn
        other.start()
        waiting(2)  # the other client's bot at the place, behind that one
    finally:
        hosting._THINKING.release()
    for thread in [*flood, other]:
        thread.join(10)
    assert sorted(order) == sorted(["other"] + [f"flood{n}" for n in range(5)])
    assert order.index("other") <= 1, order  # after the one flood table already waiting


def test_the_turns_of_openers_are_shared_by_every_process_of_the_machine():
    """The turn of an opener is an flock of the machine's: another web process's table of the
    same opener holding it keeps this one's waiting; another opener's does not."""
    number = hosting.zlib.crc32(b"address:flood") % hosting.TURN_FILES
    with thinking_elsewhere_file(f"heavy-turn-{number}"):
        done = threading.Event()

        def think() -> None:
            with hosting.place_to_think("address:flood"):
                done.set()

        thread = threading.Thread(target=think)
        thread.start()
        assert not done.wait(0.3)  # the same opener's turn is taken elsewhere
        with hosting.place_to_think("user:7"):
            pass  # another opener's is not
    thread.join(10)
    assert done.is_set()


@contextlib.contextmanager
def thinking_elsewhere_file(name: str) -> Iterator[None]:
    """Another process of the machine holds the flock ``name``."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDS_A_LOCK, str(machine_lock_file(name))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.communicate("", timeout=10)  # (its end lets the lock go)


@pytest.mark.asyncio
async def test_the_table_says_when_its_bot_waits_for_its_turn_to_think(monkeypatch):
    """A bot kept waiting for its turn to think (the site is busy) made the page show "to act"
    for 20 s and more, with no word why: past a second, everyone at the table is told, and
    told again as the bot has its turn; a reload hears it while it lasts."""
    monkeypatch.setattr(hosting, "WAIT_SAID_S", 0.1)
    wire = Wire()
    table = host(GAME, [SeatPlan("ann", "human"), builtin(GAME, "cfr")], wire,
                 config={"hands": 2, "max_hits": 1}, share="address:x")  # fmt: skip
    assert [bot.share for bot in table.heavy] == ["address:x"]
    assert hosting._THINKING.acquire(timeout=5)  # another table's bot thinks
    try:
        run(table)
        turn = await wire.wait("seat:0", "turn")
        actions = current_state(wire, "seat:0")["actions"]
        stand = next(a["value"] for a in actions if a["label"] == "Stand")
        table.submit(0, turn["turn"], stand, reply_to="ann")
        said = await wire.wait("seat:0", "wait")
        assert said == {
            "type": "wait",
            "seat": 1,
            "text": "builtin:cfr is waiting for its turn to think: the site is busy, and bots "
            "that think for long think one at a time.",
        }
        assert said in snapshot(table, 0) and said in snapshot(table, None)
    finally:
        hosting._THINKING.release()
    assert await wire.wait("seat:0", "wait", after=1) == {"type": "wait", "seat": 1, "text": ""}
    assert not [m for m in snapshot(table, 0) if m["type"] == "wait"]
    table.close()  # (the rest played by default)
    assert await join(table, 20)


def test_a_tables_turns_to_think_are_its_addresss(db):
    """The guests of one address share one turn, and so do the people signed in from it
    (accounts are cheap: ten of them took ten turns); a table of quick bots keeps no address
    of a signed-in person's."""
    from games.live import tables
    from tests.people.helpers import make_user

    def opened(person: tables.Person, seats: list[str], address: str) -> str:
        table = tables.create_table(GAME, person, seats, address=address)
        return tables.thinking_share(table)

    guest = opened(tables.Person(None, "token-1"), ["me", "builtin:cfr"], "203.0.113.7")
    other_guest = opened(tables.Person(None, "token-2"), ["me", "builtin:cfr"], "203.0.113.7")
    ann = opened(tables.Person(make_user("ann")), ["me", "builtin:cfr"], "203.0.113.7")
    bob = opened(tables.Person(make_user("bob")), ["me", "builtin:cfr"], "203.0.113.7")
    assert guest == other_guest == ann == bob and guest.startswith("address:")
    assert "203.0.113.7" not in guest  # (a keyed hash)
    elsewhere = opened(tables.Person(make_user("cy")), ["me", "builtin:cfr"], "198.51.100.1")
    assert elsewhere != guest
    quick = tables.create_table(
        GAME, tables.Person(make_user("dee")), ["me", "builtin:simple"], address="203.0.113.7"
    )
    assert quick.guest_address == ""
    assert tables.facts_of(tables.load(pk=quick.pk)).share == f"user:{quick.created_by_id}"
