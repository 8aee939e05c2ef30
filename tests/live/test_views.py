"""What a live table shows: every frame and its actions hold only what their seat (or a
spectator) may see.

Random matches are played through each engine; at every step what each audience is sent is
searched for the cards the engine keeps hidden from it, by code and by name."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from games.engine.game import IllegalAction
from games.last_card.movecheck import problem
from games.last_card.table import LastCardTable
from games.registry import get_game
from games.replays import card_view
from tests.last_card.conftest import table


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


def mentions(sent: Any, cards: set[str]) -> set[str]:
    """The cards of ``cards`` that ``sent`` shows: as a code, or named in a sentence."""
    texts = strings(sent)
    named = {c for c in cards if any(card_view(c)["label"] in t for t in texts)}
    return (texts & cards) | named


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
            frame = rules.frame(state, seat, [f"p{n}" for n in range(seats)])
            actions = [] if seat is None or state.is_over() else rules.actions(state, seat)
            sent = {"frame": frame, "actions": actions}
            json.dumps(sent)  # it travels as JSON
            check(state, seat, sent)
        if state.is_over() or steps > 400:
            return steps
        for seat in state.pending():
            try:
                state.apply(seat, random_action(state, seat, rng))
            except IllegalAction:
                state.reject(seat, {"cards": []}, "test")
        steps += 1


def chosen_cards(sent: dict[str, Any]) -> list[str]:
    """The cards the seat chooses among (its offer or hand, on its turn)."""
    several = [a["several"]["cards"] for a in sent["actions"] if "several" in a]
    return several[0] if several else [a["card"] for a in sent["actions"] if "card" in a]


def rps_check(state, seat, sent) -> None:
    over = state.phase == "over"
    hidden = set(state.remaining)
    for s in (0, 1):
        if s != seat:
            hidden |= set(state.hands[s]) | set(state.decks[s]) | set(state.offers[s])
    frame = sent["frame"]
    if seat is not None and seat in state.pending():
        offered = state.offers[seat] if state.phase == "draft" else state.hands[seat]
        assert chosen_cards(sent) == offered
        assert [a["value"] for a in sent["actions"]] == list(range(len(offered)))
    elif seat is not None and seat in state.chosen:
        choice = frame["hand"][0]
        assert choice["label"] == "Your choice" and len(choice["cards"]) == 1
    if seat is not None:
        # the deck as a set: a person sees no more than a bot in the seat (never the order
        # in which the shuffled deck will be drawn)
        decks = [z["cards"] for z in frame["hand"] if z["label"].startswith("Your deck")]
        assert decks == ([sorted(state.decks[seat])] if state.decks[seat] and not over else [])
    leaked = mentions(sent, hidden)
    assert not leaked, f"seat {seat} sees {leaked}"
    # a choice made is shown as made, never as what it was
    down = [s for s, shown in enumerate(frame["seats"]) if "card down" in shown["badges"]]
    assert down == sorted(state.chosen)
    # the draft: each seat reads what it kept and received; the others that a step is done
    drafts = [e["text"] for e in frame["log"] if e["key"].startswith("d")]
    assert len(drafts) == len(state.drafts)
    for text, step in zip(drafts, state.drafts, strict=True):
        if seat is None:
            assert "kept" not in text
        else:
            kept, got = card_view(step["kept"][seat])["label"], step["passed"][1 - seat]
            assert f"you kept {kept} and received {card_view(got)['label']}" in text


def last_card_check(state, seat, sent) -> None:
    played_ever = {c for e in state.history if e.get("e") == "play" for c in e["cards"]}
    hidden = set(state.deck)
    for s, hand in enumerate(state.hands):
        if s != seat:
            hidden |= set(hand)
    leaked = mentions(sent, hidden - played_ever)
    assert not leaked, f"seat {seat} sees {leaked}"
    frame = sent["frame"]
    sizes = [s["zones"][0]["down"] if s["zones"] else None for s in frame["seats"]]
    assert all(n in (None, len(h)) for n, h in zip(sizes, state.hands, strict=True))
    if seat is not None:
        assert sizes[seat] is None  # your own hand is drawn as yours, face up
        mine = chosen_cards(sent) or [c for z in frame["hand"] for c in z["cards"]]
        assert mine == state.hands[seat]  # at the end too: its cards are its points
        assert bool(sent["actions"]) == (not state.over and state.current == seat)


def offered_moves_check(state, seat, sent) -> None:
    """Last Card's page offers exactly the moves the rules allow: every card sequence of one
    value the move checker accepts (a suit named after an ace) is among the action's
    ``moves``, and nothing else; a move's beginning is one too (the page builds the choice a
    card at a time)."""
    several = [a["several"] for a in sent["actions"] if "several" in a]
    if not several:
        return
    hand, offered = state.hands[seat], {tuple(m) for m in several[0]["moves"]}
    allowed = set()
    for value in {c[0] for c in hand}:
        same = [c for c in hand if c[0] == value]
        for size in range(1, min(4, len(same)) + 1):
            for cards in itertools.permutations(same, size):
                move = {"cards": list(cards), "suit": "s" if cards[-1][0] == "A" else None}
                if (
                    problem(hand, state.played[-1], state.active_suit, state.punishment, move)
                    is None
                ):
                    allowed.add(cards)
    assert offered == allowed
    assert all(cards[:-1] in offered for cards in offered if len(cards) > 1)


def uth_check(state, seat, sent) -> None:
    frame = sent["frame"]
    current = {**sent, "frame": {**frame, "shared": [z for z in frame["shared"]
                                                     if not z["label"].startswith("Round ")],
                                 "log": []}}  # fmt: skip
    hidden = set(state.dealer) | (set(state.board) - set(state.visible_board()))
    if seat is None:
        hidden |= set(state.player)
    if not state.is_over():
        leaked = mentions(current, hidden)
        assert not leaked, f"seat {seat} sees {leaked}"
    # settled rounds as the seat may see them: a folded round's dealer cards to its player
    # alone (as its bot's last_round shows them), never to a spectator
    by_number = {done["round"]: done for done in state.rounds}
    for z in frame["shared"]:
        if z["label"].startswith("Round ") and z["label"].endswith("dealer"):
            done = by_number[int(z["label"].split()[1].rstrip(":"))]
            hidden_here = done["folded"] and seat is None
            assert z["cards"] == ([] if hidden_here else done["dealer"])


@pytest.mark.parametrize("seed", range(8))
def test_rps_poker_views_hide_the_other_hand_and_the_deck(seed):
    assert play_through("rps-poker", seed, 2, rps_check) > 10


@pytest.mark.parametrize(("seed", "seats"), [(s, 2 + s % 3) for s in range(9)])
def test_last_card_views_hide_other_hands_and_the_deck(seed, seats):
    assert play_through("last-card", seed, seats, last_card_check) > 3


@pytest.mark.parametrize(("seed", "seats"), [(s, 2 + s % 3) for s in range(6)])
def test_last_card_offers_the_moves_the_rules_allow_and_no_other(seed, seats):
    assert play_through("last-card", seed, seats, offered_moves_check) > 3


def test_last_card_offers_a_card_only_after_the_cards_it_may_follow():
    # on the 3 of hearts: the 7 of hearts first, then the other 7s in any order; the 7 of
    # spades only after it; an ace alone or with the other ace (a suit asked after it), not
    # with the whole hand
    state = table([["7h", "7s", "Ah", "As", "8c"], ["2c"]], "3h")
    moves = LastCardTable().actions(state, 0)[0]["several"]["moves"]
    assert ["7h", "7s"] in moves and ["7s"] not in moves and ["7s", "7h"] not in moves
    assert ["Ah"] in moves and ["As", "Ah"] in moves and ["8c"] not in moves
    state = table([["Ah", "As"], ["2c"]], "3h")
    assert LastCardTable().actions(state, 0)[0]["several"]["moves"] == [["Ah"], ["As"]]


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
