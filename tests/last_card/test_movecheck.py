"""The move checker bot authors import agrees with the engine, with the rules as the spec
states them, and with the built-in bots, on thousands of states from random games."""

from __future__ import annotations

import ast
import itertools
import random
import shutil
import subprocess
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
    problem,
)
from games.last_card.rules import FULL_DECK, LastCardState
from games.registry import get_game
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


#: plays cards after an ace with the kit's Java checker: "HAND TOP SUIT CARD" per line in,
#: its reason (or "null") per line out
JAVA_CHECKS = """import com.orchestral.shark.*;
import java.util.ArrayList;
import java.util.List;
import java.util.Scanner;

public class Checks {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        while (in.hasNext()) {
            List<Card> hand = new ArrayList<>();
            for (String code : in.next().split(",")) hand.add(Card.of(code));
            Card top = Card.of(in.next());
            Suit chosen = Suit.of(in.next().charAt(0));
            Card card = Card.of(in.next());
            GameState state = new GameState(hand, top, List.of(hand.size(), 5), 20, List.of(top),
                    chosen, 0, 0, 1);
            Move move = new Move.Builder().addCardPlayed(card).build();
            System.out.println(new LastCardMoveChecker().problem(state, move));
        }
    }
}
"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")
def test_the_java_kits_checker_says_what_it_says_after_an_ace(tmp_path):
    """A card not of the suit an ace asked for: the Java kit's LastCardMoveChecker says what
    is wrong and what may be played instead in this checker's very words."""
    kit = get_game("last-card").kits["java"]
    kit = [path for path in kit if "package card_arena;" not in path.read_text()]  # (no adapter)
    (tmp_path / "Checks.java").write_text(JAVA_CHECKS)
    subprocess.run(
        ["javac", "--release", "17", "-nowarn", "-d", str(tmp_path), *map(str, kit),
         str(tmp_path / "Checks.java")],
        check=True, capture_output=True,
    )  # fmt: skip
    cases = [
        (["4h", "8s", "Kc"], "Ad", "s", "4h"),
        (["Th", "Qd", "2c"], "As", "d", "Th"),
        (["Jc", "3h"], "Ah", "h", "Jc"),
        (["9s", "7d"], "Ac", "c", "7d"),
    ]
    lines = "".join(f"{','.join(hand)} {top} {suit} {card}\n" for hand, top, suit, card in cases)
    said = subprocess.run(
        ["java", "-cp", str(tmp_path), "Checks"],
        input=lines, check=True, capture_output=True, text=True,
    ).stdout.splitlines()  # fmt: skip
    expected = [
        problem(hand, top, suit, 0, {"cards": [card], "suit": None, "last_card": False})
        for hand, top, suit, card in cases
    ]
    assert said == expected
    assert expected[0] == (
        "the ace on top asks for spades and the 4 of hearts is not a spade: "
        "play a spade or an ace, or pass and draw a card"
    )
    assert expected[1].startswith("the ace on top asks for diamonds and the 10 of hearts is not")
