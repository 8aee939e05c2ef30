"""The solver's review in the browser: a guest plays ten hands of Kuhn poker against the cfr
bot, follows "Review your play with the solver" from the end of the table, waits while the
site's worker solves, and reads a review whose numbers are those of the solver's stored
result (its JSON download), recomputed here with the solver's own code."""

from __future__ import annotations

import re
import time

import pytest

from games.kuhn.tree import Kuhn
from games.solver import build
from games.solver.export import strategy_array
from games.solver.review import action_values
from tests.browser.test_live_table import TURN_TIMEOUT_MS, updates, wait_until_answered

pytestmark = pytest.mark.browser

SOLVE_WAIT_S = 120


def play_a_sitting(page) -> None:
    """Check or call every time (the table's keys), to the end of the ten hands."""
    for _ in range(60):
        page.wait_for_function(
            """() => !document.getElementById("table-end").hidden
                || document.getElementById("turn-line").classList.contains("turn-line--mine")""",
            timeout=TURN_TIMEOUT_MS,
        )
        if page.locator("#table-end").is_visible():
            return
        before = updates(page)
        page.keyboard.press("c")
        wait_until_answered(page, before)
    raise AssertionError("the sitting did not end")


def test_a_guest_reviews_their_kuhn_sitting_with_the_solvers_values(tab, screenshots):
    page = tab.page
    page.goto("/games/kuhn/tables/")
    page.get_by_role("button", name="Play against a bot").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+/$"))
    play_a_sitting(page)
    end = page.get_by_role("region", name="Match over")
    end.get_by_role("link", name="Review your play with the solver").click()
    page.wait_for_url(re.compile(r"/matches/\d+/\?review=\d#review$"))
    review = page.get_by_role("region", name="Review")
    waited = time.monotonic()
    while "Expected value lost over the match" not in review.inner_text():
        assert "Being solved" in review.inner_text()
        assert time.monotonic() - waited < SOLVE_WAIT_S, review.inner_text()
        time.sleep(1)
        page.reload()
    page.screenshot(path=screenshots / "match-review-kuhn-desktop.png", full_page=True)

    # the solver's values, from the stored result the review was made with
    link = review.get_by_role("link", name="the solve").get_attribute("href")
    document = page.request.get(link.rstrip("/") + "/result.json").json()
    tree = build(Kuhn())
    values = action_values(tree, strategy_array(tree, document["infosets"]))
    rows = review.locator("tbody tr[data-key]:not([data-key=''])")
    assert rows.count() > 0  # the hands that reached a showdown
    total = 0.0
    for n in range(rows.count()):
        row = rows.nth(n)
        infoset = values.at(row.get_attribute("data-key"))
        taken = row.locator("td").nth(3).inner_text().strip()
        shown = [
            float(row.locator(f"[data-{name}]").inner_text())
            for name in ("taken-value", "best-value", "lost")
        ]
        expected = [infoset.values[taken], infoset.best, infoset.lost(taken)]
        assert shown == pytest.approx(expected, abs=6e-5), (row.inner_text(), expected)
        total += infoset.lost(taken)
    lost = float(review.locator("[data-total-lost]").inner_text())
    assert lost == pytest.approx(total, abs=6e-5)

    # stepping through the replay keeps the review in the address
    page.locator("#replay [data-go='next']").click()
    page.wait_for_url(re.compile(r"/matches/\d+/\?review=\d&step=2#replay$"))
    assert review.get_by_text("Expected value lost over the match").count() == 1
    assert tab.console.take() == []
