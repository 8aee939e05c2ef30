"""A bot's versions: uploads go on for years (ten an hour at most), so the bot page and the
API list the newest few and the active one whatever its age, and link the full list, which
pages by position (``cardsite.keyset``): every version once, newest first, the same number
of queries at a few versions as at a thousand, and a forged position a clear 400."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotVersion
from bots.pages.views import VERSIONS_PER_PAGE, VERSIONS_SHOWN
from games.api import PAGE_SIZE

FORGED = ["abc", "7", "1_2_3", "\u00b2_1", "9" * 19 + "_1", "-1_1"]


def versions(bot: Bot, count: int, *, active: int | None = None, start: int = 1) -> None:
    """``count`` more versions of ``bot`` (numbers from ``start``), retired, but for the
    ``active`` number."""
    BotVersion.objects.bulk_create(
        BotVersion(bot=bot, number=n, code=f"# v{n}\n", checksum=f"{n:064}",
                   status=BotVersion.ACTIVE if n == active else BotVersion.RETIRED)
        for n in range(start, start + count)
    )  # fmt: skip


@pytest.fixture
def bot(db) -> Bot:
    alice = User.objects.create_user("alice", password="x" * 12)
    return Bot.objects.create(owner=alice, game="rps-poker", name="many", language="python")


def numbers_on(html: str) -> list[int]:
    section = html.split('id="versions-title"', 1)[1]
    return [int(n) for n in re.findall(r"<h3>v(\d+) <span", section)]


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'<a href="(\?[^"]*)" rel="{rel}">', html)
    return found[1].replace("&amp;", "&").split("#")[0] if found else None


def test_the_bot_page_lists_the_newest_versions_and_the_active_one(client, bot):
    versions(bot, 3 * VERSIONS_SHOWN, active=5)
    html = client.get(f"/bots/{bot.pk}/").content.decode()
    newest = list(range(3 * VERSIONS_SHOWN, 2 * VERSIONS_SHOWN, -1))
    assert numbers_on(html) == [*newest, 5]
    assert f'href="/bots/{bot.pk}/versions/"' in html and "and the active one" in html
    body = client.get(f"/api/bots/{bot.pk}/").json()
    assert [v["number"] for v in body["versions"]] == [*newest, 5]
    assert body["active_version"] == 5
    assert body["all_versions"] == f"http://testserver/api/bots/{bot.pk}/versions/"


def test_a_bot_with_few_versions_lists_them_all_without_a_link(client, bot):
    versions(bot, 3, active=3)
    html = client.get(f"/bots/{bot.pk}/").content.decode()
    assert numbers_on(html) == [3, 2, 1]
    assert f"/bots/{bot.pk}/versions/" not in html and "and the active one" not in html


@pytest.mark.parametrize("count", [VERSIONS_PER_PAGE, 2 * VERSIONS_PER_PAGE + 7])
def test_the_page_of_all_versions_gives_each_once_newest_first(client, bot, count):
    versions(bot, count, active=count // 2)
    seen, address, pages = [], f"/bots/{bot.pk}/versions/", 0
    while address:
        html = client.get(address).content.decode()
        seen += numbers_on(html)
        pages += 1
        after = link(html, "next")
        address = f"/bots/{bot.pk}/versions/{after}" if after else None
    assert seen == list(range(count, 0, -1))  # none twice, none missing
    assert pages == -(-count // VERSIONS_PER_PAGE)
    if count > VERSIONS_PER_PAGE:
        first = client.get(f"/bots/{bot.pk}/versions/").content.decode()
        second = client.get(f"/bots/{bot.pk}/versions/{link(first, 'next')}").content.decode()
        back = client.get(f"/bots/{bot.pk}/versions/{link(second, 'prev')}").content.decode()
        assert numbers_on(back) == numbers_on(first)


def test_the_api_pages_all_versions_with_next_and_previous(client, bot):
    versions(bot, PAGE_SIZE + 4, active=1)
    first = client.get(f"/api/bots/{bot.pk}/").json()
    page = client.get(first["all_versions"]).json()
    assert "count" not in page and page["previous"] is None
    seen = [v["number"] for v in page["results"]]
    second = client.get(page["next"]).json()
    seen += [v["number"] for v in second["results"]]
    assert seen == list(range(PAGE_SIZE + 4, 0, -1)) and second["next"] is None
    assert client.get(second["previous"]).json()["results"] == page["results"]
    assert client.get("/api/bots/99999/versions/").status_code == 404


@pytest.mark.parametrize("side", ["after", "before"])
@pytest.mark.parametrize("value", FORGED)
def test_a_forged_position_in_the_versions_is_a_clear_400(client, bot, side, value):
    versions(bot, 3, active=2)
    for path in (f"/bots/{bot.pk}/versions/", f"/api/bots/{bot.pk}/versions/"):
        response = client.get(path, {side: value})
        assert response.status_code == 400, path
        assert "is not a position in this list" in response.content.decode()


def test_the_version_lists_ask_as_many_queries_at_a_thousand_versions_as_at_three(bot):
    owner = Client()
    owner.force_login(bot.owner)
    anonymous = Client()
    counts = []
    for start, count in ((1, 3), (4, 1000)):
        BotVersion.objects.filter(bot=bot).update(status=BotVersion.RETIRED)
        versions(bot, count, start=start, active=start)
        html = anonymous.get(f"/bots/{bot.pk}/versions/").content.decode()
        deep = f"/bots/{bot.pk}/versions/" + (link(html, "next") or "")
        with CaptureQueriesContext(connection) as seen:
            for client in (owner, anonymous):
                for path in (f"/bots/{bot.pk}/", deep, f"/api/bots/{bot.pk}/",
                             f"/api/bots/{bot.pk}/versions/"):  # fmt: skip
                    assert client.get(path).status_code == 200, path
        counts.append(len(seen))
    assert counts[0] == counts[1]


def test_my_bots_lists_the_newest_versions_and_links_the_rest(bot):
    versions(bot, VERSIONS_SHOWN + 30, active=3)
    owner = Client()
    owner.force_login(bot.owner)
    html = owner.get("/my/bots/").content.decode()
    listed = [int(n) for n in re.findall(r'data-number="(\d+)"', html)]
    assert listed == [*range(VERSIONS_SHOWN + 30, 30, -1), 3]
    assert f'href="/bots/{bot.pk}/versions/"' in html
    # what a validating version's status answers lists the same versions, oldest first
    newest = BotVersion.objects.get(bot=bot, number=VERSIONS_SHOWN + 30)
    data = owner.get(f"/my/bots/versions/{newest.pk}/status.json").json()
    assert [v["number"] for v in data["versions"]] == sorted(listed)


def test_an_old_version_is_made_active_from_the_page_of_all_versions(bot):
    versions(bot, VERSIONS_SHOWN + 30, active=VERSIONS_SHOWN + 30)
    owner = Client()
    owner.force_login(bot.owner)
    html = owner.get(f"/bots/{bot.pk}/versions/", {"after": "2_0"}).content.decode()
    old = BotVersion.objects.get(bot=bot, number=1)
    action = f'action="/my/bots/versions/{old.pk}/activate/"'
    assert action in html and 'name="csrfmiddlewaretoken"' in html
    assert (
        action not in Client().get(f"/bots/{bot.pk}/versions/", {"after": "2_0"}).content.decode()
    )
    owner.post(f"/my/bots/versions/{old.pk}/activate/")
    old.refresh_from_db()
    assert old.status == BotVersion.ACTIVE


def test_my_bots_asks_as_many_queries_at_a_thousand_versions_as_at_three(db):
    alice = User.objects.create_user("alice", password="x" * 12)
    owner = Client()
    owner.force_login(alice)
    counts = []
    for start, count in ((1, 3), (4, 1000)):
        for name in ("one", "two"):
            mine = Bot.objects.get_or_create(owner=alice, game="rps-poker", name=name)[0]
            BotVersion.objects.filter(bot=mine).update(status=BotVersion.RETIRED)
            versions(mine, count, start=start, active=start)
        with CaptureQueriesContext(connection) as seen:
            assert owner.get("/my/bots/").status_code == 200
        counts.append(len(seen))
    assert counts[0] == counts[1]
