"""A signed-in person plays a rated RPS Poker table to the end against the strongest built-in
bot, then finds their rating on their profile, linked from the table, and on the people's
leaderboard."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_live_table import (
    RPS_DECISIONS,
    TURN_TIMEOUT_MS,
    updates,
    wait_for_my_turn,
    wait_until_answered,
)
from tests.browser.test_newcomer_flow import new_username, sign_up

pytestmark = pytest.mark.browser


def test_a_person_plays_a_rated_table_and_sees_their_rating_on_their_profile(tab, screenshots):
    page = tab.page
    username = new_username("rated")
    sign_up(page, username)

    page.goto("/games/rps-poker/tables/")
    assert page.get_by_label("Rated", exact=True).is_checked()  # the create form's default
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    assert re.search(r", rated\b", page.locator(".table-meta").inner_text())
    for _ in range(RPS_DECISIONS):
        wait_for_my_turn(page)
        before = updates(page)
        page.keyboard.press("1")
        page.keyboard.press("Enter")
        wait_until_answered(page, before)
    end = page.get_by_role("region", name="Match over")
    end.wait_for(timeout=TURN_TIMEOUT_MS)
    summary = end.locator("#end-summary").inner_text()
    # the winner's score first: who won is said in words
    expected = "won" if summary.startswith("You win") else "drew" if "draw" in summary else "lost"

    page.reload()  # the finished table's page links its people to their profiles
    page.locator("main").get_by_role("link", name=username, exact=True).first.click()
    page.wait_for_url(f"**/people/{username}/")
    assert page.get_by_role("heading", level=1, name=username).is_visible()
    row = page.locator("#ratings tr[data-game=rps-poker]")
    assert row.locator("[data-role=matches]").inner_text() == "1"
    counts = {k: row.locator(f"[data-role={k}]").inner_text() for k in ("wins", "draws", "losses")}
    assert counts == {
        "wins": str(int(expected == "won")),
        "draws": str(int(expected == "drew")),
        "losses": str(int(expected == "lost")),
    }
    # (a negative is written with the minus sign)
    rating = float(row.locator("[data-role=rating]").inner_text().replace("\u2212", "-"))
    assert rating != 0.0  # moved from the newcomer's 25 - 3 x 25/3
    assert page.locator("figure.chart svg path.conservative").count() == 1
    recent = page.locator("#recent tbody tr")
    assert recent.count() == 1 and recent.first.locator("td").nth(3).inner_text() == expected
    page.screenshot(path=screenshots / "person-profile-desktop.png", full_page=True)

    page.goto("/games/rps-poker/leaderboard/?show=people")
    listed = page.locator("#ranking tbody tr", has_text=username)
    assert listed.count() == 1
    # (the same rating, its minus sign too: people's leaderboards write it as the bots' does)
    assert f"{rating:.2f}".replace("-", "\u2212") in listed.inner_text()
    assert tab.console.take() == []
