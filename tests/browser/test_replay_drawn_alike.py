"""The replay viewer (static/js/replay.js) draws a step as the page drawn by the server does
(templates/matches/_frame.html, _zone.html): the seats' score badges ("chips won: 1", Last
Card's "points in hand: 9" until the game ends) and a zone that only carries a text (a poker
hand's "Betting: bp") without a "none" under it."""

from __future__ import annotations

import html
import re

import pytest

pytestmark = pytest.mark.browser

STORE_MATCHES = """
import json
from bots.models import Match, MatchSeat
from bots.running.playing import Entry, play
from games.registry import get_game
for game, bots, config in [("kuhn", ["simple", "random"], {"hands": 4}),
                           ("last-card", ["naive", "heuristic"], {})]:
    entries = [Entry(name=f"{bot}-{n}", builtin=bot) for n, bot in enumerate(bots)]
    played = play(get_game(game), entries, seed=4, config=config or None)
    record = json.loads(json.dumps(played.outcome.record))
    match = Match.objects.create(game=game, seed=4, record=record)
    for seat, entry in enumerate(entries):
        MatchSeat.objects.create(match=match, seat=seat, name=entry.name,
                                 score=record["result"]["scores"][seat])
    print("stored", game, match.pk, len(record["events"]))
"""


@pytest.fixture(scope="module")
def matches(live_site) -> dict[str, int]:
    said = live_site.manage("shell", "-c", STORE_MATCHES)
    found = dict(re.findall(r"stored (\S+) (\d+)", said))
    assert set(found) == {"kuhn", "last-card"}, said
    return {game: int(pk) for game, pk in found.items()}


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def server_drawn(page, match: int, step: int) -> dict:
    """The badges and the shared zones of the step as the server draws it (no script)."""
    body = page.request.get(f"/matches/{match}/?step={step}").text()
    drawn = body.split('id="replay-frame"')[1].split('id="replay-decision"')[0]
    shared = drawn.split('id="replay-shared"')[1].split('id="replay-notes"')[0]
    return {
        "badges": [
            _text(b)
            for b in re.findall(r'<span class="seat__score"[^>]*>(.*?</span>.*?)</span>', drawn)
        ],
        "shared": [
            _text(z) for z in re.findall(r'<div class="zone [^"]*">(.*?)</div>', shared, re.S)
        ],
        "empty": drawn.count("zone__empty"),
    }


def viewer_drawn(page) -> dict:
    frame = page.locator("#replay-frame")
    return {
        "badges": [" ".join(t.split()) for t in frame.locator(".seat__score").all_inner_texts()],
        "shared": [
            " ".join(t.split()) for t in page.locator("#replay-shared > .zone").all_inner_texts()
        ],
        "empty": frame.locator(".zone__empty").count(),
    }


def test_the_viewer_draws_badges_and_zones_as_the_server_does(tab, matches):
    page = tab.page
    for game, steps in (("kuhn", (1, 2, 3)), ("last-card", (1, 2))):
        match = matches[game]
        for step in steps:
            # the viewer draws the step: one step back from the next one's page
            page.goto(f"/matches/{match}/?step={step + 1}")
            page.get_by_role("button", name="Play").wait_for()
            page.locator("#replay-table").focus()
            page.keyboard.press("ArrowLeft")
            page.wait_for_function(
                "n => document.getElementById('replay-number').textContent === String(n)",
                arg=step,
            )
            server, viewer = server_drawn(page, match, step), viewer_drawn(page)
            assert viewer == server, (game, step)
            label = "chips won" if game == "kuhn" else "points in hand"
            # (a negative with the minus sign, as every page writes one)
            assert all(re.fullmatch(rf"{label}: \u2212?\d+(\.\d+)?", b) for b in viewer["badges"])
            if game == "kuhn":
                assert viewer["shared"][0].startswith("Betting: ") and viewer["empty"] == 0
    # and at the end of the Last Card game, the points taken
    page.goto(f"/matches/{matches['last-card']}/")
    page.get_by_role("button", name="Play").wait_for()
    page.locator("#replay-table").focus()
    page.keyboard.press("End")
    total = page.locator("#replay").get_attribute("data-total")
    page.wait_for_function(
        "n => document.getElementById('replay-number').textContent === n"
        " && !document.getElementById('replay-table').hasAttribute('aria-busy')",
        arg=total,
    )
    end = viewer_drawn(page)
    assert end["badges"] == server_drawn(page, matches["last-card"], int(total))["badges"]
    assert all(b.startswith("points taken: ") for b in end["badges"])
    assert not tab.console.errors
