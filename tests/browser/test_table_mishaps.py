"""A live table against the small mishaps of a person's hands and connection: a key held
down, another person's page that goes away."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import form_for_two

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


def test_the_others_are_told_when_a_persons_page_closes_mid_match(open_tabs, screenshots):
    # ann and bob play Kuhn poker, a 60-second timer, someone watching; bob closes his tab.
    # Before, ann and the spectator read "Hand 1 of 10." for up to a minute, with nothing
    # saying the table waited for someone who had gone.
    ann_tab, bob_tab, watcher_tab = open_tabs("phone"), open_tabs("desktop"), open_tabs("desktop")
    ann, bob, watcher = ann_tab.page, bob_tab.page, watcher_tab.page
    form = form_for_two(ann, "kuhn", "60 seconds")
    form.get_by_role("button", name="Create the table").click()
    ann.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    bob.goto(ann.url)
    bob.get_by_role("button", name="Join in seat 2").click()
    bob.wait_for_url(ann.url)
    watcher.goto(ann.url)
    bob.locator("#live .live-seat").nth(1).wait_for(timeout=TURN_TIMEOUT_MS)
    bob_name = bob.locator("#live-seats .live-seat").nth(1).locator(".seat__label").inner_text()
    bob_name = bob_name.removesuffix(" (you)")
    bob.context.close()
    said = f"{bob_name} is not connected: until they are back, their turns are played for them"
    for page in (ann, watcher):
        page.locator("#turn-line", has_text=said).wait_for(timeout=TURN_TIMEOUT_MS)
        seat = page.locator("#live-seats .live-seat").nth(1)
        assert "not connected" in seat.locator(".badges").inner_text()
    ann.screenshot(path=screenshots / "table-other-gone-phone.png")
    assert ann_tab.console.take() == []
    assert watcher_tab.console.take() == []


def offline_at_my_turn(page):
    """A Kuhn table against a bot, at the person's turn, the network then gone: the page's
    line of its connection. The page's clock moves from then on only as the test moves it
    (an installed clock also runs on by itself: on a loaded machine, by more than a test's
    steps, and a wait the test found ran out before it acted on it)."""
    page.clock.install()  # the page's timers, run on by the test
    page.goto("/games/kuhn/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    page.locator("#turn-line.turn-line--mine").wait_for(timeout=TURN_TIMEOUT_MS)
    page.context.set_offline(True)
    page.clock.pause_at(page.evaluate("Date.now()") + 1)
    return page.locator("#connection")


def test_a_lost_connection_counts_down_to_the_next_try_and_claims_no_move_it_cannot_know(tab):
    # A person's network goes while it is their turn, and stays away past the turn's end.
    # Before, the line under the title said "reconnecting in 4 s…" for as long as it waited
    # (never counting down), and the clock said "Time is up, so this is played for you:
    # check" though a server that stopped plays nothing, and gives the whole turn back when
    # the table goes on.
    page = tab.page
    connection = offline_at_my_turn(page)
    for _ in range(100):  # the page gives up on the silent socket, then tries every 1, 2, 4 s
        if connection.inner_text() == "Connection lost: reconnecting in 4 s…":
            break
        page.clock.run_for(500)
    assert connection.inner_text() == "Connection lost: reconnecting in 4 s…"
    page.clock.run_for(1_250)
    assert connection.inner_text() == "Connection lost: reconnecting in 3 s…"
    page.clock.run_for(30_000)  # the turn's whole timer
    assert page.locator("#countdown").inner_text() == (
        "Connection lost: reconnecting… Your time is up: unless the site's server stopped, "
        "this was played for you: check"
    )
    errors = [e for e in tab.console.take() if "ERR_INTERNET_DISCONNECTED" not in e]
    assert errors == []


#: counts, in ``window.socketsOpened``, the sockets the page opens (before its own script)
COUNT_SOCKETS = """(() => {
  const Real = window.WebSocket;
  window.socketsOpened = 0;
  window.WebSocket = class extends Real {
    constructor(...args) { super(...args); window.socketsOpened += 1; }
  };
})();"""


def test_a_page_shown_again_after_losing_its_connection_tries_again_at_once(tab):
    # A phone woken up: its page lost the connection while asleep and waits (1, 2, 4, ... up
    # to 15 s) for its next try; shown again, it tries at once, as when the browser says its
    # network is back. Before, it waited out the rest of its wait.
    page = tab.page
    page.add_init_script(COUNT_SOCKETS)
    connection = offline_at_my_turn(page)
    # until it waits for its next try (a retry is due: no socket is opening); at 4 s, a wait
    # long enough that the page's own timer cannot be what opens the next socket
    waiting = re.compile(r"Connection lost: reconnecting in ([0-9]+) s…")
    for _ in range(200):
        found = waiting.fullmatch(connection.inner_text())
        if found and int(found[1]) >= 4:
            break
        page.clock.run_for(250)
    else:
        raise AssertionError(f"the page never waited to reconnect: {connection.inner_text()!r}")
    opened = page.evaluate("window.socketsOpened")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # (it is visible)
    page.wait_for_function("n => window.socketsOpened > n", arg=opened, timeout=5_000)
    errors = [e for e in tab.console.take() if "ERR_INTERNET_DISCONNECTED" not in e]
    assert errors == []


def test_a_phones_first_turn_puts_no_focus_ring_on_a_card(open_tabs):
    """On a touch screen the first turn's card, focused for a keyboard the phone has not,
    wore a focus ring that looked like a card chosen, while "Keep the chosen card" stayed
    disabled. A computer's first turn still puts the keyboard on the first card."""
    from tests.browser.test_live_table import wait_for_focus_on_a_card, wait_for_my_turn

    for viewport in ("phone", "desktop"):
        page = open_tabs(viewport).page
        page.goto("/games/rps-poker/tables/")
        page.get_by_role("button", name="Play against a bot").click()
        wait_for_my_turn(page)
        if viewport == "desktop":
            assert wait_for_focus_on_a_card(page) == 0
            continue
        page.locator("#live-hand .hand-card").first.wait_for()
        on_a_card = "() => !!document.activeElement.closest('#live-hand .hand-card')"
        assert page.evaluate(on_a_card) is False
        # a tap chooses a card as ever
        page.locator("#live-hand .hand-card").first.click()
        assert page.locator("#live-hand .hand-card").first.get_attribute("aria-pressed") == "true"
