"""The public match page, its replay data and the record download, on matches that the
worker really played and stored."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from django.core.cache import caches

from bots.models import Match, MatchSeat
from bots.running.playing import Entry
from bots.running.playing import play as play_entries
from games import replays
from games.registry import get_game
from tests.games.matchmaking import CHATTY, RAISES, builtin, enter, live_table_match, play
from tests.goofspiel.test_replay import fault_that_still_wins


@pytest.fixture
def rps_matches(db):
    versions = [
        enter("alice", "rps-poker", "chatty", CHATTY),
        enter("bob", "rps-poker", "strong", builtin("rps-poker", "strong")),
    ]
    return play("rps-poker", versions, seed=21)


@pytest.fixture
def faulty_match(db):
    versions = [
        enter("carol", "rps-poker", "raiser", RAISES),
        enter("bob", "rps-poker", "simple", builtin("rps-poker", "simple")),
    ]
    return play("rps-poker", versions, seed=5)[0]


@pytest.fixture
def last_card_match(db):
    names = ["naive", "heuristic", "naive", "heuristic"]
    versions = [
        enter(owner, "last-card", f"{name}-{owner}", builtin("last-card", name))
        for owner, name in zip(["alice", "bob", "carol", "dave"], names, strict=True)
    ]
    return play("last-card", versions, seed=8, tables=[[v.pk for v in versions]])[0]


@pytest.fixture
def uth_match(db):
    versions = [
        enter("alice", "uth", "basic", builtin("uth", "basic")),
        enter("bob", "uth", "folder", builtin("uth", "always-check")),
    ]
    return play("uth", versions, seed=3)[0]


def page_of(client, match: Match) -> str:
    response = client.get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def assert_shows_participants(page: str, match: Match) -> None:
    for seat in match.participants.select_related("bot__owner", "version"):
        assert f'href="/bots/{seat.bot.pk}/"' in page
        assert seat.bot.name in page and seat.bot.owner.username in page
        assert f"v{seat.version.number}" in page
    assert f'href="/tournaments/{match.tournament_id}/"' in page


# ---- the page -------------------------------------------------------------------------------
def test_it_shows_an_rps_poker_match_with_its_players_and_the_table(client, rps_matches):
    match = rps_matches[0]
    page = page_of(client, match)
    assert_shows_participants(page, match)
    assert '<caption class="sr-only">Players in this match, by seat, with their scores' in page
    assert 'class="card card--' in page and 'role="img"' in page
    assert 'Step <span id="replay-number">1</span> of 16' in page
    # the whole log is on the page, with every step's link
    text = text_of(page)
    names = [s.bot.label for s in match.participants.order_by("seat")]
    for frame in replays.build(match.record, names).frames:
        for line in frame["lines"]:
            assert line in text
    assert page.count('data-step="') == 16
    assert f'href="/matches/{match.pk}/record.json"' in page
    scores = [s.score for s in match.participants.order_by("seat")]
    assert sum(scores) == 10


def test_it_never_shows_a_bots_stderr_on_the_public_page(client, rps_matches):
    for match in rps_matches:
        seat = match.participants.get(bot__name="chatty")
        assert "SECRET-STDERR-NOTE" in seat.stderr  # the owner will see it on the bot page
        for url in ("", "?step=9", "replay.json", "replay.json?from=3&count=4"):
            body = client.get(f"/matches/{match.pk}/{url}").content.decode()
            assert "SECRET-STDERR-NOTE" not in body


def test_it_draws_the_step_asked_for_without_javascript(client, rps_matches):
    match = rps_matches[0]
    page = client.get(f"/matches/{match.pk}/?step=7").content.decode()
    assert 'Step <span id="replay-number">7</span> of 16' in page
    assert 'id="step-7" class="log-step is-current" aria-current="step"' in page
    assert 'data-go="previous" href="?step=6#replay"' in page
    assert 'data-go="next" href="?step=8#replay"' in page
    assert "Game 1 of 10" in text_of(page.split('id="replay-frame"')[1].split("</div>")[0])
    # out of range and nonsense fall back to the ends
    assert (
        'Step <span id="replay-number">16</span>'
        in client.get(f"/matches/{match.pk}/?step=99").content.decode()
    )
    assert (
        'Step <span id="replay-number">1</span>'
        in client.get(f"/matches/{match.pk}/?step=x").content.decode()
    )


def test_it_documents_the_keyboard_and_loads_the_viewer(client, rps_matches):
    page = page_of(client, rps_matches[0])
    for key in ("Home", "End", "Space"):
        assert f"<kbd>{key}</kbd>" in page
    assert "js/replay.js" in page and "css/cards.css" in page
    assert f'data-replay-url="/matches/{rps_matches[0].pk}/replay.json"' in page


def test_a_step_is_said_once_in_a_polite_line_of_its_own(client, rps_matches):
    """The viewer says each step it moves to in #replay-said, what the step shows included
    ("Step 5 of 220: Hand 2, house/simple folds"): the counter, which says the number only,
    is no live region of its own (or the number would be said twice)."""
    page = page_of(client, rps_matches[0])
    assert '<p class="replay__counter" id="replay-counter">Step' in page
    said = re.search(r"<p [^>]*id=\"replay-said\"[^>]*>", page)
    assert said is not None
    assert 'class="sr-only"' in said.group(0) and 'aria-live="polite"' in said.group(0)
    script = (Path(__file__).parents[2] / "static/js/replay.js").read_text()
    assert "el.said.textContent = stepWords(frame)" in script
    assert '"Step " + (current + 1) + " of " + total + ": " + frame.label' in script


def test_it_shows_faults_with_their_reasons(client, faulty_match):
    seat = faulty_match.participants.get(bot__name="raiser")
    assert seat.fault_kind == "exception"
    page = page_of(client, faulty_match)
    assert "out of ideas in game three" in page
    assert "A fault ends the match" in page and "Disqualified" not in page
    # who won, by how much, and what the fault gave the winner
    won = faulty_match.participants.get(bot__name="simple").score
    left = faulty_match.record["result"]["forfeited_games"]
    assert (
        f'<p class="match-outcome">bob/simple wins {won:g} to {seat.score:g} (carol/raiser raised '
        f"an error: the {left} unplayed games went to bob/simple)</p>"
    ) in page


def test_a_bot_that_faults_may_still_win_and_the_pages_say_how(client, db):
    """Match 306: "bob/sleepy wins" above its timeout, while the README said a bot that takes
    too long is disqualified. A fault stops a bot playing and gives the other seat what was
    left to play; what the bot had won still counts. The heading, the replay's last step and
    the bot's recent matches say so."""
    record = fault_that_still_wins()
    match = Match.objects.create(game="goofspiel", seed=6, record=record)
    versions = [
        enter("carol", "goofspiel", "sleepy", builtin("goofspiel", "matching")),
        enter("bob", "goofspiel", "low", builtin("goofspiel", "matching")),
    ]
    fault = record["result"]["faults"]["0"]
    for seat, version in enumerate(versions):
        match.participants.create(
            seat=seat, bot=version.bot, version=version, score=record["result"]["scores"][seat],
            fault_kind=fault["kind"] if seat == 0 else "",
            fault_reason=fault["reason"] if seat == 0 else "",
        )  # fmt: skip
    page = client.get(f"/matches/{match.pk}/?step=999").content.decode()
    assert (
        '<p class="match-outcome">carol/sleepy wins 1 to \u22121 (it ran out of time: the '
        "prizes left in deal 3 went to bob/low)</p>"
    ) in page
    log = text_of(page[page.index('id="replay-log"') :].split("</ol>")[0])
    assert "carol/sleepy faults and plays no further: timeout: " in log
    assert "Final score 1 to \u22121: carol/sleepy wins the match (it ran out of time: " in log
    assert " is out" not in log and "isqualified" not in page
    bot = client.get(f"/bots/{versions[0].bot.pk}/").content.decode()
    assert "<td>won (it ran out of time)</td>" in bot


