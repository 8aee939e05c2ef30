"""A newcomer's first visit, in the browser against the live site and worker: sign up, upload
a bot, watch it validated in the sandbox, see its placement matches and its place on the
leaderboard, and step through one of its replays. And the upload the worker rejects."""

from __future__ import annotations

import re
import secrets
import textwrap
import time
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

#: the worker validates, then plays placement matches against the three built-in bots
VALIDATION_TIMEOUT_MS = 90_000
MATCHES_TIMEOUT_S = 120

GOOD_BOT = textwrap.dedent(
    """
    class Bot:
        # keeps the higher card in the draft, then plays its highest card
        def draft_pick(self, cards):
            return 0 if cards[0][1] >= cards[1][1] else 1

        def draft_receive(self, card):
            pass

        def main_play(self, hand, base):
            return max(range(len(hand)), key=lambda i: hand[i][1])

        def main_postprocess(self, card):
            pass
    """
)

CRASHING_BOT = textwrap.dedent(
    """
    class Bot:
        def draft_pick(self, cards):
            return 0

        def draft_receive(self, card):
            pass

        def main_play(self, hand, base):
            raise RuntimeError("this bot folds under pressure")

        def main_postprocess(self, card):
            pass
    """
)


PASSWORD = "Plain-tulip-7319"
#: the step counter ("Step 2 of 16"), not the screen readers' line that says the step
#: ("Step 2 of 16: Draft 1 of 5, ...")
STEP = re.compile(r"^\s*Step \d+ of \d+\s*$")


def new_username(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(3)}"


def sign_up(page, username: str, password: str = PASSWORD) -> None:
    page.goto("/accounts/signup/")
    form = page.locator("main form")
    form.get_by_label("Username").fill(username)
    form.get_by_label("Password", exact=True).fill(password)
    form.get_by_label("Password confirmation").fill(password)
    form.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/my/bots/")
    # logged in, and on "My bots": the navigation names the user and offers to log out
    nav = page.get_by_role("navigation", name="Main")
    assert nav.get_by_role("link", name=username).is_visible()
    assert nav.get_by_role("button", name="Log out").is_visible()
    assert page.get_by_role("heading", level=1, name="My bots").is_visible()


def upload_pasted_bot(page, name: str, code: str, language: str = "Python"):
    """Pastes code of ``language`` (its title) into the upload form of /my/bots/ and submits
    it; returns the bot's card on the page that follows."""
    page.goto("/my/bots/")
    form = page.get_by_role("region", name="Upload a bot or a new version")
    form.get_by_label("Game").select_option(label="RPS Poker")
    form.get_by_label("Bot name").fill(name)
    form.get_by_role("radio", name=re.compile(rf"^{re.escape(language)} ")).check()
    form.get_by_label("Or paste the code").fill(code)
    with page.expect_navigation():
        form.get_by_role("button", name="Upload", exact=True).click()
    refused = page.get_by_role("alert")
    assert refused.count() == 0, f"the upload was refused: {refused.all_inner_texts()}"
    card = page.get_by_role("article", name=name)
    card.wait_for()
    assert card.count() == 1
    return card


def newest_status(card):
    """The status badge of the newest version on a bot's card (updated in place by a script)."""
    return card.locator("[data-role=status]").first


def wait_for_change(page, locator, before: str) -> str:
    """Waits until the element's text differs from ``before``; returns the new text."""
    page.wait_for_function(
        "([el, before]) => el.textContent.trim() !== before",
        arg=[locator.element_handle(), before.strip()],
    )
    return locator.inner_text()


def step_of(counter_text: str) -> tuple[int, int]:
    found = re.search(r"Step\s+(\d+)\s+of\s+(\d+)", counter_text)
    assert found, f"no step counter in {counter_text!r}"
    return int(found.group(1)), int(found.group(2))


