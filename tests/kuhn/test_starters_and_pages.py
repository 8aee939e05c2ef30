"""The pages and starter bots of Kuhn poker, Leduc hold'em and Blackjack++: each game's page
shows its rules and bot contract and offers a Python starter, and each starter really plays
a built-in bot through ``manage.py arena`` in the sandbox without a fault."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.conftest import starter_source
from tests.sandbox import conftest as sandbox_fixtures

sandbox_config = sandbox_fixtures.sandbox_config


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("slug", "title", "rules", "starter"),
    [
        ("kuhn", "Kuhn poker", "A hand", "kuhn_starter.py"),
        ("leduc", "Leduc hold&#x27;em", "A hand", "leduc_starter.py"),
        ("blackjack-pp", "Blackjack++", "A deal", "blackjack_pp_starter.py"),
    ],
)
def test_each_page_explains_the_rules_and_offers_a_python_starter(
    client, slug, title, rules, starter
):
    page = client.get(f"/games/{slug}/").content.decode()
    assert f"<h1>{title}</h1>" in page
    assert rules in page and "<code>act</code>" in page
    assert f'download="{starter}"' in page
    # (Blackjack++'s cfr solves every deal: the command its starters give meets simple first)
    against = "builtin:simple --rounds 10" if slug == "blackjack-pp" else "builtin:cfr --rounds 20"
    assert f".venv/bin/python manage.py arena --game {slug} {starter} {against}" in page
    assert ">Measured<" not in page and ">How it is built and checked<" not in page
    assert client.get(f"/games/{slug}/leaderboard/").status_code == 200
    download = client.get(f"/games/{slug}/starter/python/")
    assert download.status_code == 200 and b"class Bot" in download.getvalue()


@pytest.fixture
def in_the_sandbox(settings, sandbox_config):
    settings.SANDBOX_UID_BASE = sandbox_config.uid_base
    settings.SANDBOX_SLOTS = sandbox_config.slots
    settings.SANDBOX_LOCK_DIR = sandbox_config.lock_dir


@pytest.mark.parametrize(
    ("game", "starter", "opponent"),
    [
        ("kuhn", "kuhn.py", "builtin:cfr"),
        ("leduc", "leduc.py", "builtin:cfr"),
        ("blackjack-pp", "blackjack_pp.py", "builtin:simple"),
    ],
)
def test_each_starter_plays_a_built_in_bot_in_the_sandbox(
    tmp_path, in_the_sandbox, game, starter, opponent
):
    source = starter_source(starter)
    path = tmp_path / f"{Path(starter).stem}_starter.py"
    path.write_text(source.read_text())
    results = tmp_path / "results.json"
    call_command(
        "arena", "--game", game, str(path), opponent, "--rounds", "2", "--seed", "4",
        "--no-progress", "--json", str(results), stdout=io.StringIO(),
    )  # fmt: skip
    data = json.loads(results.read_text())
    assert data["matches"] == 2
    mine = next(b for b in data["bots"] if Path(b["source"]).name == path.name)
    assert mine["faults"] == 0 and mine["fault_kinds"] == {} and mine["hands"] > 0
