"""The solver's review in the browser: a guest plays ten hands of Kuhn poker against the cfr
bot, follows "Review your play with the solver" from the end of the table, watches the page
update itself while the site's worker solves, and reads a review whose numbers are those of
the solver's stored result (its JSON download), recomputed here with the solver's own code,
each decision said in words, to "you"."""

from __future__ import annotations

import re

import pytest

from games.engine.written import MINUS
from games.kuhn.tree import Kuhn
from games.solver import build
from games.solver.export import strategy_array
from games.solver.review import action_values, amount, as_stated, measurable
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
    # the page updates itself (static/js/review.js) once the worker has solved
    page.wait_for_selector("[data-review-summary]", timeout=SOLVE_WAIT_S * 1000)
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
        said = row.locator("[data-said]").inner_text()
        assert said.startswith("You "), said
        verb = said.split(" with ")[0].split()[-1]
        taken = {"checked": "p", "bet": "b", "folded": "p", "called": "b"}[verb]
        shown = [
            float(row.locator(f"[data-{name}]").inner_text().split()[0].replace(MINUS, "-"))
            for name in ("taken-value", "best-value", "lost")
        ]
        verdict = row.locator("[data-verdict]").inner_text()
        lost = infoset.lost(taken)
        mistake = lost > 0.01
        # fine (nothing counted) where no loss shows to 4 places, however often it is played
        charged = lost if measurable(lost) else 0.0
        expected = [infoset.values[taken], infoset.best, charged]
        assert shown == pytest.approx(expected, abs=6e-5), (row.inner_text(), expected)
        assert (verdict == "mistake") == mistake, row.inner_text()
        total += as_stated(lost) if mistake else 0.0  # the rows' losses, as they read
    lost = float(review.locator("[data-total-lost]").inner_text())
    assert lost == pytest.approx(total, abs=1e-9)

    # every verdict in sight, at a desktop's width and a phone's, whatever the lost column
    # says: its longest words ("no measurable loss (under 0.0001)") widened the table past
    # its column, and the verdicts were cut off at the right
    longest = amount(0.00001)
    page.evaluate(
        """(words) => {
            for (const cell of document.querySelectorAll(".review__table td[data-lost]")) {
                const verdict = cell.querySelector("[data-verdict]");
                cell.textContent = words + " ";
                cell.append(verdict);
            }
        }""",
        longest,
    )
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(f"() => window.innerWidth === {width}")
        hidden = page.evaluate(
            """() => {
                const wrap = document.querySelector(".review .table-wrap");
                const right = wrap.getBoundingClientRect().right;
                const cut = [...wrap.querySelectorAll("[data-verdict]")].filter(
                    (verdict) => verdict.getBoundingClientRect().right > right + 0.5
                ).length;
                return {cut, wider: wrap.scrollWidth > wrap.clientWidth};
            }"""
        )
        assert hidden == {"cut": 0, "wider": False}, (width, hidden)
        page.screenshot(path=screenshots / f"match-review-kuhn-lost-words-{width}.png")
    page.set_viewport_size({"width": 1280, "height": 800})

    # stepping through the replay keeps the review in the address
    page.locator("#replay [data-go='next']").click()
    page.wait_for_url(re.compile(r"/matches/\d+/\?review=\d&step=2#replay$"))
    assert review.locator("[data-review-summary]").count() == 1
    assert tab.console.take() == []