def test_a_live_tables_facts_say_which_moves_the_turn_timer_played(client, db):
    """Match 60: bob never touched the table, and its page credited him with every bid."""
    match = live_table_match()
    assert "Turn timer" not in page_of(client, match)
    mine = [
        index
        for index, event in enumerate(match.record["events"])
        if event["type"] == "action" and event["seat"] == 0
    ][:3]
    match.record["played_for"] = [[0, index] for index in mine]
    match.save()
    caches["replays"].clear()  # (a stored match never changes: its replay is kept)
    page = page_of(client, match)
    assert (
        "<div><dt>Turn timer</dt><dd>played 3 moves for ann, whose time ran out</dd></div>"
    ) in page
    log = text_of(page[page.index('id="replay-log"') :].split("</ol>")[0])
    assert log.count("(played for ann: time ran out)") == 3


#: what a bot raised to fake a fault of the other seat: new lines, a bidi override, and more
#: than any page should show
FAKED = (
    "bad card\n\n\u2022 bob/simple (seat 2): invalid: played a card it does not hold (S9)"
    "\u202e\u200b; the match is forfeited" + " and on" * 300
)


def hostile_reason(match: Match) -> Match:
    """``match`` as if its raiser had raised FAKED: in its seat, its record's events and
    result, as a match stored before the pages showed reasons on one line."""
    seat = match.participants.get(bot__name="raiser")
    seat.fault_reason = FAKED
    seat.save()
    record = json.loads(json.dumps(match.record))
    for event in record["events"]:
        if event.get("type") == "fault":
            for fault in event["faults"].values():
                fault["reason"] = FAKED
    for fault in record["result"].get("faults", {}).values():
        fault["reason"] = FAKED
    Match.objects.filter(pk=match.pk).update(record=record)
    return Match.objects.get(pk=match.pk)


