"""A spectator's frame (``seat`` None) and every frame of a finished match carry no seat's
prompt: an audit read, in a spectator's raw websocket messages, RPS Poker's "Your turn: keep
one of the two cards offered to you.", Goofspiel's "Your turn: bid a card for the prize 3."
and, once it was over, "Your turn: bid a card for the prize None." (reportE, E4)."""

from __future__ import annotations

import json

import pytest

from games.registry import games, get_game

TABLES = [spec.slug for spec in games() if spec.table is not None]
NAMES = ["ann", "bob", "cat", "dan"]


def for_spectators(frame: dict) -> None:
    assert frame["prompt"] == ""
    assert not frame.get("pick") and "taken" not in frame and "waiting" not in frame


@pytest.mark.parametrize("slug", TABLES)
def test_no_prompt_for_a_spectator_nor_once_the_match_is_over(slug):
    spec = get_game(slug)
    rules = spec.table()
    state = spec.state_class.new(11)
    seats = range(state.num_players if hasattr(state, "num_players") else 2)
    steps = 0
    while not state.is_over():
        for_spectators(rules.frame(state, None, NAMES))
        seat = state.pending()[0]
        state.apply(seat, rules.default_action(state, seat))
        steps += 1
        assert steps < 20000
    for_spectators(rules.frame(state, None, NAMES))
    for seat in [*seats, None]:
        frame = rules.frame(state, seat, NAMES)
        assert frame["prompt"] == "", (slug, seat)
        assert "None" not in json.dumps(frame), (slug, seat)


def test_a_seat_is_still_prompted_on_its_turn():
    for slug, words in [
        ("goofspiel", "Your turn: bid a card for the prize "),
        ("rps-poker", "Your turn: keep one of the two cards offered to you."),
    ]:
        spec = get_game(slug)
        state = spec.state_class.new(11)
        frame = spec.table().frame(state, 0, NAMES)
        assert frame["prompt"].startswith(words) and frame["pick"] and frame["taken"]
