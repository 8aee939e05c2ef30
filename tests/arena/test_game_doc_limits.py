"""Every game's document states the limits its bots run under, with the figures the code
uses: the time control of the game's spec, the sandbox's limits for the game, and the bot
file sizes (the site's upload limit from the settings, the local sandbox's). A change to
any of them fails here until the document says it too."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.competition.uploads import max_code_bytes
from bots.running.timing import site_time_control
from bots.sandbox import MAX_BOT_BYTES, MiB, limits_for
from games.registry import games

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def limits_section(slug: str) -> str:
    text = (DOCS / f"{slug}.md").read_text()
    assert "\n## Limits\n" in text, f"docs/games/{slug}.md has no Limits section"
    return text.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("game", games(), ids=lambda g: g.slug)
def test_the_game_doc_states_the_real_limits(game):
    section = limits_section(game.slug)
    tc, sandbox = site_time_control(game), limits_for(game)
    assert output_mib(sandbox.output_bytes) and MAX_BOT_BYTES % MiB == 0
    for figure in (
        f"{tc.move:g} s per call",
        f"bank of {tc.bank:g} s per match",
        f"{tc.startup:g} s to start",
        f"slow on {tc.streak} calls in a row (over {tc.move:g} s each",
        f"{sandbox.memory_mb} MiB for everything the bot holds",
        f"{output_mib(sandbox.output_bytes)} MiB of output per match",
        f"{max_code_bytes() // 1024} KiB to upload to the site",
        f"takes files up to {MAX_BOT_BYTES // MiB} MiB",
    ):
        assert figure in section, f"docs/games/{game.slug}.md: Limits lacks {figure!r}"


def output_mib(size: int) -> int:
    """The output limit in whole MiB (the document's unit)."""
    assert size % MiB == 0, "the output limit is no longer whole MiB: change the docs' unit"
    return size // MiB


@pytest.mark.parametrize("game", games(), ids=lambda g: g.slug)
def test_the_game_doc_and_the_readme_name_its_starter_files(game):
    # the starters were downloads on the site only: nothing on the command line found them
    root = DOCS.parents[1]
    readme, doc = (root / "README.md").read_text(), (DOCS / f"{game.slug}.md").read_text()
    assert game.starters
    for path in game.starters.values():
        name = f"`{path.resolve().relative_to(root)}`"
        assert name in doc, f"docs/games/{game.slug}.md does not name its starter {name}"
        assert name in readme, f"README.md does not name {game.slug}'s starter {name}"


@pytest.mark.parametrize("game", games(), ids=lambda g: g.slug)
def test_the_game_doc_lists_its_options_as_the_code_declares_them(game):
    text = (DOCS / f"{game.slug}.md").read_text()
    assert "\n## Options\n" in text, f"docs/games/{game.slug}.md has no Options section"
    section = text.split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    if not game.options:
        assert "has no options to set" in section
    for option in game.options:
        row = f"| `{option.name}` | {option.allowed} | {option.default} | {option.help} |"
        assert row in section, f"docs/games/{game.slug}.md: Options lacks {row!r}"
