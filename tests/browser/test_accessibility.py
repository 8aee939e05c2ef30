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


STORE_LAST_CARD_TABLE = """
from django.contrib.auth.models import User
from django.utils import timezone
from bots.running.playing import Entry, play
from games.live import tables
from games.live.host import Finish
from games.models import Table
from games.registry import get_game
ann = User.objects.create_user("ann-of-the-end", password="pw-ann-of-the-end-long-enough")
seats = ["me", *["builtin:heuristic"] * 3]
table = tables.create_table("last-card", tables.Person(ann), seats)
Table.objects.filter(pk=table.pk).update(state=Table.PLAYING, started=timezone.now())
entries = [Entry(name=ann.username, builtin="naive")]
entries += [Entry(name=f"house/heuristic-{n}", builtin="heuristic") for n in range(3)]
played = play(get_game("last-card"), entries, seed=table.seed, config=table.config)
tables.store_finish(tables.facts_of(table), Finish(played))
print("stored", table.token)
"""

#: the words of the end's scores that a line break splits (each word a range of its own: a
#: word on two lines has two boxes), and the headings not on one line
SPLIT_WORDS = """() => {
  const split = [], wrapped = [];
  for (const cell of document.querySelectorAll("#end-scores th, #end-scores td")) {
    const text = cell.firstChild && cell.firstChild.nodeType === 3 ? cell.firstChild : null;
    if (!text) continue;
    for (const found of text.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(text, found.index);
      range.setEnd(text, found.index + found[0].length);
      if (range.getClientRects().length > 1) split.push(found[0]);
    }
    const whole = document.createRange();
    whole.selectNodeContents(cell);
    const lines = new Set([...whole.getClientRects()].map(r => Math.round(r.top)));
    if (cell.tagName === "TH" && lines.size > 1) wrapped.push(cell.textContent);
  }
  return {split, wrapped};
}"""


@pytest.fixture(scope="module")
def last_card_end(live_site) -> str:
    said = live_site.manage("shell", "-c", STORE_LAST_CARD_TABLE)
    found = re.search(r"stored (\S+)", said)  # (a token may hold "-" and "_")
    assert found, said
    return f"/tables/{found.group(1)}/"


def test_the_end_of_a_table_breaks_no_heading_or_score_inside_a_word(
    open_tabs, last_card_end, screenshots
):
    """The auditor's phone after a four-seat Last Card match: "Sea / t" and "Points / taken"
    in the final scores. Names wrap; headings and scores stay whole at the default text
    size, and wrap only at their spaces with large text, the page never wider than the
    phone."""
    pages = {viewport: open_tabs(viewport).page for viewport in ("desktop", "phone")}
    for viewport, page in pages.items():
        page.goto(last_card_end)
        page.locator("#end-scores").wait_for()  # (drawn with the page)
        # the names as the live end wrote them for the auditor (static/js/table.js nameOf)
        page.evaluate(
            """names => document.querySelectorAll("#end-scores td:nth-child(2)")
                .forEach((cell, seat) => { cell.textContent = names[seat]; })""",
            ["guest-fdb7b (you)", *[f"house/heuristic (seat {n})" for n in (2, 3, 4)]],
        )
        found = page.evaluate(SPLIT_WORDS)
        assert found == {"split": [], "wrapped": []}, viewport
        page.locator("#table-end").screenshot(path=screenshots / f"table-end-scores-{viewport}.png")
    page = pages["phone"]
    for size in ("150%", "200%"):
        page.evaluate("size => { document.documentElement.style.fontSize = size; }", size)
        found = page.evaluate(SPLIT_WORDS)
        names = page.locator("#end-scores td:nth-child(2)").all_inner_texts()
        # (a name may break inside a word where the phone has no room for it whole)
        assert [word for word in found["split"] if not any(word in n for n in names)] == []
        assert page.evaluate("() => document.documentElement.scrollWidth") == 390, size
