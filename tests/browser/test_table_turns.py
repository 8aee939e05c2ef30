"""What a live table's page says while the table waits, in Chromium: at Goofspiel's
simultaneous bids, who the table awaits (a bid that is in says so at once, on both pages;
a bid the timer played for an away player ends their turn); on a phone, Ultimate Texas
Hold'em's hole cards in view when the player is asked."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import form_for_two
from tests.browser.test_live_table import (
    TICK_MS,
    TURN_TIMEOUT_MS,
    bot_table_through,
    guest_name,
    in_view,
    table_ms,
    wait_for_my_turn,
)

pytestmark = pytest.mark.browser


def pills(page, seat: int) -> list[str]:
    return page.locator("#live-seats .live-seat").nth(seat).locator(".pill").all_inner_texts()


def test_goofspiel_says_whose_bid_is_in_and_who_is_awaited(open_tabs, screenshots):
    host_tab, guest_tab = open_tabs("desktop"), open_tabs("phone")
    host, guest = host_tab.page, guest_tab.page
    form = form_for_two(host, "goofspiel", "10 seconds")
    form.get_by_label("Cards").select_option(label="5 cards in each hand")
    form.get_by_label("Deals").select_option(label="1 deal")
    form.get_by_role("button", name="Create the table").click()
    host.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    guest.clock.install()  # the page's timers, run on by the test
    guest.goto(host.url)
    guest.get_by_role("button", name="Join in seat 2").click()
    guest.wait_for_url(host.url)
    wait_for_my_turn(host)
    wait_for_my_turn(guest)
    them = guest_name(host)  # (the host is a guest too)

    # the guest bids: the table has it at once, and it awaits the host (no "slow" clock)
    guest.locator("#live-hand .hand-card").first.click()
    guest.locator("#live-controls button", has_text=re.compile("^Bid")).click()
    turn_line = guest.locator("#turn-line")
    turn_line.filter(has_text="Your bid is in").wait_for(timeout=TURN_TIMEOUT_MS)
    assert turn_line.inner_text() == f"Your bid is in: waiting for {them}'s bid."
    # on the guest's page clock, past the moment a move waiting for an answer says "slow"
    guest.clock.run_for(table_ms("SLOW_MS") + TICK_MS)
    assert guest.locator("#countdown.countdown--slow").count() == 0
    assert turn_line.inner_text() == f"Your bid is in: waiting for {them}'s bid."
    # the host sees who holds the table up: the guest's bid is in, theirs is awaited
    assert pills(host, 0) == ["bidding"] and pills(host, 1) == ["bid in"]
    guest.screenshot(path=screenshots / "table-goofspiel-awaited-phone.png", full_page=True)

    # the host lets the timer play for them: away, the next turn's short timer plays for
    # them at once while the guest thinks; their page then says so, and who is awaited
    host.locator("#live-seats .pill--away").first.wait_for(timeout=TURN_TIMEOUT_MS)
    host.locator("#turn-line", has_text="Time ran out, so this was played for you").wait_for(
        timeout=TURN_TIMEOUT_MS
    )
    line = host.locator("#turn-line").inner_text()
    assert re.fullmatch(
        r"Time ran out, so this was played for you: bid \d+\. Waiting for .+'s bid\.", line
    ), line
    assert host.locator("#countdown").is_hidden()  # no "Time is up" beside it
    assert host.locator("#live-hand .hand-card:not([disabled])").count() == 0
    host.screenshot(path=screenshots / "table-goofspiel-played-for-desktop.png", full_page=True)
    assert sorted(pills(guest, 0)) == ["away", "bid in"]
    assert host_tab.console.take() == [] and guest_tab.console.take() == []


def test_ultimate_texas_holdem_on_a_phone_shows_the_hole_cards_when_asked(open_tabs, screenshots):
    tab = open_tabs("phone")
    page = tab.page
    page.goto("/games/uth/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    for round_start in range(2):  # the first round, then one with a round before it shown
        page.locator("#turn-line.turn-line--mine").wait_for(timeout=TURN_TIMEOUT_MS)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=screenshots / f"table-uth-asked-{round_start}-phone.png")
        cards = page.locator("#live-hand [data-code]")
        assert cards.count() == 2
        for n in range(2):
            assert in_view(page, f"#live-hand [data-code] >> nth={n}")
        assert in_view(page, "#live-controls button:first-child")
        if round_start == 0:  # fold at once: the next round shows this one's cards too
            for key in ("c", "c", "f"):
                page.locator("#turn-line.turn-line--mine").wait_for(timeout=TURN_TIMEOUT_MS)
                before = int(page.locator("#live").get_attribute("data-updates") or 0)
                page.keyboard.press(key)
                page.wait_for_function(
                    "b => Number(document.getElementById('live').dataset.updates) > b",
                    arg=before,
                    timeout=TURN_TIMEOUT_MS,
                )
    assert tab.console.take() == []


def test_a_long_log_keeps_its_numbers_whole_and_counting_on(open_tabs):
    """Past 200 lines the log drops its oldest and numbers on from them ("251.", not "1."),
    and a number of four digits is not cut on the left."""
    tab = open_tabs("phone")
    page = tab.page
    extra = [{"key": f"x{n}", "text": f"Line {n + 1}."} for n in range(1250)]

    def from_server(message, ws) -> None:
        data = json.loads(message)
        if data.get("type") == "state":  # a long match's log, at once
            data["frame"]["log"] = extra + data["frame"]["log"]
            message = json.dumps(data)
        ws.send(message)

    bot_table_through(page, from_server=from_server)
    log = page.locator("#live-log")
    assert log.locator("li").count() == 200
    first = int(log.get_attribute("start") or 1)
    assert log.locator("li").first.inner_text() == f"Line {first}."  # numbered as it was
    assert first > 1000
    # the widest number ("1250.") fits in the room left of the lines
    room, number = page.eval_on_selector(
        "#live-log",
        """ol => { const c = document.createElement("canvas").getContext("2d");
                   const li = getComputedStyle(ol.querySelector("li"));
                   c.font = li.fontWeight + " " + li.fontSize + " " + li.fontFamily;
                   return [parseFloat(getComputedStyle(ol).paddingLeft),
                           c.measureText("1250. ").width]; }""",
    )
    assert number < room, (number, room)
    assert tab.console.take() == []
