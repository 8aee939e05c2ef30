"""Every kind of page, as Chromium lays it out at 1280 px and at 390 px: each is in the site's
frame (its header, footer and stylesheet), no text runs out of its box, no two blocks side by
side cover each other, and every link and button has the site's look. A full-page screenshot
of each (``every-<page>-<width>.png``) goes to the screenshots folder (conftest.py's
``screenshots``: CARD_ARENA_ARTIFACTS, else var/test-artifacts/screenshots/) for a person to
look at. One browser, one page per width, no sleeping: it waits on what each page shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser.conftest import VIEWPORTS
from tests.browser.test_live_table import wait_for_my_turn

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent

#: the site's link colour (--link in static/css/site.css)
LINK = "rgb(27, 94, 158)"

#: the checks run in each page (a function returning a list of faults)
LOOK_CHECKS = "\n".join(
    line
    for line in (HERE / "look_checks.js").read_text().replace("%LINK%", LINK).splitlines()
    if not line.startswith("//")
)


def ids_of_the_live_site(live_site) -> dict:
    """Pages that need an id: a match of each kind of game, a bot, a tournament, a person."""
    script = (
        "import json\n"
        "from bots.models import Bot, Match, Tournament\n"
        "first = lambda q: q.order_by('pk').values_list('pk', flat=True).first()\n"
        "bot = Bot.objects.filter(game='rps-poker').order_by('pk').first()\n"
        "print(json.dumps({\n"
        "  'rps': first(Match.objects.filter(game='rps-poker')),\n"
        "  'kuhn': first(Match.objects.filter(game='kuhn')),\n"
        "  'last_card': first(Match.objects.filter(game='last-card')),\n"
        "  'uth': first(Match.objects.filter(game='uth')),\n"
        "  'bot': bot.pk, 'owner': bot.owner.username,\n"
        "  'tournament': first(Tournament.objects.filter(game='rps-poker')),\n"
        "}))\n"
    )
    out = live_site.manage("shell", "-c", script)
    return json.loads(out.strip().splitlines()[-1])


def every_page(ids: dict) -> list[tuple[str, str, int]]:
    """(name, path, status) of one page of each kind."""
    return [
        ("home", "/", 200),
        ("game", "/games/rps-poker/", 200),
        ("lobby", "/games/rps-poker/tables/", 200),
        ("tables", "/tables/", 200),
        ("match-rps-poker", f"/matches/{ids['rps']}/", 200),
        ("match-last-card", f"/matches/{ids['last_card']}/", 200),
        ("replay-uth", f"/matches/{ids['uth']}/?step=3#replay", 200),
        ("review-kuhn", f"/matches/{ids['kuhn']}/?review=0#review", 200),
        ("bot", f"/bots/{ids['bot']}/", 200),
        ("versions", f"/bots/{ids['bot']}/versions/", 200),
        ("person", f"/people/{ids['owner']}/", 200),
        ("people-leaderboard", "/games/rps-poker/leaderboard/?show=people", 200),
        ("leaderboards", "/leaderboards/", 200),
        ("leaderboard-last-card", "/games/last-card/leaderboard/", 200),
        ("tournaments", "/tournaments/", 200),
        ("tournament", f"/tournaments/{ids['tournament']}/", 200),
        ("playground", "/games/rps-poker/playground/", 200),
        ("explorer", "/solver/", 200),
        ("api-docs", "/api/docs/", 200),
        ("login", "/accounts/login/", 200),
        ("signup", "/accounts/signup/", 200),
        ("error-404", "/no/such/page/", 404),
        ("error-404-match", "/matches/999999/", 404),
        ("error-400", "/games/uth/leaderboard/?show=people", 400),
    ]


def look_faults(page) -> list[str]:
    return page.evaluate(LOOK_CHECKS)


#: long names and numbers put into the home page's leader cards, as a busy site has them
CROWDED_LEADERS = r"""
() => {
  const rows = document.querySelectorAll(".game .leaders li");
  const names = [
    "walker-bot-the-seventh-of-that-name", "always-check", "plainbotwithonelongnamewithoutbreaks"
  ];
  rows.forEach((li, i) => {
    li.querySelector(".bot-name").textContent = names[i % names.length];
    li.querySelector(".rating").textContent = i % 2 ? "-10.20 (-23.19 to +2.78)" : "13.83";
  });
  return rows.length;
}
"""


def leaders_in_their_rows(page) -> list[str]:
    """Each leader's number (the list's marker) beside the first line of its name, and its
    rating inside its own row, apart from the other rows' ratings."""
    return page.evaluate(
        r"""() => {
          const faults = [];
          for (const li of document.querySelectorAll(".leaders li")) {
            const row = li.getBoundingClientRect();
            const name = li.querySelector(".bot-name").getClientRects()[0];
            const rating = li.querySelector(".rating").getBoundingClientRect();
            const what = li.textContent.trim().replace(/\s+/g, " ");
            if (Math.abs(name.top - row.top) > 2) faults.push(`name under its number: ${what}`);
            if (rating.top < row.top - 1 || rating.bottom > row.bottom + 1
                || rating.right > row.right + 1) faults.push(`rating out of its row: ${what}`);
          }
          for (const links of document.querySelectorAll(".game-links a")) {
            if (links.getClientRects().length > 1)
              faults.push(`a link on two lines: ${links.textContent}`);
          }
          return faults;
        }"""
    )


