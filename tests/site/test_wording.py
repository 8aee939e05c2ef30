"""What the tables and pages say, in words a person reads as meant (issue 29, item 11): the
winner's score first, no "-0", turns counted from 1, a person's own moves in the log at once,
a raise called a raise, seats that keep their names and count from 1, a live table's match
under its tables, tournament names in the games' titles with no stale version status, and a
password's faults under the password."""

from __future__ import annotations

import html
import random
import re

import pytest

from bots.models import Tournament
from cardsite.accounts import SignUpForm
from games.registry import get_game
from tests.games.matchmaking import (
    builtin,
    builtins_of_alice_and_bob,
    enter,
    live_table_match,
    play,
)

NAMES = ["ann", "bob"]


# ---- the end of a match in one sentence ------------------------------------------------------
@pytest.mark.parametrize("slug", ["rps-poker", "goofspiel"])
def test_the_end_line_puts_the_winners_score_first(slug):
    rules = get_game(slug).table()
    assert rules.summary({"scores": [2, 8], "winner": 1}, NAMES, None) == "bob wins, 8 to 2."
    assert rules.summary({"scores": [-3, 3], "winner": 1}, NAMES, 1) == "You win, 3 to \u22123."
    assert rules.summary({"scores": [5, 1], "winner": 0}, NAMES, None) == "ann wins, 5 to 1."
    assert rules.summary({"scores": [4, 4], "winner": None}, NAMES, None) == "A draw, 4 to 4."


def test_the_end_line_says_which_bot_faulted_and_how():
    """A person won 9 to 1 with 9 games forfeited and was not told why: the bot had run out
    of time. Every game's end line now names who faulted, in a word (its match page gives
    the reason in full)."""
    result = {"scores": [9, 1], "winner": 0, "forfeited_games": 9,
              "faults": {"1": {"kind": "timeout", "reason": "main_play took 20.35 s"}}}  # fmt: skip
    names = ["pat", "frank/slow_frank"]
    ending = get_game("rps-poker").table().ending(result, names, 0)
    assert ending == "You win, 9 to 1. 9 games were forfeited. frank/slow_frank ran out of time."
    uth = {"scores": [-75], "reason": "the bot crashed", "faults": {"0": {"kind": "crash"}}}
    assert get_game("uth").table().ending(uth, ["bot"], None).endswith(" bot crashed.")
    # no fault, or one of a kind it does not know: the summary alone
    plain = {"scores": [2, 8], "winner": 1}
    assert get_game("goofspiel").table().ending(plain, NAMES, None) == "bob wins, 8 to 2."
    odd = plain | {"faults": {"0": {"kind": "<b>"}, "x": {"kind": "crash"}}}
    assert get_game("goofspiel").table().ending(odd, NAMES, None) == "bob wins, 8 to 2."


# ---- chip games ------------------------------------------------------------------------------
@pytest.mark.parametrize("slug", ["kuhn", "leduc", "blackjack-pp", "uth"])
def test_a_chip_tables_final_scores_are_signed_as_its_end_line(slug):
    rules = get_game(slug).table()
    written = [rules.score_text(v) for v in (7, -7.0, 1.5, 0, -0.001)]
    assert written == ["+7", "\u22127", "+1.5", "0", "0"]
    scores = [375, -375] if slug != "uth" else [375]
    summary = rules.summary({"scores": scores, "hands": 10, "reason": "done"}, NAMES, 0)
    assert "+375" in summary and rules.score_text(375) == "+375"


@pytest.mark.parametrize("slug", ["rps-poker", "goofspiel", "last-card"])
def test_a_tables_final_scores_are_plain_numbers_where_its_end_line_says_them_so(slug):
    rules = get_game(slug).table()
    written = [rules.score_text(v) for v in (7, 7.0, -3, 2.346, -0.0)]
    assert written == ["7", "7", "\u22123", "2.35", "0"]