def test_it_takes_a_newcomer_from_sign_up_to_a_replay_of_their_bot(tab, open_tabs, screenshots):
    page = tab.page
    username = new_username("newcomer")
    bot_name = f"high-card-{secrets.token_hex(2)}"

    sign_up(page, username)
    card = upload_pasted_bot(page, bot_name, GOOD_BOT)
    status = newest_status(card)
    assert status.inner_text().strip() in {"validating", "active"}
    page.screenshot(path=screenshots / "my-bots-uploaded-desktop.png", full_page=True)

    # The page follows validation live: no reload, the status changes in place.
    page.evaluate("window.sameDocument = true")  # gone if the page reloads
    expect_text(status, "active", VALIDATION_TIMEOUT_MS)
    assert page.evaluate("window.sameDocument === true"), "the page reloaded"
    assert "competing" in card.locator("[data-role=detail]").first.inner_text()
    page.screenshot(path=screenshots / "my-bots-active-desktop.png", full_page=True)

    # Its public page lists the placement matches the worker plays against the built-ins.
    card.get_by_role("link", name=bot_name).click()
    page.wait_for_url(re.compile(r"/bots/\d+/$"))
    bot_path = urlsplit(page.url).path
    assert page.get_by_role("heading", level=1).filter(has_text=bot_name).is_visible()
    recent = page.get_by_role("region", name="Recent matches")
    match_links = recent.locator("a[href^='/matches/']")
    deadline = time.monotonic() + MATCHES_TIMEOUT_S  # by the clock, however slow each load
    while not match_links.count():
        assert time.monotonic() < deadline, (
            f"no match of the new bot appeared on its page within {MATCHES_TIMEOUT_S} s"
        )
        page.wait_for_timeout(1000)  # (between looks: the worker plays meanwhile)
        page.reload()
    opponents = recent.get_by_role("link").filter(has_text=re.compile("minimal|simple|strong"))
    assert opponents.count() > 0, "its matches are not against the built-in bots"
    page.screenshot(path=screenshots / "bot-desktop.png", full_page=True)

    # It is on the public leaderboard, linked to its page.
    page.goto("/games/rps-poker/leaderboard/")
    entry = page.get_by_role("table").first.get_by_role("link", name=bot_name, exact=True)
    assert entry.count() == 1, f"{bot_name} is not on the leaderboard"
    assert entry.get_attribute("href") == bot_path

    # One of its matches, stepped through with the buttons and the keyboard.
    page.goto(bot_path)
    match_links.first.click()
    page.wait_for_url(re.compile(r"/matches/\d+/"))
    match_path = urlsplit(page.url).path
    participants = page.get_by_role("region", name="Participants")
    assert participants.get_by_role("link", name=bot_name, exact=True).count() == 1
    replay = page.get_by_role("region", name="Replay")
    counter = replay.get_by_text(STEP)
    first = counter.inner_text()
    assert step_of(first)[0] == 1
    # the script has the frames once it shows its Play button
    replay.get_by_role("button", name="Play").wait_for()
    controls = replay.get_by_role("navigation", name="Replay controls")

    page.evaluate("window.sameDocument = true")  # gone if a click loads a new page
    controls.get_by_role("link", name="Next").click()
    after_next = wait_for_change(page, counter, first)
    assert step_of(after_next)[0] == 2
    assert page.evaluate("window.sameDocument === true"), "Next loaded a new page"

    page.keyboard.press("ArrowRight")
    after_key = wait_for_change(page, counter, after_next)
    assert step_of(after_key)[0] == 3

    controls.get_by_role("link", name="Previous").click()
    wait_for_change(page, counter, after_key)
    assert step_of(counter.inner_text())[0] == 2
    assert page.evaluate("window.sameDocument === true"), "the replay reloaded the page"
    current = replay.locator("[aria-current=step]")
    assert current.count() == 1
    assert current.get_attribute("id") == "step-2"
    page.screenshot(path=screenshots / "match-desktop.png", full_page=True)
    assert tab.console.take() == []

    # The match page is public and fits a phone: anyone can open it, nothing scrolls sideways.
    phone = open_tabs("phone")
    response = phone.page.goto(match_path, wait_until="networkidle")
    assert response is not None and response.status == 200
    assert phone.page.get_by_role("region", name="Replay").get_by_text(STEP).is_visible()
    phone.page.screenshot(path=screenshots / "match-phone.png", full_page=True)
    overflow = phone.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the match page is {overflow}px too wide for a phone"
    assert phone.console.take() == []


