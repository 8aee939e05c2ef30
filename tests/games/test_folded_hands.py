"""Poker shows hole cards only at a showdown: the cards of a folded hand reach no other
seat, no spectator, no public record, replay or API answer; their owner still sees them."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from bots.models import Match, MatchSeat
from games import replays
from games.engine.agents import ScriptedAgent
from games.engine.runner import MatchRunner
from games.registry import get_game

#: hand 1 (seat 0 first) ends in a fold, hand 2 (seat 1 first) in a showdown
SCRIPTS = {
    "kuhn": (["b", "p"], ["p", "p"]),  # bet, fold / check, check
    "leduc": (["r", "c", "c"], ["f", "c", "c"]),  # raise, fold / check all the way
}


def played(slug: str) -> tuple[dict[str, Any], Any]:
    game = get_game(slug)
    first, second = SCRIPTS[slug]
    agents = [ScriptedAgent(first, "ann"), ScriptedAgent(second, "bob")]
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(11, config={"hands": 2}), agents, seed=11
    )
    record = json.loads(json.dumps(outcome.record))
    folded, shown = record["result"]["hand_log"]
    assert not folded["showdown"] and shown["showdown"] and not outcome.faults
    return record, outcome.state


def face_up(frame: dict[str, Any]) -> list[list[str]]:
    return [[c for z in seat["zones"] for c in z["cards"]] for seat in frame["seats"]]


@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_the_public_record_keeps_a_folded_hands_cards_secret(slug):
    record, _ = played(slug)
    game = get_game(slug)
    public = game.state_class.public_record(record)
    folded, shown = public["result"]["hand_log"]
    assert folded["cards"] == [None, None]
    assert shown["cards"] == record["result"]["hand_log"][1]["cards"]
    if slug == "leduc":  # folded before the public card was turned
        assert folded["board"] is None and shown["board"]
    # neither the seed nor a shuffle deals the match again
    assert public["seed"] is None
    assert all("outcome" not in e for e in public["events"] if e["type"] == "chance")
    assert [e for e in public["events"] if e["type"] == "action"] == [
        e for e in record["events"] if e["type"] == "action"
    ]
    # seat 0 acted first in hand 1: its own card, and not the other
    own = game.state_class.public_record(record, 0)["result"]["hand_log"][0]["cards"]
    assert own == [record["result"]["hand_log"][0]["cards"][0], None]
    other = game.state_class.public_record(record, 1)["result"]["hand_log"][0]["cards"]
    assert other == [None, record["result"]["hand_log"][0]["cards"][1]]


@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_the_end_of_a_live_table_shows_a_folded_hand_to_its_owner_alone(slug):
    record, state = played(slug)
    rules = get_game(slug).table()
    cards = record["result"]["hand_log"][0]["cards"]  # by position; seat 0 was first
    assert rules.result(state, None)["hand_log"][0]["cards"] == [None, None]
    assert rules.result(state, 0)["hand_log"][0]["cards"] == [cards[0], None]
    assert rules.result(state, 1)["hand_log"][0]["cards"] == [None, cards[1]]
    for audience in (None, 0, 1):
        assert rules.result(state, audience)["hand_log"][1] == record["result"]["hand_log"][1]


@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_the_replay_shows_cards_only_of_the_hand_that_reached_the_showdown(slug):
    record, _ = played(slug)
    replay = replays.build(record, ["ann", "bob"])
    assert replay.supported and not replay.error
    ends = [n for n, f in enumerate(replay.frames) if f["label"].endswith(": the end")]
    assert len(ends) == 2
    for frame in replay.frames[: ends[0] + 1]:  # the folded hand, from the deal to its end
        assert frame["seats"] and face_up(frame) == [[], []]
        assert all(z["down"] == 1 for s in frame["seats"] for z in s["zones"])
    showdown = record["result"]["hand_log"][1]
    cards = [replays_code(slug, c) for c in showdown["cards"]]
    by_seat = cards[::-1]  # seat 1 acted first in hand 2
    for frame in replay.frames[ends[0] + 1 :]:
        assert face_up(frame) == [[by_seat[0]], [by_seat[1]]]


def replays_code(slug: str, card: str) -> str:
    return {"J": "Js", "Q": "Qs", "K": "Ks"}.get(card, card) if slug == "kuhn" else card


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_no_page_or_api_answer_shows_a_folded_hand(client, slug):
    record, _ = played(slug)
    match = Match.objects.create(game=slug, seed=11, record=record)
    for seat, name in enumerate(["ann", "bob"]):
        score = record["result"]["scores"][seat]
        MatchSeat.objects.create(match=match, seat=seat, name=name, score=score)
    base = f"/matches/{match.pk}/"
    api = client.get(f"/api/matches/{match.pk}/").json()
    download = json.loads(client.get(base + "record.json").content)
    for public in (api["record"], download):
        assert public["result"]["hand_log"][0]["cards"] == [None, None]
        assert public["seed"] is None
    assert api["seed"] is None
    frames = client.get(base + "replay.json").json()["frames"]
    ends = [n for n, f in enumerate(frames) if f["label"].endswith(": the end")]
    assert all(face_up(f) == [[], []] for f in frames[: ends[0] + 1])
    for step in range(1, ends[0] + 2):  # the page counts steps from 1
        page = client.get(f"{base}?step={step}").content.decode()
        assert "card--" in page and not face_up_cards_in(page)
        assert ">11<" not in page  # the seed
    page = client.get(f"{base}?step={ends[1] + 1}").content.decode()
    assert len(face_up_cards_in(page)) >= 2


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_every_window_of_the_replay_hides_what_the_whole_hides(client, slug):
    """The viewer's windows (replay.json?from=N&count=M, and the one the page holds) are
    cut from the same frames: a folded hand's cards are in none of them, nor in their cards."""
    record, _ = played(slug)
    match = Match.objects.create(game=slug, seed=11, record=record)
    for seat, name in enumerate(["ann", "bob"]):
        score = record["result"]["scores"][seat]
        MatchSeat.objects.create(match=match, seat=seat, name=name, score=score)
    base = f"/matches/{match.pk}/"
    whole = client.get(base + "replay.json").json()

    def folded_hand_hidden(frames: list[dict]) -> bool:
        return all(face_up(f) == [[], []] for f in frames if f["chapter"] == "Hand 1")

    assert folded_hand_hidden(whole["frames"])
    for start in range(whole["total"]):
        for count in (1, 2, 50):
            part = client.get(f"{base}replay.json?from={start}&count={count}").json()
            assert part["frames"] == whole["frames"][start : start + count]
            assert part["cards"] == replays.cards_of(part["frames"])
            assert folded_hand_hidden(part["frames"])
        page = client.get(f"{base}?step={start + 1}").content.decode()
        script = page.split('<script id="replay-frames" type="application/json">')[1]
        held = json.loads(script.split("</script>")[0])
        assert held["frames"] == whole["frames"][held["from"] : held["from"] + held["count"]]
        assert held["cards"] == replays.cards_of(held["frames"])


