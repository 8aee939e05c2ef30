"""What a live table of Kuhn poker, Leduc hold'em or Blackjack++ shows: no seat and no
spectator ever sees a card it may not see before the showdown.

Random matches are played through each engine. At every step, for each audience, the cards
hidden from it are changed behind the engine's back (the other private card, the unturned
public card, the undealt cards): the table frame and the actions must not change at all, so
nothing in them depends on them. A seat also must see its own card."""

from __future__ import annotations

import json
import random
import re

import pytest

from games.registry import get_game

NAMES = ["ann", "bob"]


def shown(rules, state, seat: int | None) -> dict:
    """Everything an audience is sent of the table: the frame and the actions."""
    frame = rules.frame(state, seat, NAMES)
    actions = [] if seat is None or state.is_over() else rules.actions(state, seat)
    everything = {"frame": frame, "actions": actions}
    json.dumps(everything)  # it travels as JSON
    return everything


def permuted(cards: list[str], keep: set[int], rng: random.Random) -> list[str]:
    """``cards`` with every position outside ``keep`` shuffled (a different order if any)."""
    free = [i for i in range(len(cards)) if i not in keep]
    moved = [cards[i] for i in free]
    moved = moved[1:] + moved[:1]  # a rotation: every free position changes
    out = list(cards)
    for i, c in zip(free, moved, strict=True):
        out[i] = c
    return out


def hidden_deck_positions(state, seat: int | None) -> set[int]:
    """Deck positions (Kuhn, Leduc) an audience may see now."""
    keep: set[int] = set()
    if seat is not None:
        keep.add(state.position_of(seat))
    if state.game == "leduc" and state.board() is not None:
        keep.add(2)
    return keep


def check_poker(state, rules, seat, rng) -> None:
    before = shown(rules, state, seat)
    if seat is not None and not state.over:
        (card,) = before["frame"]["hand"][0]["cards"]
        assert card[0] in state.deck[state.position_of(seat)]
    saved = list(state.deck)
    state.deck = permuted(saved, hidden_deck_positions(state, seat), rng)
    try:
        assert shown(rules, state, seat) == before, (state.game, seat, state.hand)
    finally:
        state.deck = saved


def check_blackjack(state, rules, seat, rng) -> None:
    before = shown(rules, state, seat)
    saved = (list(state.down), [list(s) for s in state.streams])
    mine = None if seat is None else state.position_of(seat)
    if mine is not None and not state.over:
        assert state.down[mine] in before["frame"]["hand"][0]["cards"]
    others = ["As", "Td", "7h", "2c"]
    state.down = [d if i == mine else others[i] for i, d in enumerate(state.down)]
    state.streams[2] = ["9s"] * 12  # the dealer's draws to come
    for position in (0, 1):  # hit cards not yet drawn
        state.streams[position] = state.streams[position][: len(state.hits[position])]
    try:
        assert shown(rules, state, seat) == before, (seat, state.hand)
    finally:
        state.down, state.streams = saved


@pytest.mark.parametrize("slug", ["kuhn", "leduc", "blackjack-pp"])
@pytest.mark.parametrize("seed", [1, 2])
def test_no_view_depends_on_a_card_its_audience_may_not_see(slug, seed):
    spec = get_game(slug)
    rules = spec.table()
    state = spec.state_class.new(seed, config={"hands": 12})
    rng = random.Random(seed)
    check = check_blackjack if slug == "blackjack-pp" else check_poker
    steps = 0
    while not state.is_over():
        for audience in (None, 0, 1):
            check(state, rules, audience, rng)
        (seat,) = state.pending()
        assert rules.default_action(state, seat) in state.legal()
        assert [a["value"] for a in rules.actions(state, seat)] == state.legal()
        assert rules.actions(state, 1 - seat) == []
        state.apply(seat, rng.choice(state.legal()))
        steps += 1
    assert steps > 12
    for audience in (None, 0, 1):
        assert shown(rules, state, audience)["frame"]["hand"] == []


