"""What a screen reader hears and what a phone with large text shows, in Chromium: stepping a
replay says what the step shows ("Step 2 of 9: Hand 1, simple-0 bets 1"), and pages stay as
wide as a 390 px phone whose text is one and a half or two times the default (a grid's column
minimum in rem no longer sticks out of the page)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

STORE_MATCH = """
import json
from bots.models import Match, MatchSeat
from bots.running.playing import Entry, play
from games.registry import get_game
entries = [Entry(name=f"{bot}-{n}", builtin=bot) for n, bot in enumerate(["simple", "random"])]
played = play(get_game("kuhn"), entries, seed=4, config={"hands": 4})
record = json.loads(json.dumps(played.outcome.record))
match = Match.objects.create(game="kuhn", seed=4, record=record)
for seat, entry in enumerate(entries):
    MatchSeat.objects.create(match=match, seat=seat, name=entry.name,
                             score=record["result"]["scores"][seat])
print("stored", match.pk)
"""


@pytest.fixture(scope="module")
def kuhn_match(live_site) -> int:
    said = live_site.manage("shell", "-c", STORE_MATCH)
    found = re.search(r"stored (\d+)", said)
    assert found, said
    return int(found.group(1))


def said(page) -> str:
    return page.locator("#replay-said").text_content()


def test_stepping_a_replay_says_what_the_step_shows(tab, kuhn_match):
    page = tab.page
    answer = page.request.get(f"/matches/{kuhn_match}/replay.json?from=0&count=100").json()
    total, seats, frames = answer["total"], answer["seats"], answer["frames"]
    page.goto(f"/matches/{kuhn_match}/")
    page.get_by_role("button", name="Play").wait_for()
    # a polite line of its own, empty until the viewer steps; the counter is no live region
    assert page.locator("#replay-said").get_attribute("aria-live") == "polite"
    assert page.locator("#replay-counter").get_attribute("aria-live") is None
    assert said(page) == ""

    page.locator("#replay-table").focus()
    page.keyboard.press("ArrowRight")
    second = frames[1]  # the first bet: a poker decision says no name, the line adds it
    assert second["decision"] and not second["decision"].startswith(seats[second["actor"]])
    expected = (
        f"Step 2 of {total}: {second['label']}, {seats[second['actor']]} {second['decision']}"
    )
    page.wait_for_function("text => document.getElementById('replay-said').textContent === text",
                           arg=expected)  # fmt: skip
    assert expected.startswith(f"Step 2 of {total}: Hand 1, simple-0 ")

    page.keyboard.press("Home")
    page.wait_for_function(
        "text => document.getElementById('replay-said').textContent === text",
        arg=f"Step 1 of {total}: {frames[0]['label']}",
    )
    page.get_by_role("navigation", name="Replay controls").get_by_role("link", name="Last").click()
    last = frames[total - 1]
    page.wait_for_function(
        "text => document.getElementById('replay-said').textContent.startsWith(text)",
        arg=f"Step {total} of {total}: {last['label']}, ",
    )
    assert tab.console.take() == []


@pytest.mark.parametrize("size", ["150%", "200%"])
def test_pages_fit_a_phone_with_large_text(open_tabs, kuhn_match, size):
    page = open_tabs("phone").page
    for path in ("/", "/games/kuhn/leaderboard/", f"/matches/{kuhn_match}/", "/leaderboards/"):
        page.goto(path)
        page.evaluate("size => { document.documentElement.style.fontSize = size; }", size)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width == 390, (path, size, width)