def keys_line_fits_the_hand(page) -> None:
    """The keys line names as many card keys as there are cards (two in RPS Poker's draft)."""
    wait_for_my_turn(page)
    page.locator("#keys-help:not([hidden])").wait_for()
    cards = page.locator("#live-hand .hand-card").count()
    keys = page.locator("#keys-help").inner_text()
    said = keys.split(" choose a card")[0].removeprefix("Keys: ")
    expected = {1: "1", 2: "1 2", 3: "1 2 3"}.get(cards, f"1 … {min(cards, 9)}")
    if cards >= 10:
        expected = "1 … 9 0" + (" ← →" if cards > 10 else "")
    assert said == expected, (cards, keys)


def test_every_kind_of_page_is_in_the_sites_frame_and_look_at_both_widths(
    live_site, open_tabs, screenshots
):
    ids = ids_of_the_live_site(live_site)
    pages = every_page(ids)
    desktop, phone = open_tabs("desktop"), open_tabs("phone")
    # a live table against a bot, made by the desktop tab; the phone watches it
    desktop.page.goto("/games/rps-poker/tables/")
    desktop.page.get_by_role("button", name="Play against a bot").click()
    desktop.page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    table = desktop.page.url.removeprefix(live_site.base_url)
    keys_line_fits_the_hand(desktop.page)
    pages.append(("table", table, 200))

    faults: list[str] = []
    for viewport, tab in (("desktop", desktop), ("phone", phone)):
        width = VIEWPORTS[viewport]["width"]
        page = tab.page
        for name, path, status in pages:
            response = page.goto(path, wait_until="load")
            assert response is not None and response.status == status, (path, response)
            if name == "table":
                # the table drawn from its first view (or its end, had the match ended)
                page.locator("#live-seats > *, #table-end:not([hidden])").first.wait_for()
            page.evaluate("document.fonts.ready.then(() => true)")
            found = look_faults(page)
            if name == "home":
                assert page.evaluate(CROWDED_LEADERS) >= 10
                found += look_faults(page) + leaders_in_their_rows(page)
            page.screenshot(path=screenshots / f"every-{name}-{width}.png", full_page=True)
            faults += [f"{name} ({path}) at {width} px: {fault}" for fault in dict.fromkeys(found)]
            errors = [e for e in tab.console.take() if f"status of {status}" not in e]
            assert errors == [], (path, errors)
    assert faults == [], "\n".join(faults)
