"""Live tables in the browser, against the live site: a guest plays RPS Poker against the
strongest built-in bot with the keyboard and the mouse while someone else watches (and never
sees the guest's cards), then opens the replay; a guest on a phone plays Last Card against
three bots to the end."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import form_for_two

pytestmark = pytest.mark.browser

#: RPS Poker: five draft steps, then ten games
RPS_DECISIONS = 15
TURN_TIMEOUT_MS = 20_000
#: the site's focus rings on fields and regions (static/css/site.css --focus: #1b5e9e)
FOCUS_BLUE = "rgb(27, 94, 158)"
#: the table page's own timers (``var NAME = MS;`` in static/js/table.js), which tests run
#: on the page's clock (Playwright's ``page.clock``) rather than wait for in real time
TABLE_JS = (Path(__file__).resolve().parents[2] / "static/js/table.js").read_text()
#: how often the page looks at its clock (``window.setInterval(tick, ...)``)
TICK_MS = int(re.search(r"setInterval\(tick, (\d+)\)", TABLE_JS)[1])


def table_ms(name: str) -> int:
    """One of the page's timers, in milliseconds (SLOW_MS, SYNC_MS, NO_ANSWER_MS, ...)."""
    found = re.search(rf"var {name} = ([\d* ]+);", TABLE_JS)
    assert found, f"static/js/table.js sets no {name}"
    total = 1
    for factor in found[1].split("*"):
        total *= int(factor)
    return total


#: counts, in ``window.heardFromTable``, the messages the page's table sockets received
#: (added before the page's own script: its handlers run in the same event)
COUNT_HEARD = """(() => {
  const Real = window.WebSocket;
  window.heardFromTable = 0;
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => { window.heardFromTable += 1; });
    }
  };
})();"""


def heard(page) -> int:
    return page.evaluate("window.heardFromTable")


def wait_until_heard(page, before: int) -> None:
    """The page received a message from the table since it had heard ``before``."""
    page.wait_for_function(
        "before => window.heardFromTable > before", arg=before, timeout=TURN_TIMEOUT_MS
    )


def codes(page, selector: str) -> set[str]:
    """The cards drawn inside ``selector`` (their codes)."""
    return set(
        page.eval_on_selector_all(f"{selector} [data-code]", "els => els.map(e => e.dataset.code)")
    )


def wait_for_my_turn(page) -> None:
    page.locator("#turn-line.turn-line--mine").wait_for(timeout=TURN_TIMEOUT_MS)
    page.locator("#live-hand .hand-card:not([disabled])").first.wait_for()