def face_up_cards_in(page: str) -> list[str]:
    """The labels of the face-up cards the page draws (``includes/card.html``)."""
    return re.findall(r'aria-label="([^"]+ of (?:spades|hearts))"', page)


def test_the_dealer_shows_the_cards_of_a_folded_uth_round_to_its_player_alone():
    """The player sees them at the table as their bot sees them in ``last_round``; a
    spectator and the replay never do."""
    game = get_game("uth")
    folds = ["[check]", "[check]", "[fold]"] * 2
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(4, config={"max_rounds": 2}), [ScriptedAgent(folds)], seed=4
    )
    state, record = outcome.state, json.loads(json.dumps(outcome.record))
    assert [r["folded"] for r in state.rounds] == [True, True]
    rules = game.table()
    last = state.rounds[-1]
    frame = rules.frame(state, None, ["me"])
    (dealer,) = [z for z in frame["shared"] if z["label"].endswith(": dealer")]
    assert dealer["cards"] == [] and dealer["down"] == 2  # not turned over for a spectator
    (board,) = [z for z in frame["shared"] if z["label"].endswith(": board")]
    assert board["cards"] == last["board"]  # turned before the river's fold
    sent = json.dumps(frame)
    unseen = set(last["dealer"]) | set(last["player"])
    assert not [c for c in unseen - set(last["board"]) if f'"{c}"' in sent]
    # the player: what their bot is told, no more
    frame = rules.frame(state, 0, ["me"])
    (dealer,) = [z for z in frame["shared"] if z["label"].endswith(": dealer")]
    seen = state.observation()["last_round"]
    assert dealer["cards"] == seen["dealer"] == last["dealer"] and dealer["down"] == 0
    showdowns = [f for f in replays.build(record).frames if f["label"].endswith("at the river")]
    assert len(showdowns) == 2
    for frame in showdowns:
        (dealer,) = [z for z in frame["shared"] if z["label"] == "Dealer"]
        assert dealer["cards"] == [] and dealer["down"] == 2
    public = game.state_class.public_record(record)
    assert public["seed"] is None
    assert all("outcome" not in e for e in public["events"] if e["type"] == "chance")


@pytest.mark.django_db
def test_a_poker_tournament_keeps_the_seed_its_matches_are_dealt_from(client):
    from bots.models import Tournament

    done = {"state": Tournament.DONE}
    poker = Tournament.objects.create(
        game="kuhn", settings={"rounds": 1, "seed": 987654321}, **done
    )
    rps = Tournament.objects.create(
        game="rps-poker", settings={"rounds": 1, "seed": 123456789}, **done
    )
    assert "seed" not in client.get(f"/api/tournaments/{poker.pk}/").json()["settings"]
    assert "987654321" not in client.get(f"/tournaments/{poker.pk}/").content.decode()
    # RPS Poker's seeds are public once its tournament is over (tests/site/test_seeds_shown.py)
    assert client.get(f"/api/tournaments/{rps.pk}/").json()["settings"]["seed"] == 123456789
    assert "123456789" in client.get(f"/tournaments/{rps.pk}/").content.decode()
    # a placement's shared deals are the seeds of the deals its opponents played: as secret
    placement = Tournament.objects.create(
        game="uth", format=Tournament.PLACEMENT,
        settings={"seed": 5550001, "deals": 2, "version": 1, "shared_deals": [7770001, 7770002]},
    )  # fmt: skip
    api = client.get(f"/api/tournaments/{placement.pk}/")
    assert api.json()["settings"] == {"deals": 2, "version": 1}
    page = client.get(f"/tournaments/{placement.pk}/").content.decode()
    assert not any(str(n) in api.content.decode() + page for n in (5550001, 7770001, 7770002))
