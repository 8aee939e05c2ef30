"""Replay frames rebuilt from real match records, for every game."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
from collections import Counter
from unittest import mock

import pytest

from bots.running.playing import Entry, play
from games import replays
from games.last_card.logs import readable_from_record
from games.registry import get_game
from games.rps_poker.cards import FULL_DECK as RPS_DECK
from tests.games.matchmaking import RAISES


def record_of(game: str, entries: list[Entry], seed: int, config=None) -> dict:
    played = play(get_game(game), entries, seed=seed, config=config)
    return json.loads(json.dumps(played.outcome.record))  # as stored: JSON data


def builtins(*names: str) -> list[Entry]:
    return [Entry(name=f"{name}-{seat}", builtin=name) for seat, name in enumerate(names)]


def zone(part: dict, label: str) -> dict:
    (found,) = [z for z in part["zones" if "zones" in part else "shared"] if z["label"] == label]
    return found


def shared(frame: dict, prefix: str) -> list[dict]:
    return [z for z in frame["shared"] if z["label"].startswith(prefix)]


@pytest.fixture(scope="module")
def rps_record():
    return record_of("rps-poker", builtins("simple", "strong"), seed=11)


@pytest.fixture(scope="module")
def last_card_records():
    return [
        record_of("last-card", builtins("naive", "heuristic", "naive", "heuristic"), seed=s)
        for s in (1, 2, 3)
    ]


@pytest.fixture(scope="module")
def uth_record():
    return record_of("uth", builtins("basic"), seed=5, config={"max_rounds": 40})


# ---- RPS Poker ------------------------------------------------------------------------------
def test_it_replays_an_rps_poker_match_to_its_stored_result(rps_record):
    replay = replays.build(rps_record)
    assert replay.supported and not replay.error
    frames = replay.frames
    # the deal, five draft steps, ten games
    assert len(frames) == 16
    assert [f["step"] for f in frames] == list(range(16))
    assert frames[0]["label"] == "The deal"
    assert [f["label"] for f in frames[1:6]] == [f"Draft {n} of 5" for n in range(1, 6)]
    assert frames[-1]["label"] == "Game 10 of 10"
    assert frames[-1]["scores"] == rps_record["result"]["scores"]
    assert sum(frames[-1]["scores"]) == 10
    for game, frame in zip(rps_record["result"]["games"], frames[6:], strict=True):
        played = [zone(seat, "Played")["cards"] for seat in frame["seats"]]
        assert played == [[game["played"][0]], [game["played"][1]]]
        assert shared(frame, "Base of game")[0]["cards"] == [game["base"]]


def test_it_accounts_for_every_rps_poker_card_while_drafting(rps_record):
    frames = replays.build(rps_record).frames
    for frame in frames[:5]:
        seen = [c for seat in frame["seats"] for z in seat["zones"] for c in z["cards"]]
        assert len(seen) == len(set(seen))
        (undealt,) = shared(frame, "Undealt")
        assert len(seen) + undealt["down"] == len(RPS_DECK)
    # "Draft 4" is drawn at its decision: six cards drafted before it, two offered
    assert [len(zone(seat, "Drafted")["cards"]) for seat in frames[4]["seats"]] == [6, 6]
    # the draft is over: ten cards each (three in hand), the first base and nine to come
    main = frames[5]
    hands = [c for seat in main["seats"] for c in zone(seat, "Hand")["cards"]]
    decks = sum(zone(seat, "Deck")["down"] for seat in main["seats"])
    (base,) = shared(main, "Base of game 1")
    (undealt,) = shared(main, "Undealt")
    assert len(set(hands + base["cards"])) == 7
    assert len(hands) + decks + len(base["cards"]) + undealt["down"] == len(RPS_DECK)


def test_it_shrinks_the_rps_poker_hands_as_cards_are_played(rps_record):
    frames = replays.build(rps_record).frames[5:]
    left = [
        [len(zone(s, "Hand")["cards"]) + zone(s, "Deck")["down"] for s in frame["seats"]]
        for frame in frames
    ]
    assert left == [[10 - n, 10 - n] for n in range(11)]
    hands = [[len(zone(s, "Hand")["cards"]) for s in frame["seats"]] for frame in frames]
    assert hands[-4:] == [[3, 3], [2, 2], [1, 1], [0, 0]]


def test_it_tells_each_draft_pick_in_words(rps_record):
    first = replays.build(rps_record, names=["ann", "ben"]).frames[1]
    assert len(first["lines"]) == 2
    assert first["lines"][0].startswith("ann keeps ")
    assert " and passes " in first["lines"][0] and first["lines"][0].endswith(" to ben")


def test_each_draft_step_shows_the_cards_it_offered(rps_record):
    frames = replays.build(rps_record, names=["ann", "ben"]).frames
    for step, frame in enumerate(frames[1:5], start=1):
        assert frame["label"] == f"Draft {step} of 5"
        for seat, line in zip(frame["seats"], frame["lines"], strict=True):
            offered = [replays.card_view(c)["label"] for c in zone(seat, "Offered")["cards"]]
            kept = line.split(" keeps ")[1].split(" and passes ")[0]
            passed = line.split(" and passes ")[1].rsplit(" to ", 1)[0]
            assert sorted(offered) == sorted([kept, passed]), (step, line, offered)


def test_it_shows_a_fault_and_the_games_credited_to_the_opponent():
    """A fault stops the bot playing; it is not "out" (it may still win on the games it had
    won): the step says so, and the final score what the fault gave the other seat."""
    entries = [Entry(name="raiser", code=RAISES), Entry(name="simple", builtin="simple")]
    record = record_of("rps-poker", entries, seed=4)
    assert record["result"]["faults"]["0"]["kind"] == "exception"
    frames = replays.build(record).frames
    last = frames[-1]
    assert last["label"] == "A fault ends the match"
    assert last["actor"] == 0
    assert last["lines"][0].startswith("raiser faults and plays no further: exception: ")
    a, b = record["result"]["scores"]
    assert last["lines"][1:] == [
        f"Final score {a}-{b}: simple wins the match (raiser raised an error: the 8 unplayed "
        "games went to simple)"
    ]
    assert not [line for f in frames for line in f["lines"] if " is out" in line]
    assert last["scores"] == record["result"]["scores"]
    assert frames[-2]["label"] == "Game 2 of 10"


# ---- Last Card ------------------------------------------------------------------------------
def test_it_replays_last_card_games_to_their_stored_points(last_card_records):
    for record in last_card_records:
        frames = replays.build(record).frames
        assert frames[0]["label"] == "The deal"
        assert frames[-1]["scores"] == record["result"]["scores"]
        hands = [zone(seat, "Hand")["cards"] for seat in frames[-1]["seats"]]
        assert hands == record["result"]["hands"]
        actions = [e for e in record["events"] if e["type"] in ("action", "rejected", "fault")]
        assert len(frames) == 1 + len(actions)
        assert [f["actor"] for f in frames[1:]] == [e.get("seat") for e in actions]


def test_it_accounts_for_all_52_cards_in_every_last_card_frame(last_card_records):
    for record in last_card_records:
        for frame in replays.build(record).frames:
            hands = [c for seat in frame["seats"] for c in zone(seat, "Hand")["cards"]]
            played = zone(frame, "Played")["cards"]
            deck = zone(frame, "Deck")
            counts = Counter(hands + played)
            assert max(counts.values()) == 1
            assert len(hands) + len(played) + deck["down"] == 52
            assert not deck["cards"]  # the deck stays face down


def test_a_last_card_replay_says_which_way_play_goes_as_its_table_does(last_card_records):
    """Says "up the seats (1 → 2 → 3…)", not "clockwise", which a table drawn in rows
    cannot show; and both ways come up (a jack turns it)."""
    said = {note for record in last_card_records for frame in replays.build(record).frames
            for note in frame["notes"] if note.startswith("play goes")}  # fmt: skip
    assert said == {
        "play goes up the seats (1 → 2 → 3…)",
        "play goes down the seats (… 3 → 2 → 1)",
    }


def test_it_tells_a_last_card_game_with_the_kits_readable_log(last_card_records):
    for record in last_card_records:
        lines = [line for frame in replays.build(record).frames for line in frame["lines"]]
        assert lines == readable_from_record(record)
        assert lines[-1].endswith("points taken") or "points taken (" in lines[-1]


# ---- Ultimate Texas Hold'em -----------------------------------------------------------------
def settles(frame) -> bool:
    """A frame of the step that settles a round (a fold at the river, or the showdown)."""
    return frame["label"].endswith((": folded at the river", ": the river and the showdown"))


def test_it_replays_an_uth_session_round_by_round(uth_record):
    result = uth_record["result"]
    frames = replays.build(uth_record).frames
    assert frames[-1]["scores"] == result["scores"]
    showdowns = [f for f in frames if settles(f)]
    assert len(showdowns) == result["rounds_played"] == 40
    for number, frame in enumerate(showdowns, 1):
        folded = frame["decision"] == "folds"
        # the river's decision is named as what it is: a fold, or the way to the showdown
        ending = "folded at the river" if folded else "the river and the showdown"
        assert frame["label"] == f"Round {number}: {ending}"
        dealer = zone(frame, "Dealer")
        # the dealer turns its cards over at a showdown, not after a fold
        assert (len(dealer["cards"]), dealer["down"]) == ((0, 2) if folded else (2, 0))
        assert len(zone(frame, "Board")["cards"]) == 5
    deals = [f for f in frames if f["label"].endswith(": the deal")]
    assert len(deals) == 40
    for frame in deals:
        assert zone(frame, "Dealer") == {"label": "Dealer", "cards": [], "down": 2, "fan": "row"}
        assert zone(frame, "Board")["down"] == 5


def test_it_keeps_every_uth_card_unique_and_the_board_size_fixed(uth_record):
    for frame in replays.build(uth_record).frames:
        cards = [c for z in frame["shared"] for c in z["cards"]]
        cards += zone(frame["seats"][0], "Hole cards")["cards"]
        assert len(cards) == len(set(cards))
        board = zone(frame, "Board")
        assert len(board["cards"]) + board["down"] == 5
        assert len(board["cards"]) in (0, 3, 5)


def test_it_nets_the_uth_showdowns_to_the_session_result(uth_record):
    frames = replays.build(uth_record).frames
    showdown_scores = [f["scores"][0] for f in frames if settles(f)]
    nets = uth_record["result"]["nets"]
    assert showdown_scores[-1] == uth_record["result"]["scores"][0]
    assert showdown_scores == [sum(nets[: n + 1]) for n in range(len(nets))]


# ---- every game -----------------------------------------------------------------------------
def test_it_describes_cards_for_drawing():
    assert replays.card_view("Qh") == {
        "code": "Qh", "rank": "Q", "suit": "\u2665", "color": "red", "label": "queen of hearts"
    }  # fmt: skip
    assert replays.card_view("Ts")["rank"] == "10"
    assert replays.card_view("Ts")["label"] == "10 of spades"
    assert replays.card_view("2c")["color"] == "black"
    assert replays.card_view("R3")["label"] == "rock 3"
    assert replays.card_view("S0")["color"] == "scissors"


def test_it_lists_every_card_the_frames_use(rps_record):
    replay = replays.build(rps_record).as_json()
    assert set(replay["cards"]) == set(RPS_DECK)  # every card passes over the table
    assert json.loads(json.dumps(replay)) == replay


def test_it_has_no_frames_for_a_game_without_a_builder(rps_record):
    record = dict(rps_record, game="blackjack")
    replay = replays.build(record)
    assert not replay.supported and not replay.error and replay.frames == []


def test_it_refuses_a_record_that_does_not_replay(rps_record):
    record = copy.deepcopy(rps_record)
    chance = next(e for e in record["events"] if e["type"] == "chance")
    chance["outcome"] = chance["outcome"][:-1]
    replay = replays.build(record)
    assert not replay.supported
    assert "not a shuffle" in replay.error


#: a Last Card bot that always plays its first card, legal or not (refused moves are passes)
RECKLESS = """
class Bot:
    def play(self, state):
        return {"cards": state["hand"][:1], "suit": "h", "last_card": False}