def bot_table_through(
    page, to_server=None, from_server=None, *, clock: bool = False, game: str = "rps-poker"
) -> dict:
    """Open a table of ``game`` (RPS Poker) against a bot with the table socket's messages
    passed through this test: ``to_server(message, server)`` and ``from_server(message,
    page_socket)`` each decide what goes on (by default all of it), as a lossy or busy
    network would. Returns,
    once it is the person's turn, the two ends: ``{"page": ..., "server": ...}``. With
    ``clock``, the page's timers run on ``page.clock`` (installed before the page loads),
    for the test to move on with ``page.clock.run_for``."""
    ends: dict = {}
    if clock:
        page.clock.install()

    def through(ws) -> None:
        server = ws.connect_to_server()
        ends["page"], ends["server"] = ws, server
        ws.on_message(lambda m: to_server(m, server) if to_server else server.send(m))
        server.on_message(lambda m: from_server(m, ws) if from_server else ws.send(m))

    page.route_web_socket(re.compile(r"/ws/tables/"), through)
    page.goto(f"/games/{game}/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    wait_for_my_turn(page)
    return ends


def seconds_left(page) -> int:
    """The seconds the turn clock shows (once it shows them)."""
    countdown = page.locator("#countdown")
    countdown.filter(has_text=re.compile(r"^\d+ s left$")).wait_for(timeout=TURN_TIMEOUT_MS)
    return int(countdown.inner_text().split(" s left")[0])


def updates(page) -> int:
    """How many views of the table the page has received."""
    return int(page.locator("#live").get_attribute("data-updates") or 0)


def wait_until_answered(page, before: int) -> None:
    """The server took the move (a new view arrived), refused it, or the match ended."""
    page.wait_for_function(
        """before => !document.getElementById("table-end").hidden
            || document.getElementById("live-error").textContent !== ""
            || Number(document.getElementById("live").dataset.updates) > before""",
        arg=before,
        timeout=TURN_TIMEOUT_MS,
    )


def test_it_lets_a_guest_play_rps_poker_against_a_bot_while_a_spectator_watches(
    open_tabs, screenshots
):
    player_tab, watcher_tab = open_tabs("desktop"), open_tabs("phone")
    page, watcher = player_tab.page, watcher_tab.page

    page.goto("/games/rps-poker/tables/")
    assert page.get_by_role("heading", level=1, name="Play RPS Poker").is_visible()
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    table_url = page.url
    assert "you sit in seat 1" in page.locator(".table-meta").inner_text()

    watcher.goto(table_url)
    assert "you are watching" in watcher.locator(".table-meta").inner_text()

    private_seen: set[str] = set()
    for decision in range(RPS_DECISIONS):
        wait_for_my_turn(page)
        hand = page.locator("#live-hand .hand-card")
        mine = codes(page, "#live-hand")
        assert mine, "the player sees no card of their own"
        private_seen |= mine
        if decision == 0:  # a seat's score says what it counts, as a replay's does
            score = page.locator("#live-seats .live-seat .seat__score").first.inner_text()
            assert re.fullmatch(r"\d+ games won", score.strip()), score
        # the spectator's page shows no card the player holds (nor the player's controls)
        watcher.locator("#live-seats .live-seat").first.wait_for()
        assert not (codes(watcher, "body") & mine), "the spectator sees the player's cards"
        assert watcher.locator("#live-hand").is_hidden()
        assert watcher.locator("#live-controls").is_hidden()
        if decision == 6:
            # a reload in the middle of a turn: the clock says the time really left, the
            # log keeps the draft, and the deck is shown as a set, never in draw order
            start = seconds_left(page)
            try:  # two seconds of the turn gone
                page.wait_for_function(
                    """most => parseInt(document.getElementById("countdown").textContent)
                        <= most""",
                    arg=start - 2,
                    timeout=TURN_TIMEOUT_MS,
                )
            except PlaywrightTimeout:
                shown = page.locator("#countdown").inner_text()
                raise AssertionError(
                    f"the turn clock showed {start} s left, and {shown!r}"
                    f" {TURN_TIMEOUT_MS / 1000:g} s later"
                ) from None
            page.reload()
            wait_for_my_turn(page)
            left = seconds_left(page)
            assert left <= start - 2 <= 28, (start, left)  # a 30 s timer, 2 s of it gone
            log = page.locator("#live-log li").all_inner_texts()
            assert sum(1 for line in log if re.match(r"Draft \d of 5: you kept", line)) == 5
            deck = page.locator("#live-hand .zone", has_text="Your deck")
            shown = deck.locator("[data-code]").evaluate_all("els => els.map(e => e.dataset.code)")
            assert shown == sorted(shown) and len(shown) == 6  # ten, three in hand, one played
        if decision == 1:
            page.screenshot(path=screenshots / "table-rps-poker-draft-desktop.png", full_page=True)
        if decision == 7:
            page.screenshot(path=screenshots / "table-rps-poker-desktop.png", full_page=True)
            watcher.screenshot(path=screenshots / "table-rps-poker-spectator-phone.png",
                               full_page=True)  # fmt: skip
        before = updates(page)
        if decision % 3 == 0:
            # keyboard: a digit chooses a card, Enter plays it
            page.keyboard.press("2")
            assert hand.nth(1).get_attribute("aria-pressed") == "true"
            page.keyboard.press("Enter")
        elif decision % 3 == 1:
            # mouse: click a card, then the play button
            hand.first.click()
            assert hand.first.get_attribute("aria-pressed") == "true"
            page.locator("#live-controls button", has_text=re.compile("^(Keep|Play)")).click()
        else:
            # Tab onto a card, Space chooses it, Enter plays it
            hand.last.focus()
            page.keyboard.press("Space")
            assert hand.last.get_attribute("aria-pressed") == "true"
            page.keyboard.press("Enter")
        wait_until_answered(page, before)
        assert page.locator("#live-error").inner_text() == ""

    end = page.get_by_role("region", name="Match over")
    end.wait_for(timeout=TURN_TIMEOUT_MS)
    summary = end.locator("#end-summary").inner_text()
    assert re.search(r"(You win|house/strong wins|A draw), \d+ to \d+", summary), summary
    scores = [int(c) for c in end.locator("td.num").all_inner_texts()]
    assert sum(scores) == 10
    # the winner's score first
    said = [int(n) for n in re.findall(r"\d+", summary)[:2]]
    assert said == sorted(scores, reverse=True), (summary, scores)
    log = page.locator("#live-log li").all_inner_texts()
    assert sum(1 for line in log if line.startswith("Game ")) == 10
    assert any(line.startswith("Draft 1 of 5: you kept") for line in log)
    page.screenshot(path=screenshots / "table-rps-poker-over-desktop.png", full_page=True)

    # the spectator saw the same end, and never a hand of the player while it was hidden
    watcher.get_by_role("region", name="Match over").wait_for(timeout=TURN_TIMEOUT_MS)
    assert watcher.locator("#end-summary").inner_text() != ""
    assert watcher.get_by_role("button", name="Play again").count() == 0
    watcher.screenshot(path=screenshots / "table-rps-poker-over-phone.png", full_page=True)

    end.get_by_role("link", name="Watch the replay").click()
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    # the replay's script draws its first step without rewriting the address it was opened at
    page.locator("#replay-table:not([aria-busy])").wait_for()
    page.wait_for_function("() => document.readyState === 'complete'")
    assert re.search(r"/matches/\d+/$", page.url), page.url
    participants = page.get_by_role("region", name="Participants")
    assert "house/strong" in participants.inner_text()
    assert player_tab.console.take() == []
    assert watcher_tab.console.take() == []


def focused_card(page) -> int | None:
    """The index of the card of the hand that has the keyboard's focus (None: no card)."""
    return page.evaluate(
        """() => { const at = document.activeElement;
            return at && at.matches("#live-hand .hand-card") ? Number(at.dataset.index) : null; }"""
    )


def wait_for_focus_on_a_card(page) -> int:
    """Waits until a card of the hand has the focus (never the page's body); its index."""
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.matches('#live-hand .hand-card')",
        timeout=TURN_TIMEOUT_MS,
    )
    return focused_card(page)


def card_name(page, index: int) -> str:
    """What card ``index`` of the hand is ("paper 0"), as its button names it."""
    name = page.locator("#live-hand .hand-card").nth(index).get_attribute("data-name")
    return name.split(", key")[0]


def kept_lines(page) -> list[str]:
    """The draft's lines of the log: "Draft 2 of 5: you kept paper 0 and received ..."."""
    return [line for line in page.locator("#live-log li").all_inner_texts() if "you kept" in line]


def enter_keeps(page, name: str) -> None:
    """Enter, then the draft's next line says the card ``name`` was kept."""
    kept = len(kept_lines(page))
    page.keyboard.press("Enter")
    page.locator("#live-log li", has_text="you kept").nth(kept).wait_for(timeout=TURN_TIMEOUT_MS)
    assert page.locator("#live-error").inner_text() == ""
    assert f"you kept {name} and" in kept_lines(page)[kept], kept_lines(page)


