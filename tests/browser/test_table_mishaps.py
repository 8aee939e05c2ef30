"""A live table against the small mishaps of a person's hands and connection: a key held
down, another person's page that goes away."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

TURN_TIMEOUT_MS = 20_000


def test_a_key_held_down_plays_one_move_not_one_at_every_turn_it_repeats_into(tab):
    # Ultimate Texas Hold'em against the dealer: "check" before the flop is followed at once
    # by another turn of the same person that offers "check" again (on the flop). A held C
    # (the system repeats it) checked there too, before the person saw the flop.
    page = tab.page
    page.goto("/games/uth/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    mine = page.locator("#turn-line.turn-line--mine")
    mine.filter(has_text="before the flop").wait_for(timeout=TURN_TIMEOUT_MS)
    page.keyboard.down("c")
    mine.filter(has_text="on the flop").wait_for(timeout=TURN_TIMEOUT_MS)
    page.keyboard.down("c")  # the key still down: the system's repeat (``repeat`` set)
    page.keyboard.down("c")
    page.keyboard.up("c")
    # the person's own next move, bet 2x on the flop, is the next one the table hears
    page.keyboard.press("2")
    page.locator("#live-log li").nth(1).wait_for(timeout=TURN_TIMEOUT_MS)
    lines = page.locator("#live-log li").all_inner_texts()
    assert lines[:2] == ["Round 1, you: check.", "Round 1, you: bet 2\u00d7."], lines
    assert tab.console.take() == []
