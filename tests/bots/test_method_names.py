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


def test_java_uses_camel_case_as_its_host_calls_the_methods():
    # a Java bot's fault named its call in Python's words ("main_play raised
    # java.lang.IllegalStateException: ...") while its file has mainPlay
    assert method_name("java", "main_play") == "mainPlay"
    assert method_name("java", "draft_pick") == "draftPick"
    assert method_name("java", "act") == "act"


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
            # (with where in the file it threw, as a load's error says it)
            assert message["error"] == f"Error: this is {name} (bot.js, line 1)"


@pytest.mark.parametrize("slug", [g.slug for g in games() if "javascript" in g.starters])
def test_every_javascript_starter_has_the_contract_under_those_names(slug: str):
    game = get_game(slug)
    text = game.starters["javascript"].read_text()
    for method in game.methods:
        assert method_name("javascript", method) in text
    with BotProcess(plain_launch(game.starters["javascript"], game=slug), label="s") as process:
        assert set(game.methods) <= set(process.start(10).methods)


def test_a_js_bot_with_snake_case_methods_is_refused_before_any_match(tmp_path: Path):
    # draft_pick is not the draftPick the host calls: it must not pass the start-up check
    # (and then fault every match with "the bot has no method draftPick")
    from bots.running.contract import missing_methods

    game = get_game("rps-poker")
    body = ", ".join(f"{m}() {{ return null; }}" for m in game.methods)
    path = tmp_path / "bot.js"
    path.write_text(f"({{ {body}, helper() {{ return 1; }} }})\n")
    with BotProcess(plain_launch(path, game="rps-poker"), label="bot") as process:
        hello = process.start(10)
    assert not set(game.methods) & set(hello.methods)
    reason = missing_methods(game, hello, path.read_text())
    assert reason.startswith(
        "the bot object has no method draftPick, draftReceive, mainPlay, mainPostprocess. "
    )
    assert "this file defines helper." in reason
    assert reason.endswith(
        "A JavaScript bot names its methods in camelCase: draftPick, not draft_pick."
    )


def test_a_js_bot_missing_a_one_word_method_gets_no_camel_case_advice():
    from bots.running.contract import missing_methods
    from bots.running.process import Hello

    game = get_game("goofspiel")
    hello = Hello(name="b", methods=[], language="javascript")
    assert "camelCase" not in missing_methods(game, hello)


@pytest.mark.parametrize(
    ("language", "methods", "ends"),
    [
        # a host that lists only the contract's methods (C++'s) says none: not "no method"
        ("cpp", [], "act(obs); this file defines none of the game's methods."),
        ("java", ["Act"], "act(obs); this file defines Act. A Java bot names its methods in "
         "camelCase: act, not Act."),
        ("python", ["Act", "helper"], "act(obs); this file defines Act, helper. A Python bot "
         "names its methods as the contract does: act, not Act."),
        ("python", ["helper"], "act(obs); this file defines helper."),
    ],
)  # fmt: skip
def test_a_missing_method_is_told_what_the_file_defines_instead(language, methods, ends):
    from bots.running.contract import missing_methods
    from bots.running.process import Hello

    hello = Hello(name="b", methods=methods, language=language)
    assert missing_methods(get_game("goofspiel"), hello).endswith(ends)


def test_a_js_file_with_code_before_its_object_is_told_the_two_shapes_of_a_bot_file():
    """A helper function before the original format's ``({...})`` makes the object an
    expression statement its host never sees: the file was told only that it defines none of
    the game's methods, which it plainly does."""
    from bots.running.contract import missing_methods
    from bots.running.process import Hello

    hello = Hello(name="b", methods=[], language="javascript")
    said = missing_methods(get_game("rps-poker"), hello)
    assert said.endswith(
        "this file defines none of the game's methods. A JavaScript bot file is one object "
        "literal, ({...}), as the original challenge's bots are, or assigns its object to "
        "module.exports: code before the object (a helper function, a constant) makes the "
        "file neither. Move that code into the object, or write module.exports = {...} after "
        "it."
    ), said


def test_a_java_bot_named_in_snake_case_capitals_is_told_the_camel_case_name():
    from bots.running.contract import missing_methods
    from bots.running.process import Hello

    game = get_game("rps-poker")
    hello = Hello(name="b", methods=["DraftPick", "draft_receive", "main_play"], language="java")
    said = missing_methods(game, hello)
    assert "this file defines DraftPick, draftReceive, mainPlay. " in said, said
    assert "A Java bot names its methods in camelCase: draftPick, not DraftPick." in said, said


def test_the_camel_case_rule_is_said_only_to_a_file_that_defines_the_snake_case_name():
    # a copy of Last Card's JavaScript starter in RPS Poker was told "A JavaScript bot names
    # its methods in camelCase: draftPick, not draft_pick", a name it never wrote
    from bots.running.contract import missing_methods
    from bots.running.process import Hello

    game = get_game("rps-poker")
    last_card = get_game("last-card").starters["javascript"].read_text()
    hello = Hello(name="b", methods=["best_suit", "play", "playable_alone"], language="javascript")
    assert "camelCase" not in missing_methods(game, hello, last_card)
    snake = "({ draft_pick(cards) { return 0; }, play(state) { return null; } })\n"
    hello = Hello(name="b", methods=["play"], language="javascript")
    said = missing_methods(game, hello, snake)
    assert said.endswith(
        "A JavaScript bot names its methods in camelCase: draftPick, not draft_pick."
    )


def test_only_the_methods_of_another_game_are_called_that_games():
    # "this file defines bestSuit, play, playableAlone (Last Card's method)": two of those are
    # the starter's own helpers
    from bots.running.contract import missing_methods
    from bots.running.process import Hello

    hello = Hello(name="b", methods=["best_suit", "play", "playable_alone"], language="javascript")
    assert missing_methods(get_game("rps-poker"), hello).endswith(
        "; this file defines bestSuit, play, playableAlone (play: Last Card's method): is it "
        "for another game?"
    )
    hello = Hello(name="b", methods=["play"], language="javascript")
    assert missing_methods(get_game("rps-poker"), hello).endswith(
        "; this file defines play (Last Card's method): is it for another game?"
    )


def test_of_the_games_a_files_methods_fit_those_its_text_names_are_said():
    # a Kuhn starter was told "the method of Ultimate Texas Hold'em, Kuhn poker, ... bots"
    # and given five --game, where its text names Kuhn poker
    from bots.running.contract import missing_methods
    from bots.running.process import Hello

    kuhn = get_game("kuhn").starters["java"].read_text()
    hello = Hello(name="b", methods=["act"], language="java")
    said = missing_methods(get_game("rps-poker"), hello, kuhn)
    assert said.endswith("; this file defines act (Kuhn poker's method): is it for another game?")
    unnamed = missing_methods(get_game("rps-poker"), hello, "class MyBot {}")
    assert "(the method of Ultimate Texas Hold'em, Kuhn poker, " in unnamed
