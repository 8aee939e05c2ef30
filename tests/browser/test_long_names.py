"""A bot's name may be 60 characters with no space in it, and a person's name long too: every
page that shows them (My bots, the bot's page and its versions, the game's leaderboard with its
head-to-head cards, the playground's list of opponents, a match, a tournament, the person's
page) keeps them inside their boxes at 1280 px and at 390 px, the page no wider than the
window. The names are real: a newcomer with a long name uploads a Kuhn poker bot with a long
name, and the live site's worker validates it and plays its placement matches."""

from __future__ import annotations

import re
import secrets
import time
from urllib.parse import urlsplit

import pytest

from games.registry import get_game
from tests.browser.conftest import VIEWPORTS
from tests.browser.test_every_page import look_faults
from tests.browser.test_newcomer_flow import (
    VALIDATION_TIMEOUT_MS,
    expect_text,
    newest_status,
    sign_up,
)

pytestmark = pytest.mark.browser

#: how long the worker may take to play and rate the new bot's placement matches
RANKED_TIMEOUT_S = 180


def long_name() -> str:
    """60 characters, the most a bot's name may have, and no space to break a line at."""
    name = f"Supercalifragilisticexpialidocious_Kuhn_destroyer_final_{secrets.token_hex(2)}"
    assert len(name) == 60 and " " not in name
    return name


def upload_kuhn_bot(page, name: str):
    """The Kuhn starter bot, uploaded as a file under ``name``; returns its card on My bots."""
    page.goto("/my/bots/")
    form = page.get_by_role("region", name="Upload a bot or a new version")
    form.get_by_label("Game").select_option(label="Kuhn poker")
    form.get_by_label("Bot name").fill(name)
    form.get_by_role("radio", name=re.compile(r"^Python")).check()
    starter = get_game("kuhn").starters["python"].read_bytes()
    form.get_by_label("Code file").set_input_files(
        files=[{"name": "kuhn_bot.py", "mimeType": "text/x-python", "buffer": starter}]
    )
    with page.expect_navigation():
        form.get_by_role("button", name="Upload", exact=True).click()
    card = page.get_by_role("article", name=name)
    card.wait_for()
    return card


def wait_until_listed(page, path: str, name: str) -> None:
    """Reloads ``path`` until a link named ``name`` is in its head-to-head cards (its
    placement matches played and rated), by the clock, for RANKED_TIMEOUT_S at most."""
    deadline = time.monotonic() + RANKED_TIMEOUT_S
    cards = page.locator(".h2h-bot h3 a", has_text=name)
    while True:
        page.goto(path)
        if cards.count():
            return
        assert time.monotonic() < deadline, f"{name} not in the head-to-head of {path}"
        page.wait_for_timeout(1000)


def test_long_names_of_bots_and_people_stay_inside_every_page(tab, screenshots):
    page = tab.page
    username = f"Zoe_walker_with_quite_a_long_username_{secrets.token_hex(3)}"
    bot = long_name()
    sign_up(page, username)
    card = upload_kuhn_bot(page, bot)
    expect_text(newest_status(card), "active", VALIDATION_TIMEOUT_MS)
    bot_path = urlsplit(card.get_by_role("link", name=bot).get_attribute("href")).path
    wait_until_listed(page, "/games/kuhn/leaderboard/", bot)

    page.goto(bot_path)
    match = page.locator("#recent-title ~ .table-wrap a[href^='/matches/']").first.get_attribute(
        "href"
    )
    tournament = page.locator("#worker-time a[href^='/tournaments/']").first.get_attribute("href")
    # the match page's review once solved: its sentences and cells name the bot and person
    page.goto(match)
    page.locator("[data-review-summary]").wait_for(timeout=RANKED_TIMEOUT_S * 1000)
    pages = {
        "my-bots": "/my/bots/",
        "bot": bot_path,
        "versions": f"{bot_path}versions/",
        "leaderboard": "/games/kuhn/leaderboard/",
        "leaderboard-both": "/games/kuhn/leaderboard/?show=both",
        "playground": "/games/kuhn/playground/",
        # the review of each seat: one of them is the long-named bot's
        "match": f"{match}?review=0",
        "match-other-seat": f"{match}?review=1",
        "tournament": tournament,
        "person": f"/people/{username}/",
    }
    faults: list[str] = []
    for viewport in ("desktop", "phone"):
        width = VIEWPORTS[viewport]["width"]
        page.set_viewport_size(VIEWPORTS[viewport])
        for name, path in pages.items():
            response = page.goto(path, wait_until="load")
            assert response is not None and response.status == 200, (path, response)
            shown = page.locator("main").inner_text()
            assert (username if name == "person" else bot) in shown, f"{name}: no long name"
            page.evaluate("document.fonts.ready.then(() => true)")
            page.screenshot(path=screenshots / f"long-names-{name}-{width}.png", full_page=True)
            found = look_faults(page)
            faults += [f"{name} ({path}) at {width} px: {fault}" for fault in dict.fromkeys(found)]
    assert faults == [], "\n".join(faults)
    assert tab.console.take() == []
