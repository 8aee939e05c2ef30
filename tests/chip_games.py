"""Helpers shared by the tests of the games solved by CFR (Kuhn, Leduc, Blackjack++)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchOutcome, MatchRunner
from games.registry import get_game
from games.solver import build, exploitability
from games.solver.export import strategy_array
from games.solver.game import Game


def assert_nearly_unexploitable(game: Game, strategy: dict[str, dict[str, float]]) -> None:
    """An embedded strategy table covers every infoset of the game's tree, each row is a
    distribution, and its exact exploitability is below 1e-3."""
    tree = build(game)
    assert set(strategy) == set(tree.infoset_keys)
    for row in strategy.values():
        assert sum(row.values()) == pytest.approx(1, abs=1e-3)
    assert exploitability(tree, strategy_array(tree, strategy)) < 1e-3


def match(slug: str, names: list[str], seed: int, hands: int) -> dict[str, Any]:
    """A match of built-ins, in-process; its result."""
    spec = get_game(slug)
    agents = [InProcessAgent(spec.builtin_class(n), spec.bot_call, n) for n in names]
    state = spec.state_class.new(seed, config={"hands": hands})
    return MatchRunner(time.monotonic, spec.time_control).run(state, agents, seed=seed).result


def mean_won_from_both_seats(slug: str, bot: str, against: str, matches: int, hands: int):
    """Chips (or points) per hand ``bot`` won against ``against``, seats alternating."""
    won = 0.0
    for seed in range(matches):
        seat = seed % 2
        names = [against, against]
        names[seat] = bot
        result = match(slug, names, seed, hands)
        assert not result["faults"]
        won += result["scores"][seat]
    return won / (matches * hands)


def play_as_child(tmp_path: Path, slug: str, name: str, against: str, hands: int) -> MatchOutcome:
    """A built-in run as a child process over the bot protocol, as uploaded bots are."""
    spec = get_game(slug)
    process = BotProcess(
        plain_launch(spec.builtin_path(name)), label=name, stderr_log=tmp_path / "err.log"
    )
    try:
        process.start(10.0)
        agents = [
            ProcessAgent(process, spec.bot_call),
            InProcessAgent(spec.builtin_class(against), spec.bot_call, against),
        ]
        outcome = MatchRunner(time.monotonic, spec.time_control).run(
            spec.state_class.new(4, config={"hands": hands}), agents, seed=4
        )
    finally:
        process.close()
    assert not outcome.faults
    assert outcome.result["hands"] == hands and outcome.stats[0].calls >= hands
    return outcome
