"""A move a live table played for a person whose turn timer ran out (the record's
``played_for``, games/engine/played_for.py) says so in the public replay, in every game that
has live tables. The replay used to credit the person with it: match 60 logged "Prize 4: bob
bids 4", "bob bids 1"... while bob never touched the table."""

from __future__ import annotations

import pytest

from games import replays
from tests.games.test_replays import builtins, record_of

#: each game with live tables: its built-in bots and a short match's config
GAMES = [
    ("rps-poker", ("simple", "strong"), None),
    ("last-card", ("naive", "heuristic", "naive"), None),
    ("uth", ("basic",), {"max_rounds": 6}),
    ("goofspiel", ("matching", "random"), {"num_cards": 5, "deals": 2}),
    ("blackjack-pp", ("simple", "simple"), {"hands": 4}),
    ("kuhn", ("simple", "simple"), {"hands": 4}),
    ("leduc", ("simple", "simple"), {"hands": 4}),
]

NOTE = " (played for ann: time ran out)"


def lines_of(frames: list[dict]) -> list[str]:
    return [line for frame in frames for line in frame["lines"]]


@pytest.mark.parametrize(("game", "bots", "config"), GAMES, ids=[g[0] for g in GAMES])
def test_a_move_the_timer_played_for_a_person_says_so_in_the_replay(game, bots, config):
    record = record_of(game, builtins(*bots), seed=3, config=config)
    names = ["ann", *(f"bot{n}" for n in range(1, len(record["seats"])))]
    # ann's first two decisions (UTH's "[skip]", where there is nothing to decide, is none)
    mine = [
        index
        for index, event in enumerate(record["events"])
        if event["type"] == "action" and event["seat"] == 0 and event["action"] != "[skip]"
    ][:2]
    assert len(mine) == 2
    assert not [line for line in lines_of(replays.build(record, names).frames) if NOTE in line]

    frames = replays.build(record | {"played_for": [[0, i] for i in mine]}, names).frames
    said = [line for line in lines_of(frames) if "played for" in line]
    # each of the two, on the line of ann's own move, and nothing else
    assert len(said) == 2, said
    for line in said:
        assert NOTE in line and "ann " in line.split(NOTE)[0], line
    # the step's decision, under the table, says it too
    assert [f for f in frames if NOTE in f["decision"]], [f["decision"] for f in frames]


def test_a_move_like_the_persons_own_is_not_taken_for_the_timers():
    """Goofspiel's matching bot bids the prize in both seats: the timer's bid of prize 4 and
    ann's own bid of prize 4 in the next deal are the same event, but only one was played
    for her."""
    record = record_of("goofspiel", builtins("matching", "matching"), seed=3)
    names = ["ann", "bot1"]
    mine = [i for i, e in enumerate(record["events"]) if e["type"] == "action" and e["seat"] == 0]
    first = record["events"][mine[0]]
    alike = [i for i in mine[1:] if record["events"][i] == first]
    assert alike, "a later bid of ann's is the same event"
    frames = replays.build(record | {"played_for": [[0, mine[0]]]}, names).frames
    assert len([line for line in lines_of(frames) if NOTE in line]) == 1
