"""What a newcomer reads in their first hour on the site: the home page and My bots send them
to the playground (not to a command they cannot run), a language mismatch quotes the line
without backticks, the JavaScript contract line is in plain words, a zero-sum game's results
by opponent are one signed figure, and the owner's own bot page offers to try a new version."""

from __future__ import annotations

import hashlib
import html
import re

import pytest

from bots.models import Bot, BotVersion, OpponentResult


def text_of(page: str) -> str:
    """The page's words as a person reads them: tags gone, entities decoded, one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


@pytest.mark.django_db
def test_the_home_page_sends_a_visitor_to_the_playground_not_to_a_command(client):
    page = client.get("/").content.decode()
    said = text_of(page)
    assert "try it against the built-in bots in a game's playground, right here in your" in said
    assert (
        "Download a starter bot or open it in a game's playground, change it, and watch it "
        "play the built-in bots here in the browser; then upload it on My bots." in said
    )
    assert '<a href="/games/kuhn/playground/">Playground</a>' in page
    # a visitor has no clone of the site: its command is on the rules pages, with where to
    # get one (when the site says it)
    assert "manage.py" not in page and "on your own machine" not in said


def test_my_bots_with_no_bots_points_to_the_playground(owner):
    said = text_of(owner.get("/my/bots/").content.decode())
    assert (
        "You have no bots yet. Write one (see the games' pages for the contract), try it in a "
        "game's playground, then upload it below." in said
    )
    assert "manage.py arena" not in said


def test_a_language_mismatch_quotes_the_line_without_backticks(owner):
    response = owner.post(
        "/my/bots/",
        {"game": "kuhn", "name": "caller", "language": "javascript", "code": "class Bot:\n"},
    )
    said = text_of(response.content.decode())
    assert "This looks like Python (line 1: \u201cclass Bot:\u201d), but the language" in said
    assert "`" not in said


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_the_javascript_contract_line_is_in_plain_words(client, slug):
    said = text_of(client.get(f"/games/{slug}/").content.decode())
    assert (
        "a file holding one object (or module.exports = {...}) with the method act; a new bot "
        "is made for every match, and its globals never carry into a deal the bot has seen "
        "before" in said
    )
    assert "realm" not in said and "the same methods" not in said
    assert "a deal it has been dealt" not in said


def bot_with_results(user, game: str) -> Bot:
    bot = Bot.objects.create(owner=user, game=game, name="caller", language="python")
    code = "class Bot:\n    pass\n"
    BotVersion.objects.create(
        bot=bot,
        number=1,
        code=code,
        checksum=hashlib.sha256(code.encode()).hexdigest(),
        status=BotVersion.ACTIVE,
    )
    other = Bot.objects.create(owner=user, game=game, name="folder", language="python")
    OpponentResult.objects.create(
        bot=bot, key=f"bot:{other.pk}", opponent=other, matches=2, wins=1, losses=1,
        points_for=14.0, points_against=-14.0,
    )  # fmt: skip
    OpponentResult.objects.create(
        bot=bot, key="name:bob", name="bob", matches=1, losses=1,
        points_for=-3.0, points_against=3.0,
    )  # fmt: skip
    return bot


def test_a_chip_game_s_results_by_opponent_are_one_signed_figure(client, alice):
    bot = bot_with_results(alice, "kuhn")
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert '<th scope="col">Chips won (net)</th>' in page
    assert "<td>+14</td>" in page and "<td>\u22123</td>" in page
    assert "for \u2013 against" not in page and "\u2013 \u2212" not in page


def test_a_game_that_is_not_zero_sum_names_both_sides_of_its_pair(client, alice):
    bot = bot_with_results(alice, "rps-poker")
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert '<th scope="col">Games won: this bot \u2013 the opponent</th>' in page
    assert "<td>14 \u2013 \u221214</td>" in page


def test_the_owner_is_offered_to_try_a_new_version_against_their_own_bot(client, owner, alice):
    bot = bot_with_results(alice, "kuhn")
    mine = owner.get(f"/bots/{bot.pk}/").content.decode()
    assert f'?opponent=bot:{bot.pk}">Try a new version against this one</a>' in mine
    assert "Try your bot against it" not in mine
    theirs = client.get(f"/bots/{bot.pk}/").content.decode()
    assert f'?opponent=bot:{bot.pk}">Try your bot against it</a>' in theirs