def test_only_a_showdown_shows_the_other_card_of_a_hand_at_a_kuhn_table():
    spec = get_game("kuhn")
    rules = spec.table()
    state = spec.state_class.new(3, config={"hands": 4})
    state.deck = ["Ks", "Qs", "Js"]
    state.apply(0, "b")
    state.apply(1, "p")  # folded: no showdown
    state.deck = ["Js", "Ks", "Qs"]
    state.apply(1, "b")
    state.apply(0, "b")  # called: showdown
    recent = rules.finished(state)
    assert recent[0]["cards"] is None and recent[0]["won"] == [1.0, -1.0]
    # hand 2: seat 1 acted first with the jack, seat 0 called with the king
    assert recent[1]["cards"] == ["Ks", "Js"] and recent[1]["won"] == [2.0, -2.0]
    # in words, never the solver's notation, and saying whose card is whose
    log = [e["text"] for e in rules.frame(state, None, NAMES)["log"]]
    assert log == [
        "Hand 1: ann bets 1, bob folds; ann +1, bob \u22121, uncontested.",
        "Hand 2: bob bets 1, ann calls; at the showdown ann the king of spades and bob the "
        "jack of spades: ann +2, bob \u22122.",
    ]


@pytest.mark.parametrize("slug", ["kuhn", "leduc", "blackjack-pp"])
def test_a_chip_tables_turn_line_names_whom_it_waits_for(slug):
    """While a seat is not asked (or for a spectator), the line says who is to act, as
    Last Card's does: the seat's "to act" tag alone was easy to miss on a phone."""
    spec = get_game(slug)
    rules = spec.table()
    state = spec.state_class.new(5, config={"hands": 2})
    acting = state.pending()[0]
    title = rules.frame(state, None, NAMES)["label"]
    for audience in (None, 1 - acting):
        assert rules.frame(state, audience, NAMES)["status"] == f"{title}: {NAMES[acting]} to act."
    assert rules.frame(state, acting, NAMES)["prompt"].startswith("Your turn: ")
    while not state.is_over():
        state.apply(state.pending()[0], state.legal()[0])
    assert rules.frame(state, None, NAMES)["status"] == "The match is over."


BETTING = re.compile(
    r"Betting: (no bets yet|\w+ (checks|bets \d|calls|folds|raises \d|re-raises by \d)"
    r"((, |; then )\w+ (checks|bets \d|calls|folds|raises \d|re-raises by \d))*)\.$"
)


@pytest.mark.parametrize("slug", ["kuhn", "leduc", "blackjack-pp"])
def test_a_chip_table_speaks_in_words(slug):
    spec = get_game(slug)
    rules = spec.table()
    state = spec.state_class.new(5, config={"hands": 30})
    rng = random.Random(5)
    said: set[str] = set()
    while not state.is_over():
        frame = rules.frame(state, 0, NAMES)
        said |= set(frame["lines"]) | {e["text"] for e in frame["log"]}
        state.apply(state.pending()[0], rng.choice(state.legal()))
    said |= {e["text"] for e in rules.frame(state, 0, NAMES)["log"]}
    for line in said:
        assert not re.search(r"\([pbcrf/]+\)|player [01]", line), line
        if line.startswith("Betting:"):
            assert BETTING.match(line), line
    endings = [line for line in said if line.startswith(("Hand ", "Deal "))]
    assert len(endings) >= 10
    if slug != "blackjack-pp":
        assert any("at the showdown ann the " in line for line in endings)
        assert any("uncontested" in line for line in endings)


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["kuhn", "leduc", "blackjack-pp"])
def test_play_now_seats_you_against_the_cfr_bot(slug):
    from django.test import Client

    from games.models import Table, TableSeat

    guest = Client()
    response = guest.post(f"/games/{slug}/tables/quick/")
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.token}/"
    seats = list(table.seats.order_by("seat"))
    assert seats[0].kind == TableSeat.PERSON
    assert [s.name for s in seats[1:]] == ["house/cfr"]
    page = guest.get(f"/tables/{table.token}/").content.decode()
    assert "you sit in seat 1" in page


@pytest.mark.django_db
def test_a_live_table_sitting_is_ten_hands():
    from django.test import Client

    from games.models import Table

    Client().post("/games/leduc/tables/quick/")
    assert Table.objects.get().config == {"hands": 10}