def assert_one_line(text: str) -> None:
    assert "\n" not in text and "\u202e" not in text and "\u200b" not in text
    assert "bad card \u2022 bob/simple (seat 2)" in text and "\\u202e\\u200b;" in text
    assert len(text) <= 300 and text.endswith("\u2026")


def test_a_bots_fault_reason_is_shown_on_one_line_escaped_and_cut(client, faulty_match):
    match = hostile_reason(faulty_match)
    page = page_of(client, match)
    assert "\u202e" not in page and FAKED[:40] not in page
    faults = page.split("<h3>Faults</h3>")[1].split("</ul>")[0]
    assert faults.count("<li>") == 1 and "\n" not in faults.split("<li>")[1].split("</li>")[0]
    said = re.search(r'<bdi class="said">([^<]*)</bdi>', faults)
    assert said is not None
    assert_one_line(html.unescape(said.group(1)))
    # the replay's log
    frames = client.get(f"/matches/{match.pk}/replay.json").json()["frames"]
    lines = [line for frame in frames for line in frame["lines"] if "bad card" in line]
    assert lines
    for line in lines:
        assert_one_line(line.split(": ", 2)[2])
    # the API, and the record it serves and the download
    answer = client.get(f"/api/matches/{match.pk}/").json()
    (fault,) = [p["fault"] for p in answer["participants"] if p["fault"]]
    assert_one_line(fault["reason"])
    downloaded = client.get(f"/matches/{match.pk}/record.json").json()
    for record in (answer["record"], downloaded):
        shown = [f["reason"] for e in record["events"] if e["type"] == "fault"
                 for f in e["faults"].values()]  # fmt: skip
        shown += [f["reason"] for f in record["result"].get("faults", {}).values()]
        assert shown
        for reason in shown:
            assert_one_line(reason)
    # the stored record keeps what the bot said
    assert Match.objects.get(pk=match.pk).participants.get(bot__name="raiser").fault_reason == FAKED


def test_it_shows_a_last_card_game_with_every_hand(client, last_card_match):
    page = page_of(client, last_card_match)
    assert_shows_participants(page, last_card_match)
    assert "In Last Card fewer points taken is better." in page
    frame = page.split('id="replay-frame"')[1].split('id="replay-decision"')[0]
    assert frame.count('class="card card--red') + frame.count('class="card card--black') == 29
    assert "is dealt" in page


