"""A replay on a phone: the line of keyboard keys ("Keyboard: ← and → step back and forward,
...") is for a keyboard; a touch screen with none is not told of keys it has not, and a
desktop still is. The page is rendered by the test client and laid out by Chromium, its
stylesheets read from static/."""

from __future__ import annotations

import pytest

from tests.browser.conftest import chromium_args, chromium_executable
from tests.browser.test_phone_layout import open_rendered
from tests.games.matchmaking import live_table_match

pytestmark = pytest.mark.browser


@pytest.mark.django_db
def test_the_replays_keyboard_line_shows_on_a_desktop_and_not_on_a_touch_phone(client):
    from playwright.sync_api import sync_playwright

    match = live_table_match()
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="replay-keys"' in html
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_executable(), args=chromium_args(), headless=True
        )
        try:
            phone = open_rendered(browser, html, 390)
            assert phone.locator("#replay-keys").is_hidden()
            assert phone.locator(".replay__controls").is_visible()
            desktop = open_rendered(browser, html, 1280, touch=False)
            assert desktop.locator("#replay-keys").is_visible()
        finally:
            browser.close()
