"""A Goofspiel table in the browser, drawn by the page's one renderer of table frames: a guest
bids against the built-in bot with the mouse and the keyboard to the end of the match; the
page logs every prize and sums up the match. The digit keys type a card's number (the 13: 1
then 3), whatever its place in the hand, and the arrows start from the card the keyboard is
on."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_live_table import (
    TURN_TIMEOUT_MS,
    updates,
    wait_for_focus_on_a_card,
    wait_for_my_turn,
)

pytestmark = pytest.mark.browser

#: the table's match: three deals of thirteen prizes; the last card of a deal bids itself
DEALS, CARDS = 3, 13
BIDS = DEALS * (CARDS - 1)


def chosen(page) -> list[str]:
    """The cards of the hand chosen now (their numbers)."""
    return page.eval_on_selector_all(
        "#live-hand .hand-card[aria-pressed=true] [data-code]",
        "els => els.map(e => e.dataset.code)",
    )


def test_a_guest_plays_goofspiel_against_the_built_in_bot_to_the_end(tab, screenshots):
    page = tab.page
    page.goto("/games/goofspiel/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    bids = 0
    while bids < BIDS + 5:
        page.wait_for_function(
            """() => !document.getElementById("table-end").hidden
                || document.getElementById("turn-line").classList.contains("turn-line--mine")""",
            timeout=TURN_TIMEOUT_MS,
        )
        if page.locator("#table-end").is_visible():
            break
        wait_for_my_turn(page)
        assert page.locator("#turn-line").inner_text().startswith("Your turn: bid a card")
        prize = page.locator("#live-shared [data-code]").first.get_attribute("data-code")
        hand = page.locator("#live-hand .hand-card")
        assert hand.count() == CARDS - bids % (CARDS - 1)  # one card fewer after each bid
        if bids == 0:  # thirteen cards: each chosen by typing its number, or the arrows
            keys = page.locator("#keys-help").inner_text()
            # Enter does what the button says: "Bid the chosen card"
            assert (
                "Keys: 0 … 9 type a card's number to choose it (1 then 3 for 13), "
                "← → move the choice, Enter bid it, Esc clear"
            ) in keys, keys
            # the arrows start from the card the keyboard is on: the first, at the first turn
            assert wait_for_focus_on_a_card(page) == 0
            page.keyboard.press("ArrowRight")
            assert chosen(page) == ["2"]
            page.keyboard.press("Escape")
            assert page.locator("#live-status").text_content() == "No card chosen"
            hand.nth(9).focus()  # the 10
            page.keyboard.press("ArrowLeft")
            assert chosen(page) == ["9"]
            page.keyboard.press("ArrowLeft")
            assert chosen(page) == ["8"]
            page.keyboard.press("1")
            page.keyboard.press("3")
            assert chosen(page) == ["13"]
            assert page.locator("#live-status").text_content() == "Chosen: 13 (Enter to bid it)"
        if bids == 2:  # the 1 (bid in turn 2) is gone: "1" waits for the 10 to 12's digit
            page.keyboard.press("1")
            assert chosen(page) == []
            assert page.locator("#live-error").inner_text() == (
                "No 1 in your hand: type the second digit for 10, 11 or 12."
            )
            page.keyboard.press("0")
            assert chosen(page) == ["10"]
            assert page.locator("#live-error").inner_text() == ""
        before = updates(page)
        if bids % 2:
            lowest = hand.first.locator("[data-code]").get_attribute("data-code")
            for key in lowest:  # the lowest card, by its number, then Enter bids it
                page.keyboard.press(key)
            assert chosen(page) == [lowest]
            page.keyboard.press("Enter")
        else:
            hand.last.click()
            button = page.locator("#live-controls button", has_text=re.compile("^Bid"))
            assert button.inner_text().startswith("Bid ")
            button.click()
        if bids == 1:
            page.screenshot(path=screenshots / "table-goofspiel-desktop.png", full_page=True)
        page.wait_for_function(
            """before => !document.getElementById("table-end").hidden
                || document.getElementById("live-error").textContent !== ""
                || Number(document.getElementById("live").dataset.updates) > before""",
            arg=before,
            timeout=TURN_TIMEOUT_MS,
        )
        assert page.locator("#live-error").inner_text() == ""
        assert prize is not None
        bids += 1
    end = page.get_by_role("region", name="Match over")
    end.wait_for(timeout=TURN_TIMEOUT_MS)
    assert bids == BIDS
    summary = end.locator("#end-summary").inner_text()
    # (a negative with the minus sign, as every page writes it: in the final scores too)
    assert re.search(
        r"(You win|house/matching wins|A draw), \u2212?[\d.]+ to \u2212?[\d.]+\.", summary
    )
    assert not any("-" in cell for cell in end.locator("td.num").all_inner_texts())
    lines = page.locator("#live-log li").all_inner_texts()
    assert len([line for line in lines if line.startswith("Prize ")]) >= BIDS
    assert len([line for line in lines if re.match(r"Deal \d ends", line)]) == DEALS
    assert any("(you) bids" in line for line in lines)
    page.screenshot(path=screenshots / "table-goofspiel-over-desktop.png", full_page=True)
    assert tab.console.take() == []
