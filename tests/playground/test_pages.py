"""The playground's pages: the form (forged values get a 400 that says what is wrong), a run's
page while it waits and once played, its JSON, the replay of its matches, who sees what, and
"submit this version" through the normal upload."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bots import playground
from bots.models import Bot, BotVersion, LeaderboardRow, PlaygroundRun
from bots.pages.views import request_limit
from games.registry import get_game
from tests.playground.conftest import GAME, builtin_code, worker


def form_data(**changes) -> dict:
    data = {
        "language": "python",
        "code": builtin_code("simple"),
        "opponents": ["builtin:simple"],
        "seed": "5",
        "match_count": "2",
    }
    return data | changes


def post(client: Client, game: str = GAME, **changes):
    return client.post(reverse("playground", args=[game]), form_data(**changes))


def ranked(version: BotVersion, rank: int) -> None:
    LeaderboardRow.objects.update_or_create(
        bot=version.bot,
        defaults={
            "game": GAME,
            "rank": rank,
            "mu": 30 - rank,
            "sigma": 1,
            "conservative": 27 - rank,
        },
    )


def test_the_form_opens_with_a_starter_and_the_opponents(alice, bob, active_bot):
    rival = active_bot(bob, "rival", builtin_code("strong"))
    ranked(rival, 1)
    page = Client().get(reverse("playground", args=[GAME]) + "?starter=javascript")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'value="builtin:simple"' in html and f'value="bot:{rival.bot_id}"' in html
    assert 'value="javascript" required id="id_language_1" checked' in html
    # the starter's code fills the form
    assert "A starter bot for RPS Poker (Card Arena), in the original challenge" in html


def test_game_and_upload_pages_link_to_the_playground(alice):
    game = Client().get(reverse("game", args=[GAME])).content.decode()
    assert f"{reverse('playground', args=[GAME])}?starter=python" in game
    assert "Open in the playground" in game
    client = Client()
    client.force_login(alice)
    mine = client.get(reverse("my_bots")).content.decode()
    assert reverse("playground", args=[GAME]) in mine


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"opponents": ["bot:424242"]}, "bot:424242 is not one of the available choices"),
        ({"match_count": str(10**9)}, "less than or equal to"),
        ({"seed": "not a number"}, "Enter a whole number."),
        ({"seed": str(2**70)}, "less than or equal to"),
        ({"language": "cobol"}, "cobol is not one of the available choices"),
        ({"code": ""}, "Choose a file or paste the code."),
        ({"opponents": []}, "Choose at least one opponent."),
    ],
)
def test_a_forged_form_gets_a_400_that_says_what_is_wrong(db, changes, says):
    page = post(Client(), **changes)
    assert page.status_code == 400
    assert says in page.content.decode()
    assert not PlaygroundRun.objects.exists()


def test_a_bot_of_another_game_and_a_language_the_game_does_not_take(alice, bob):
    other = Bot.objects.create(owner=bob, game="kuhn", name="k", language="python")
    BotVersion.objects.create(bot=other, number=1, code="x", checksum="c", status="active")
    page = post(Client(), opponents=[f"bot:{other.pk}"])
    assert page.status_code == 400
    assert f"bot:{other.pk} is not one of the available choices" in page.content.decode()
    # (every game has a starter in every language the site runs: one without it here)
    from games.registry import get_game

    starters = get_game("kuhn").starters
    kept = dict(starters)
    del starters["javascript"]
    try:
        page = post(Client(), game="kuhn", language="javascript", opponents=["builtin:simple"])
    finally:  # (in their order: the rules page lists them so, and a later test reads it)
        starters.clear()
        starters.update(kept)
    assert page.status_code == 400
    assert "javascript is not one of the available choices" in page.content.decode()
    assert not PlaygroundRun.objects.exists()


def test_code_of_another_language_is_refused_naming_both_before_it_is_queued(db):
    from games.registry import get_game

    starter = get_game(GAME).starters["javascript"].read_text(encoding="utf-8")
    page = post(Client(), language="python", code=starter)
    assert page.status_code == 400
    line = starter.splitlines().index("({") + 1
    assert (
        f"This looks like JavaScript (line {line}: “({{”), but the language chosen is Python: "
        "choose JavaScript, or give Python code."
    ) in page.content.decode()
    assert not PlaygroundRun.objects.exists()


def test_a_bot_of_another_game_is_sent_to_its_playground_before_it_costs_a_run(db, settings):
    # a Kuhn bot in RPS Poker's playground was queued, played and failed, one of a guest's
    # runs an hour gone, and was told "is it for another game?" naming none
    from games.registry import get_game

    settings.PLAYGROUND_GUEST_RUNS_PER_HOUR = 1
    guest = Client()
    starter = get_game("kuhn").starters["python"].read_text(encoding="utf-8")
    page = post(guest, code=starter)
    assert page.status_code == 400
    assert (
        "This file looks like a Kuhn poker bot, not an RPS Poker bot: it defines act (Kuhn "
        "poker&#x27;s method), its text names Kuhn poker, and it has none of draft_pick, "
        "draft_receive, main_play and main_postprocess, the methods an RPS Poker bot needs. "
        f'To try it in Kuhn poker, use <a href="{reverse("playground", args=["kuhn"])}">Kuhn '
        "poker&#x27;s playground</a>."
    ) in page.content.decode()
    assert not PlaygroundRun.objects.exists()
    assert post(guest).status_code == 302  # (the hour's one run is still there)


def test_a_guest_over_its_limit_is_refused_with_a_clear_message(db, settings):
    settings.PLAYGROUND_GUEST_MAX_OPEN = 1
    guest = Client()
    assert post(guest).status_code == 302
    page = post(guest)
    assert page.status_code == 429
    assert "You have 1 run queued or running, the most allowed (1)" in page.content.decode()
    assert PlaygroundRun.objects.count() == 1


def test_a_refused_guest_stores_no_session(db, settings):
    from django.contrib.sessions.models import Session

    settings.PLAYGROUND_GUEST_ADDRESS_MAX_OPEN = 1
    guest = Client()
    assert post(guest).status_code == 302
    assert PlaygroundRun.objects.get().guest == guest.session["guest_token"]
    for _ in range(3):  # fresh cookie jars of the same address, each refused
        assert post(Client()).status_code == 429
    assert Session.objects.count() == 1


def test_an_oversized_request_is_refused_before_it_is_read(db, settings):
    settings.BOT_MAX_CODE_BYTES = 100
    # No CSRF token: the size is checked first, before the body is parsed for the token.
    code = "#" * (request_limit() + 1)
    page = post(Client(enforce_csrf_checks=True), code=code)
    assert page.status_code == 413
    said = r"Your file is \d+ KiB; uploads take at most 100 bytes\."
    assert re.search(said, page.content.decode())
    assert not PlaygroundRun.objects.exists()


def test_a_run_from_the_form_to_its_replays(db):
    guest = Client()
    started = post(guest, match_count="2")
    assert started.status_code == 302
    run = PlaygroundRun.objects.get()
    assert started["Location"] == reverse("playground_run", args=[run.key])
    assert run.user is None and run.guest
    waiting = guest.get(started["Location"]).content.decode()
    assert "Waiting for a worker: yours is next." in waiting
    assert 'http-equiv="refresh"' in waiting and "js/playground.js" in waiting
    status = guest.get(reverse("playground_status", args=[run.key])).json()
    assert status["position"] == 1 and status["played"] == 0 and not status["final"]
    assert status["ahead"] == 0

    assert worker().step() is True
    status = guest.get(reverse("playground_status", args=[run.key])).json()
    assert status == {
        "status": "done", "final": True, "played": 2, "matches": 2, "percent": 100,
        "position": None, "ahead": None, "message": "Done: 2 matches played.",
        "stopped": False,
    }  # fmt: skip
    done = guest.get(started["Location"]).content.decode()
    assert 'http-equiv="refresh"' not in done
    assert "Your bot&#x27;s total" in done or "Your bot's total" in done
    replay_url = reverse("playground_match", args=[run.key, 1])
    assert replay_url in done
    page = guest.get(replay_url)
    assert page.status_code == 200
    assert 'id="replay-table"' in page.content.decode()
    frames = guest.get(reverse("playground_replay", args=[run.key, 2]) + "?from=0&count=5")
    assert frames.status_code == 200
    answer = frames.json()
    assert answer["supported"] and answer["total"] > 0 and len(answer["frames"]) <= 5
    assert answer["seats"][run.played_matches.get(number=1).seat] == "your bot"
    assert guest.get(reverse("playground_match", args=[run.key, 3])).status_code == 404
    assert guest.get(reverse("playground_match", args=[run.key, "x"])).status_code == 404


def test_a_run_is_seen_by_its_address_and_its_code_only_by_its_owner(alice, bob):
    owner = Client()
    owner.force_login(alice)
    code = builtin_code("simple") + "\n# a secret of alice's\n"
    post(owner, code=code)
    run = PlaygroundRun.objects.get()
    assert len(run.key) >= 20  # unguessable
    url = reverse("playground_run", args=[run.key])
    assert "a secret of alice" in owner.get(url).content.decode()
    page = Client().get(url)  # a guest given the address
    assert page.status_code == 200
    assert "a secret of alice" not in page.content.decode()
    other = Client()
    other.force_login(bob)
    assert "a secret of alice" not in other.get(url).content.decode()
    assert Client().get(reverse("playground_run", args=["not-a-key"])).status_code == 404
    # someone else cannot submit it
    worker().step()
    refused = other.post(reverse("playground_submit", args=[run.key]), {"name": "stolen"})
    assert refused.status_code == 404
    assert not Bot.objects.exists()


def test_a_new_run_from_a_run_keeps_its_code_language_opponents_and_options_for_its_owner(
    alice, bob, active_bot
):
    # "Start another run" opened an empty form, in Python: a JavaScript author who pasted a
    # fix was told "This looks like JavaScript" unless they chose the language again
    rival = active_bot(bob, "rival", builtin_code("strong"))
    js = "// a secret of the guest's\n" + get_game(GAME).starters["javascript"].read_text()
    guest = Client()
    opponents = ["builtin:strong", f"bot:{rival.bot_id}"]
    post(guest, language="javascript", code=js, opponents=opponents, seed="4242",
         match_count="3")  # fmt: skip
    run = PlaygroundRun.objects.get()
    page = guest.get(reverse("playground_run", args=[run.key])).content.decode()
    again = f"{reverse('playground', args=[GAME])}?again={run.key}"
    assert (
        f'href="{again}" aria-describedby="run-again-help">Start a new run from this one</a>'
        in page
    )
    assert "The form opens with this run's code, language, opponents, seed and matches" in page
    form = guest.get(again).content.decode()
    assert 'value="javascript" required id="id_language_1" checked' in form
    assert "a secret of the guest&#x27;s" in form
    assert 'value="4242"' in form and 'name="match_count" value="3"' in form
    checked = re.findall(
        r'<input type="checkbox" name="opponents" value="([^"]+)"[^>]* checked', form
    )
    assert checked == opponents
    # anyone else given the run's address (a guest of another session, another user) sees
    # no code, and the link is no way to it: theirs is an empty form
    stranger = Client()
    stranger.force_login(bob)
    for someone in (Client(), stranger):
        theirs = someone.get(reverse("playground_run", args=[run.key])).content.decode()
        assert "?again=" not in theirs and "Start another run</a>" in theirs
        fresh = someone.get(again).content.decode()
        assert "a secret of the guest" not in fresh
        assert 'value="python" required id="id_language_0" checked' in fresh
    # a signed-in owner's run, from another browser of theirs
    owner = Client()
    owner.force_login(alice)
    post(owner, code=builtin_code("simple") + "# alice's v2\n", seed="77")
    mine = PlaygroundRun.objects.get(user=alice)
    elsewhere = Client()
    elsewhere.force_login(alice)
    form = elsewhere.get(f"{reverse('playground', args=[GAME])}?again={mine.key}").content.decode()
    assert "# alice&#x27;s v2" in form and 'value="77"' in form


def test_the_pages_name_the_game_by_its_title_and_say_log_in_as_the_top_bar_does(db):
    # "Your recent runs" said "rps-poker, 2 matches", and a guest's pages said "Sign in" and
    # "sign in for more" under a top bar that says "Log in"
    guest = Client()
    post(guest)
    run = PlaygroundRun.objects.get()
    form = guest.get(reverse("playground", args=[GAME])).content.decode()
    recent = form.split('id="recent-title"', 1)[1]
    assert (
        f'<a href="{reverse("playground_run", args=[run.key])}">RPS Poker, 2 matches</a>' in recent
    )
    assert ">log in</a> for more." in form
    worker().step()
    page = guest.get(reverse("playground_run", args=[run.key])).content.decode()
    assert ">Log in</a> to submit a bot to the competition." in page
    for html in (form, page):
        assert not re.search(r"\bsign(ed)?[ -]in\b", html, re.IGNORECASE)
    templates = Path(__file__).resolve().parents[2] / "templates"
    for template in templates.rglob("*.html"):
        said = re.sub(
            r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", "", template.read_text(), flags=re.S
        )
        assert not re.search(r"\bsign(ed)?[ -]in\b", said, re.IGNORECASE), template


def test_submit_this_version_goes_through_the_upload(alice, settings):
    client = Client()
    client.force_login(alice)
    post(client)
    run = PlaygroundRun.objects.get()
    worker().step()
    page = client.get(reverse("playground_run", args=[run.key])).content.decode()
    assert "Submit this version" in page
    sent = client.post(reverse("playground_submit", args=[run.key]), {"name": "tried"})
    assert sent.status_code == 302 and sent["Location"].startswith(reverse("my_bots"))
    version = BotVersion.objects.get()
    assert version.bot.name == "tried" and version.bot.game == GAME
    assert version.status == BotVersion.VALIDATING and version.code == run.code
    # the upload's own checks: the same code again is refused, with its reason
    again = client.post(
        reverse("playground_submit", args=[run.key]), {"name": "tried"}, follow=True
    )
    assert "This code is already version 1 of tried, being validated." in again.content.decode()
    settings.BOT_UPLOADS_PER_HOUR = 1
    limited = client.post(reverse("playground_submit", args=[run.key]), {"name": "x"}, follow=True)
    assert "the most allowed (1 an hour)" in limited.content.decode()
    assert BotVersion.objects.count() == 1


def test_the_form_lists_the_best_ranked_bots_your_own_and_the_one_asked_for(alice, bob, active_bot):
    code = builtin_code("simple")
    listed = playground.LISTED_BOTS
    rivals = [active_bot(bob, f"r{rank:02d}", code) for rank in range(1, listed + 6)]
    for rank, rival in enumerate(rivals, 1):
        ranked(rival, rank)
    mine = active_bot(alice, "mine", code)  # new: not ranked yet
    LeaderboardRow.objects.filter(bot=mine.bot).delete()
    url = reverse("playground", args=[GAME])

    def offered(client: Client, query: str = "") -> list[str]:
        html = client.get(url + query).content.decode()
        return re.findall(r'name="opponents" value="(bot:\d+)"', html)

    best = [f"bot:{r.bot_id}" for r in rivals[:listed]]
    assert offered(Client()) == best  # by rank, the best only
    client = Client()
    client.force_login(alice)
    assert offered(client) == [*best, f"bot:{mine.bot_id}"]  # and your own
    # a bot further down, asked for from its page, is offered and checked
    far = rivals[-1]
    page = Client().get(f"{url}?opponent=bot:{far.bot_id}").content.decode()
    assert re.search(rf'value="bot:{far.bot_id}"[^>]* checked', page)
    assert (
        f'href="{url}?opponent=bot:{far.bot_id}"'
        in Client().get(reverse("bot", args=[far.bot_id])).content.decode()
    )
    # and played: the form takes any active bot of the game, listed or not
    response = post(Client(), opponents=[f"bot:{far.bot_id}"])
    assert response.status_code == 302, response.content.decode()[-3000:]
    run = PlaygroundRun.objects.get()
    assert run.opponents == [{"version": far.pk, "name": far.bot.label}]
    # a forged or retired one is not
    for value in ("bot:0", "bot:99999999", "bot:1x", f"bot:{far.bot_id} "):
        assert post(Client(), opponents=[value]).status_code == 400


def test_the_houses_copy_of_a_built_in_is_listed_once_and_plays_the_built_in(alice, active_bot):
    # seed_builtins enters the built-ins as the house's bots, to be ranked: the same code
    house = User.objects.create_user("house")
    copy = active_bot(house, "strong", builtin_code("strong"))
    ranked(copy, 1)
    older = active_bot(house, "simple", "class Bot:\n    pass  # an older simple\n")
    ranked(older, 2)
    url = reverse("playground", args=[GAME])
    html = Client().get(url).content.decode()
    labels = re.findall(r'value="([^"]+)"[^>]*>\s*([^<]+?)\s*</label>', html)
    assert ("builtin:strong", "house/strong") in labels  # the leaderboard's name
    assert f"bot:{copy.bot_id}" not in html and "builtin:strong<" not in html
    # a copy of other code is another bot: listed apart, told apart by its version
    assert ("builtin:simple", "house/simple") in labels
    assert (f"bot:{older.bot_id}", "house/simple (version 1)") in labels
    # the copy's page links here with its id: the built-in is checked
    html = Client().get(f"{url}?opponent=bot:{copy.bot_id}").content.decode()
    assert re.search(r'value="builtin:strong"[^>]* checked', html)
    # chosen by either value, the run plays the built-in, named as the form shows it
    for value in ("builtin:strong", f"bot:{copy.bot_id}"):
        PlaygroundRun.objects.all().delete()
        response = post(Client(), opponents=[value])
        assert response.status_code == 302, response.content.decode()[-3000:]
        run = PlaygroundRun.objects.get()
        assert run.opponents == [{"builtin": "strong", "name": "house/strong"}]
        (opponent,) = playground.seating(run).opponents
        assert opponent.builtin == "strong" and opponent.name == "house/strong"


def test_the_forms_queries_do_not_grow_with_the_bots(alice, bob, active_bot):
    url = reverse("playground", args=[GAME])
    code = builtin_code("simple")

    def queries() -> int:
        client = Client()
        client.force_login(alice)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured.captured_queries)

    for rank in range(1, 4):
        ranked(active_bot(bob, f"a{rank}", code), rank)
    few = queries()
    for rank in range(4, 40):
        ranked(active_bot(bob, f"a{rank}", code), rank)
    assert queries() == few


def test_a_run_whose_bot_could_not_start_shows_no_score(db):
    guest = Client()
    broken = "class Bot:\n    def draft_pick(self, cards)\n        return 0\n"
    started = post(guest, code=broken, match_count="2")
    assert worker().step() is True
    page = guest.get(started["Location"]).content.decode()
    assert "Your bot could not start: " in page
    # (it showed "Scores: Your bot's total: -10 points", a forfeit of a match never played)
    assert 'id="scores-title"' not in page and 'id="run-total"' not in page
    assert "Faults and your bot" in page and "SyntaxError" in page  # its fault and stderr
    # (its log, in every language's words: a JavaScript bot's console.log goes there too)
    assert "Faults and your bot's log (what it prints: print, console.log, stderr)" in page


def test_a_run_page_counts_the_illegal_moves_the_rules_played_as_passes(db):
    guest = Client()
    wild = (
        "class Bot:\n    def play(self, state):\n"
        "        return {'cards': ['Zz'], 'suit': None, 'last_card': False}\n"
    )
    started = post(guest, game="last-card", code=wild, opponents=["builtin:naive"], match_count="2")
    assert worker().step() is True
    page = guest.get(started["Location"]).content.decode()
    assert "No fault" not in page  # (it said "No fault, and your bot wrote nothing to stderr.")
    counts = re.findall(r"your bot: (\d+) illegal moves", page)
    assert len(counts) == 2 and all(int(n) > 1 for n in counts), counts
    assert re.search(
        r"Your bot: <bdi class=\"said\">\d+ illegal moves \(an illegal move is refused and "
        r"counts as a pass\); the first: &#x27;Zz&#x27; is not a card in your hand</bdi>",
        page,
    )


#: names of an HTML form's own properties and methods that a control of the same name hides
#: (a field named "matches" made the form's matches() "not a function" to scripts)
FORM_OWN = {
    "matches", "submit", "reset", "action", "method", "elements", "length", "target", "id",
    "name", "closest", "contains", "attributes", "children", "style", "title",
}  # fmt: skip


def test_no_field_of_the_form_hides_a_property_of_the_html_form(db):
    page = Client().get(reverse("playground", args=[GAME])).content.decode()
    form = page[page.index("<form") : page.index("</form>")]
    names = set(re.findall(r'\sname="([^"]+)"', form))
    assert "match_count" in names and "seed" in names
    assert not names & FORM_OWN, names & FORM_OWN


def test_the_form_says_the_size_in_kib_and_a_jar_only_where_the_game_takes_one(db, settings):
    settings.BOT_MAX_CODE_BYTES = 256 * 1024
    kuhn = Client().get(reverse("playground", args=["kuhn"])).content.decode()
    # (it said "Code up to 256.0 KB of UTF-8 text, or a built jar of that size ...")
    assert "Code up to 256 KiB of UTF-8 text. " in kuhn and "built jar" not in kuhn
    last_card = Client().get(reverse("playground", args=["last-card"])).content.decode()
    assert "Code up to 256 KiB of UTF-8 text, or a built jar of that size. " in last_card


def test_a_bigger_tables_totals_are_one_row_whatever_the_seat_order(db):
    guest = Client()
    passing = (
        "class Bot:\n    def play(self, state):\n"
        "        return {'cards': [], 'suit': None, 'last_card': False}\n"
    )
    started = post(
        guest, game="last-card", code=passing, match_count="4",
        opponents=["builtin:naive", "builtin:heuristic"],
    )  # fmt: skip
    assert started.status_code == 302, started.content.decode()[:2000]
    assert worker().step() is True
    page = guest.get(started["Location"]).content.decode()
    totals = page[page.index("Your bot's total by opponent") : page.index('id="run-matches"')]
    # (it had a row for each seat order: "house/naive, house/heuristic" and the other way)
    rows = re.findall(r'<th scope="row"><span class="name">([^<]*)</span></th>', totals)
    assert len(rows) == 1, rows
    assert re.search(r'</th><td class="num">4</td>', totals)


def _part(html: str, start: str, end: str) -> str:
    return html[html.index(start) : html.index(end, html.index(start)) + len(end)]


def test_the_run_pages_fragment_is_the_parts_that_change_drawn_as_the_page_draws_them(alice):
    # the run's page put them in place (static/js/playground.js); it reloaded itself instead
    owner = Client()
    owner.force_login(alice)
    code = builtin_code("simple") + "\n# a secret of alice's\n"
    started = post(owner, code=code, match_count="2")
    run = PlaygroundRun.objects.get()
    url = reverse("playground_results", args=[run.key])
    assert url == f"/playground/{run.key}/results/"
    waiting = owner.get(url)
    assert waiting.status_code == 200 and "no-cache" in waiting["Cache-Control"]
    part = waiting.content.decode()
    # only the parts, none of the page's frame, and never the code (cheap to ask for)
    assert "<html" not in part.lower() and "a secret of alice" not in part
    assert re.search(r'<section class="panel" id="run-progress"[^>]* data-played="0"', part)
    assert "data-final" not in part and 'id="run-results"' in part
    assert "Waiting for a worker: yours is next." in part
    assert 'id="run-submit"' in part and "Submit this version" not in part
    page = owner.get(started["Location"]).content.decode()
    # the page's live region, empty when it loads: the script says what happens next
    assert '<p id="run-said" class="sr-only" role="status" aria-live="polite"></p>' in page
    assert f'data-results-url="{url}"' in page

    assert worker().step() is True
    part = owner.get(url).content.decode()
    page = owner.get(started["Location"]).content.decode()
    for start, end in (('<section class="panel" id="run-progress"', "</section>"),
                       ('<div id="run-results">', "</section>\n\n</div>")):  # fmt: skip
        assert _part(part, start, end) == _part(page, start, end)  # a reload shows the same
    total = re.search(r'id="run-total">([^<]+)<', part).group(1)
    assert re.search(
        r' data-final data-said="Done: 2 matches played; your bot&#x27;s total games won: '
        + re.escape(total)
        + r'\.">',
        part,
    )
    assert part.count('<tr id="match-') == 2 and "Submit this version" in part
    assert Client().get(url).status_code == 200  # whoever has the address, as the page
    assert "Submit this version" not in Client().get(url).content.decode()
    assert Client().get(reverse("playground_results", args=["not-a-key"])).status_code == 404


def test_a_failed_runs_end_is_said_once_by_a_page_that_followed_it(db):
    guest = Client()
    broken = "class Bot:\n    def draft_pick(self, cards)\n        return 0\n"
    started = post(guest, code=broken, match_count="2")
    assert worker().step() is True
    run = PlaygroundRun.objects.get()
    part = guest.get(reverse("playground_results", args=[run.key])).content.decode()
    said = re.search(r' data-final data-said="([^"]*)"', part).group(1)
    assert said.startswith("Your bot could not start: ") and "total" not in said
    # the live region says it; the alert is for a page that loads failed
    assert 'id="run-status" class="said form-alert">' in part and 'role="alert"' not in part
    page = guest.get(started["Location"]).content.decode()
    assert 'id="run-status" class="said form-alert" role="alert">' in page
