"""The built-in bots: standalone standard-library files that play sensible strategies."""

from __future__ import annotations

import ast
import random
import sys

import pytest

from games.registry import get_game
from games.uth import hands
from games.uth.bots import basic
from games.uth.rules import DECK, UthState

GAME = get_game("uth")


def obs(phase: str, hole: str, board: str = "", legal: list[str] | None = None) -> dict:
    default = {"pre_flop": ["[4x]", "[check]"], "flop": ["[2x]", "[check]"]}
    return {
        "phase": phase,
        "hole": hole.split(),
        "board": board.split(),
        "legal": legal or default.get(phase, ["[1x]", "[fold]"]),
        "chips": 950,
        "round": 1,
    }


@pytest.mark.parametrize("name", ["always-check", "basic"])
def test_it_ships_built_in_bots_that_import_only_the_standard_library(name):
    tree = ast.parse(GAME.builtin_path(name).read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module)])
    }
    assert imported <= set(sys.stdlib_module_names)
    assert callable(GAME.builtin_class(name)().act)


def test_it_checks_until_the_river_then_bets_1x_with_always_check():
    bot = GAME.builtin_class("always-check")()
    assert bot.act(obs("pre_flop", "Ah Ad")) == "[check]"
    assert bot.act(obs("flop", "Ah Ad", "2c 3c 4c")) == "[check]"
    assert bot.act(obs("river", "7c 2d", "Ah Kd Qs 9h 4c")) == "[1x]"
    assert bot.act(obs("river", "7c 2d", "Ah Kd Qs 9h 4c", ["[skip]"])) == "[skip]"


@pytest.mark.parametrize(
    ("hole", "raise_"),
    [("3c 3d", True), ("2c 2d", False), ("Ac 2d", True), ("Kh 2h", True), ("Kh 4d", False),
     ("Kh 5d", True), ("Qs 6s", True), ("Qs 7d", False), ("Qs 8d", True), ("Jc 8c", True),
     ("Jc 9d", False), ("Jc Td", True), ("Tc 9c", False)],
)  # fmt: skip
def test_it_raises_4x_before_the_flop_on_strong_starting_hands(hole, raise_):
    assert basic.Bot().act(obs("pre_flop", hole)) == ("[4x]" if raise_ else "[check]")


@pytest.mark.parametrize(
    ("hole", "flop", "raise_"),
    [("Kc 7d", "Kh 2s 9c", True), ("2c 2d", "Kh 5s 9c", False), ("5c 5d", "Kh 2s 9c", True),
     ("Ah 3h", "Kh 8h 2c", True), ("9h 3h", "Kh 8h 2c", False), ("Qc 7d", "Kh 2s 9c", False),
     ("Qc 7d", "Kh Ks 9c", False), ("7c 2d", "7h 2s 9c", True)],
)  # fmt: skip
def test_it_raises_2x_on_the_flop_with_made_hands_and_strong_draws(hole, flop, raise_):
    assert basic.Bot().act(obs("flop", hole, flop)) == ("[2x]" if raise_ else "[check]")


def test_it_bets_1x_at_the_river_when_ahead_of_enough_dealer_hands():
    bot = basic.Bot()
    assert bot.act(obs("river", "Kc 7d", "Kh 2s 9c 4d 3h")) == "[1x]"  # a hidden pair
    assert bot.act(obs("river", "Ac Qd", "2h 5s 9c Td 3h")) == "[1x]"  # ace high, few outs
    assert bot.act(obs("river", "3c 2d", "Kh Js 9c 7d 5h")) == "[fold]"  # nothing
    assert basic.dealer_outs(["3c", "2d"], ["Kh", "Js", "9c", "7d", "5h"]) >= 21


def test_it_orders_hands_as_phevaluator_does():
    rng = random.Random(2)
    sample = [rng.sample(DECK, rng.choice([5, 6, 7])) for _ in range(20_000)]
    ours = [basic.strength(h) for h in sample]
    theirs = [hands.value(h) for h in sample]
    for i in range(len(sample) - 1):
        mine = (ours[i] > ours[i + 1]) - (ours[i] < ours[i + 1])
        their = (theirs[i] < theirs[i + 1]) - (theirs[i] > theirs[i + 1])
        assert mine == their, (sample[i], sample[i + 1])


def test_it_answers_only_legal_actions_through_whole_sessions():
    for name in ("always-check", "basic"):
        bot = GAME.builtin_class(name)()
        state = UthState.new(17, config={"max_rounds": 300, "chips": 100_000})
        while not state.is_over():
            state.apply(0, bot.act(state.observation()))
        assert state.outcome == "won" and len(state.rounds) == 300
