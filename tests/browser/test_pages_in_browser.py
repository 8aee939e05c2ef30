"""The main pages, rendered by Chromium from the live site: no console errors, no sideways
scrolling on a phone, and a full-page screenshot of each for people to look at."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import VIEWPORTS

pytestmark = pytest.mark.browser

#: name (for the screenshot file), path, what the page's main heading says ("" for any)
MAIN_PAGES = [
    ("home", "/", ""),
    ("leaderboard-rps-poker", "/games/rps-poker/leaderboard/", "RPS Poker"),
    ("login", "/accounts/login/", "Log in"),
    ("explorer", "/solver/", ""),
]


def overflow_x(page) -> int:
    """How many pixels the page is wider than the window (0 when nothing scrolls sideways)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize(("name", "path", "heading"), MAIN_PAGES, ids=[p[0] for p in MAIN_PAGES])
def test_it_renders_the_main_pages_without_console_errors(
    open_tabs, screenshots, viewport, name, path, heading
):
    tab = open_tabs(viewport)
    page = tab.page
    response = page.goto(path, wait_until="networkidle")
    assert response is not None
    assert response.status == 200, f"{path}: HTTP {response.status}"
    assert "Card Arena" in page.title()
    h1 = page.get_by_role("heading", level=1).first
    assert h1.inner_text().strip(), f"{path} has an empty main heading"
    assert heading.lower() in h1.inner_text().lower()
    # the stylesheet arrived and applies: the header is laid out by site.css, not unstyled
    assert page.evaluate(
        "getComputedStyle(document.body).fontFamily !== '' && "
        "[...document.styleSheets].some(s => s.href && s.href.includes('site.css') "
        "&& s.cssRules.length > 0)"
    )
    page.screenshot(path=screenshots / f"{name}-{viewport}.png", full_page=True)
    assert tab.console.take() == []
    assert overflow_x(page) <= 0, f"{path} scrolls sideways on a {viewport} screen"


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_box_to_tick_sits_at_the_start_of_its_line(open_tabs, viewport):
    """The create form's "Rated" box is as big as a box, under its label: a grid stretched
    it across the form (915 px at 1280) and drew it in the middle of the line."""
    page = open_tabs(viewport).page
    page.goto("/games/kuhn/tables/")
    box = page.locator("#id_rated").bounding_box()
    label = page.locator("label[for=id_rated]").bounding_box()
    assert box is not None and label is not None
    assert box["width"] < 40 and box["height"] < 40, box
    assert abs(box["x"] - label["x"]) < 4, (box, label)


def test_a_wide_table_scrolls_in_its_own_box_with_its_first_column_kept(open_tabs):
    """Last Card's leaderboard is wider than a phone: the page does not scroll sideways, the
    table does, and its first column stays in view while it does."""
    tab = open_tabs("phone")
    page = tab.page
    page.goto("/games/last-card/leaderboard/")
    wrap = page.locator(".table-wrap").first
    wrap.locator("tbody tr").first.wait_for()
    assert overflow_x(page) <= 0
    sizes = wrap.evaluate("w => [w.scrollWidth, w.clientWidth]")
    assert sizes[0] > sizes[1], f"the table fits ({sizes}): nothing to check"
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    boxes = wrap.evaluate(
        """w => {
            const box = w.getBoundingClientRect();
            const cells = w.querySelectorAll("thead th");
            const first = cells[0].getBoundingClientRect();
            const last = cells[cells.length - 1].getBoundingClientRect();
            return {left: box.left, right: box.right, first: first.left, last: last.right};
        }"""
    )
    assert abs(boxes["first"] - boxes["left"]) < 2, boxes  # the first column is kept
    assert boxes["last"] <= boxes["right"] + 1, boxes  # the last column can be reached
    assert tab.console.take() == []


@pytest.mark.parametrize("game", ["goofspiel", "last-card", "rps-poker", "kuhn"])
def test_a_games_leaderboard_fits_a_desktop_window(tab, game):
    """Every column of the ranking is in view at 1280 px, without scrolling its box: a
    number and its interval (or a date and its time) go on two lines where room is short,
    and Last Card leaves the kit's statistics to the table under it. Goofspiel's last two
    columns, "faults" and "last played", were cut off behind a scroll."""
    page = tab.page
    page.goto(f"/games/{game}/leaderboard/")
    wrap = page.locator(".table-wrap").first
    wrap.locator("tbody tr").first.wait_for()
    width, room = wrap.evaluate("w => [w.scrollWidth, w.clientWidth]")
    assert width <= room, f"{game}: the leaderboard is {width} px wide in {room} px"
    last = wrap.locator("thead th").last
    assert last.inner_text().strip().startswith("last played") and last.is_visible()


