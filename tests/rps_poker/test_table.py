"""RPS Poker at a live table: what the felt says of the game just played."""

from __future__ import annotations

from games.rps_poker.cards import DRAFT_STEPS
from games.rps_poker.rules import RpsPokerState
from games.rps_poker.table import RpsPokerTable

RULES = RpsPokerTable()


def played_to_the_last_games(seed: int) -> RpsPokerState:
    """A match after its draft and all of its games but the last two (one base card left
    after the one in play)."""
    state = RpsPokerState.new(seed, num_seats=2)
    for _ in range(DRAFT_STEPS):
        state.apply(0, 0)
        state.apply(1, 0)
    while len(state.remaining) > 1:
        state.apply(0, 0)
        state.apply(1, 0)
    return state


def test_each_card_of_the_last_game_is_under_the_name_of_who_played_it():
    """The two cards of the last game were drawn as one zone, "Last game", in seat order:
    nothing said which was whose (a person in seat 2 found their own card on the right)."""
    for seed in range(4):
        state = played_to_the_last_games(seed)
        last = state.games[-1]
        for audience, names in ((0, ["ann (you)", "bob"]), (1, ["ann", "bob (you)"])):
            shared = RULES.frame(state, audience, ["ann", "bob"])["shared"]
            zones = {z["label"]: z for z in shared if z["label"].startswith("Last game")}
            assert list(zones) == [f"Last game: {n}" for n in names], list(zones)
            for seat, name in enumerate(names):
                zone = zones[f"Last game: {name}"]
                assert zone["cards"] == [last["played"][seat]]
                # the winner's card says so, with the base it won against
                assert ("note" in zone) == (seat == last["winner"])
            won = zones[f"Last game: {names[last['winner']]}"]["note"]
            assert won.startswith("won, base "), won


def test_the_base_cards_left_are_counted_in_words():
    state = played_to_the_last_games(0)
    lines = RULES.frame(state, 0, ["ann", "bob"])["lines"]
    assert "1 base card left" in lines, lines
