"""The hands already played, at a live table of Kuhn poker, Leduc hold'em, Blackjack++ or
Ultimate Texas Hold'em: each seat sees its own cards of every past hand beside what the
others showed, and the result; a folded hand's cards reach no one but their owner (not the
other seat, not a spectator), in the frames the server sends and in its sockets' messages."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest

from games.engine.agents import ScriptedAgent
from games.engine.runner import MatchRunner
from games.registry import get_game
from games.replays import card_view
from tests.live.test_consumers import finish_off, two_players_and_a_spectator

NAMES = ["ann", "bob"]
#: seat 0 acts first in hand 1 and folds it away; hand 2 is checked to the showdown
FOLD = {"kuhn": ("b", "p"), "leduc": ("r", "f")}
CODES = {"J": "Js", "Q": "Qs", "K": "Ks"}


def code(slug: str, card: str) -> str:
    return CODES[card] if slug == "kuhn" else card


def label(card: str) -> str:
    return card_view(card)["label"]


def zones_of(frame: dict[str, Any], prefix: str) -> dict[str, dict[str, Any]]:
    return {z["label"]: z for z in frame["shared"] if z["label"].startswith(prefix)}


def log_line(frame: dict[str, Any], start: str) -> str:
    (line,) = [e["text"] for e in frame["log"] if e["text"].startswith(start)]
    return line


def after_a_fold(slug: str):
    """The table rules of ``slug``, and a sitting of two hands whose first seat 1 folded."""
    spec = get_game(slug)
    state = spec.state_class.new(7, config={"hands": 2})
    bet, fold = FOLD[slug]
    state.apply(0, bet)
    state.apply(1, fold)
    return spec.table(), state


@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_a_folded_hand_shows_its_own_card_to_each_seat_alone(slug):
    rules, state = after_a_fold(slug)
    (done,) = state.hands_played
    assert not done["showdown"]
    held = [code(slug, c) for c in done["cards"]]  # by position: seat 0 was first
    for seat in (0, 1):
        frame = rules.frame(state, seat, NAMES)
        zones = zones_of(frame, "Hand 1: ")
        other = NAMES[1 - seat]
        assert zones["Hand 1: you"]["cards"] == [held[seat]]
        assert zones[f"Hand 1: {other}"]["cards"] == [] and zones[f"Hand 1: {other}"]["down"] == 1
        line = log_line(frame, "Hand 1: ")
        assert line.endswith(f"uncontested (you held the {label(held[seat])}).")
        # the other seat's card is named nowhere it is sent (unless it is the seat's own
        # card of the hand in play)
        now = rules.frame(state, seat, NAMES)["hand"][0]["cards"]
        if held[1 - seat] not in now:
            sent = json.dumps(frame)
            assert f'"{held[1 - seat]}"' not in sent and label(held[1 - seat]) not in sent
    spectator = rules.frame(state, None, NAMES)
    assert zones_of(spectator, "Hand 1") == {}
    assert "held" not in log_line(spectator, "Hand 1: ")
    sent = json.dumps(spectator)
    assert not any(f'"{c}"' in sent or label(c) in sent for c in held)


@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_the_end_shows_the_last_showdown_by_seat_to_everyone(slug):
    rules, state = after_a_fold(slug)
    while not state.is_over():  # hand 2: check (or call) to the showdown
        state.apply(state.pending()[0], "p" if slug == "kuhn" else "c")
    shown = state.hands_played[1]
    assert shown["showdown"] and shown["first"] == 1
    by_seat = [code(slug, c) for c in shown["cards"]][::-1]
    for audience in (None, 0, 1):
        frame = rules.frame(state, audience, NAMES)
        zones = zones_of(frame, "Hand 2: ")
        for seat in (0, 1):
            who = "you" if seat == audience else NAMES[seat]
            assert zones[f"Hand 2: {who}"]["cards"] == [by_seat[seat]]
        if slug == "leduc":
            assert zones["Hand 2: board"]["cards"] == [shown["board"]]
        assert "at the showdown" in log_line(frame, "Hand 2: ")


def test_a_settled_blackjack_deal_shows_every_hand_and_yours_in_the_log():
    spec = get_game("blackjack-pp")
    rules = spec.table()
    state = spec.state_class.new(3, config={"hands": 2})
    while state.hand == 0:
        state.apply(state.pending()[0], "stand")
    done = state.hands_played[0]
    by_seat = [[done["up"][p], done["cards"][p], *done["hits"][p]] for p in (0, 1)]
    if done["first"] == 1:
        by_seat = by_seat[::-1]
    for audience in (None, 0, 1):
        frame = rules.frame(state, audience, NAMES)
        zones = zones_of(frame, "Deal 1: ")
        for seat in (0, 1):
            who = "you" if seat == audience else NAMES[seat]
            assert zones[f"Deal 1: {who}"]["cards"] == by_seat[seat]
        assert zones["Deal 1: dealer"]["cards"] == done["dealer"]
        line = log_line(frame, "Deal 1: ")
        if audience is None:
            assert "held" not in line
        else:
            words = " and ".join(f"the {label(c)}" for c in by_seat[audience])
            assert line.endswith(f" (you held {words}).")


def uth_session(actions: list[str]):
    game = get_game("uth")
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(4, config={"max_rounds": 2}), [ScriptedAgent(actions)], seed=4
    )
    return game.table(), outcome.state


def test_a_uth_round_shows_your_hole_cards_beside_the_dealers():
    rules, state = uth_session(["[check]", "[check]", "[1x]"] * 2)
    last = state.rounds[-1]
    assert not last["folded"]
    mine = rules.frame(state, 0, ["me"])
    zones = zones_of(mine, "Round 2: ")
    assert zones["Round 2: your cards"]["cards"] == last["player"]
    assert zones["Round 2: dealer"]["cards"] == last["dealer"]
    words = " and ".join(f"the {label(c)}" for c in last["player"])
    assert log_line(mine, "Round 2").startswith(f"Round 2 (you held {words}): ")
    # a showdown turns the player's cards over for a spectator too
    watched = rules.frame(state, None, ["me"])
    assert zones_of(watched, "Round 2: ")["Round 2: player"]["cards"] == last["player"]


def test_a_folded_uth_rounds_hole_cards_reach_the_player_alone():
    rules, state = uth_session(["[check]", "[check]", "[fold]"] * 2)
    last = state.rounds[-1]
    assert last["folded"]
    mine = rules.frame(state, 0, ["me"])
    assert zones_of(mine, "Round 2: ")["Round 2: your cards"]["cards"] == last["player"]
    watched = rules.frame(state, None, ["me"])
    player = zones_of(watched, "Round 2: ")["Round 2: player"]
    assert player["cards"] == [] and player["down"] == 2
    assert "held" not in log_line(watched, "Round 2")
    sent = json.dumps(watched)
    unseen = set(last["player"]) - set(last["board"])
    assert not [c for c in unseen if f'"{c}"' in sent or label(c) in sent]


def test_a_folded_uth_round_names_the_player_to_anyone_else():
    """A spectator is told who folded, not "you folded"; the player's own lines are theirs."""
    rules, state = uth_session(["[check]", "[check]", "[fold]"] * 2)
    watched = rules.frame(state, None, ["bob"])
    assert "Round 2: bob folded, \u221250 chips." in watched["lines"]
    assert log_line(watched, "Round 1") == (
        "Round 1, bob: check, check, fold; folded: \u221250 chips (950 now)."
    )
    mine = rules.frame(state, 0, ["bob"])
    assert "Round 2: you folded, \u221250 chips." in mine["lines"]
    assert log_line(mine, "Round 1").startswith("Round 1 (you held ")


