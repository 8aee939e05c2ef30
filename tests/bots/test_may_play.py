"""``Language.may_play``: which games a bot file could be one of, read and never run (the
arena's configuration files without a ``"game"``), each language by its own way of defining
the contract's methods."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.languages import language_of
from games.registry import get_game

ROOT = Path(__file__).resolve().parents[2]
RPS, LAST_CARD, KUHN = get_game("rps-poker"), get_game("last-card"), get_game("kuhn")


@pytest.mark.parametrize("language", ["python", "javascript", "cpp", "java"])
def test_a_starter_may_play_its_own_game_and_not_another(language):
    for game, other in ((RPS, KUHN), (KUHN, RPS)):
        path = game.starters[language]
        data = path.read_bytes()
        assert language_of(path).may_play(data, game)
        assert not language_of(path).may_play(data, other)


def test_an_original_javascript_bot_names_its_methods_as_an_objects_properties():
    path = ROOT / "bench" / "rps_js_bots" / "first.js"
    assert language_of(path).may_play(path.read_bytes(), RPS)
    assert not language_of(path).may_play(path.read_bytes(), KUHN)


def test_a_kit_strategy_and_a_built_jar_may_play_the_game_of_the_kit_only():
    strategy = LAST_CARD.starters["java"]  # implements CardGameStrategy, defines no play()
    java = language_of(strategy)
    assert java.may_play(strategy.read_bytes(), LAST_CARD)
    assert not java.may_play(strategy.read_bytes(), RPS)
    jar = b"PK\x03\x04" + bytes(40)  # read no further than its head
    assert java.may_play(jar, LAST_CARD) and not java.may_play(jar, RPS)
