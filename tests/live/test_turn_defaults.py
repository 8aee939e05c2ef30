"""A person's ``turn`` says the move the table would play for them now if their time ran out,
as their buttons name it ("check", "bid 7"), not the game's rule for every turn ("check, or
fold facing a bet"): the page says it as the clock runs out ("Time is up, so this is played
for you: check") and to a screen reader ten seconds before. It is the very move their log
then says was played ("Time ran out, so this was played for you: check."), in every game."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.table import TableRules
from games.live.host import SeatPlan, default_words
from games.registry import get_game
from tests.live.test_host import Wire, builtin, host, join, run

TOLD = "Time ran out, so this was played for you: "

#: each game's table with a person in seat 0 who never answers, and a short match
TABLES = {
    "rps-poker": ([builtin("rps-poker", "simple")], None),
    "last-card": ([builtin("last-card", "naive")] * 3, {"max_turns": 40}),
    "uth": ([], {"max_rounds": 3}),
    "goofspiel": ([builtin("goofspiel", "random")], {"num_cards": 5, "deals": 1}),
    "blackjack-pp": ([builtin("blackjack-pp", "random")], {"hands": 4}),
    "kuhn": ([builtin("kuhn", "random")], {"hands": 6}),
    "leduc": ([builtin("leduc", "random")], {"hands": 4}),
}


async def ann_away(game: str) -> Wire:
    """A table of ``game`` where ann, in seat 0, lets every turn of hers run out."""
    bots, config = TABLES[game]
    wire = Wire()
    table = host(
        game,
        [SeatPlan("ann", "human"), *bots],
        wire,
        config=config,
        turn_timer=0.05,
        away_timer=0.01,
        away_turns_end=0,  # (she never plays: the whole match all the same)
    )
    run(table)
    assert await join(table, 60)
    return wire


@pytest.mark.asyncio
@pytest.mark.parametrize("game", list(TABLES))
async def test_the_turn_names_the_move_the_timer_then_plays(game):
    wire = await ann_away(game)
    said = {turn["turn"]: turn["default"] for turn in wire.to("seat:0", "turn")}
    played = {note["turn"]: note["text"] for note in wire.to("seat:0", "note")}
    assert len(played) >= 3, game
    for turn, text in played.items():
        assert text == f"{TOLD}{said[turn]}.", (game, turn)
    # never the game's rule for every turn, where that is more than one move
    rule = get_game(game).table().default_action_text
    if "," in rule or " if " in rule:
        assert rule not in said.values(), game


@pytest.mark.asyncio
async def test_kuhn_says_check_with_no_bet_to_face_and_fold_facing_one():
    wire = await ann_away("kuhn")
    assert set(turn["default"] for turn in wire.to("seat:0", "turn")) == {"check", "fold"}


def test_goofspiel_names_the_prize_if_the_seat_holds_it_else_its_lowest_card():
    spec = get_game("goofspiel")
    rules: TableRules = spec.table()
    state: Any = spec.state_class.new(3, num_seats=2, config={"num_cards": 5, "deals": 1})
    state.take_notices()
    assert default_words(rules, state, 0) == f"bid {state.prize}"  # every card in hand yet
    state.hands[0].remove(state.prize)
    assert default_words(rules, state, 0) == f"bid {min(state.hands[0])}"
    # nothing to play any more: the game's rule in words
    assert default_words(rules, None, 0) == rules.default_action_text
