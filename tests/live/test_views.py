"""What a live table shows: every view holds only what its seat (or a spectator) may see.

Random matches are played through each engine; at every step every view is searched for the
cards the engine keeps hidden from that audience."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engine.game import IllegalAction
from games.last_card.movecheck import problem
from games.registry import get_game


def strings(view: Any) -> set[str]:
    """Every string in a JSON view (cards are strings; a card must not hide in a key)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                found.add(str(k))
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    walk(view)
    return found


def random_action(state, seat: int, rng: random.Random) -> Any:
    prompt = state.prompt(seat)
    if state.game == "rps-poker":
        cards = prompt.data.get("cards") or prompt.data["hand"]
        return rng.randrange(len(cards))
    if state.game == "uth":
        return f"[{rng.choice(prompt.data['legal'])}]"
    hand = prompt.data["hand"]
    singles = [
        {"cards": [c], "suit": c[1] if c[0] == "A" else None, "last_card": len(hand) == 2}
        for c in hand
    ]
    legal = [
        m
        for m in singles
        if problem(hand, state.played[-1], state.active_suit, state.punishment, m) is None
    ]
    return rng.choice(legal) if legal and rng.random() < 0.9 else {"cards": []}


def play_through(slug: str, seed: int, seats: int, check) -> int:
    spec = get_game(slug)
    rules = spec.table()
    config = {"max_rounds": 6} if slug == "uth" else None
    state = spec.state_class.new(seed, num_seats=seats, config=config)
    rng = random.Random(seed)
    steps = 0
    while True:
        state.take_notices()
        for seat in [None, *range(seats)]:
            view = rules.view(state, seat)
            json.dumps(view)  # a view travels as JSON
            check(state, seat, view)
        if state.is_over() or steps > 400:
            return steps
        for seat in state.pending():
            try:
                state.apply(seat, random_action(state, seat, rng))
            except IllegalAction:
                state.reject(seat, {"cards": []}, "test")
        steps += 1


def rps_check(state, seat, view) -> None:
    hidden = set(state.remaining)
    for s in (0, 1):
        if s != seat:
            hidden |= set(state.hands[s]) | set(state.decks[s]) | set(state.offers[s])
    if seat is not None:
        assert view["you"]["hand"] == state.hands[seat]
        assert "choice" not in view["you"] or seat in state.chosen
    leaked = strings(view) & hidden
    assert not leaked, f"seat {seat} sees {leaked}"
    # a choice made is shown as made, never as what it was
    assert view["chosen"] == sorted(state.chosen)


def last_card_check(state, seat, view) -> None:
    played_ever = {c for e in state.history if e.get("e") == "play" for c in e["cards"]}
    hidden = set(state.deck)
    for s, hand in enumerate(state.hands):
        if s != seat:
            hidden |= set(hand)
    leaked = (strings(view) & hidden) - played_ever
    assert not leaked, f"seat {seat} sees {leaked}"
    assert view["hand_sizes"] == [len(h) for h in state.hands]
    if seat is not None:
        assert sorted(view["you"]["hand"]) == sorted(state.hands[seat])


def uth_check(state, seat, view) -> None:
    current = {k: v for k, v in view.items() if k != "rounds"}
    hidden = set(state.dealer) | (set(state.board) - set(state.visible_board()))
    if seat is None:
        hidden |= set(state.player)
    if not state.is_over():
        leaked = strings(current) & hidden
        assert not leaked, f"seat {seat} sees {leaked}"
    # settled rounds only, as the seat may see them: a folded round's dealer cards to no one,
    # its hole cards to the seat alone
    settled = state.rounds[-len(view["rounds"]) :] if view["rounds"] else []
    assert view["rounds"] == [state.seen_round(r, seat) for r in settled]
    for shown, done in zip(view["rounds"], settled, strict=True):
        if done["folded"]:
            assert not strings(shown) & set(done["dealer"]) - set(done["board"])
    assert len(view["rounds"]) <= len(state.rounds)


@pytest.mark.parametrize("seed", range(8))
def test_rps_poker_views_hide_the_other_hand_and_the_deck(seed):
    assert play_through("rps-poker", seed, 2, rps_check) > 10


@pytest.mark.parametrize(("seed", "seats"), [(s, 2 + s % 3) for s in range(9)])
def test_last_card_views_hide_other_hands_and_the_deck(seed, seats):
    assert play_through("last-card", seed, seats, last_card_check) > 3


@pytest.mark.parametrize("seed", range(6))
def test_uth_views_hide_the_dealer_and_the_unturned_board(seed):
    assert play_through("uth", seed, 1, uth_check) >= 3


def test_the_default_action_is_legal_wherever_a_person_may_be_asked():
    rng = random.Random(5)
    for slug, seats in (("rps-poker", 2), ("last-card", 4), ("uth", 1)):
        spec = get_game(slug)
        rules = spec.table()
        config = {"max_rounds": 4} if slug == "uth" else None
        state = spec.state_class.new(rng.randrange(10**6), num_seats=seats, config=config)
        moves = 0
        while not state.is_over() and moves < 300:
            state.take_notices()
            for seat in state.pending():
                default = rules.default_action(state, seat)
                state.verify(seat, default)  # raises if the safe move is illegal
                state.apply(
                    seat, default if rng.random() < 0.5 else random_action(state, seat, rng)
                )
                moves += 1
        assert moves > 3, slug


@pytest.mark.parametrize("seed", range(4))
def test_uth_frames_and_actions_hide_the_dealer_and_the_unturned_board(seed):
    spec = get_game("uth")
    rules = spec.table()
    state = spec.state_class.new(seed, num_seats=1, config={"max_rounds": 6})
    rng = random.Random(seed)
    checked = 0
    while not state.is_over():
        hidden = set(state.dealer) | (set(state.board) - set(state.visible_board()))
        for seat in (None, 0):
            frame = rules.frame(state, seat, ["me"])
            actions = rules.actions(state, seat) if seat is not None else []
            json.dumps([frame, actions])
            # the settled round's zones show that round's cards, which it turned over
            current = {**frame, "shared": [z for z in frame["shared"]
                                           if not z["label"].startswith("Round ")]}  # fmt: skip
            shown = strings(current) | strings(actions)
            assert not shown & hidden, f"seat {seat} sees {shown & hidden}"
            if seat is None:
                assert not shown & set(state.player)
            else:
                assert {a["value"] for a in actions} == {f"[{a}]" for a in state.legal()}
                assert set(frame["hand"][0]["cards"]) == set(state.player)
            checked += 1
        state.apply(0, random_action(state, 0, rng))
    assert checked > 10
