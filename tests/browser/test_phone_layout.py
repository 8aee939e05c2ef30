"""Pages as a phone lays them out, without a live site: the page is rendered by the test
client and Chromium is given it and the site's own stylesheets from static/ (every other
address is refused), so a layout fault of a template or a stylesheet shows in a second."""

from __future__ import annotations

import mimetypes
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.test import RequestFactory

from games.registry import game_slugs, get_game

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
BASE = "http://phone.test"


def rendered(template: str, context: dict) -> str:
    """``template`` rendered for a guest's GET of /page/ with ``context``, in a thread of its
    own (Playwright's loop runs in this one, where Django refuses to render)."""

    def render() -> str:
        request = RequestFactory().get("/page/")
        request.user = AnonymousUser()
        return render_to_string(template, context, request=request)

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(render).result()


def open_rendered(browser, html: str, width: int, *, touch: bool = True):
    """A page ``width`` px wide (a phone's, of touch, unless not ``touch``) showing ``html``,
    its static files read from static/."""
    context = browser.new_context(
        viewport={"width": width, "height": 844}, is_mobile=touch, has_touch=touch
    )

    def answer(route) -> None:
        path = route.request.url.removeprefix(BASE)
        if path.split("?")[0] == "/page/":
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
        elif path.startswith("/static/"):
            file = ROOT / "static" / path.split("?")[0].removeprefix("/static/")
            if file.is_file():
                kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
                route.fulfill(status=200, content_type=kind, body=file.read_bytes())
            else:
                route.fulfill(status=404, body="")
        else:
            route.abort()

    context.route("**/*", answer)
    page = context.new_page()
    page.goto(f"{BASE}/page/")
    page.wait_for_load_state("load")
    return page


@pytest.mark.parametrize("width", [360, 390])
def test_the_play_page_fits_a_phone_with_every_play_button_in_view(browser, width):
    # the page of games.live.views.tables_index, a table waiting and one played in each game
    games = [
        {"spec": get_game(slug), "waiting": [None], "playing": 1}
        for slug in game_slugs()
        if get_game(slug).table is not None
    ]
    html = rendered("tables/index.html", {"games": games})
    page = open_rendered(browser, html, width)
    try:
        wrap = page.evaluate(
            "() => { const w = document.querySelector('.table-wrap');"
            " return [w.clientWidth, w.scrollWidth]; }"
        )
        assert wrap[1] <= wrap[0], f"the games' table scrolls sideways at {width} px: {wrap}"
        edges = page.evaluate(
            "() => [...document.querySelectorAll('.table-wrap a.button')]"
            ".map(a => a.getBoundingClientRect().right)"
        )
        assert len(edges) >= 7
        assert max(edges) <= width, f"a Play button is cut at the screen's edge: {edges}"
    finally:
        page.context.close()