"""

#: an UTH bot that answers nonsense in the second round, then plays on
MUMBLES = """
class Bot:
    def act(self, obs):
        if obs["round"] == 2 and obs["error"] is None:
            return "[maybe later]"
        return obs["legal"][-1]
"""


def test_it_shows_refused_last_card_moves_as_turns():
    entries = [Entry(name="reckless", code=RECKLESS), *builtins("naive", "heuristic")]
    record = record_of("last-card", entries, seed=6, config={"max_turns": 60})
    refused = [e for e in record["events"] if e["type"] == "rejected"]
    assert refused
    frames = replays.build(record).frames
    assert sum(1 for f in frames if any(line.startswith("Illegal move!") for line in f["lines"]))
    assert len(frames) == 1 + sum(e["type"] != "chance" for e in record["events"])
    assert frames[-1]["scores"] == record["result"]["scores"]
    for frame in frames:
        hands = [c for seat in frame["seats"] for c in zone(seat, "Hand")["cards"]]
        played = zone(frame, "Played")["cards"]
        assert len(set(hands + played)) + zone(frame, "Deck")["down"] == 52


def test_it_shows_a_refused_uth_answer_as_a_step():
    record = record_of("uth", [Entry(name="mumbles", code=MUMBLES)], 2, {"max_rounds": 3})
    assert [e["type"] for e in record["events"]].count("rejected") == 1
    frames = replays.build(record).frames
    (refused,) = [f for f in frames if f["decision"] == "refused answer"]
    assert refused["label"] == "Round 2: before the flop"
    assert "mumbles answers '[maybe later]': refused" in refused["lines"][0]
    assert frames[-1]["scores"] == record["result"]["scores"]


def test_seats_of_the_same_name_say_which_seat_they_are():
    same = [Entry(name="builtin:heuristic", builtin="heuristic") for _ in range(3)]
    record = record_of("last-card", same, seed=4)
    replay = replays.build(record)
    assert replay.names == [f"builtin:heuristic (seat {n})" for n in (1, 2, 3)]
    lines = [line for frame in replay.frames for line in frame["lines"]]
    assert any("builtin:heuristic (seat 2)" in line for line in lines)


# ---- chapters: what the viewer's "jump to" lists -----------------------------------------------
def labels_and_steps(replay) -> tuple[list[str], list[int]]:
    chapters = replay.chapters()
    return [c["label"] for c in chapters], [c["step"] for c in chapters]


def assert_chapters_are_runs(replay) -> None:
    """Each chapter starts where the frames' chapter changes, and every frame has one."""
    chapters = replay.chapters()
    assert chapters[0]["step"] == 0
    bounds = [c["step"] for c in chapters] + [len(replay.frames)]
    for chapter, stop in zip(chapters, bounds[1:], strict=True):
        run = replay.frames[chapter["step"] : stop]
        assert run and all(f["chapter"] == chapter["label"] for f in run)
    labels = [c["label"] for c in chapters]
    assert all(a != b for a, b in itertools.pairwise(labels))