def test_the_keyboard_plays_the_focused_card_and_keeps_its_place_from_turn_to_turn(
    open_tabs, screenshots
):
    tab = open_tabs("desktop")
    page = tab.page
    shortened: list[int] = []

    def from_server(message, page_socket) -> None:
        # the first turn says 11 s are left (the server allows 30): the "10 seconds left"
        # warning comes a second later
        data = json.loads(message)
        if data.get("type") == "turn" and not shortened:
            shortened.append(data["turn"])
            data["seconds"] = 11
            message = json.dumps(data)
        page_socket.send(message)

    bot_table_through(page, from_server=from_server)
    status = page.locator("#live-status")
    # the first turn puts the keyboard on the first card, and says the time to move once
    assert wait_for_focus_on_a_card(page) == 0
    assert status.inner_text() == "11 seconds to move"
    # the move the timer would play for her now: in the draft, keeping the first card offered
    page.wait_for_function(
        "text => document.getElementById('live-status').textContent === text",
        arg=f"10 seconds left, then this is played for you: keep {card_name(page, 0)}",
        timeout=TURN_TIMEOUT_MS,
    )
    assert page.locator("#countdown").get_attribute("aria-live") == "off"

    # Space chooses the first card; Tab to the second, Enter keeps the second (the focused one)
    page.keyboard.press("Space")
    assert page.locator("#live-hand .hand-card").first.get_attribute("aria-pressed") == "true"
    page.keyboard.press("Tab")
    assert focused_card(page) == 1
    second = card_name(page, 1)
    enter_keeps(page, second)

    # the next turn: the keyboard is back on a card, not on the page's body
    wait_for_my_turn(page)
    wait_for_focus_on_a_card(page)
    assert re.fullmatch(r"\d+ seconds to move", status.inner_text()), status.inner_text()
    # a digit chooses a card, takes the focus to it and says so; Enter keeps it
    page.keyboard.press("2")
    assert focused_card(page) == 1
    second = card_name(page, 1)
    assert status.inner_text() == f"Chosen: {second} (Enter to keep it)"
    enter_keeps(page, second)

    # nothing chosen and no card focused: Enter says how to choose one
    wait_for_my_turn(page)
    wait_for_focus_on_a_card(page)
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Enter")
    assert page.locator("#live-error").inner_text() == (
        "Choose a card first: press Space on it, or its number key."
    )
    # the arrows move the choice and the focus together
    page.keyboard.press("ArrowRight")
    assert focused_card(page) == 0
    page.keyboard.press("ArrowRight")
    assert focused_card(page) == 1
    assert page.locator("#live-hand .hand-card").nth(1).get_attribute("aria-pressed") == "true"
    second = card_name(page, 1)
    enter_keeps(page, second)
    wait_for_my_turn(page)
    wait_for_focus_on_a_card(page)
    page.screenshot(path=screenshots / "table-rps-poker-keyboard-desktop.png")
    # the log scrolls, and the keyboard reaches it
    log = page.get_by_role("list", name="Moves")
    assert log.get_attribute("tabindex") == "0"
    log.focus()
    assert page.evaluate("document.activeElement.id") == "live-log"
    assert tab.console.take() == []


def test_a_seat_that_won_one_game_says_game_in_the_singular(open_tabs):
    """RPS Poker's seat badge: "1 game won", "0 games won" (the table's words for a score)."""
    page = open_tabs("desktop").page

    def from_server(message, page_socket) -> None:
        data = json.loads(message)
        if data.get("type") == "state":
            data["frame"]["seats"][1]["score"] = "1"
            message = json.dumps(data)
        page_socket.send(message)

    bot_table_through(page, from_server=from_server)
    badges = page.locator("#live-seats .seat__score")
    assert [" ".join(b.split()) for b in badges.all_inner_texts()] == [
        "0 games won",
        "1 game won",
    ]


def last_card_choice(page) -> dict:
    """The hand at a Last Card table: each card's code, whether it is drawn as one that
    cannot be chosen now, whether it is chosen; the moves the server allows; the status."""
    return page.evaluate(
        """() => ({
            cards: [...document.querySelectorAll("#live-hand .hand-card")].map(b => ({
                code: b.querySelector("[data-code]").dataset.code,
                barred: b.getAttribute("aria-disabled") === "true",
                chosen: b.getAttribute("aria-pressed") === "true"})),
            status: document.getElementById("live-status").textContent,
            error: document.getElementById("live-error").textContent})"""
    )


