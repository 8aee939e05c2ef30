"""The replay viewer of a long match in Chromium: a 1000-round Ultimate Texas Hold'em session
of the built-in ``basic`` bot (some 3,600 steps), stored in the live site's database. The page
holds one window of steps; the viewer loads the others from replay.json as it reaches them,
jumps to a round from the "jump to" list (by mouse or keyboard) and steps across the edge of
a window, always showing the frame the server says is there."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

#: a session of the built-in ``basic`` bot that lasts the full 1000 rounds
STORE_LONG_MATCH = """
import json
from bots.models import Match, MatchSeat
from bots.running.playing import Entry, play
from games.registry import get_game
played = play(get_game("uth"), [Entry(name="basic", builtin="basic")], seed=5)
record = json.loads(json.dumps(played.outcome.record))
match = Match.objects.create(game="uth", seed=5, record=record)
MatchSeat.objects.create(
    match=match, seat=0, name="a long session", score=record["result"]["scores"][0]
)
print("stored", match.pk, record["result"]["rounds_played"])
"""


@pytest.fixture(scope="module")
def long_match(live_site) -> int:
    said = live_site.manage("shell", "-c", STORE_LONG_MATCH)
    found = re.search(r"stored (\d+) (\d+)", said)
    assert found, said
    assert int(found.group(2)) == 1000
    return int(found.group(1))


def shown_step(page) -> int:
    return int(page.locator("#replay-number").inner_text())


def wait_for_step(page, step: int) -> None:
    """Waits until the counter shows ``step`` (counted from 1) and no window is loading."""
    page.wait_for_function(
        "n => document.getElementById('replay-number').textContent === String(n)"
        " && !document.getElementById('replay-table').hasAttribute('aria-busy')",
        arg=step,
    )


def frame_of(page, match: int, step: int) -> dict:
    """The frame of a step (from 0) as replay.json gives it, with the card labels."""
    answer = page.request.get(f"/matches/{match}/replay.json?from={step}&count=1").json()
    (frame,) = answer["frames"]
    frame["card_labels"] = {code: view["label"] for code, view in answer["cards"].items()}
    return frame


def assert_shows(page, frame: dict) -> None:
    """The table shows this frame: its label, decision, notes and face-up cards."""
    assert page.locator("#replay-label").inner_text() == frame["label"]
    assert page.locator("#replay-decision").inner_text() == frame["decision"]
    seat = page.locator("#replay-seats .seat").first
    assert seat.locator(".seat__notes").inner_text() == " · ".join(frame["seats"][0]["notes"])
    codes = [c for part in frame["seats"][0]["zones"] for c in part["cards"]]
    codes += [c for part in frame["shared"] for c in part["cards"]]
    shown = page.locator("#replay-frame .card[data-code]").evaluate_all(
        "cards => cards.map(c => c.dataset.code)"
    )
    assert sorted(shown) == sorted(codes)
    current = page.locator("#replay-log [aria-current=step]")
    assert current.get_attribute("id") == f"step-{frame['step'] + 1}"


def test_it_jumps_to_a_late_round_and_steps_across_a_window_edge(tab, long_match, screenshots):
    page = tab.page
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "replay.json" in r.url else None)
    page.goto(f"/matches/{long_match}/")
    replay = page.get_by_role("region", name="Replay")
    replay.get_by_role("button", name="Play").wait_for()
    section = page.locator("#replay")
    total = int(section.get_attribute("data-total"))
    window = int(section.get_attribute("data-window"))
    assert total > 3000
    assert re.search(rf"Step\s+1\s+of\s+{total}", page.locator("#replay-counter").inner_text())
    # the page came with its first window: its log lists it, nothing more is asked for yet
    assert page.locator("#replay-log > li").count() == window
    assert asked == []
    assert_shows(page, frame_of(page, long_match, 0))

    # every round is a chapter of the "jump to" list
    jump = replay.get_by_label("Jump to")
    labels = jump.locator("option").all_inner_texts()
    assert labels == [f"Round {n}" for n in range(1, 1001)]
    chapters = page.request.get(f"/matches/{long_match}/replay.json?from=0&count=1").json()[
        "chapters"
    ]
    # a late round that starts a few steps into a window
    late = next(
        c for c in reversed(chapters) if 1 <= c["step"] % window <= 4 and c["step"] > total // 2
    )
    step = late["step"]
    edge = step // window * window  # the first step of its window
    asked.clear()
    jump.select_option(label=late["label"])
    wait_for_step(page, step + 1)
    frame = frame_of(page, long_match, step)
    assert frame["label"].startswith(late["label"] + ":")
    assert_shows(page, frame)
    assert any(f"from={edge}&count={window}" in url for url in asked), asked
    # the log lists the round's window
    log = page.locator("#replay-log > li")
    assert log.first.get_attribute("id") == f"step-{edge + 1}"
    assert page.locator("#replay-log-first").inner_text() == str(edge + 1)
    assert page.url.endswith(f"?step={step + 1}#replay")

    # back across the window's edge with the keyboard: the window before is loaded and shown
    page.locator("#replay-table").focus()
    for _ in range(step - edge + 1):
        page.keyboard.press("ArrowLeft")
    wait_for_step(page, edge)  # step edge - 1, counted from 1
    assert_shows(page, frame_of(page, long_match, edge - 1))
    assert log.first.get_attribute("id") == f"step-{edge - window + 1}"
    assert log.count() == window
    assert jump.input_value() != str(step + 1)  # the list follows: an earlier round
    assert any(f"from={edge - window}&count={window}" in url for url in asked), asked

    # and forward again with Next: the window it came from, without asking again
    asked.clear()
    controls = replay.get_by_role("navigation", name="Replay controls")
    controls.get_by_role("link", name="Next").click()
    wait_for_step(page, edge + 1)
    assert not any(f"from={edge}&" in url for url in asked), asked
    assert_shows(page, frame_of(page, long_match, edge))
    assert log.first.get_attribute("id") == f"step-{edge + 1}"

    # the jump list works from the keyboard: the next round, then the last
    starts = [c["step"] for c in chapters]
    shown = starts.index(int(jump.input_value()) - 1)  # the round of the step shown
    assert chapters[shown]["step"] <= edge < chapters[shown + 1]["step"]
    jump.focus()
    page.keyboard.press("ArrowDown")
    following = chapters[shown + 1]
    wait_for_step(page, following["step"] + 1)
    assert page.locator("#replay-label").inner_text().startswith(following["label"] + ":")
    page.keyboard.press("End")
    wait_for_step(page, chapters[-1]["step"] + 1)
    assert page.locator("#replay-label").inner_text().startswith("Round 1000:")
    page.screenshot(path=screenshots / "match-long-desktop.png", full_page=True)
    assert tab.console.take() == []


def test_a_step_of_a_late_window_opens_from_its_address(tab, long_match):
    page = tab.page
    total = 3000  # any late step: the session has more
    page.goto(f"/matches/{long_match}/?step={total}#replay")
    page.get_by_role("region", name="Replay").get_by_role("button", name="Play").wait_for()
    assert shown_step(page) == total
    assert_shows(page, frame_of(page, long_match, total - 1))
    # a log step's anchor (#step-N) names a step too, even one of another window
    page.goto(f"/matches/{long_match}/#step-{total - 150}")
    wait_for_step(page, total - 150)
    assert_shows(page, frame_of(page, long_match, total - 151))
    # the last step, and a step into the window before it
    page.keyboard.press("End")
    last = int(page.locator("#replay").get_attribute("data-total"))
    wait_for_step(page, last)
    assert_shows(page, frame_of(page, long_match, last - 1))
    assert tab.console.take() == []


def test_the_long_match_page_fits_a_phone(open_tabs, long_match, screenshots):
    phone = open_tabs("phone")
    page = phone.page
    response = page.goto(f"/matches/{long_match}/?step=2000", wait_until="networkidle")
    assert response is not None and response.status == 200
    page.get_by_role("region", name="Replay").get_by_label("Jump to").wait_for()
    page.screenshot(path=screenshots / "match-long-phone.png", full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px too wide for a phone"
    assert phone.console.take() == []