def test_an_uth_session_has_a_chapter_for_each_round(uth_record):
    replay = replays.build(uth_record)
    assert_chapters_are_runs(replay)
    labels, steps = labels_and_steps(replay)
    assert labels == [f"Round {n}" for n in range(1, 41)]
    for label, step in zip(labels, steps, strict=True):
        assert replay.frames[step]["label"] == f"{label}: the deal"
    for frame in replay.frames:
        assert frame["label"].startswith(frame["chapter"] + ":")


def test_an_rps_poker_match_has_the_deal_the_draft_and_each_game(rps_record):
    replay = replays.build(rps_record)
    assert_chapters_are_runs(replay)
    labels, steps = labels_and_steps(replay)
    assert labels == ["The deal", "The draft", *(f"Game {n}" for n in range(1, 11))]
    assert steps == [0, 1, *range(6, 16)]


def test_last_card_has_a_chapter_for_each_turn(last_card_records):
    replay = replays.build(last_card_records[0])
    assert_chapters_are_runs(replay)
    labels, _ = labels_and_steps(replay)
    assert labels == [f["label"] for f in replay.frames]  # one step is one turn
    assert labels[0] == "The deal" and labels[1] == "Turn 1"


@pytest.mark.parametrize(
    ("game", "bot", "unit"),
    [("kuhn", "simple", "Hand"), ("leduc", "simple", "Hand"), ("blackjack-pp", "simple", "Deal")],
)
def test_the_chip_games_have_a_chapter_for_each_hand(game, bot, unit):
    record = record_of(game, builtins(bot, bot), seed=3, config={"hands": 6})
    replay = replays.build(record)
    assert replay.supported and not replay.error
    assert_chapters_are_runs(replay)
    labels, steps = labels_and_steps(replay)
    assert labels == ["The start", *(f"{unit} {n}" for n in range(1, 7))]
    for label, step in zip(labels[1:], steps[1:], strict=True):
        assert replay.frames[step]["label"].startswith(label)
        assert replay.frames[step - 1]["label"].endswith(": the end") or step == 1


