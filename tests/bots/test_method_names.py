"""A fault names a method as the bot's own file does: one rule (``bots.languages.method_name``)
that must be the one the JavaScript host calls by, for every game's contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.languages import method_name
from bots.running.launch import plain_launch
from bots.running.process import BotProcess
from games.registry import game_slugs, games, get_game


def test_python_keeps_the_contracts_names_and_javascript_uses_camel_case():
    assert method_name("python", "main_postprocess") == "main_postprocess"
    assert method_name("javascript", "main_postprocess") == "mainPostprocess"
    assert method_name("javascript", "draft_pick") == "draftPick"
    assert method_name("javascript", "act") == "act"


@pytest.mark.parametrize("slug", game_slugs())
def test_the_js_host_calls_each_method_by_the_name_the_reasons_use(tmp_path: Path, slug: str):
    # A JavaScript bot of this game whose every method says what it is called: the host
    # must call the contract's method by the name method_name gives, and list it back
    # under the contract's name.
    game = get_game(slug)
    names = {m: method_name("javascript", m) for m in game.methods}
    body = ", ".join(f"{n}() {{ throw new Error('this is {n}'); }}" for n in names.values())
    path = tmp_path / "bot.js"
    path.write_text(f"({{ {body} }})\n")
    with BotProcess(plain_launch(path, game=slug), label="bot") as process:
        hello = process.start(10)
        assert set(game.methods) <= set(hello.methods)
        process.request({"type": "begin", "reply": False}, reply=False)  # a fresh bot
        for method, name in names.items():
            rid = process.request({"type": "call", "method": method, "args": []})
            _, message = process.reply(rid, 10, name)
            assert message["error"] == f"Error: this is {name}"


@pytest.mark.parametrize("slug", [g.slug for g in games() if "javascript" in g.starters])
def test_every_javascript_starter_has_the_contract_under_those_names(slug: str):
    game = get_game(slug)
    text = game.starters["javascript"].read_text()
    for method in game.methods:
        assert method_name("javascript", method) in text
    with BotProcess(plain_launch(game.starters["javascript"], game=slug), label="s") as process:
        assert set(game.methods) <= set(process.start(10).methods)
