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


def open_rendered(browser, html: str, width: int, *, touch: bool = True, height: int = 844):
    """A page ``width`` by ``height`` px (a phone's, of touch, unless not ``touch``) showing
    ``html``, its static files read from static/."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=touch, has_touch=touch
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


#: a live table's page as static/js/table.js fills it in (templates/tables/table.html): the
#: turn line and the clock over the felt, a hand too tall for a short screen, the actions
SEATS = "".join(f'<div class="seat"><h3>seat {n}</h3><p>7 cards</p></div>' for n in range(8))
TABLE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width">
<link rel="stylesheet" href="/static/css/site.css">
<link rel="stylesheet" href="/static/css/pages.css">
<link rel="stylesheet" href="/static/css/cards.css">
<link rel="stylesheet" href="/static/css/replay.css">
<link rel="stylesheet" href="/static/css/table.css">
</head><body><main><h1>Last Card table</h1><p class="table-meta">turn timer 30 seconds</p>
<section id="live" class="live"><div class="live__bar">
<p id="turn-line" class="turn-line turn-line--mine">Your turn: play cards matching 3 of
spades, or draw.</p><p id="countdown" class="countdown">30 s left</p></div>
<div class="felt live-felt"><div class="live-seats">{seats}</div></div>
<div id="live-controls" class="controls"><button type="button" class="btn action">Play</button>
<button type="button" class="btn action">Draw a card (pass)</button></div>
<section class="live-log-box"><h2>Moves</h2><ol class="live-log">{log}</ol></section>
</section></main></body></html>""".format(
    seats=SEATS,
    log="".join(f"<li>move {n}</li>" for n in range(12)),
)


@pytest.mark.parametrize(("width", "height"), [(390, 844), (844, 390), (1366, 768)])
def test_a_phone_keeps_the_turn_line_and_the_actions_in_view_held_either_way(
    browser, width, height
):
    """And a computer's screen: at 1366 by 768, Leduc's buttons were below the fold, and
    acting scrolled the clock away."""
    # (a computer's wide screen draws the seats side by side: more of them fill its height)
    html = (
        TABLE
        if width < 1000
        else TABLE.replace(
            '</div></div>\n<div id="live-controls"',
            SEATS * 3 + '</div></div>\n<div id="live-controls"',
        )
    )
    page = open_rendered(browser, html, width, height=height, touch=width < 1000)
    try:
        page.evaluate("window.scrollTo(0, document.querySelector('.live-felt').offsetTop + 200)")
        page.wait_for_function("window.scrollY > 150")
        turn = page.locator("#turn-line").bounding_box()
        clock = page.locator("#countdown").bounding_box()
        actions = page.locator("#live-controls").bounding_box()
        assert turn is not None and clock is not None and actions is not None
        assert turn["y"] >= 0 and turn["y"] + turn["height"] <= height, turn
        assert clock["y"] >= 0 and clock["y"] + clock["height"] <= height, clock
        assert actions["y"] >= 0 and actions["y"] + actions["height"] <= height, actions
    finally:
        page.context.close()
