"""Every game's JavaScript starter plays its game in the sandbox, with the real Node host,
against each of the game's built-in bots without a fault."""

from __future__ import annotations

import pytest

from games.registry import games, get_game
from tests.sandbox.test_compiled_starters import assert_plays_without_a_fault

#: how long each game's tournament is: one round with every built-in bot (Blackjack++'s
#: cfr solves every deal, about a quarter of a second: short matches)
LENGTHS = {
    "rps-poker": ["--rounds", "1"],
    "last-card": ["--fill", "builtin:naive", "--games", "8"],
    "kuhn": ["--rounds", "1"],
    "leduc": ["--rounds", "1"],
    "goofspiel": ["--rounds", "1"],
    "uth": ["--sessions", "1", "--rounds-per-session", "40"],
    "blackjack-pp": ["--rounds", "1", "--option", "hands=10"],
}


def test_every_game_has_a_javascript_starter():
    assert {game.slug for game in games() if "javascript" in game.starters} == set(LENGTHS)


@pytest.mark.real_js_host
@pytest.mark.parametrize("slug", sorted(LENGTHS))
def test_each_javascript_starter_plays_every_built_in_bot_in_the_sandbox(tmp_path, slug):
    game = get_game(slug)
    opponents = [f"builtin:{name}" for name in game.builtin_names]
    starter = game.starters["javascript"]
    assert_plays_without_a_fault(tmp_path, slug, starter, [*opponents, *LENGTHS[slug]])