def test_blackjack_seats_keep_their_names_and_no_number_reads_minus_zero():
    spec = get_game("blackjack-pp")
    rules = spec.table()
    state = spec.state_class.new(4, config={"hands": 30})
    rng = random.Random(4)
    labels, said, firsts = set(), set(), set()
    while not state.is_over():
        frame = rules.frame(state, 0, NAMES)
        firsts.add(state.seat_of(0))
        for seat in frame["seats"]:
            labels |= {z["label"] for z in seat["zones"]}
            said |= set(seat["notes"]) | {seat["score"]}
        said |= set(frame["lines"]) | {e["text"] for e in frame["log"]}
        state.apply(state.pending()[0], rng.choice(state.legal()))
    said |= {e["text"] for e in rules.frame(state, 0, NAMES)["log"]}
    assert firsts == {0, 1}  # the seats took turns acting first
    assert labels == {"Cards"}, labels  # never "Player 0" for one seat, then the other
    assert {"acts first", "acts second"} <= said
    pushes = [line for line in said if re.search(r"\bann 0\b", line)]
    assert pushes, "no deal ended even: nothing to check"
    for line in said:
        assert not re.search(r"(?<![\w.])-0(?![.\d])", line), line
        assert "Player" not in line and "player 0" not in line, line


def test_a_blackjack_table_counts_its_hits_in_words():
    rules = get_game("blackjack-pp").table()
    assert rules.describe({"hands": 10, "max_hits": 1}) == ["10 deals", "at most 1 hit"]
    assert rules.describe({"hands": 20, "max_hits": 2}) == ["20 deals", "at most 2 hits"]
    assert rules.describe({"hands": 50, "max_hits": 3}) == ["50 deals", "at most 3 hits"]


def test_the_blackjack_replay_names_seats_by_who_acts_first():
    from games.chips.replay import _blackjack_table

    spec = get_game("blackjack-pp")
    state = spec.state_class.new(4, config={"hands": 2})
    frame = {"seats": [], "shared": []}
    _blackjack_table(frame, state, None)
    labels = [seat["zones"][0]["label"] for seat in frame["seats"]]
    assert sorted(labels) == ["Cards, acts first", "Cards, acts second"]


def leduc_state():
    return get_game("leduc").state_class.new(3, config={"hands": 4})


def test_leduc_logs_a_raise_as_the_raise_its_button_says_and_each_move_at_once():
    rules = get_game("leduc").table()
    state = leduc_state()
    assert rules.frame(state, 0, NAMES)["log"] == []
    first = state.pending()[0]
    faces = rules.faces(state)
    assert faces["r"][0] == "Raise 2"  # the chips it puts in, as Kuhn's "Bet 1"
    state.apply(first, "r")
    log = [e["text"] for e in rules.frame(state, 0, NAMES)["log"]]
    assert log == [f"Hand 1, round 1: {NAMES[first]} raises 2."]
    assert {a: label for a, (label, _) in rules.faces(state).items()} == {
        "f": "Fold",
        "c": "Call 2",
        "r": "Re-raise by 2",
    }
    state.apply(1 - first, "r")
    log = [e["text"] for e in rules.frame(state, 0, NAMES)["log"]]
    assert log[-1] == f"Hand 1, round 1: {NAMES[1 - first]} re-raises by 2."
    assert rules.faces(state)["c"][0] == "Call 2"
    state.apply(first, "c")
    betting = [line for line in rules.frame(state, 0, NAMES)["lines"] if "Betting" in line]
    assert betting == [
        f"Betting: {NAMES[first]} raises 2, {NAMES[1 - first]} re-raises by 2, "
        f"{NAMES[first]} calls."
    ]
    keys = [e["key"] for e in rules.frame(state, 0, NAMES)["log"]]
    assert len(keys) == len(set(keys)) == 3