def test_a_uth_seats_chips_count_its_bets_on_the_table_as_the_log_does():
    """The ante and blind of a round are posted as it starts: the seat's chips count them
    (with what is behind said apart), so they agree with the log's count after a round."""
    game = get_game("uth")
    rules, state = game.table(), game.state_class.new(4, config={"max_rounds": 3})
    seat = rules.frame(state, 0, ["bob"])["seats"][0]
    assert seat["score"] == "1000 chips"  # nothing lost before the first card
    assert seat["notes"][1:] == ["on the table: ante 25, blind 25", "950 behind"]
    for action in ("[check]", "[check]", "[fold]"):
        state.apply(0, action)
    frame = rules.frame(state, None, ["bob"])
    assert log_line(frame, "Round 1").endswith("(950 now).")
    assert frame["seats"][0]["score"] == "950 chips"
    assert frame["seats"][0]["notes"][1:] == ["on the table: ante 25, blind 25", "900 behind"]


# ---- over the sockets ----------------------------------------------------------------------
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_over_the_sockets_each_player_sees_their_folded_cards_and_no_one_elses():
    """Two people play a sitting of Kuhn poker in which every hand is folded: at the end each
    one's log names their own card of every hand, and nothing the other seat or a spectator
    is sent names a card of theirs."""
    table, a, b, watcher = await two_players_and_a_spectator("kuhn", config={"hands": 10})
    socks = {0: a, 1: b}
    # the card each seat holds in each hand, as its own table showed it
    held: dict[int, dict[int, str]] = {0: {}, 1: {}}
    answered: dict[int, set[int]] = {0: set(), 1: set()}
    over = False
    while not over:
        waits = {
            seat: asyncio.ensure_future(sock.next({"turn", "over"}, timeout=20))
            for seat, sock in socks.items()
        }
        done, pending = await asyncio.wait(
            [*waits.values()], return_when=asyncio.FIRST_COMPLETED, timeout=20
        )
        for task in pending:
            task.cancel()
        assert done, "no turn and no end"
        seat = next(s for s, t in waits.items() if t in done)
        message = waits[seat].result()
        if message["type"] == "over":
            over = True
            break
        view = socks[seat].last_state()
        hand = int(re.match(r"Hand (\d+) of", view["frame"]["label"]).group(1))
        held[seat][hand] = view["frame"]["hand"][0]["cards"][0]
        if message["turn"] in answered[seat] or not view["actions"]:
            continue
        answered[seat].add(message["turn"])
        # the first to act bets, the other folds: no hand reaches a showdown
        folds = any(x["label"] == "Fold" for x in view["actions"])
        await socks[seat].send({"type": "act", "turn": message["turn"],
                                "action": "p" if folds else "b"})  # fmt: skip
    for sock in (a, b, watcher):
        if not any(f["type"] == "over" for f in sock.frames):
            await sock.next("over", timeout=20)
    await finish_off(table)
    for sock in (a, b, watcher):
        await sock.close()
    assert len(held[0]) == len(held[1]) == 10
    for seat, sock in socks.items():
        final = sock.last_state()["frame"]
        for hand in range(1, 11):
            line = log_line(final, f"Hand {hand}: ")
            assert line.endswith(f"uncontested (you held the {label(held[seat][hand])}).")
    # no one is told another seat's card of a hand: every log line, zone and result a seat
    # is sent of a finished hand names its own card at most, and a spectator's none
    for seat, sock in ((0, a), (1, b), (None, watcher)):
        for frame in [f["frame"] for f in sock.frames if f["type"] == "state"]:
            for entry in frame["log"]:
                found = re.match(r"Hand (\d+): ", entry["text"])
                if found:
                    named = set(re.findall(r"(jack|queen|king) of spades", entry["text"]))
                    mine = None if seat is None else held[seat][int(found[1])]
                    own = set() if mine is None else {label(mine).split()[0]}
                    assert named <= own, (seat, entry["text"])
            for z in frame["shared"]:
                if seat is None:
                    assert z["cards"] == [], z
                else:
                    number = int(re.match(r"Hand (\d+): ", z["label"])[1])
                    assert z["cards"] in ([], [held[seat][number]]), (seat, z)
        (end,) = [f for f in sock.frames if f["type"] == "over"]
        for hand, done in enumerate(end["result"]["hand_log"], 1):
            own = [] if seat is None else [held[seat][hand][0]]  # "Ks" is Kuhn's "K"
            assert [c for c in done["cards"] if c is not None] == own