def test_it_ranks_the_seeded_builtin_bots_and_sorts_the_leaderboard(tab):
    """The worker validated the built-in bots and played their placement matches; the
    leaderboard lists them with their statistics, and a column heading sorts the table."""
    page = tab.page
    page.goto("/games/rps-poker/leaderboard/")
    builtins = ["minimal", "simple", "strong"]
    board = page.get_by_role("table", name=re.compile("bots, best first"))
    for name in builtins:
        assert board.get_by_role("link", name=name, exact=True).count() == 1
    stats = page.get_by_role("region", name="Statistics").get_by_role("table")
    for name in builtins:
        assert stats.get_by_role("link", name=re.compile(name)).count() == 1

    header = board.get_by_role("columnheader", name=re.compile("^bot"))
    header.get_by_role("button").click()
    assert header.get_attribute("aria-sort") == "ascending"
    names = board.locator("tbody tr").get_by_role("link").all_inner_texts()
    assert names == sorted(names, key=str.lower)
    header.get_by_role("button").press("Enter")  # the keyboard sorts too
    assert header.get_attribute("aria-sort") == "descending"
    names = board.locator("tbody tr").get_by_role("link").all_inner_texts()
    assert names == sorted(names, key=str.lower, reverse=True)
    assert tab.console.take() == []


def test_it_serves_the_api_index_as_json(tab, screenshots):
    page = tab.page
    response = page.goto("/api/")
    assert response is not None
    assert response.status == 200
    assert response.headers["content-type"].startswith("application/json")
    data = json.loads(page.locator("body").inner_text())
    paths = [endpoint["path"] for endpoint in data["endpoints"]]
    assert paths, "the API index lists no endpoint"
    assert all(path.startswith("/api/") for path in paths), paths
    page.screenshot(path=screenshots / "api-desktop.png", full_page=True)
    # A JSON document has no <link rel=icon>, so Chromium asks for /favicon.ico by itself:
    # the site redirects it to its icon, so no console error at all.
    errors = tab.console.take()
    assert errors == []


def test_pages_are_served_under_the_policy_and_a_violation_is_reported(tab):
    page = tab.page
    for path, status in (("/games/rps-poker/", 200), ("/no/such/page/", 404)):
        response = page.goto(path, wait_until="networkidle")
        assert response is not None and response.status == status
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy
    # Chromium reports the 404 itself; nothing else
    errors = tab.console.take()
    assert len(errors) == 1 and "status of 404" in errors[0], errors
    # what the policy refuses, Chromium refuses, and the tests hear of it
    page.goto("/")
    refused = "CSP violation: style-src-attr refused inline"
    try:
        with page.expect_console_message(lambda message: refused in message.text, timeout=20_000):
            page.evaluate(
                "document.body.insertAdjacentHTML("
                "'beforeend', '<p id=\"x\" style=\"color: red\">x</p>')"
            )
    except PlaywrightTimeout:
        raise AssertionError(
            f"no {refused!r} in the console in 20 s; it had: {tab.console.errors}"
        ) from None
    page.wait_for_function("document.getElementById('x') !== null")
    assert page.evaluate("getComputedStyle(document.getElementById('x')).color") != "rgb(255, 0, 0)"
    errors = tab.console.take()
    assert any(refused in e for e in errors), errors


#: every word of the convergence chart as drawn on the screen: its size in pixels (the chart
#: is drawn 640 wide, then shrunk to its place), and its box relative to the chart's
CHART_WORDS = """() => {
  const svg = document.querySelector("svg.convergence");
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll("text")].map(text => {
    const r = text.getBoundingClientRect();
    return {text: text.textContent, px: parseFloat(getComputedStyle(text).fontSize) * scale,
            left: r.left - box.left, top: r.top - box.top, right: box.right - r.right,
            bottom: box.bottom - r.bottom, box: [r.left, r.top, r.right, r.bottom]};
  });
}"""


def overlapping(words: list[dict]) -> list[tuple[str, str]]:
    """The pairs of words whose boxes overlap (by more than a pixel each way)."""
    pairs = []
    for i, one in enumerate(words):
        for other in words[i + 1 :]:
            a, b = one["box"], other["box"]
            if min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1:
                pairs.append((one["text"], other["text"]))
    return pairs