def test_leduc_buttons_say_the_second_rounds_raise_of_4():
    rules = get_game("leduc").table()
    state = leduc_state()
    first = state.pending()[0]
    state.apply(first, "c")
    state.apply(1 - first, "c")  # both check: the board is turned, the second round begins
    assert len(state.rounds) == 2
    assert {label for label, _ in rules.faces(state).values()} == {"Check", "Raise 4"}
    state.apply(state.pending()[0], "r")
    labels = {label for label, _ in rules.faces(state).values()}
    assert labels == {"Fold", "Call 4", "Re-raise by 4"}
    log = [e["text"] for e in rules.frame(state, 0, NAMES)["log"]]
    assert log[-1].endswith("raises 4.")


def test_kuhn_logs_each_move_of_the_hand_in_play():
    rules = get_game("kuhn").table()
    state = get_game("kuhn").state_class.new(3, config={"hands": 4})
    first = state.pending()[0]
    state.apply(first, "p")
    log = [e["text"] for e in rules.frame(state, 1 - first, NAMES)["log"]]
    assert log == [f"Hand 1, betting: {NAMES[first]} checks."]


def test_blackjack_logs_each_move_of_the_deal_in_play():
    spec = get_game("blackjack-pp")
    rules = spec.table()
    state = spec.state_class.new(4, config={"hands": 4})
    first = state.pending()[0]
    state.apply(first, "hit")
    log = [e["text"] for e in rules.frame(state, 0, NAMES)["log"]]
    assert log == [f"Deal 1, play: {NAMES[first]} hits."]


def test_uth_logs_the_persons_move_before_the_round_is_over():
    spec = get_game("uth")
    rules = spec.table()
    state = spec.state_class.new(3, config={"max_rounds": 3})
    assert rules.frame(state, 0, ["ann"])["log"] == []
    check = next(a for a in rules.actions(state, 0) if a["label"] == "Check")
    state.apply(0, check["value"])
    log = [e["text"] for e in rules.frame(state, 0, ["ann"])["log"]]
    assert log == ["Round 1, you: check."]
    assert [e["text"] for e in rules.frame(state, None, ["ann"])["log"]] == ["Round 1, ann: check."]


# ---- Last Card -------------------------------------------------------------------------------
def test_last_card_counts_turns_from_one():
    spec = get_game("last-card")
    rules = spec.table()
    state = spec.state_class.new(2, num_seats=3)
    frame = rules.frame(state, 0, ["ann", "bob", "cy"])
    # with the turn cap after which the game ends unfinished (1000 unless set)
    assert frame["label"] == "Turn 1 of at most 1000"
    assert any(line.endswith("Turn 1 of at most 1000.") for line in frame["lines"]), frame["lines"]
    seat = state.pending()[0]
    state.apply(seat, rules.default_action(state, seat))
    assert rules.frame(state, 0, ["ann", "bob", "cy"])["label"] == "Turn 2 of at most 1000"
    capped = spec.state_class.new(2, num_seats=3, config={"max_turns": 40})
    assert rules.frame(capped, None, ["ann", "bob", "cy"])["label"] == "Turn 1 of at most 40"


