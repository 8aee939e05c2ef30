"""Every game's starters in the compiled languages (C++, Java) compile in the sandbox and play
their game against a built-in bot without a fault: real compilers, real runtimes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from bots.languages import get_language, languages
from bots.sandbox import self_test
from games.registry import games, get_game

#: each game's opponent and how long a tournament to play
PLAYS = {
    "rps-poker": ["builtin:simple", "--rounds", "2"],
    "last-card": ["--fill", "builtin:naive", "--games", "8"],
    "kuhn": ["builtin:cfr", "--rounds", "2"],
    "leduc": ["builtin:cfr", "--rounds", "2"],
    "goofspiel": ["builtin:matching", "--rounds", "2"],
    "uth": ["builtin:basic", "--sessions", "1", "--rounds-per-session", "40"],
    "blackjack-pp": ["builtin:simple", "--rounds", "2"],
}

STARTERS = sorted(
    (game.slug, language)
    for game in games()
    for language in game.starters
    if get_language(language).compiled
)


def test_every_game_has_a_cpp_and_a_java_starter():
    for language in ("cpp", "java"):
        assert {slug for slug, name in STARTERS if name == language} == set(PLAYS)


def assert_plays_without_a_fault(tmp_path: Path, slug: str, starter: Path, args: list[str]):
    """``manage.py arena`` plays ``starter`` in its game with ``args`` (its opponents and
    how long), in the sandbox, and it finishes without a fault (in Last Card, with no
    illegal move either)."""
    results = tmp_path / "results.json"
    call_command(
        "arena", "--game", slug, str(starter), *args, "--seed", "3", "--no-progress",
        "--json", str(results), stdout=io.StringIO(),
    )  # fmt: skip
    data = json.loads(results.read_text())
    mine = next(b for b in data["bots"] if b["source"] == str(starter))
    assert mine["faults"] == 0 and mine["fault_kinds"] == {}, mine
    if slug == "last-card":
        assert mine["illegal_moves"] == 0


@pytest.mark.parametrize(("slug", "language"), STARTERS)
def test_each_compiled_starter_plays_its_game_in_the_sandbox(tmp_path, slug, language):
    assert_plays_without_a_fault(tmp_path, slug, get_game(slug).starters[language], PLAYS[slug])


@pytest.mark.parametrize("language", [language.name for language in languages()])
def test_the_sandbox_self_test_starts_every_language_s_runtime(sandbox_config, language):
    """The arena's check when a bot cannot start: each language's runtime (a native one: the
    dynamic loader every program runs through) starts in an empty sandbox."""
    self_test(sandbox_config, language)
