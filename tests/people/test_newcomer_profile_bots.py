"""A person's profile lists the bots they have competing (the bot page's owner link leads
there): each bot's game, name (a link to its page), rank and rating, in one query for all."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotVersion
from tests.people.helpers import GAME, house_builtin, make_user, ranked_bot, rated_match

pytestmark = pytest.mark.django_db


def profile(name: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(f"/people/{name}/")
    assert response.status_code == 200
    return len(queries), response.content.decode()


def bots_section(text: str) -> str:
    return text.split('<h2 id="bots-title">')[1].split("</section>")[0]


def test_the_profile_lists_the_persons_competing_bots_with_rank_and_rating():
    newbie = make_user("newbie")
    king = ranked_bot(newbie, "kingbet", mu=30.0, sigma=2.0, rank=3)
    # a bot with an active version, not ranked yet (no leaderboard row)
    fresh = Bot.objects.create(owner=newbie, game="kuhn", name="fresh", language="python")
    BotVersion.objects.create(bot=fresh, number=1, code="x", status=BotVersion.ACTIVE,
                              checksum=BotVersion.checksum_of("x"))  # fmt: skip
    # a bot whose every version is retired competes no more: not listed
    old = Bot.objects.create(owner=newbie, game=GAME, name="oldie", language="python")
    BotVersion.objects.create(bot=old, number=1, code="x", status=BotVersion.RETIRED,
                              checksum=BotVersion.checksum_of("x"))  # fmt: skip
    _, text = profile("newbie")
    section = bots_section(text)
    assert '<h2 id="bots-title">Bots</h2>' in text
    assert f'<a href="/bots/{king.pk}/">kingbet</a>' in section
    assert f'<a href="/bots/{fresh.pk}/">fresh</a>' in section
    assert "oldie" not in section
    row = re.search(rf'<tr data-bot="{king.pk}">(.*?)</tr>', section, re.S).group(1)
    assert "<td>RPS Poker</td>" in row
    assert re.search(r'data-role="bot-rank"><a href="/games/rps-poker/leaderboard/">3</a>', row)
    assert 'data-role="bot-rating">24.00<' in row  # 30 - 3 * 2
    fresh_row = re.search(rf'<tr data-bot="{fresh.pk}">(.*?)</tr>', section, re.S).group(1)
    assert "<td>Kuhn poker</td>" in fresh_row and "not ranked yet" in fresh_row
    # the games in the site's order: RPS Poker before Kuhn poker
    assert section.index("kingbet") < section.index("fresh")


def test_a_person_without_bots_is_said_to_have_none_and_the_queries_do_not_grow_with_bots():
    dora = make_user("dora")
    before, text = profile("dora")
    assert "dora has no bot competing now." in bots_section(text)
    for n in range(6):
        ranked_bot(dora, f"bot{n}", mu=25.0, sigma=3.0, rank=n + 1)
    after, text = profile("dora")
    assert bots_section(text).count('data-role="bot-rank"') == 6
    assert after == before


def columns_aligned(table: str) -> list[tuple[str, bool, bool]]:
    """Each column of a table of the page: its header's words, whether the header is set as
    a number (right-aligned) and whether the first row's cell is."""
    head = re.findall(r"<th scope=\"col\"([^>]*)>(.*?)</th>", table.split("</thead>")[0], re.S)
    row = table.split("<tbody>")[1].split("</tr>")[0]
    cells = re.findall(r"<t[dh]( [^>]*)?>", row)
    assert len(cells) == len(head), (head, cells)
    return [
        (re.sub(r"<[^>]+>", "", words), 'class="num"' in attrs, 'class="num"' in (cell or ""))
        for (attrs, words), cell in zip(head, cells, strict=True)
    ]


def test_the_profiles_numbers_sit_under_their_headers():
    """A column of numbers is right-aligned, its header too: "Rank among the bots" stands
    over its rank, not at the far side of a wide column."""
    newbie = make_user("newbie")
    ranked_bot(newbie, "kingbet", mu=30.0, sigma=2.0, rank=3)
    rated_match(newbie, house_builtin("strong", 27.0, 3.0), score=6, their=4)
    _, text = profile("newbie")
    for table in ("bots", "ratings", "recent"):
        found = re.search(rf'<table class="board[^"]*" id="{table}">(.*?)</table>', text, re.S)
        assert found, table
        columns = columns_aligned(found.group(1))
        assert any(number for _, _, number in columns), (table, columns)
        wrong = [words for words, header, number in columns if header != number]
        assert wrong == [], f"{table}: headers aligned unlike their column: {wrong}"
