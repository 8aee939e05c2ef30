"""The Kuhn and Leduc replays say a hand's betting in the live tables' words, never the
solver's letters ("Betting: pbp", "Hand 1 is over (pp)")."""

from __future__ import annotations

import json
import re
import time

import pytest

from games import replays
from games.engine.agents import InProcessAgent, ScriptedAgent
from games.engine.runner import MatchRunner
from games.kuhn.table import kuhn_betting
from games.leduc.table import leduc_betting
from games.registry import get_game


def frames_of(slug: str, agents, hands: int, seed: int = 5) -> list[dict]:
    game = get_game(slug)
    outcome = MatchRunner(time.monotonic, game.time_control).run(
        game.state_class.new(seed, config={"hands": hands}), agents, seed=seed
    )
    record = json.loads(json.dumps(outcome.record))
    replay = replays.build(record, ["ann", "bob"])
    assert replay.supported and not replay.error
    return replay.frames


def betting(frame: dict) -> str:
    (line,) = [z["label"] for z in frame["shared"] if z["label"].startswith("Betting: ")]
    return line


def test_a_kuhn_hand_ended_by_a_fold_is_said_in_words():
    # hand 1: ann (first) checks, bob bets, ann folds: the solver's "pbp"
    agents = [ScriptedAgent(["p", "p", "p"], "a"), ScriptedAgent(["b", "p", "p"], "b")]
    frames = frames_of("kuhn", agents, hands=2)
    end = next(f for f in frames if f["label"] == "Hand 1: the end")
    assert betting(end) == "Betting: ann checks, bob bets 1, ann folds."
    assert betting(end) == f"Betting: {kuhn_betting('pbp', ['ann', 'bob'])}."
    assert "Hand 1 is over: ann \u22121, bob +1 uncontested" in end["lines"]
    assert betting(frames[1]) == "Betting: ann checks."


@pytest.mark.parametrize("slug", ["kuhn", "leduc"])
def test_no_replay_step_shows_the_solvers_letters(slug):
    game = get_game(slug)
    agents = [InProcessAgent(game.builtin_class(n), game.bot_call, n) for n in ("random", "simple")]
    frames = frames_of(slug, agents, hands=10)
    words = {"kuhn": kuhn_betting, "leduc": leduc_betting}[slug]
    for frame in frames:
        said = betting(frame)
        move = r"(ann|bob) (checks|bets 1|calls|folds|raises \d|re-raises by \d)"
        assert re.fullmatch(rf"Betting: (no bets yet|{move}((, |; then ){move})*)\.", said), said
        for line in frame["lines"]:
            assert not re.search(r"is over \(", line), line
    ends = [f for f in frames if f["label"].endswith(": the end")]
    assert len(ends) == 10
    if slug == "leduc":
        # a raise says what it puts in, as the table's buttons do
        raises = [betting(f) for f in frames if " raises " in betting(f)]
        assert raises and all(re.search(r"raises [24]\b", b) for b in raises)
        assert words("cr/c", ["ann", "bob"]) == "ann checks, bob raises 2; then ann checks"