def test_it_shows_an_uth_session_against_the_dealer(client, uth_match):
    page = page_of(client, uth_match)
    assert_shows_participants(page, uth_match)
    assert "net chips" in page
    assert "Round 1: the deal" in page
    assert 'aria-label="face-down card"' in page  # the dealer's cards and the board
    reason = uth_match.record["result"]["reason"]  # (the engine's: "completed 10 rounds ...")
    assert reason[0].islower()
    # the headline is a sentence of its own: it begins with a capital, as the table says it
    assert f'<p class="match-outcome">{reason[0].upper()}{reason[1:]}' in page


def test_it_answers_404_for_an_unknown_match(client, db):
    for url in ("/matches/999/", "/matches/999/record.json", "/matches/999/replay.json"):
        assert client.get(url).status_code == 404


def test_it_lists_the_raw_events_of_a_game_without_a_viewer(client, rps_matches):
    match = rps_matches[0]
    Match.objects.filter(pk=match.pk).update(record=dict(match.record, game="coming-soon"))
    page = page_of(client, match)
    assert "There is no replay viewer" in page
    assert page.count("<code>") == len(match.record["events"])
    assert "&quot;type&quot;: &quot;chance&quot;" in page


# ---- the downloads --------------------------------------------------------------------------
def test_it_downloads_the_record_as_a_json_file(client, rps_matches):
    match = rps_matches[1]
    response = client.get(f"/matches/{match.pk}/record.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (
        f'attachment; filename="card-arena-rps-poker-match-{match.pk}.json"'
    )
    assert json.loads(response.content) == match.record


def test_it_serves_the_replay_frames_as_json(client, uth_match):
    response = client.get(f"/matches/{uth_match.pk}/replay.json")
    assert response.status_code == 200
    data = response.json()
    assert data["game"] == "uth" and data["supported"] is True
    assert data["seats"] == ["alice/basic"]
    assert data["frames"][-1]["scores"] == uth_match.record["result"]["scores"]
    assert data["cards"]["Ah"]["label"] == "ace of hearts"
    assert data["from"] == 0 and data["count"] == data["total"] == len(data["frames"])
    assert data["chapters"][0] == {"label": "Round 1", "step": 0}
    window = client.get(f"/matches/{uth_match.pk}/replay.json?from=2&count=3").json()
    assert window["frames"] == data["frames"][2:5] and window["total"] == data["total"]
    gzipped = client.get(f"/matches/{uth_match.pk}/replay.json", HTTP_ACCEPT_ENCODING="gzip")
    assert gzipped["Content-Encoding"] == "gzip"


def test_it_shows_a_live_table_match_of_people_without_a_tournament(client, db):
    match = live_table_match()
    page = page_of(client, match)
    main = page[page.index("<main") :]  # the top bar links every page to the tournaments
    assert "/tournaments/" not in main and "a live table" in page
    assert "a guest player" in page and "a person" in page
    # the participants' table speaks of players, not of bots: people sit at it too
    assert '<caption class="sr-only">Players in this match, by seat, with their scores' in page
    assert "Bots in this match" not in page
    assert 'class="card card--' in page


def test_a_tables_three_bots_say_their_seat_and_the_points_stand_by_the_names(client, db):
    """Last Card against three house/heuristic: each says which seat it is, as the table
    page did, and the points taken come right after the names (on a phone the columns after
    them are scrolled to)."""
    entries = [Entry(name="a guest", builtin="naive")] + [
        Entry(name="house/heuristic", builtin="heuristic") for _ in range(3)
    ]
    played = play_entries(get_game("last-card"), entries, seed=2)
    record = json.loads(json.dumps(played.outcome.record))
    match = Match.objects.create(game="last-card", seed=2, record=record)
    for seat, entry in enumerate(entries):
        MatchSeat.objects.create(
            match=match, seat=seat, name=entry.name, score=record["result"]["scores"][seat],
            builtin=entry.builtin if seat else "",
        )  # fmt: skip
    page = page_of(client, match)
    table = page.split('id="participants-title"')[1].split("</table>")[0]
    head = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', table)
    assert head[:3] == ["seat", "player", "points taken"], head
    rows = re.findall(
        r'<tr>\s*<td>(\d)</td>\s*<th scope="row">([^<]*)</th>\s*<td class="num">', table
    )
    assert rows == [
        ("1", "a guest"),
        ("2", "house/heuristic (seat 2)"),
        ("3", "house/heuristic (seat 3)"),
        ("4", "house/heuristic (seat 4)"),
    ], rows
    # the headline names the winner as the table does ("house/heuristic wins" named none)
    scores = record["result"]["scores"]
    won = scores.index(min(scores))
    assert won > 0 and scores.count(min(scores)) == 1, scores  # (seed 2: a bot wins alone)
    outcome = page.split('<p class="match-outcome">')[1].split("</p>")[0]
    assert outcome.startswith(f"house/heuristic (seat {won + 1}) wins"), outcome