def the_chart_is_legible(page) -> None:
    """Every word of the convergence chart is at least 11 px high, inside the chart, and
    clear of the others."""
    words = page.evaluate(CHART_WORDS)
    assert len(words) >= 6, words
    small = [(w["text"], round(w["px"], 1)) for w in words if w["px"] < 11]
    assert small == [], f"words of the chart drawn under 11 px: {small}"
    out = [w["text"] for w in words if min(w["left"], w["top"], w["right"], w["bottom"]) < -1]
    assert out == [], f"words of the chart cut off at its edge: {out}"
    assert overlapping(words) == []


def test_a_solve_asked_in_the_browser_runs_on_the_worker_and_the_page_follows_it(
    open_tabs, screenshots
):
    """The form queues the solve; the live site's worker runs it; the solve's page polls its
    progress and turns into the result by itself. Its convergence chart can be read on a
    desktop and on a phone."""
    tab = open_tabs("desktop")
    page = tab.page
    page.goto("/solver/")
    page.select_option("#id_game", "kuhn")
    page.fill("#id_iterations", "777")
    page.get_by_role("button", name="Solve").click()
    page.wait_for_url(re.compile(r"/solver/jobs/[0-9a-f]{16}/$"))
    page.get_by_text("Root payoffs").wait_for(timeout=120_000)
    assert page.locator("#solve-progress").count() == 0
    assert page.get_by_role("heading", level=1).inner_text() == "Kuhn poker: CFR+, 777 iterations"
    the_chart_is_legible(page)
    assert tab.console.take() == []
    phone = open_tabs("phone")
    phone.page.goto(page.url)
    the_chart_is_legible(phone.page)
    phone.page.locator("svg.convergence").screenshot(path=screenshots / "solve-chart-phone.png")
    assert phone.console.take() == []


def test_a_three_hit_blackjack_solve_is_explored_a_situation_at_a_time(tab):
    """Max hits 3 lowers the iterations field's limit as it is chosen; the worker solves the
    3-hit game; its heat map pages from situation to situation."""
    page = tab.page
    page.goto("/solver/")
    page.select_option("#id_game", "blackjack-pp")
    page.fill("#id_iterations", "1000")
    page.select_option("#id_max_hits", "3")
    assert page.locator("#id_iterations").input_value() == "300"  # clamped to 3 hits' limit
    assert page.locator("#id_iterations").get_attribute("max") == "300"
    page.select_option("#id_max_hits", "2")
    assert page.locator("#id_iterations").get_attribute("max") == "2000"
    page.select_option("#id_max_hits", "3")
    for field in ("#id_up0", "#id_up1", "#id_up2"):
        page.select_option(field, "T")
    page.fill("#id_iterations", "3")
    page.get_by_role("button", name="Solve").click()
    page.wait_for_url(re.compile(r"/solver/jobs/[0-9a-f]{16}/$"))
    page.get_by_text("Root payoffs").wait_for(timeout=120_000)
    heading = page.get_by_role("heading", level=1).inner_text()
    assert heading == "Blackjack++: CFR+, 3 iterations", heading
    assert "max hits 3" in page.locator("main").inner_text()
    # three situations deep, one link at a time
    for token in ("0h5", "1h2", "0h3"):
        page.locator("#blackjack-caption").wait_for()
        page.locator("table.heat thead a", has_text=re.compile(f"^{token}$")).first.click()
        page.wait_for_url(re.compile(r"\?at=[0-9a-zA-Z,]+#strategy$"))
    assert page.url.split("?at=")[1] == "0h5,1h2,0h3#strategy"
    crumbs = page.locator("[aria-current='page']").all_inner_texts()
    assert "0h3" in crumbs, crumbs
    assert page.locator("table.heat td.num").count() > 0
    assert tab.console.take() == []


#: name, path, status, what the error page says
ERROR_PAGES = [
    ("error-404-bot", "/bots/999999/", 404, "There is no bot number 999999 on Card Arena."),
    ("error-404-match", "/matches/999999/", 404, "There is no match number 999999"),
    ("error-404-person", "/people/nobody/", 404, "Nobody is called “nobody”"),
    ("error-400-uth-people", "/games/uth/leaderboard/?show=people", 400, "not rated in it"),
]

#: the site's link colour (--link in static/css/site.css)
LINK = "rgb(27, 94, 158)"


#: links that are drawn otherwise on purpose: as buttons, and the replay log's steps (ink)
OWN_LOOK = "main a:not(.button):not(.btn):not(.replay__button):not(.log-step > a)"


