"""Blackjack++'s built-in bots: the cfr bot's tables of one hit hold every deal as the project's
solver solves it and are played without a solve, its own (standard library) CFR+ reaches a
strategy the project's solver finds nearly unexploitable, its merged-state solve of 2 and 3
hits is a strategy everywhere and nearly unexploitable on the exact game, it plays every max
hits without a fault, beats random and simple, and every built-in plays through the child
process protocol."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, ProcessAgent
from games.blackjack_pp import house
from games.blackjack_pp.bots import cfr
from games.blackjack_pp.tree import BlackjackPP, PublicBlackjackPP
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.registry import get_game
from games.solver import build, exploitability
from games.solver.export import strategy_array
from games.solver.public import build_public
from games.solver.public import exploitability as public_exploitability
from tests.chip_games import play_as_child

GAME = get_game("blackjack-pp")
VALUE = {"A": 1, "T": 10}


def as_table(solver: cfr.Solver, tree) -> dict:
    table = {}
    for key in tree.infoset_keys:
        player, down, history = int(key[0]), key[1], key[3:]
        hit = solver.strategy(
            player, history.split(",") if history else [], VALUE.get(down) or int(down)
        )
        assert hit is not None, key
        table[key] = {"h": hit, "s": 1 - hit}
    return table


def full_solve(up: tuple[int, int, int]) -> cfr.Solver:
    """The one-hit solve the bot runs when its time budget allows all its iterations (how
    long they take is the machine's business: a busy one runs fewer within the budget, and
    a test of the strategy must not depend on the machine's load)."""
    solver = cfr.Solver(up, 1)
    while solver.iterations < cfr.ITERATIONS:
        solver.iterate()
    return solver


def one_hit_table(up: tuple[int, int, int]) -> dict:
    """The bot's table of one hit for ``up``, as the solver's strategy table."""
    held = cfr.one_hit([cfr.NAMES[v] for v in up])
    assert held is not None, up
    return {key: {"h": hits / 1000, "s": 1 - hits / 1000} for key, hits in held.items()}


def test_its_tables_of_one_hit_hold_every_deal_as_the_projects_solver_solves_it():
    ups = [(a, b, d) for a in cfr.VALUES for b in cfr.VALUES for d in cfr.VALUES]
    assert all(cfr.one_hit([cfr.NAMES[v] for v in up]) is not None for up in ups)
    assert len(cfr._ONE_HIT) == 1000
    # the same solves write the same tables (the whole of them: python -m
    # games.blackjack_pp.house --check, 20 to 45 seconds)
    for up in ("6,6,2", "A,T,7", "T,4,9"):
        solved = house.solve(up)
        held = cfr.one_hit(up.split(","))
        assert held == {key: round(p["h"] * 1000) for key, p in solved.items()}


@pytest.mark.parametrize("up", [(6, 6, 2), (1, 10, 7), (10, 10, 10)])
def test_its_tables_of_one_hit_are_nearly_unexploitable(up):
    tree = build(BlackjackPP(up, 1))
    assert exploitability(tree, strategy_array(tree, one_hit_table(up))) < 5e-4


def test_it_plays_a_match_of_one_hit_from_its_tables_without_solving(monkeypatch):
    def no_solve(*args, **kwargs):
        raise AssertionError("a deal of one hit was solved")

    monkeypatch.setattr(cfr, "solved", no_solve)
    agents = [
        InProcessAgent(GAME.builtin_class(name), GAME.bot_call, name) for name in ("cfr", "simple")
    ]
    state = GAME.state_class.new(5, config={"hands": 20, "max_hits": 1})
    outcome = MatchRunner(time.monotonic, GAME.time_control).run(state, agents, seed=5)
    assert not outcome.faults and not outcome.result["faults"]
    assert outcome.result["hands"] == 20
    assert outcome.stats[0].slowest_s < 0.05  # (a solve took about half a second)


@pytest.mark.parametrize("up", [(6, 6, 2), (1, 10, 7)])
def test_its_solution_is_nearly_unexploitable_by_the_projects_solver(up):
    solver = full_solve(up)
    tree = build(BlackjackPP(up, 1))
    assert exploitability(tree, strategy_array(tree, as_table(solver, tree))) < 2e-3


def merged_table(solution: cfr.StateTable, keys: list[str]) -> dict:
    """The merged solve's hit probability at every information set of the exact game."""
    table = {}
    for key in keys:
        player, down, history = int(key[0]), key[1], key[3:]
        hit = solution.strategy(
            player, history.split(",") if history else [], VALUE.get(down) or int(down)
        )
        assert hit is not None and 0.0 <= hit <= 1.0, (key, hit)
        table[key] = {"h": hit, "s": 1 - hit}
    return table


def test_its_three_hit_strategy_is_a_probability_at_every_decision_of_the_exact_game():
    up = (10, 10, 10)
    # a fixed number of iterations (in play the half second decides how many)
    solution = cfr.solve_merged(up, 3, cfr.Deadline(math.inf, math.inf), iterations=20)
    assert solution.iterations == 20
    hit = solution.hit[~np.isnan(solution.hit)]
    assert hit.size and ((hit >= 0) & (hit <= 1)).all()
    tree = build_public(PublicBlackjackPP(up, 3))
    table = merged_table(solution, tree.infoset_keys)  # every information set has one
    # measured: 1.6e-4 points a deal (an exact solve's tends to 0)
    assert public_exploitability(tree, tree.strategy_from_table(table)) < 1e-3


def test_its_two_hit_solve_is_nearly_unexploitable_on_the_exact_game():
    up = (6, 6, 2)
    solution = cfr.solve_merged(up, 2, cfr.Deadline(math.inf, math.inf), iterations=40)
    tree = build_public(PublicBlackjackPP(up, 2))
    table = merged_table(solution, tree.infoset_keys)
    # measured: 6.0e-4 points a deal (the merged game's limit: 20 iterations give 7.3e-4)
    assert public_exploitability(tree, tree.strategy_from_table(table)) < 2e-3


def test_it_plays_the_simple_rule_where_no_solve_fits():
    # no time at all: not even the states are built
    assert cfr.solve_merged((6, 6, 2), 3, cfr.Deadline(0, 0)) is None
    bot = cfr.Bot()
    obs = {"up": ["6s", "6h", "2d"], "max_hits": 3, "history": "", "position": 0,
           "down": "Ts", "total": 16}  # fmt: skip
    cfr._SOLVED[((6, 6, 2), 3)] = None
    try:
        assert bot.act(obs) == "stand" and bot.act(obs | {"total": 12}) == "hit"
    finally:
        del cfr._SOLVED[((6, 6, 2), 3)]


def test_its_budget_is_its_own_cpu_time_within_the_moves_clock():
    """Time the machine gives others is not the bot's: a wait (here a sleep, as a busy
    machine's run queue is) leaves its CPU budget whole, and only its clock runs out."""
    cpu = cfr.Deadline(cpu_s=0.05, wall_s=10.0)
    clock = cfr.Deadline(cpu_s=10.0, wall_s=0.05)
    time.sleep(0.1)
    assert cpu.left() > 0.04 and clock.left() < 0
    spin = cfr.Deadline(cpu_s=0.05, wall_s=10.0)
    while spin.left() > 0:  # its own work spends it
        pass
    assert time.thread_time() >= spin.cpu_end


def test_its_cache_keeps_the_most_recently_used_solutions():
    saved = dict(cfr._SOLVED)
    cfr._SOLVED.clear()
    try:
        fake = [((a, b, 5), 2) for a in range(1, 11) for b in range(1, 11)][: cfr.CACHE_SIZE]
        for key in fake:
            cfr._SOLVED[key] = None
        assert cfr.solved(*fake[0]) is None  # used again: now the most recent
        assert cfr.solved((9, 9, 9), 1) is not None  # a new solve: the oldest goes
        assert len(cfr._SOLVED) == cfr.CACHE_SIZE
        assert fake[0] in cfr._SOLVED and fake[1] not in cfr._SOLVED
    finally:
        cfr._SOLVED.clear()
        cfr._SOLVED.update(saved)


def three_hit_match_as_a_child(tmp_path, **launch) -> str:
    """Two deals of 3 hits: the built-in ``cfr`` as a child process (launched as ``arena``
    launches built-ins, with ``launch``'s options) against ``simple``; its stderr log."""
    process = BotProcess(
        plain_launch(GAME.builtin_path("cfr"), **launch),
        label="cfr",
        stderr_log=tmp_path / "err.log",
    )
    try:
        process.start(10.0)
        agents = [
            ProcessAgent(process, GAME.bot_call),
            InProcessAgent(GAME.builtin_class("simple"), GAME.bot_call, "simple"),
        ]
        state = GAME.state_class.new(4, config={"hands": 2, "max_hits": 3})
        outcome = MatchRunner(time.monotonic, GAME.time_control).run(state, agents, seed=4)
    finally:
        process.close()
    assert not outcome.faults and outcome.result["hands"] == 2
    return (tmp_path / "err.log").read_text()


def test_as_a_child_process_it_solves_three_hits_with_the_projects_python(tmp_path):
    """A built-in's child process (``arena`` launches them so) runs the worker's own Python,
    isolated (``-I``): NumPy and SciPy are there, so it solves rather than play the rule."""
    assert "no NumPy" not in three_hit_match_as_a_child(tmp_path)


def test_without_numpy_it_says_so_in_its_log_and_plays_the_rule(tmp_path):
    """What an uploaded copy of it does in the sandbox (Debian's Python, no NumPy)."""
    log = three_hit_match_as_a_child(tmp_path, interpreter="/usr/bin/python3")
    assert "no NumPy or SciPy here" in log


@pytest.mark.parametrize("max_hits", [2, 3])
def test_it_plays_two_and_three_hit_matches_against_simple_without_faults(max_hits):
    agents = [
        InProcessAgent(GAME.builtin_class(name), GAME.bot_call, name) for name in ("cfr", "simple")
    ]
    state = GAME.state_class.new(7, config={"hands": 4, "max_hits": max_hits})
    outcome = MatchRunner(time.monotonic, GAME.time_control).run(state, agents, seed=7)
    assert not outcome.faults and not outcome.result["faults"]
    assert outcome.result["hands"] == 4 and sum(outcome.result["scores"]) == pytest.approx(0)


@pytest.mark.parametrize("up", [(6, 6, 2), (10, 4, 9)])
def test_cfr_beats_random_and_simple_in_expectation(up):
    """Exact expectations on the solver's tree, averaged over the two positions, of what it
    plays with one hit (its tables)."""
    from games.solver import expected_value

    tree = build(BlackjackPP(up, 1))
    mine = one_hit_table(up)

    def simple_hit(key: str) -> float:
        # simple hits below 15: its total from the up card, the down card and its hits
        player, down, history = int(key[0]), key[1], key[3:]
        cards = [up[player], VALUE.get(down) or int(down)]
        for token in history.split(",") if history else []:
            if token[0] == str(player) and token[1] == "h":
                cards.append(VALUE.get(token[2]) or int(token[2]))
        total = sum(cards) + (10 if 1 in cards and sum(cards) + 10 <= 21 else 0)
        return 1.0 if total < 15 else 0.0

    for other in (lambda key: 0.5, simple_hit):
        total = 0.0
        for cfr_player in (0, 1):
            table = {
                key: mine[key]
                if int(key[0]) == cfr_player
                else {"h": other(key), "s": 1 - other(key)}
                for key in tree.infoset_keys
            }
            value = expected_value(tree, strategy_array(tree, table))
            total += value if cfr_player == 0 else -value
        assert total / 2 > 0.01


@pytest.mark.parametrize("name", ["random", "simple", "cfr"])
def test_each_built_in_plays_as_a_child_process(tmp_path, name):
    outcome = play_as_child(tmp_path, "blackjack-pp", name, against="simple", hands=4)
    assert outcome.stats[0].slowest_s < GAME.time_control.move
