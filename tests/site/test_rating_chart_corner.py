"""A rating chart on a phone (a bot's page, a person's profile): the chart is drawn 640 wide
and shrunk to the screen with its numbers drawn large (static/css/bots.css), where the value
axis's lowest number ("-10", with a minus sign) and the match axis's first ("0") met at the
chart's corner and read as one number, "-100". Laid out by Chromium at 390 px (and 1280 px):
the two keep apart."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from bots.pages.views import Point, rating_chart
from tests.browser.conftest import chromium_args, chromium_executable
from tests.browser.test_phone_layout import open_rendered

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width">
<link rel="stylesheet" href="/static/css/site.css">
<link rel="stylesheet" href="/static/css/bots.css">
</head><body><main>{chart}</main></body></html>"""


def chart_html(history: list[Point]) -> str:
    chart = rating_chart(history)
    assert chart is not None
    return PAGE.format(
        chart=render_to_string(
            "includes/rating_chart.html", {"chart": chart, "chart_title": "a rating"}
        )
    )


def boxes(page) -> list[dict]:
    return page.evaluate(
        "() => [...document.querySelectorAll('.chart .grid text')].map(t => {"
        " const r = t.getBoundingClientRect();"
        " return {text: t.textContent, left: r.left, right: r.right, top: r.top,"
        " bottom: r.bottom}; })"
    )


@pytest.mark.parametrize("width", [390, 1280])
def test_the_lowest_rating_and_the_first_match_number_keep_apart(width):
    # one rated match lost from the start: the rating goes below 0, the axis from -10
    history = [Point(1, 22.16, 7.96, 25.0, 25 / 3, None, None)]
    html = chart_html(history)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_executable(), args=chromium_args(), headless=True
        )
        try:
            page = open_rendered(browser, html, width, touch=width < 600)
            found = boxes(page)
        finally:
            browser.close()
    texts = [box["text"] for box in found]
    assert texts[0] == "\u221210" and "0" in texts
    lowest = found[0]  # the value axis's ticks come first, lowest first
    first_match = next(b for b in found[len(texts) - 3 :] if b["text"] == "0")
    # apart across, or apart down: never side by side on one line
    gap_across = first_match["left"] - lowest["right"]
    gap_down = first_match["top"] - lowest["bottom"]
    assert gap_across >= 4 or gap_down >= 2, (lowest, first_match)