def test_a_draw_names_each_seat_it_is_between(client, db):
    """A draw between seats of one name says which seats ("A draw between house/random
    (seat 1) and house/random (seat 2)"), not the same name twice."""
    entries = [Entry(name="house/random", builtin="random") for _ in range(2)]
    played = play_entries(get_game("kuhn"), entries, seed=1, config={"hands": 2})
    record = json.loads(json.dumps(played.outcome.record))
    record["result"]["scores"] = [0, 0]
    match = Match.objects.create(game="kuhn", seed=1, record=record)
    for seat, entry in enumerate(entries):
        MatchSeat.objects.create(
            match=match, seat=seat, name=entry.name, score=0, builtin=entry.builtin
        )
    outcome = page_of(client, match).split('<p class="match-outcome">')[1].split("</p>")[0]
    assert outcome == "A draw between house/random (seat 1) and house/random (seat 2)", outcome


def felt(page: str) -> str:
    """The text of the table drawn on the page (the step shown)."""
    return text_of(page.split('id="replay-frame"')[1].split('id="replay-decision"')[0])


def badges(page: str) -> list[str]:
    """The seats' score badges of the table drawn on the page, as text."""
    found = re.findall(r'<span class="seat__score"[^>]*>(.*?</span>.*?)</span>', page)
    return [text_of(badge).strip() for badge in found]


def test_a_seats_score_is_labelled_before_it_as_what_it_counts(client, rps_matches):
    match = rps_matches[0]
    page = client.get(f"/matches/{match.pk}/?step=16").content.decode()
    scores = [f"{s.score:g}" for s in match.participants.order_by("seat")]
    # "1 games won" before
    assert badges(page) == [f"games won: {score}" for score in scores]


def test_last_card_shows_the_points_in_hand_until_the_game_ends(client, last_card_match):
    names = [s.bot.label for s in last_card_match.participants.order_by("seat")]
    frames = replays.build(last_card_match.record, names).frames
    deal = felt(page_of(client, last_card_match))
    # the deal: nobody has taken a point; each hand's value is shown as such
    assert "points taken" not in deal
    hands = [frames[0]["scores"][seat] for seat in range(4)]
    assert [f"points in hand: {value}" in deal for value in hands] == [True] * 4
    end = felt(client.get(f"/matches/{last_card_match.pk}/?step={len(frames)}").content.decode())
    assert "points in hand" not in end
    for score in last_card_match.record["result"]["scores"]:
        assert f"points taken: {score:g}" in end


@pytest.fixture
def kuhn_match(db):
    versions = [
        enter("alice", "kuhn", "simple", builtin("kuhn", "simple")),
        enter("bob", "kuhn", "random", builtin("kuhn", "random")),
    ]
    return play("kuhn", versions, seed=4)[0]


def test_the_betting_of_a_poker_hand_is_a_text_with_no_empty_cards_under_it(client, kuhn_match):
    for step in (1, 2, 3):
        page = client.get(f"/matches/{kuhn_match.pk}/?step={step}").content.decode()
        shared = page.split('id="replay-shared"')[1].split('id="replay-notes"')[0]
        assert "Betting: " in text_of(shared)
        assert "zone__empty" not in shared and "none" not in text_of(shared).replace(
            "(none yet)", ""
        )
        assert re.search(r"chips won: -?\d", felt(page))
