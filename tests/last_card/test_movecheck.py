"""The move checker bot authors import agrees with the engine, with the rules as the spec
states them, and with the built-in bots, on thousands of states from random games."""

from __future__ import annotations

import ast
import itertools
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.engine.game import IllegalAction
from games.last_card.bots import heuristic, naive
from games.last_card.movecheck import (
    PASS,
    SUITS,
    card_name,
    check_move,
    is_legal_move,
    legal_moves,
)
from games.last_card.rules import FULL_DECK, LastCardState
from tests.last_card.test_properties import random_move


def spec_says_legal(view: dict, move: dict) -> bool:
    """The spec's rules said again, as plainly as possible, for well-formed moves."""
    cards, hand, top = move["cards"], view["hand"], view["last_played"]
    if not cards:
        return True
    if len(cards) > 4 or len(set(cards)) < len(cards) or not set(cards) <= set(hand):
        return False
    if len({card[0] for card in cards}) > 1:
        return False
    first, last = cards[0], cards[-1]
    if view["punishment"]:
        first_ok = first[0] == top[0]
    elif first[0] == "A":
        first_ok = True
    elif top[0] == "A":
        first_ok = first[1] == view["active_suit"]
    else:
        first_ok = first[0] == top[0] or first[1] == top[1]
    if last[0] == "A" and (move["suit"] is None or len(cards) == len(hand)):
        return False
    return first_ok


def states(games: int, seed: int) -> Iterator[tuple[LastCardState, dict]]:
    """Every state met in random games with random (legal and illegal) moves."""
    rng = random.Random(seed)
    for _ in range(games):
        state = LastCardState.new(rng.randrange(2**32), num_seats=rng.choice([2, 3, 4]))
        assert isinstance(state, LastCardState)
        while not state.is_over():
            yield state, state.view(state.current)
            action = random_move(state, rng)
            if state.can(state.current, action):
                state.apply(state.current, action)
            else:
                state.reject(state.current, action, "test")


def candidates(view: dict, rng: random.Random) -> list[dict]:
    hand = view["hand"]
    moves = [dict(PASS)]
    for card in hand:
        suits = [None, *SUITS] if card[0] == "A" else [None, rng.choice(SUITS)]
        moves += [{"cards": [card], "suit": s, "last_card": False} for s in suits]
    pairs = list(itertools.permutations(hand, 2))
    same = [p for p in pairs if p[0][0] == p[1][0]]
    for pair in same + rng.sample(pairs, min(len(pairs), 12)):
        moves.append({"cards": list(pair), "suit": rng.choice(SUITS), "last_card": True})
    moves.append({"cards": [rng.choice(FULL_DECK)], "suit": None, "last_card": False})
    return moves


def test_it_agrees_with_the_engine_and_the_spec_on_every_move_of_many_states():
    rng = random.Random(4)
    seen = legal = 0
    for state, view in states(games=10, seed=1):
        for move in candidates(view, rng):
            reason = check_move(view, move)
            try:
                state.verify(state.current, move)
            except IllegalAction as exc:
                assert reason == str(exc)
            else:
                assert reason is None
            assert (reason is None) == spec_says_legal(view, move), (view, move, reason)
            seen += 1
            legal += reason is None
    assert seen > 10_000
    assert 0.05 < legal / seen < 0.6  # both answers are well exercised


def test_it_lists_exactly_the_legal_moves():
    rng = random.Random(9)
    for n, (_state, view) in enumerate(states(games=6, seed=2)):
        if n % 3:
            continue
        listed = legal_moves(view)
        assert all(is_legal_move(view, m) for m in listed)
        keys = {(tuple(m["cards"]), m["suit"]) for m in listed}
        for move in candidates(view, rng):
            move = dict(move, last_card=False)
            if move["cards"] and is_legal_move(view, move):
                suit = move["suit"] if move["cards"][-1][0] == "A" else None
                assert (tuple(move["cards"]), suit) in keys


def test_it_is_what_the_naive_bot_does_and_the_heuristic_bot_never_breaks_it():
    for _state, view in states(games=10, seed=3):
        first = next(
            (
                c
                for c in view["hand"]
                if is_legal_move(view, {"cards": [c], "suit": c[1], "last_card": False})
            ),
            None,
        )
        chosen = naive.Bot().play(dict(view))
        assert chosen["cards"] == ([first] if first else [])
        assert chosen["last_card"] == (first is not None and len(view["hand"]) == 2)
        smart = heuristic.Bot().play(dict(view))
        assert check_move(view, smart) is None, (view, smart)


@pytest.mark.parametrize(
    ("card", "name"), [("Td", "10 of diamonds"), ("As", "ace of spades"), ("Jh", "jack of hearts")]
)
def test_it_names_cards_for_people(card, name):
    assert card_name(card) == name


@pytest.mark.parametrize(
    "path",
    [
        "games/last_card/movecheck.py",
        "games/last_card/bots/naive.py",
        "games/last_card/bots/heuristic.py",
    ],
)
def test_it_and_the_built_in_bots_need_the_standard_library_alone(path):
    modules = set()
    for node in ast.walk(ast.parse(Path(path).read_text())):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0])
    assert modules <= set(sys.stdlib_module_names)