def test_last_card_offers_only_the_cards_the_rules_allow_and_lets_a_refused_choice_go(
    open_tabs, screenshots
):
    """A card that cannot start a move, or follow the cards chosen, is drawn greyed and says
    why when chosen; Esc says that nothing is chosen; a move the server refuses leaves no
    card chosen, and the status line no longer names the refused cards."""
    tab = open_tabs("desktop")
    page = tab.page
    moves: list = []

    def from_server(message, page_socket) -> None:
        data = json.loads(message)
        several = [a["several"] for a in data.get("actions") or [] if "several" in a]
        if data.get("type") == "state" and several:
            moves[:] = [several[0]["moves"]]
        page_socket.send(message)

    ends = bot_table_through(page, from_server=from_server, game="last-card")
    cards = page.locator("#live-hand .hand-card")
    for _ in range(20):  # a turn with a card to play and one that cannot start a move
        wait_for_my_turn(page)
        seen = last_card_choice(page)
        starts = {move[0] for move in moves[0]}
        assert [c["barred"] for c in seen["cards"]] == [
            c["code"] not in starts for c in seen["cards"]
        ], (seen, moves)
        free = [i for i, c in enumerate(seen["cards"]) if not c["barred"]]
        barred = [i for i, c in enumerate(seen["cards"]) if c["barred"]]
        if free and barred and free[0] < 9:
            break
        before = updates(page)
        page.get_by_role("button", name=re.compile("^Draw")).click()
        wait_until_answered(page, before)
    else:
        pytest.fail("no turn had a card to play and one that could not start a move")
    # a card that cannot start the move: not chosen, and the hint says why
    cards.nth(barred[0]).click(force=True)  # (a person may click it: it is greyed, not gone)
    seen = last_card_choice(page)
    assert not any(c["chosen"] for c in seen["cards"])
    assert seen["error"] == f"The {card_name(page, barred[0])} cannot start a move now."
    # a card that may: chosen by its key and said; the cards that cannot follow it greyed
    page.keyboard.press(str(free[0] + 1))
    seen = last_card_choice(page)
    first = seen["cards"][free[0]]["code"]
    assert seen["cards"][free[0]]["chosen"] and seen["error"] == ""
    assert seen["status"].startswith(f"Chosen: {card_name(page, free[0])} (Enter to play")
    follow = {move[1] for move in moves[0] if len(move) == 2 and move[0] == first}
    assert [c["barred"] for c in seen["cards"]] == [
        not c["chosen"] and c["code"] not in follow for c in seen["cards"]
    ]
    page.screenshot(path=screenshots / "table-last-card-choice-desktop.png")
    # Esc: nothing is chosen, and the status says so
    page.keyboard.press("Escape")
    seen = last_card_choice(page)
    assert not any(c["chosen"] for c in seen["cards"]) and seen["status"] == "No card chosen"
    # chosen again by key, and the server refuses the move (as it may: the table moved on)
    page.keyboard.press(str(free[0] + 1))
    assert last_card_choice(page)["status"].startswith("Chosen: ")
    ends["page"].send(json.dumps({"type": "error", "error": "the move came too late"}))
    page.locator("#live-error", has_text="Refused: the move came too late").wait_for()
    seen = last_card_choice(page)
    assert not any(c["chosen"] for c in seen["cards"]), seen
    assert seen["status"] == ""  # no longer "Chosen: ..."
    assert page.get_by_role("button", name=re.compile("^Play")).is_disabled()
    # the next card clicked is a choice of its own, not added to the refused one
    cards.nth(free[0]).click()
    assert [c["chosen"] for c in last_card_choice(page)["cards"]].count(True) == 1
    assert tab.console.take() == []


def test_it_says_the_table_is_slow_while_a_move_waits_for_a_busy_server(open_tabs, screenshots):
    """The server's answers to a move are held back (a busy server, as the page meets one):
    after a moment the page says so where the clock was, and says no more once they come."""
    for viewport in ("desktop", "phone"):
        tab = open_tabs(viewport)
        page = tab.page
        held: list = []
        route: dict = {"hold": False}

        def from_server(message, ws, held=held, route=route) -> None:
            if route["hold"]:
                held.append(message)
            else:
                ws.send(message)

        route.update(bot_table_through(page, from_server=from_server, clock=True))
        route["hold"] = True
        before = updates(page)
        page.locator("#live-hand .hand-card").first.click()
        page.locator("#live-controls button", has_text=re.compile("^Keep")).click()
        slow = page.locator("#countdown.countdown--slow")
        assert slow.count() == 0  # not at once
        page.clock.run_for(table_ms("SLOW_MS") + TICK_MS)  # the page's moment, not ours
        slow.wait_for(timeout=TURN_TIMEOUT_MS)
        assert slow.inner_text() == (
            "No answer from the table yet: your connection or the server may be slow. A move "
            "that reached the server in time counts…"
        )
        assert in_view(page, "#countdown")
        page.screenshot(path=screenshots / f"table-slow-{viewport}.png", full_page=True)
        route["hold"] = False
        for kept in held:
            route["page"].send(kept)
        wait_until_answered(page, before)
        page.locator("#countdown.countdown--slow").wait_for(state="detached")
        assert page.locator("#live-error").inner_text() == ""
        assert tab.console.take() == []


