"""The bot playground in the browser against the live site and worker: a guest opens the
game's starter in the playground, adds code of their own, picks opponents and runs it; the
run's page follows the worker (no reload by hand) to the scores, and one match's replay is
stepped through in the site's viewer."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

#: the run waits behind nothing on the live site's idle worker; 4 short matches
RUN_TIMEOUT_MS = 90_000
#: the step counter ("Step 2 of 16"), not the screen readers' line that says the step
#: ("Step 2 of 16: Draft 1 of 5, ...")
STEP = re.compile(r"^\s*Step\s+(\d+)\s+of\s+(\d+)\s*$")


def test_a_guest_runs_a_pasted_bot_from_the_starter_to_a_replay(tab, screenshots):
    page = tab.page
    page.goto("/games/rps-poker/")
    page.get_by_role("link", name="Open in the playground").first.click()
    page.wait_for_url(re.compile(r"/games/rps-poker/playground/\?starter=python$"))
    code = page.get_by_label("Or paste the code")
    starter = code.input_value()
    assert "class Bot" in starter
    # the person's own touch: a line on stderr at every draft pick
    code.fill(
        "import sys\n" + starter + "\n\n_pick = Bot.draft_pick\n\n\ndef _loud(self, cards):\n"
        "    print('thinking about', cards, file=sys.stderr)\n"
        "    return _pick(self, cards)\n\n\nBot.draft_pick = _loud\n"
    )
    # a built-in is listed under its leaderboard name (the house's ranked copy of it)
    page.get_by_label("house/simple").check()
    page.get_by_label("Matches").fill("4")
    page.get_by_label("Seed").fill("12345")
    page.get_by_role("button", name="Run").click()
    page.wait_for_url(re.compile(r"/playground/[\w-]+/$"))
    run_path = page.url

    # the page follows the worker by itself, to the end
    page.get_by_text("Done: 4 matches played.").wait_for(timeout=RUN_TIMEOUT_MS)
    rows = page.locator("#run-matches tbody tr")
    assert rows.count() == 4
    opponents = {rows.nth(n).locator("td").first.inner_text() for n in range(4)}
    assert opponents == {"house/strong", "house/simple"}
    assert "none" in rows.first.inner_text()  # no fault
    stderr = page.get_by_text("Your bot's log (its end)").first
    stderr.click()
    assert "thinking about" in page.locator("pre.log").first.inner_text()
    page.screenshot(path=screenshots / "playground-run-desktop.png", full_page=True)

    rows.first.get_by_role("link", name="Replay").click()
    page.wait_for_url(re.compile(r"/playground/[\w-]+/matches/1/$"))
    replay = page.get_by_role("region", name="Replay")
    counter = replay.get_by_text(STEP)
    first = counter.inner_text()
    assert STEP.search(first).group(1) == "1"
    replay.get_by_role("button", name="Play").wait_for()  # the script has the frames
    page.evaluate("window.sameDocument = true")
    replay.get_by_role("navigation", name="Replay controls").get_by_role(
        "link", name="Next"
    ).click()
    page.wait_for_function(
        "([el, before]) => el.textContent.trim() !== before",
        arg=[counter.element_handle(), first.strip()],
    )
    assert STEP.search(counter.inner_text()).group(1) == "2"
    assert page.evaluate("window.sameDocument === true"), "Next loaded a new page"
    page.screenshot(path=screenshots / "playground-replay-desktop.png", full_page=True)
    page.goto(run_path)  # the run's address shows the same results again
    assert page.locator("#run-matches tbody tr").count() == 4
    assert tab.console.take() == []


#: every text the run page's live region #run-said takes, in order (set before the page's
#: own script runs; a text said again after the region was cleared counts again)
HEARD = """
window.heard = [];
let last = '';
new MutationObserver(() => {
  const region = document.getElementById('run-said');
  const text = region ? region.textContent : '';
  if (text !== last) { last = text; if (text) window.heard.push(text); }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""
PLAYED = re.compile(r"^(\d) of 4 matches played\.$")


def test_the_run_page_follows_the_run_in_place_keeping_focus_and_saying_the_end_once(
    open_tabs, screenshots
):
    # (it reloaded itself after every match and at the end: focus went to <body>, the page
    # to its top, and the end, already on the page when it loaded, was never announced)
    tab = open_tabs("phone")
    page = tab.page
    page.add_init_script(HEARD)
    page.goto("/games/rps-poker/playground/?starter=python")
    code = page.get_by_label("Or paste the code")
    # a bot that takes its time, so that the run's page is open while the matches are played
    code.fill(
        "import time\n" + code.input_value() + "\n\n_pick = Bot.draft_pick\n\n\n"
        "def _slow(self, cards):\n    time.sleep(0.15)\n    return _pick(self, cards)\n\n\n"
        "Bot.draft_pick = _slow\n"
    )
    page.get_by_label("Matches").fill("4")
    page.get_by_label("Seed").fill("7")
    page.get_by_role("button", name="Run").click()
    page.wait_for_url(re.compile(r"/playground/[\w-]+/$"))
    progress = page.locator("#run-progress")
    assert progress.get_attribute("data-final") is None, "the run ended before its page opened"
    page.evaluate("window.sameDocument = true")  # gone if the page reloads

    # a match played shows in place: the person goes to its replay link and stays there
    replay = page.locator("#match-1").get_by_role("link", name="Replay")
    replay.wait_for(timeout=RUN_TIMEOUT_MS)
    replay.focus()
    replay.scroll_into_view_if_needed()
    top = replay.evaluate("el => el.getBoundingClientRect().top")
    progress.and_(page.locator("[data-final]")).wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
    page.wait_for_function("() => window.heard.length && /^Done/.test(window.heard.at(-1))")

    assert page.evaluate("window.sameDocument === true"), "the page reloaded"
    assert replay.evaluate("el => el === document.activeElement"), "the focus moved"
    assert abs(replay.evaluate("el => el.getBoundingClientRect().top") - top) < 2
    assert page.locator("#run-matches tbody tr").count() == 4
    total = page.locator("#run-total").inner_text()
    *progress_said, end = page.evaluate("window.heard")
    # each match played said politely, then the end once, with the bot's total
    assert end == f"Done: 4 matches played; your bot's total games won: {total}."
    played = [int(PLAYED.match(said).group(1)) for said in progress_said]
    assert played == sorted(set(played)) and set(played) <= {1, 2, 3}, progress_said
    assert page.locator("#run-said").get_attribute("role") == "status"
    assert page.locator("#run-status").inner_text() == "Done: 4 matches played."
    page.screenshot(path=screenshots / "playground-run-followed-phone.png")
    page.reload()  # a reload by hand shows the same
    assert page.locator("#run-matches tbody tr").count() == 4
    assert page.locator("#run-total").inner_text() == total
    assert page.locator("#run-said").inner_text() == ""
    assert tab.console.take() == []
