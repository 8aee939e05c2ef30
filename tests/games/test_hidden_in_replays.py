"""Cards no one was shown at the table stay face down in every public replay, step by step:
a folded Ultimate Texas Hold'em round (the player's hole cards as well as the dealer's), a
round or deal a fault cut short (UTH, Blackjack++). The replay is the same for everyone
(docs/replays.md), so the match page, ``replay.json`` and ``manage.py replay --steps`` show
the same; the player saw their own cards at the table, as the docs say."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from bots.models import Match, MatchSeat
from games import records, replays
from games.engine.agents import ScriptedAgent
from games.engine.runner import MatchRunner
from games.registry import get_game

#: round 1 folded at the river, round 2 to the showdown, round 3 cut short on the flop (the
#: script runs out: a timeout)
UTH_SCRIPT = ["[check]", "[check]", "[fold]", "[4x]", "[skip]", "[skip]", "[check]"]


def played(slug: str, answers: list[Any], seed: int, config: dict[str, Any]) -> tuple[dict, Any]:
    game = get_game(slug)
    agents = [ScriptedAgent(list(a), f"p{n}") for n, a in enumerate(answers)]
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(seed, num_seats=len(agents), config=config), agents, seed=seed
    )
    return json.loads(json.dumps(outcome.record)), outcome.state


def uth_session() -> tuple[dict, Any]:
    record, state = played("uth", [UTH_SCRIPT], 4, {"max_rounds": 5})
    assert [r["folded"] for r in state.rounds] == [True, False]
    assert state.outcome == "fault" and state.round_no == 3 and state.phase != "river"
    return record, state


def face_up(frames: list[dict]) -> set[str]:
    return {
        card
        for frame in frames
        for part in [*frame["shared"], *(z for s in frame["seats"] for z in s["zones"])]
        for card in part["cards"]
    }


def said(frames: list[dict]) -> str:
    return "\n".join(line for frame in frames for line in [frame["label"], *frame["lines"]])


def of_chapter(frames: list[dict], chapter: str) -> list[dict]:
    found = [f for f in frames if f["chapter"] == chapter]
    assert found, chapter
    return found


def labels(cards: list[str]) -> list[str]:
    return [replays.card_view(c)["label"] for c in cards]


def assert_unseen(frames: list[dict], cards: list[str]) -> None:
    assert not face_up(frames) & set(cards)
    text = said(frames)
    assert not [label for label in labels(cards) if label in text]


def uth_unseen(record: dict, state: Any) -> dict[str, list[str]]:
    """By round: the cards no one but the player saw (a folded round: the player's and the
    dealer's; the round a fault cut short: those and the board still face down)."""
    folded = state.rounds[0]
    cut = {"player": state.player, "dealer": state.dealer, "board": state.board}
    return {
        "Round 1": folded["player"] + folded["dealer"],
        "Round 3": cut["player"] + cut["dealer"] + cut["board"][3:],
    }


def test_a_folded_or_cut_short_uth_round_keeps_its_cards_face_down_in_the_replay():
    record, state = uth_session()
    frames = replays.build(record, ["me"]).frames
    unseen = uth_unseen(record, state)
    for chapter, cards in unseen.items():
        assert_unseen(of_chapter(frames, chapter), cards)
    # the folded round: its deal says the player is dealt two cards, face down
    deal = of_chapter(frames, "Round 1")[0]
    assert "is dealt two cards" in deal["lines"][0]
    (hole,) = deal["seats"][0]["zones"]
    assert hole["cards"] == [] and hole["down"] == 2
    # the flop was turned before the fault, and the board the river turned is public
    assert set(state.board[:3]) <= face_up(of_chapter(frames, "Round 3"))
    assert set(state.rounds[0]["board"]) <= face_up(of_chapter(frames, "Round 1"))
    # a round that reached the showdown shows everything, from its deal on
    shown = state.rounds[1]
    showdown = of_chapter(frames, "Round 2")
    assert set(shown["player"] + shown["dealer"]) <= face_up(showdown)
    assert ", ".join(labels(shown["player"])) in said(showdown[:1])


def test_the_command_lines_steps_of_a_uth_record_say_the_same():
    """``manage.py replay --steps`` lists the viewer's labels and lines (games/records.py)."""
    record, state = uth_session()
    report = records.replay(record, get_game("uth"))
    for chapter, cards in uth_unseen(record, state).items():
        told = [s for s in report["steps"] if s["label"].startswith(f"{chapter}:")]
        assert told
        text = "\n".join(line for step in told for line in step["lines"])
        assert not [label for label in labels(cards) if label in text]
    lines = "\n".join(records.report_lines(report, steps=True))
    assert (
        "step 1: Round 1: the deal\n  Round 1: p0 posts ante and blind and is dealt two cards"
        in lines
    )


def store(slug: str, record: dict, names: list[str], user=None) -> Match:
    """The record as a live table's match (no tournament); ``user`` holds seat 0."""
    match = Match.objects.create(game=slug, seed=record["seed"], record=record)
    for seat, name in enumerate(names):
        score = record["result"]["scores"][seat]
        MatchSeat.objects.create(
            match=match, seat=seat, name=name, score=score, user=user if seat == 0 else None
        )
    return match


def page_text(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


@pytest.mark.django_db
@pytest.mark.parametrize("signed_in", [False, True])
def test_no_page_or_replay_json_shows_a_folded_uth_rounds_cards(client, signed_in):
    """Not to a visitor with no session, nor to the player signed in: the replay is the
    same for everyone (the player saw them at the table)."""
    record, state = uth_session()
    player = get_user_model().objects.create_user("me") if signed_in else None
    if player is not None:
        client.force_login(player)
    match = store("uth", record, ["me"], player)
    base = f"/matches/{match.pk}/"
    frames = client.get(base + "replay.json").json()["frames"]
    unseen = uth_unseen(record, state)
    for chapter, cards in unseen.items():
        assert_unseen(of_chapter(frames, chapter), cards)
        first = next(f["step"] for f in frames if f["chapter"] == chapter)
        page = client.get(f"{base}?step={first + 1}").content.decode()
        window = page.split('<ol class="replay__log"')[1].split("</ol>")[0]
        steps = re.split(r'<li id="step-(\d+)"', window)[1:]
        for number, item in zip(steps[::2], steps[1::2], strict=True):
            if frames[int(number) - 1]["chapter"] == chapter:
                assert not [label for label in labels(cards) if label in page_text(item)]
        drawn = page.split('id="replay-frame"')[1].split('id="replay-decision"')[0]
        assert not [c for c in cards if f'data-code="{c}"' in drawn]
        held = json.loads(page.split('type="application/json">')[1].split("</script>")[0])
        assert_unseen([f for f in held["frames"] if f["chapter"] == chapter], cards)


def test_a_blackjack_deal_a_fault_cut_short_keeps_the_down_cards_face_down():
    """Every finished deal turns its down cards over; the one a fault cut short never did."""
    # deal 1: both stand; deal 2: seat 1 (player 0 now) stands, seat 0 has no answer left
    record, state = played("blackjack-pp", [["stand"], ["stand", "stand"]], 9, {"hands": 4})
    assert len(state.hands_played) == 1 and state.faults
    frames = replays.build(record, ["ann", "bob"]).frames
    cut = of_chapter(frames, "Deal 2")
    for frame in cut:
        for seat, part in enumerate(z for s in frame["seats"] for z in s["zones"]):
            position = (seat + 1) % 2  # seat 1 is player 0 in deal 2
            assert part["down"] == 1
            assert part["cards"] == [state.up[position], *state.hits[position]]
    # the finished deal showed them: at its end and from its start
    done = state.hands_played[0]
    for frame in [frames[0], *of_chapter(frames, "Deal 1")]:
        shown = [z["cards"][1] for s in frame["seats"] for z in s["zones"]]
        assert shown == done["cards"] and all(
            z["down"] == 0 for s in frame["seats"] for z in s["zones"]
        )


@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_a_poker_hand_a_fault_cut_short_keeps_its_cards_face_down(slug):
    # hand 1: seat 0 checks, seat 1 checks (a showdown); hand 2: seat 1 acts, seat 0 is out
    first = ["p"] if slug == "kuhn" else ["c", "c"]
    second = ["p", "p"] if slug == "kuhn" else ["c", "c", "c"]
    record, state = played(slug, [first, second], 5, {"hands": 4})
    assert len(state.hands_played) == 1 and state.faults
    frames = replays.build(record, ["ann", "bob"]).frames
    for frame in of_chapter(frames, "Hand 2"):
        assert all(z["cards"] == [] and z["down"] == 1 for s in frame["seats"] for z in s["zones"])