def test_a_page_whose_network_drops_says_the_connection_is_lost_and_connects_again(
    open_tabs, screenshots
):
    """The network goes away without the socket closing (a phone in a tunnel, a laptop
    asleep: the browser offline): the page's check of its connection (a ping, sent too when a
    move has no answer, answered at once while the connection lives) goes unanswered, so
    within seconds the page says the connection is lost, where the clock is too, and not that
    the server is busy; once the network is back it connects again at once and the turn goes
    on."""
    tab = open_tabs("phone")
    page = tab.page
    page.clock.install()  # the page's timers, run on by the test
    page.goto("/games/rps-poker/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    wait_for_my_turn(page)
    page.context.set_offline(True)
    page.locator("#live-hand .hand-card").first.click()
    page.locator("#live-controls button", has_text=re.compile("^Keep")).click()
    lost = page.locator("#connection.connection--lost", has_text="Connection lost")
    page.clock.run_for(table_ms("SLOW_MS") + TICK_MS)  # no answer to the move: a ping
    assert lost.count() == 0  # not yet: the pong has time to come
    page.clock.run_for(table_ms("PONG_WAIT_MS") + TICK_MS)  # and none came
    lost.wait_for(timeout=TURN_TIMEOUT_MS)
    assert page.locator("#countdown").inner_text() == "Connection lost: reconnecting…"
    assert in_view(page, "#countdown")  # (the bar stays in view on a phone)
    assert page.locator("#turn-line").inner_text() == (
        "Your move may not have reached the table: if not, you will be asked for it again."
    )
    page.screenshot(path=screenshots / "table-connection-lost-phone.png")
    page.context.set_offline(False)
    page.locator("#connection.connection--lost").wait_for(state="detached", timeout=TURN_TIMEOUT_MS)
    assert page.locator("#connection").inner_text() == ""
    # the whole table again: the move it kept, or the same turn asked again
    page.wait_for_function(
        """() => !/Connection lost/.test(document.getElementById("countdown").textContent)""",
        timeout=TURN_TIMEOUT_MS,
    )
    # (the browser's own lines of its failed connection attempts while offline)
    errors = [e for e in tab.console.take() if "ERR_INTERNET_DISCONNECTED" not in e]
    assert errors == []


def in_view(page, selector: str) -> bool:
    """Whether the element is wholly inside the window (not scrolled away)."""
    return page.eval_on_selector(
        selector,
        """e => { const r = e.getBoundingClientRect();
                  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""",
    )


def keeps_the_turn_the_clock_and_the_action_in_view(page) -> None:
    """On a phone, wherever the table is scrolled to, the turn line, the clock and the
    button that plays are in view together."""
    page.locator("#countdown:not([hidden])").wait_for()
    for target in ("#live-seats", "#live-hand .hand-card >> nth=-1", "#live-log"):
        page.locator(target).scroll_into_view_if_needed()
        for part in ("#turn-line", "#countdown", "#live-controls button:first-child"):
            assert in_view(page, part), f"{part} is out of view with {target} in view"
    page.evaluate("window.scrollTo(0, 0)")


def names_no_key_on_a_touch_screen(page) -> None:
    """A touch screen has no keys to press: no keys line, and no key on a button, a toggle
    or a card (a desktop's page shows them all). (A full-page screenshot drops the phone's
    emulation for a moment, and shows the keys: the page's look is asked here.)"""
    assert page.locator("#keys-help").is_hidden()
    hints = page.locator("#live-controls kbd, #live-hand .hand-card__key")
    assert hints.count() > 2
    assert not any(hint.is_visible() for hint in hints.all())


def legal_first(hand: list[str], top: str, suit: str | None, punishment: int) -> int | None:
    """The index of a card that may be played alone (a simple player's choice)."""
    follow = suit or top[1]
    for index, card in enumerate(hand):
        if punishment:
            if card[0] == top[0]:
                return index
        elif (card[0] in ("A", top[0]) or card[1] == follow) and (
            card[0] != "A" or len(hand) > 1  # you cannot end on an ace
        ):
            return index
    return None


def test_it_lets_a_guest_on_a_phone_play_last_card_against_three_bots_to_the_end(
    open_tabs, screenshots
):
    tab = open_tabs("phone")
    page = tab.page
    page.goto("/games/last-card/tables/")
    # the create form shows as many seats as players chosen
    form = page.get_by_role("region", name="Create a table")
    form.get_by_label("Players").select_option("2")
    assert form.get_by_label("Seat 3", exact=True).is_hidden()
    form.get_by_label("Players").select_option("3")
    assert (
        form.get_by_label("Seat 3", exact=True).is_visible()
        and form.get_by_label("Seat 4", exact=True).is_hidden()
    )
    page.screenshot(path=screenshots / "lobby-last-card-phone.png", full_page=True)
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    seats = page.locator("#live-seats .live-seat")
    seats.nth(3).wait_for()
    assert seats.count() == 4
    played = drew = 0
    timed_out = 0  # the "Time ran out" lines of the log seen so far
    redrawn = 0  # choices made again because the table's view was drawn anew under the tap
    shot = False
    stray_checked = False
    suit_by_keys = False  # an ace was played with its suit chosen by the keyboard
    for _ in range(400):
        page.wait_for_function(
            """() => !document.getElementById("table-end").hidden
                || document.getElementById("turn-line").classList.contains("turn-line--mine")""",
            timeout=60_000,
        )
        if page.locator("#table-end").is_visible():
            break
        view = page.evaluate(
            """() => ({
                hand: [...document.querySelectorAll("#live-hand [data-code]")]
                    .map(e => e.dataset.code),
                top: document.querySelector("#live-shared [data-code]").dataset.code,
                suit: (document.querySelector("#live-shared .zone__count") || {}).textContent,
                line: document.getElementById("turn-line").textContent,
            })"""
        )
        suit = None
        found = re.search(r"suit to follow: (\w+)", view["suit"] or "")
        if found:
            suit = {"spades": "s", "hearts": "h", "diamonds": "d", "clubs": "c"}[found.group(1)]
        owed = re.search(r"or draw (\d+) cards", view["line"])
        index = legal_first(view["hand"], view["top"], suit, int(owed.group(1)) if owed else 0)
        before = updates(page)
        if index is None or index > 8:
            page.get_by_role("button", name=re.compile("^Draw")).click()
            drew += 1
        else:
            if not shot:
                keeps_the_turn_the_clock_and_the_action_in_view(page)
                names_no_key_on_a_touch_screen(page)
            # the card by what it is, not by its place: the hand may be drawn anew meanwhile
            code = view["hand"][index]
            card = page.locator("#live-hand .hand-card").filter(
                has=page.locator(f'[data-code="{code}"]')
            )
            card.first.tap()
            took = card.first.get_attribute("aria-pressed") == "true"
            if not stray_checked and took and code[0] != "A" and updates(page) == before:
                # a double click the browser makes of this tap and one before it elsewhere
                # (a card drawn since where the last tap landed) neither unchooses nor plays it
                card.first.dispatch_event("dblclick")
                assert card.first.get_attribute("aria-pressed") == "true"
                assert updates(page) == before
                stray_checked = True
            if view["hand"][index][0] == "A":
                # the ace's suit chooser, if the tap took (a view drawn anew under it, or the
                # turn's timer run out on a loaded machine, is dealt with below)
                suits = page.get_by_role("group", name="Suit to follow your ace")
                if visible_soon(suits) and took and not suit_by_keys:
                    # the first ace by the keyboard: Enter on it asks for the suit (on the
                    # first suit), an arrow picks one (the question goes), Enter plays
                    card.first.focus()
                    page.keyboard.press("Enter")
                    error = page.locator("#live-error")
                    if error.inner_text() == "You end on an ace: choose the suit that must follow.":
                        assert page.evaluate("document.activeElement.name") == "suit"
                        page.keyboard.press("ArrowDown")
                        assert suits.get_by_label("hearts").is_checked()
                        assert error.inner_text() == ""
                        page.keyboard.press("Enter")
                        suit_by_keys = True
                        played += 1
                        wait_until_answered(page, before)
                        assert error.inner_text() == "", error.inner_text()
                        continue
                if visible_soon(suits) and not suits.get_by_label("hearts").is_checked():
                    suits.get_by_label("hearts").check()
            if not shot:
                page.screenshot(path=screenshots / "table-last-card-phone.png", full_page=True)
                shot = True
            play = page.get_by_role("button", name=re.compile(r"^Play"))
            if not enabled_soon(play):
                # on a machine loaded enough for the turn's timer to run out, the table played
                # for us: that is said in the log, and the game goes on; a new view of the
                # table drawn under the tap (the choice made again from it) is looked at anew;
                # anything else fails
                log = page.locator("#live-log li").all_inner_texts()
                if ran_out(log) > timed_out:
                    timed_out = ran_out(log)
                    continue
                assert updates(page) != before, (
                    f"the Play button stayed disabled: {view}, "
                    f"turn line {page.locator('#turn-line').inner_text()!r}, log end {log[-5:]}, "
                    f"pressed {card.first.get_attribute('aria-pressed')!r}, views {before}"
                )
                redrawn += 1
                continue
            play.tap()
            played += 1
        wait_until_answered(page, before)
        error = page.locator("#live-error").inner_text()
        assert error == "", f"a legal move was refused: {error} ({view})"
    end = page.get_by_role("region", name="Match over")
    end.wait_for(timeout=60_000)
    assert played + drew > 0
    assert stray_checked or played == 0
    assert redrawn <= 3, f"{redrawn} choices were lost to a view drawn anew under the tap"
    assert "Points taken (lower is better)" in end.locator("#end-summary").inner_text()
    assert (
        end.get_by_role("link", name="Watch the replay")
        .get_attribute("href")
        .startswith("/matches/")
    )
    log = page.locator("#live-log li").all_inner_texts()
    assert any("(you) plays" in line for line in log) or played == 0
    assert any(line.endswith("wins the game!") for line in log) or "Nobody" in end.inner_text()
    page.screenshot(path=screenshots / "table-last-card-over-phone.png", full_page=True)
    # nothing scrolls sideways on the phone
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert tab.console.take() == []


def ran_out(log: list[str]) -> int:
    """How many times the table played for the person because their time ran out."""
    return sum(1 for line in log if line.startswith("Time ran out"))


def visible_soon(locator, timeout_ms: int = 15_000) -> bool:
    """Whether ``locator`` is shown within the time (False: it never was)."""
    try:
        locator.wait_for(state="visible", timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True


def enabled_soon(button, timeout_ms: int = 15_000) -> bool:
    """Whether ``button`` is enabled within the time (False: it stayed disabled)."""
    try:
        button.element_handle(timeout=timeout_ms).wait_for_element_state(
            "enabled", timeout=timeout_ms
        )
    except PlaywrightTimeout:
        return False
    return True


def test_a_move_left_without_an_answer_asks_for_the_table_again(open_tabs, screenshots):
    """A move lost on its way (sent to a server that stopped): a few seconds without an
    answer and the page asks for the whole table again (``sync``); without an answer to that
    either, it says the table is not answering (not that the server is busy). A move refused
    as sent to a server that stopped asks again at once; and when the table moves to another
    server, the log says so, and that a move it did not keep is asked again."""
    tab = open_tabs("desktop")
    page = tab.page
    page.add_init_script(COUNT_HEARD)
    sent: list[dict] = []
    route: dict = {"drop": set()}

    def to_server(message, server) -> None:
        data = json.loads(message)
        sent.append(data)
        if data.get("type") not in route["drop"]:
            server.send(message)

    route.update(bot_table_through(page, to_server=to_server, clock=True))

    def until_sent(last: list[str]) -> None:
        """Until the last messages the page sent are ``last`` (this test hears of them as
        Playwright passes them on)."""
        deadline = time.monotonic() + TURN_TIMEOUT_MS / 1000
        while (seen := [m["type"] for m in sent][-len(last) :]) != last:
            assert time.monotonic() < deadline, f"the page last sent {seen}, not {last}"
            page.wait_for_timeout(50)

    def keep_a_card() -> None:
        page.locator("#live-hand .hand-card").first.click()
        page.locator("#live-controls button", has_text=re.compile("^Keep")).click()
        assert page.locator("#turn-line").inner_text() == "Your move is on its way…"

    # the move and the page's sync are lost on the way: the page says what may be so
    route["drop"] = {"act", "sync"}
    keep_a_card()
    silent = page.locator("#countdown", has_text="The table is not answering")
    # on the page's clock: no answer for a moment, so a ping, which the table answers
    before = heard(page)
    page.clock.run_for(table_ms("SLOW_MS") + TICK_MS)
    until_sent(["act", "ping"])
    wait_until_heard(page, before)  # (the pong)
    # still no answer: the page asks for the table again, then says it is not answering
    page.clock.run_for(table_ms("SYNC_MS") - table_ms("SLOW_MS"))
    until_sent(["act", "ping", "sync"])
    assert silent.count() == 0
    page.clock.run_for(table_ms("NO_ANSWER_MS") + TICK_MS)
    silent.wait_for(timeout=TURN_TIMEOUT_MS)
    assert silent.inner_text() == (
        "The table is not answering. Check your connection; if the site's server stopped, "
        "another takes the table over within half a minute and asks again for a move it did "
        "not keep…"
    )
    asked = [m["type"] for m in sent if m["type"] != "ping"]  # (the connection's check)
    assert asked[-2:] == ["act", "sync"]  # asked again after 5 s
    assert page.locator("#connection").inner_text() == ""  # (the pings are answered)
    page.screenshot(path=screenshots / "table-not-answering-desktop.png", full_page=True)
    route["drop"] = set()
    route["server"].send(json.dumps({"type": "sync"}))
    wait_for_my_turn(page)  # the same turn, asked again

    # a refusal from a server that no longer hosts the table: the page asks again at once
    before = updates(page)
    route["page"].send(json.dumps({"type": "error", "error": "the match is over, or its "
                                   "server stopped"}))  # fmt: skip
    page.wait_for_function(  # the whole table again (the refusal is on the page at once)
        """before => Number(document.getElementById("live").dataset.updates) > before""",
        arg=before,
        timeout=TURN_TIMEOUT_MS,
    )
    assert [m for m in sent if m["type"] != "ping"][-1] == {"type": "sync"}

    # the table moves while a move is on its way: the log says so (the turn is asked again)
    route["drop"] = {"act"}
    keep_a_card()
    moved = "The server running this table stopped; the table is moving to another server."
    route["page"].send(json.dumps({"type": "moved", "text": moved}))
    line = page.locator("#live-log li", has_text="moving to another server")
    assert (
        line.inner_text() == moved + " If your move was not kept, you will be asked for it again."
    )
    assert page.locator("#turn-line").inner_text() != "Your move is on its way…"
    route["drop"] = set()
    route["server"].send(json.dumps({"type": "sync"}))
    wait_for_my_turn(page)
    assert tab.console.take() == []


def test_a_turn_whose_time_ran_out_unanswered_says_the_table_is_not_answering(
    open_tabs, screenshots
):
    """The server hosting the table stops while it is the person's turn, and the person waits:
    once the turn's time ran out, nothing comes (no default played, no next turn) while the
    socket, held by another server, still answers its pings. The page first says the default
    is played, then, when nothing came, that the table is not answering (not that the timer
    played a move it did not)."""
    for viewport in ("phone", "desktop"):
        tab = open_tabs(viewport)
        page = tab.page
        route: dict = {"silent": False, "turn": None}

        def from_server(message, ws, route=route) -> None:
            kind = json.loads(message).get("type")
            if kind == "turn":
                route["turn"] = json.loads(message)
            if not route["silent"] or kind == "pong":
                ws.send(message)

        route.update(bot_table_through(page, from_server=from_server, clock=True))
        # the table's server stops with a second of the turn left: the table says no more
        route["silent"] = True
        route["page"].send(json.dumps(route["turn"] | {"seconds": 1}))
        countdown = page.locator("#countdown")
        countdown.filter(has_text=re.compile(r"^1 s left$")).wait_for(timeout=TURN_TIMEOUT_MS)
        page.clock.run_for(1_000 + TICK_MS)  # on the page's clock: the second is up
        countdown.filter(has_text="Time is up").wait_for(timeout=TURN_TIMEOUT_MS)
        assert countdown.inner_text() == (
            f"Time is up, so this is played for you: {route['turn']['default']}"
        )
        assert route["turn"]["default"].startswith("keep ")  # (the draft's first card)
        page.clock.run_for(table_ms("NO_ANSWER_MS") + TICK_MS)  # and nothing came since
        countdown.filter(has_text="not answering").wait_for(timeout=TURN_TIMEOUT_MS)
        assert countdown.inner_text() == (
            "The table is not answering. Check your connection; if the site's server stopped, "
            "another takes the table over within half a minute and asks again for a move it did "
            "not keep…"
        )
        assert in_view(page, "#countdown")
        page.screenshot(path=screenshots / f"table-overdue-{viewport}.png")
        # the table taken over: the turn again, with its whole time
        route["silent"] = False
        route["page"].send(json.dumps(route["turn"] | {"seconds": 30}))
        seconds_left(page)
        assert tab.console.take() == []


def choose_rps_card(page, decision: int) -> int:
    """One decision of RPS Poker: on a phone by tapping, else with the keyboard or a double
    click; returns the page's count of views before it (the answer comes once both players
    chose)."""
    wait_for_my_turn(page)
    before = updates(page)
    hand = page.locator("#live-hand .hand-card")
    if page.viewport_size["width"] < 500:
        hand.last.tap()
        page.locator("#live-controls button", has_text=re.compile("^(Keep|Play)")).tap()
    elif decision % 2:
        page.keyboard.press("1")
        page.keyboard.press("Enter")
    else:
        hand.last.dblclick()
    # the choice is on its way: the cards wait for the other player (or the step is over)
    page.wait_for_function(
        """before => document.querySelector("#live-hand .hand-card[disabled]")
            || Number(document.getElementById("live").dataset.updates) > before""",
        arg=before,
    )
    return before


def guest_name(page) -> str:
    """The name a seated guest plays under, as the seat box of their page says it."""
    mine = page.locator("#live-seats .live-seat--mine .seat__label").inner_text()
    return mine.removesuffix(" (you)")


def test_it_lets_two_people_meet_through_an_invite_link_and_play_rps_poker(open_tabs, screenshots):
    host_tab, guest_tab = open_tabs("desktop"), open_tabs("phone")
    host, guest = host_tab.page, guest_tab.page

    form = form_for_two(host, "rps-poker", "60 seconds")
    host.screenshot(path=screenshots / "lobby-rps-poker-desktop.png", full_page=True)
    form.get_by_role("button", name="Create the table").click()
    host.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    waiting = host.get_by_role("region", name="Waiting for players")
    assert waiting.is_visible()
    invite = waiting.get_by_label("Invite link").input_value()
    assert invite == host.url
    host.screenshot(path=screenshots / "table-waiting-desktop.png", full_page=True)

    # the guest finds the table in the lobby too, then follows the invite link and sits down
    guest.goto("/games/rps-poker/tables/")
    token = invite.rstrip("/").rsplit("/", 1)[1]
    assert guest.get_by_role("button", name=f"Join table {token} in seat 2").is_visible()
    guest.screenshot(path=screenshots / "lobby-rps-poker-phone.png", full_page=True)
    guest.goto(invite)
    guest.get_by_role("button", name="Join in seat 2").click()
    guest.wait_for_url(invite)
    assert "You sit in seat 2." in guest.locator(".messages").inner_text()

    # the host's page did not reload: the socket heard of the seat and the match began
    host.locator("#live .live-seat").nth(1).wait_for(timeout=TURN_TIMEOUT_MS)
    assert waiting.is_hidden()
    assert "60 seconds" in host.locator(".table-meta").inner_text()
    for decision in range(RPS_DECISIONS):
        before = {page: choose_rps_card(page, decision + n) for n, page in enumerate((host, guest))}
        for page, count in before.items():
            wait_until_answered(page, count)
            assert page.locator("#live-error").inner_text() == ""
        if decision == 6:
            guest.screenshot(path=screenshots / "table-rps-poker-phone.png", full_page=True)
    for page in (host, guest):
        end = page.get_by_role("region", name="Match over")
        end.wait_for(timeout=TURN_TIMEOUT_MS)
        assert sum(int(c) for c in end.locator("td.num").all_inner_texts()) == 10
    # the host's page was drawn before the guest sat down: the scores name the guest anyway
    names = host.locator("#end-scores tbody tr td:nth-child(2)").all_inner_texts()
    # ... and so does the seat box above them
    assert names[1] in host.locator("#live-seats .live-seat").nth(1).inner_text()
    assert names[0].endswith(" (you)")
    assert names[1].strip() and names[1] == guest_name(guest), names

    # play again: the host keeps the seat, the guest's seat is open for the guest to take
    host.get_by_role("button", name="Play again").click()
    host.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    assert host.url != invite
    seats = host.locator("#lobby-seats li")
    assert "(you)" in seats.nth(0).inner_text()
    assert "open" in seats.nth(1).inner_text()
    assert host_tab.console.take() == []
    assert guest_tab.console.take() == []


def test_a_table_everyone_left_says_it_closed_to_whoever_watched_it_wait(open_tabs, screenshots):
    """Its page said "Match over" above "The table stopped: everyone left this table before
    its match started", with a thick ring in the site's error red around it (the end takes
    the focus as it appears): it says the table closed, ringed in the blue of the site's
    other focus rings, live and loaded again."""
    host = open_tabs("desktop").page
    form = form_for_two(host, "rps-poker", "60 seconds")
    form.get_by_role("button", name="Create the table").click()
    host.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    watchers = {viewport: open_tabs(viewport).page for viewport in ("phone", "desktop")}
    for page in watchers.values():
        page.goto(host.url)
        page.get_by_role("region", name="Waiting for players").wait_for()
    host.get_by_role("button", name="Leave this table").click()
    for viewport, page in watchers.items():
        end = page.get_by_role("region", name="Table closed")
        end.wait_for(timeout=TURN_TIMEOUT_MS)
        assert end.locator("#end-summary").inner_text() == (
            "The table stopped: everyone left this table before its match started"
        )
        assert page.evaluate("() => document.activeElement.id") == "table-end"
        ring = page.evaluate(
            """() => { const style = getComputedStyle(document.getElementById("table-end"));
                       return [style.outlineStyle, style.outlineColor]; }"""
        )
        assert ring == ["solid", FOCUS_BLUE], viewport  # (not the accent, rgb(194, 65, 45))
        page.screenshot(path=screenshots / f"table-closed-{viewport}.png")
        page.reload()
        assert page.get_by_role("region", name="Table closed").is_visible()


def test_it_lets_a_guest_play_a_sitting_of_ultimate_texas_holdem_with_the_keyboard(
    tab, screenshots
):
    page = tab.page
    page.goto("/games/uth/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    acted = 0
    while acted < 100:
        page.wait_for_function(
            """() => !document.getElementById("table-end").hidden
                || document.getElementById("turn-line").classList.contains("turn-line--mine")""",
            timeout=TURN_TIMEOUT_MS,
        )
        if page.locator("#table-end").is_visible():
            break
        buttons = page.locator("#live-controls button").all_inner_texts()
        assert page.locator("#live-hand [data-code]").count() == 2  # the hole cards
        before = updates(page)
        if any(b.startswith("Continue") for b in buttons):
            page.keyboard.press("Enter")
        elif any(b.startswith("Check") for b in buttons):
            page.keyboard.press("c")
        else:
            page.keyboard.press("1")  # at the river: bet 1x rather than fold
        if acted == 1:
            page.screenshot(path=screenshots / "table-uth-desktop.png", full_page=True)
        wait_until_answered(page, before)
        assert page.locator("#live-error").inner_text() == ""
        acted += 1
    end = page.get_by_role("region", name="Match over")
    end.wait_for()
    assert re.search(r"chips", end.locator("#end-summary").inner_text())
    rounds = [line for line in page.locator("#live-log li").all_inner_texts()]
    # each round's line, with the cards the person held in it
    assert len([r for r in rounds if re.match(r"Round \d+ \(you held the .+\): ", r)]) == 10
    assert any(re.match(r"Round \d+, you: check\.$", r) for r in rounds)  # a move at once
    assert acted >= 20  # check, check, then bet or continue: two or three actions a round
    page.screenshot(path=screenshots / "table-uth-over-desktop.png", full_page=True)
    assert tab.console.take() == []
