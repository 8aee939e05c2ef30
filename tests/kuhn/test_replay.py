"""The replay viewer's frames for Kuhn poker, Leduc hold'em and Blackjack++: one for the
start and one per action, each hand's end with its result, the cards of the hand in play
(face down, in poker, unless the hand reaches a showdown)."""

from __future__ import annotations

import json
import time

import pytest

from games import replays
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.registry import get_game


@pytest.mark.parametrize(
    ("slug", "end"), [("kuhn", "Hand"), ("leduc", "Hand"), ("blackjack-pp", "Deal")]
)
def test_a_match_replays_as_one_frame_per_action_with_each_hands_result(slug, end):
    game = get_game(slug)
    agents = [InProcessAgent(game.builtin_class(n), game.bot_call, n) for n in ("random", "simple")]
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(5, config={"hands": 6}), agents, seed=5
    )
    replay = replays.build(outcome.record, ["ann", "bob"])
    assert replay.supported and not replay.error
    actions = [e for e in outcome.record["events"] if e["type"] == "action"]
    assert len(replay.frames) == len(actions) + 1
    ends = [f for f in replay.frames if f["label"].endswith(": the end")]
    assert [f["label"] for f in ends] == [f"{end} {n}: the end" for n in range(1, 7)]
    assert replay.frames[-1]["scores"] == outcome.result["scores"]
    for frame in replay.frames[1:]:
        assert frame["actor"] in (0, 1) and frame["lines"][0].startswith(("ann ", "bob "))
        assert all(z["cards"] or z["down"] for s in frame["seats"] for z in s["zones"])
    json.dumps(replay.as_json())