def link_colours(page) -> dict[str, str]:
    """Each link in the page's main content but those of OWN_LOOK: its text and colour."""
    return page.evaluate(
        f"Object.fromEntries([...document.querySelectorAll('{OWN_LOOK}')]"
        ".filter(a => a.offsetParent !== null)"
        ".map(a => [a.textContent.trim() || a.href, getComputedStyle(a).color]))"
    )


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize(
    ("name", "path", "status", "sentence"), ERROR_PAGES, ids=[p[0] for p in ERROR_PAGES]
)
def test_an_error_page_is_in_the_sites_frame_with_a_way_back(
    open_tabs, screenshots, viewport, name, path, status, sentence
):
    tab = open_tabs(viewport)
    page = tab.page
    response = page.goto(path, wait_until="networkidle")
    assert response is not None and response.status == status
    assert response.headers["content-type"].startswith("text/html")
    assert page.locator("header.top nav.nav").is_visible()
    assert page.locator("footer.foot").is_visible()
    assert sentence in page.locator("main").inner_text()
    home = page.locator("main a[href='/']")
    assert home.is_visible()
    colours = link_colours(page)
    assert len(colours) >= 2 and set(colours.values()) == {LINK}, colours
    page.screenshot(path=screenshots / f"{name}-{viewport}.png", full_page=True)
    # Chromium logs the page's own status as a failed load; anything else is a fault
    errors = [e for e in tab.console.take() if f"status of {status}" not in e]
    assert errors == []
    assert overflow_x(page) <= 0, f"{path} scrolls sideways on a {viewport} screen"


def test_links_in_every_kind_of_page_have_the_sites_colour(tab):
    page = tab.page
    page.goto("/games/rps-poker/leaderboard/")
    bot = page.locator("main a[href^='/bots/']").first.get_attribute("href")
    page.goto(bot)
    match = page.locator("main a[href^='/matches/']").first.get_attribute("href")
    for path in (bot, match, "/accounts/signup/", "/games/rps-poker/playground/", "/tournaments/"):
        page.goto(path)
        colours = link_colours(page)
        assert colours and set(colours.values()) == {LINK}, (path, colours)
    assert tab.console.take() == []


def test_a_table_that_scrolls_says_so_and_a_cross_table_of_seven_fits_a_desktop(open_tabs):
    """Figures were cut mid-number at a scrolling table's edge with nothing to say the table
    went on ("35.9 +/- 2.9" for 35.93 +/- 2.97 on a phone), and a 7-bot cross table was 14 px
    too wide for a desktop's column, its total "234" showing as "23"."""
    from games.views import cross_table_html

    phone = open_tabs("phone").page
    phone.goto("/games/last-card/leaderboard/")
    wrap = phone.locator(".table-wrap").first
    wrap.locator("tbody tr").first.wait_for()
    hint = phone.locator(".scroll-hint").first
    hint.wait_for()  # over the table, in view
    assert hint.inner_text() == "Scroll the table sideways for more \u2192"
    assert wrap.get_attribute("data-more") == "right"
    assert "gradient" in wrap.evaluate("w => getComputedStyle(w).maskImage")  # its edge fades
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    phone.wait_for_function(
        "w => w.getAttribute('data-more') === 'left'", arg=wrap.element_handle()
    )
    first = wrap.locator("tbody tr > :first-child").first
    assert first.evaluate("c => getComputedStyle(c).boxShadow") != "none"  # over what scrolled

    desktop = open_tabs("desktop").page
    desktop.goto("/tournaments/")
    desktop.locator("main a[href^='/tournaments/']").first.click()
    table = desktop.locator("table.cross")
    table.wait_for()
    names = ["house/strong", "carol/rps-slow", "bob/rps-flaky", "alice/rps-mine",
             "house/simple", "house/minimal", "dave/rps-low"]  # fmt: skip
    bots = [{"id": n, "label": name, "points": 234.0 - 20 * n} for n, name in enumerate(names)]
    cell = {"for": 51.0, "against": 9.0, "matches": 12, "outcome": "won", "opponent": "x"}
    grid = [{"bot": bot, "cells": [None if c is bot else cell for c in bots]} for bot in bots]
    head = "".join(
        f'<th scope="col"><a href="/bots/{b["id"]}/">{b["label"]}</a></th>' for b in bots
    )
    table.evaluate(
        "(t, [head, rows]) => { t.tHead.rows[0].innerHTML = head; t.tBodies[0].innerHTML = rows; }",
        [f'<th scope="col">bot</th>{head}<th scope="col">total games won</th>',
         str(cross_table_html({"kind": "pairs", "grid": grid}))],
    )  # fmt: skip
    box = desktop.locator(".table-wrap", has=table)
    width, room = box.evaluate("w => [w.scrollWidth, w.clientWidth]")
    assert width <= room, f"the cross table of 7 is {width} px wide in {room} px"
    total = table.locator("tbody tr td").last
    assert total.inner_text() == "114" and total.is_visible()
