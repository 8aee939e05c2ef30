"""Live tables of Kuhn poker, Leduc hold'em and Blackjack++ in the browser: a guest plays a
sitting of ten hands against the cfr bot with the keyboard to the end, always seeing their own
card; the page logs every hand and sums up the chips."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_live_table import TURN_TIMEOUT_MS, updates, wait_until_answered

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("slug", "keys", "unit", "summary"),
    [
        ("kuhn", ["c", "b", "c"], "Hand", "chips"),
        ("leduc", ["c"], "Hand", "chips"),
        ("blackjack-pp", ["h", "s"], "Deal", "points"),
    ],
)
def test_a_guest_plays_a_sitting_against_the_cfr_bot_with_the_keyboard(
    tab, screenshots, slug, keys, unit, summary
):
    page = tab.page
    page.goto(f"/games/{slug}/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    acted = 0
    while acted < 80:
        page.wait_for_function(
            """() => !document.getElementById("table-end").hidden
                || document.getElementById("turn-line").classList.contains("turn-line--mine")""",
            timeout=TURN_TIMEOUT_MS,
        )
        if page.locator("#table-end").is_visible():
            break
        assert page.locator("#live-hand [data-code]").count() >= 1  # my own card(s)
        assert page.locator("#turn-line").inner_text().startswith("Your turn")
        before = updates(page)
        key = keys[acted % len(keys)]
        if key == "b" and "Bet" not in page.locator("#live-controls").inner_text():
            key = "c"  # facing a bet: call
        page.keyboard.press(key)
        if acted == 1:
            page.screenshot(path=screenshots / f"table-{slug}-desktop.png", full_page=True)
        wait_until_answered(page, before)
        assert page.locator("#live-error").inner_text() == ""
        acted += 1
    end = page.get_by_role("region", name="Match over")
    end.wait_for()
    assert re.search(rf"After 10 {unit.lower()}s: .* {summary}\.", end.inner_text())
    assert end.locator("#end-score-label").inner_text() == f"{summary.capitalize()} won"
    lines = page.locator("#live-log li").all_inner_texts()
    assert len([line for line in lines if re.match(rf"{unit} \d+: ", line)]) == 10
    if slug == "leduc":  # each move in the log as it is made, a raise called a raise
        moves = [line for line in lines if re.match(r"Hand \d+, round \d: ", line)]
        assert moves and all(
            re.search(r": \S+ (checks|calls|raises \d|re-raises by \d|folds)\.$", m) for m in moves
        ), moves
    assert tab.console.take() == []