# ---- match pages -----------------------------------------------------------------------------
def text_of(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def crumbs_of(page: str) -> str:
    return re.search(r'<nav class="crumbs".*?</nav>', page, re.S).group(0)


@pytest.mark.django_db
def test_a_live_tables_match_page_counts_seats_from_one_under_the_games_tables(client):
    match = live_table_match()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    crumbs = crumbs_of(page)
    assert 'href="/games/rps-poker/tables/">RPS Poker tables</a>' in crumbs
    assert "leaderboard" not in crumbs
    rows = re.findall(r"<tr>\s*<td>(\d+)</td>", page)
    assert rows == ["1", "2"], rows
    assert 'aria-label="Seat 1: ann"' in page and 'aria-label="Seat 0' not in page


@pytest.mark.django_db
def test_a_tournaments_match_page_keeps_the_leaderboard_and_counts_seats_from_one(client):
    versions = builtins_of_alice_and_bob("rps-poker", "simple", "strong")
    match = play("rps-poker", versions, seed=21)[0]
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'href="/games/rps-poker/leaderboard/">RPS Poker leaderboard</a>' in crumbs_of(page)
    assert re.findall(r"<tr>\s*<td>(\d+)</td>", page) == ["1", "2"]


@pytest.mark.django_db
def test_the_review_form_counts_seats_from_one(client):
    versions = builtins_of_alice_and_bob("kuhn", "simple", "random")
    match = play("kuhn", versions, seed=4)[0]
    page = client.get(f"/matches/{match.pk}/?review=0").content.decode()
    options = re.findall(r'<option value="(\d)"[^>]*>(Seat \d)', page)
    assert options == [("0", "Seat 1"), ("1", "Seat 2")], options


@pytest.mark.django_db
def test_playground_pages_count_seats_from_one():
    from django.test import Client
    from django.urls import reverse

    from bots.models import PlaygroundRun
    from tests.playground.conftest import worker
    from tests.playground.test_pages import post

    guest = Client()
    started = post(guest, match_count="2")
    assert worker().step() is True
    run = PlaygroundRun.objects.get()
    done = guest.get(started["Location"]).content.decode()
    seats = re.findall(
        r'<th scope="row">\d+</th>\s*<td><span class="name">[^<]*</span></td>\s*'
        r'<td class="num">(\d)</td>',
        done,
    )
    assert sorted(seats) == ["1", "2"], seats
    first = run.played_matches.get(number=0)  # the page's match 1
    page = guest.get(reverse("playground_match", args=[run.key, 1])).content.decode()
    assert f"Your bot in seat {first.seat + 1} against" in page
    assert re.findall(r"<tr><td>(\d)</td><th", page) == ["1", "2"]


# ---- tournament names ------------------------------------------------------------------------
@pytest.mark.django_db
def test_tournament_names_use_the_games_title_and_no_stale_status(client):
    old_placement = Tournament.objects.create(
        game="uth", format=Tournament.PLACEMENT, name="placement of house/basic v1 (active)"
    )
    retired = Tournament.objects.create(
        game="kuhn",
        format=Tournament.PLACEMENT,
        name="placement of ann/b v2 (retired)",
    )
    ladder = Tournament.objects.create(
        game="uth", format=Tournament.LADDER, name="uth ladder round"
    )
    unnamed = Tournament.objects.create(game="last-card", format=Tournament.LADDER)
    assert str(old_placement) == "placement of house/basic v1"
    assert str(retired) == "placement of ann/b v2"
    assert str(ladder) == "Ultimate Texas Hold'em ladder round"
    assert str(unnamed) == f"Last Card ladder round #{unnamed.pk}"
    page = text_of(client.get("/tournaments/").content.decode())
    assert "(active)" not in page and "(retired" not in page
    assert "uth ladder round" not in page and "Ultimate Texas Hold'em ladder round" in page


@pytest.mark.django_db
def test_new_placements_and_ladder_rounds_are_named_in_words():
    from bots.competition import maybe_ladder_round, schedule_placement

    one = enter("alice", "kuhn", "one", builtin("kuhn", "simple"))
    two = enter("bob", "kuhn", "two", builtin("kuhn", "random"))
    placement = schedule_placement(two)
    assert placement is not None and placement.name == "placement of bob/two v1"
    Tournament.objects.all().delete()
    ladder = maybe_ladder_round("kuhn", 0)
    assert ladder is not None and ladder.name == "Kuhn poker ladder round"
    assert one.bot.owner.username == "alice"


# ---- the sign-up form ------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_password_like_the_username_is_faulted_under_the_password():
    form = SignUpForm(
        data={
            "username": "walkerbot",
            "email": "",
            "password1": "walkerbot1",
            "password2": "walkerbot1",
        }
    )
    assert not form.is_valid()
    assert any("too similar to the username" in e for e in form.errors.get("password1", []))
    assert "password2" not in form.errors
    # a mismatch is still said under the confirmation
    form = SignUpForm(
        data={"username": "zed", "email": "", "password1": "x" * 12, "password2": "y" * 12}
    )
    assert not form.is_valid() and "password2" in form.errors