def test_goofspiel_has_a_chapter_for_each_deal():
    record = record_of("goofspiel", builtins("matching", "matching"), seed=3)
    replay = replays.build(record)
    assert_chapters_are_runs(replay)
    labels, _ = labels_and_steps(replay)
    assert labels == [f"Deal {n}" for n in range(1, len(labels) + 1)]
    for frame in replay.frames[1:]:
        assert frame["label"].startswith(frame["chapter"] + ",") or frame["label"] == "The deal"


def test_a_builder_without_chapters_has_each_label_as_one():
    record = record_of("rps-poker", builtins("simple", "strong"), seed=11)
    spec = get_game("rps-poker")

    def plain(record, names):  # the game's frames, less their chapters
        frames = spec.replay(record, names)
        for frame in frames:
            del frame["chapter"]
        return frames

    spec_without = dataclasses.replace(spec, replay=plain)
    with mock.patch("games.replays.get_game", return_value=spec_without):
        replay = replays.build(record)
    assert [f["chapter"] for f in replay.frames] == [f["label"] for f in replay.frames]
    assert len(replay.chapters()) == 16


# ---- windows of a replay ---------------------------------------------------------------------
def test_a_window_of_the_replay_holds_its_frames_and_their_cards(uth_record):
    replay = replays.build(uth_record)
    whole = replay.as_json()
    assert whole["total"] == whole["count"] == len(replay.frames)
    assert whole["from"] == 0 and whole["chapters"] == replay.chapters()
    part = replay.as_json(30, 10)
    assert part["from"] == 30 and part["count"] == 10 and part["total"] == len(replay.frames)
    assert part["frames"] == replay.frames[30:40]
    assert part["cards"] == replays.cards_of(replay.frames[30:40])
    assert set(part["cards"]) < set(whole["cards"])
    tail = replay.as_json(len(replay.frames) - 3, 10)
    assert tail["count"] == 3 and tail["frames"] == replay.frames[-3:]
    assert json.loads(json.dumps(part)) == part
