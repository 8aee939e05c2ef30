"""What a newcomer's first hour found untrue or unclear, said right: a bot page without an
active version says why (its newest version's status) and links its owner's page, the
built-in bots' account says what it is, the tournaments page does not claim every match, a
table opened moments ago was opened "just now", and the review's seat select looks like the
site's other selects."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from bots.models import HOUSE, Bot, BotVersion
from games.live import tables
from games.models import PersonProfile, Table
from tests.site.test_site_look import css_rules

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def make_bot(owner: User, *statuses: str) -> Bot:
    """A Kuhn poker bot whose versions 1, 2, ... have ``statuses``."""
    bot = Bot.objects.create(owner=owner, game="kuhn", name="counter", language="python")
    for number, status in enumerate(statuses, start=1):
        code = f"# v{number}\n"
        BotVersion.objects.create(
            bot=bot,
            number=number,
            code=code,
            checksum=BotVersion.checksum_of(code),
            status=status,
        )
    return bot


def active_version_said(client: Client, bot: Bot) -> str:
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    found = re.search(r"<dt>Active version</dt><dd>(.*?)</dd>", page, re.S)
    assert found, "no active version on the bot page"
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


@pytest.mark.parametrize(
    "statuses, said",
    [
        ((BotVersion.REJECTED,), "none: v1 was rejected"),
        ((BotVersion.REJECTED, BotVersion.VALIDATING), "none: v2 is being validated"),
        ((BotVersion.RETIRED,), "none: retired by its owner"),
        ((BotVersion.RETIRED, BotVersion.REJECTED), "none: v2 was rejected"),
        ((BotVersion.RETIRED, BotVersion.RETIRED), "none: retired by its owner"),
        ((BotVersion.REJECTED, BotVersion.ACTIVE), "v2"),
    ],
)
def test_a_bot_without_an_active_version_says_why_from_its_newest_version(statuses, said):
    bot = make_bot(User.objects.create_user("dora"), *statuses)
    assert active_version_said(Client(), bot) == said


def test_a_bot_with_no_version_at_all_says_none():
    bot = make_bot(User.objects.create_user("dora"))
    assert active_version_said(Client(), bot) == "none"


def test_a_bot_page_links_its_owner_unless_they_hide_their_page_from_others():
    dora = User.objects.create_user("dora zoë")
    bot = make_bot(dora, BotVersion.ACTIVE)
    owner = '<dt>Owner</dt><dd><a href="/people/dora%20zo%C3%AB/">dora zoë</a></dd>'
    assert owner in Client().get(f"/bots/{bot.pk}/").content.decode()
    PersonProfile.objects.create(user=dora, hidden=True)
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert "<dt>Owner</dt><dd>dora zoë</dd>" in page
    # its owner still has their own page, and the link to it
    own = Client()
    own.force_login(dora)
    assert owner in own.get(f"/bots/{bot.pk}/").content.decode()


def test_the_built_in_bots_account_is_not_called_a_person():
    User.objects.create_user(HOUSE)
    page = Client().get(f"/people/{HOUSE}/").content.decode()
    assert "The account of Card Arena's built-in bots" in page
    assert "A person who plays at live tables" not in page
    assert "No rated matches yet" not in page
    User.objects.create_user("dora")
    page = Client().get("/people/dora/").content.decode()
    assert "A person who plays at live tables" in page
    assert "No rated matches yet" in page


def test_the_tournaments_page_says_live_table_matches_belong_to_none():
    page = " ".join(Client().get("/tournaments/").content.decode().split())
    assert "Every match on Card Arena belongs to a tournament" not in page
    assert "Every match of the bots' competition belongs to a tournament" in page
    assert "Matches played at live tables belong to none" in page


def test_the_lobby_says_a_table_was_opened_just_now_under_a_minute():
    dora = User.objects.create_user("dora")
    table = tables.create_table("kuhn", tables.Person(dora), ["me", "open"])
    lobby = Client().get("/games/kuhn/tables/").content.decode()
    assert "opened just now ·" in lobby and "0\xa0minutes" not in lobby
    Table.objects.filter(pk=table.pk).update(created=timezone.now() - timedelta(minutes=5))
    lobby = Client().get("/games/kuhn/tables/").content.decode()
    assert "opened 5\xa0minutes ago ·" in lobby


def test_the_reviews_seat_select_has_the_sites_look():
    replay = css_rules("replay.css")
    select = replay[".replay__jump select, .review__seat select"]
    assert "font: inherit" in select and "border-radius" in select and "min-height" in select
    review = (ROOT / "templates/matches/_review.html").read_text()
    assert '<form method="get" action="#review" class="review__seat">' in review


def test_names_break_rather_than_widen_the_page():
    """Bot names of 60 characters need no space: the places that show them break them
    (tests/browser/test_long_names.py lays the pages out with such names)."""
    site = css_rules("site.css")
    assert "overflow-wrap: anywhere" in site["h1, h2, h3, .crumbs"]
    assert "min-width: 0" in css_rules("pages.css")[".h2h-bot"]
    assert "overflow-wrap: anywhere" in css_rules("pages.css")[".h2h-bot"]
    assert "overflow-wrap: anywhere" in css_rules("bots.css")[".bot-head h3"]
    assert "min-width: 0" in css_rules("bots.css")[".upload-form fieldset"]
    assert "overflow-wrap: anywhere" in css_rules("bots.css")[".upload-form fieldset label"]