def expect_text(locator, text: str, timeout_ms: int) -> None:
    """Waits until the element's text is ``text`` (whole, ignoring case and blanks)."""
    locator.page.wait_for_function(
        "([el, want]) => el.textContent.trim().toLowerCase() === want",
        arg=[locator.element_handle(), text.lower()],
        timeout=timeout_ms,
    )


def test_it_rejects_a_bot_that_raises_and_shows_the_reason(tab, screenshots):
    page = tab.page
    sign_up(page, new_username("unlucky"))
    bot_name = f"folder-{secrets.token_hex(2)}"
    card = upload_pasted_bot(page, bot_name, CRASHING_BOT)

    expect_text(newest_status(card), "rejected", VALIDATION_TIMEOUT_MS)
    reason = card.locator(".reason").first
    reason.wait_for()
    assert "exception" in reason.inner_text()
    assert "folds under pressure" in reason.inner_text()
    # the banner said after the upload follows the verdict: no "waits for validation" left
    banner = page.locator(".messages li").filter(has_text=bot_name)
    expect_text(banner, f"Version 1 of {bot_name} was rejected: its row below says why.", 5000)
    page.screenshot(path=screenshots / "my-bots-rejected-desktop.png", full_page=True)

    # the same verdict after a reload, rendered by the server
    page.reload()
    card = page.get_by_role("article", name=bot_name)
    assert newest_status(card).inner_text().strip() == "rejected"
    assert "folds under pressure" in card.locator(".reason").first.inner_text()
    assert tab.console.take() == []


def test_a_compile_error_comes_live_as_a_reload_shows_it_as_wide_as_the_card(
    tab, open_tabs, screenshots
):
    # the row showed only "startup: C++ compile error (1 error)" until a reload drew the
    # compiler's messages, in a box of 474 px in a card of 950 that cut their lines; the
    # card kept "not rated yet" for a bot whose only version was rejected
    from games.registry import get_game

    page = tab.page
    sign_up(page, new_username("compiler"))
    bot_name = f"cpp-{secrets.token_hex(2)}"
    code = get_game("rps-poker").starters["cpp"].read_text()
    code += "\nint broken() { return undefined_thing; }\n"
    card = upload_pasted_bot(page, bot_name, code, "C++")
    page.evaluate("window.sameDocument = true")  # gone if the page reloads
    expect_text(newest_status(card), "rejected", VALIDATION_TIMEOUT_MS)
    compiler = card.get_by_role("region", name=f"The compiler's messages for {bot_name} v1")
    compiler.wait_for()
    assert page.evaluate("window.sameDocument === true"), "the page reloaded"
    assert "undefined_thing" in compiler.inner_text()
    # (put in place with the verdict, in the same step as the badge)
    meta = " ".join(card.locator("[data-role=meta]").inner_text().split())
    assert meta == "C++ not rated: no version of it competes"
    table = card.locator("table.versions")
    assert compiler.bounding_box()["width"] >= 0.9 * table.bounding_box()["width"]
    page.screenshot(path=screenshots / "my-bots-compile-error-desktop.png", full_page=True)

    # on a phone: the box scrolls inside the card, the page never sideways
    phone = open_tabs("phone")
    phone.page.context.add_cookies(page.context.cookies())
    phone.page.goto("/my/bots/")
    card = phone.page.get_by_role("article", name=bot_name)
    compiler = card.get_by_role("region", name=f"The compiler's messages for {bot_name} v1")
    inside = card.bounding_box()
    box = compiler.bounding_box()
    assert inside["x"] <= box["x"] and box["x"] + box["width"] <= inside["x"] + inside["width"]
    overflow = phone.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"My bots is {overflow}px too wide for a phone"
    phone.page.screenshot(path=screenshots / "my-bots-compile-error-phone.png", full_page=True)
    assert tab.console.take() == [] and phone.console.take() == []
