"""Goofspiel's bot contract through the match runner, and its built-in bots: ``matching``
beats ``random`` clearly, and both play as child processes over the bot protocol, as
uploaded bots do."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.game import Prompt
from games.engine.runner import MatchOutcome, MatchRunner
from games.goofspiel import botapi
from games.goofspiel.spec import spec

GAME = spec()


def run(agents, config: dict[str, Any], seed: int = 1) -> MatchOutcome:
    state = GAME.state_class.new(seed, config=config)
    return MatchRunner(time.monotonic, GAME.time_control).run(state, agents, seed=seed)


def builtin(name: str) -> InProcessAgent:
    return InProcessAgent(GAME.builtin_class(name), GAME.bot_call, name)


class Recorder:
    """Bids its lowest card and keeps every ``obs`` it was shown."""

    seen: list[dict[str, Any]] = []

    def __init__(self):
        Recorder.seen = []

    def act(self, obs):
        Recorder.seen.append(obs)
        return obs["hand"][0]


def test_a_bot_is_asked_once_a_turn_but_the_last_and_sees_the_deal_from_its_side():
    outcome = run([builtin("matching"), InProcessAgent(Recorder, GAME.bot_call, "rec")],
                  {"num_cards": 5, "deals": 2})  # fmt: skip
    seen = Recorder.seen
    assert len(seen) == 2 * 4 and not outcome.faults
    first, second = seen[:4], seen[4:]
    assert [o["deal"] for o in seen] == [1] * 4 + [2] * 4
    for number, obs in enumerate(first):
        assert obs["seat"] == 1 and obs["legal"] == obs["hand"]
        assert len(obs["history"]) == number and len(obs["hand"]) == 5 - number
        assert obs["hand"] == list(range(number + 1, 6))  # it always bid its lowest card
        assert [t[1] for t in obs["history"]] == list(range(1, number + 1))
        assert sorted([obs["prize"], *obs["prizes_left"], *(t[0] for t in obs["history"])]) == [
            1, 2, 3, 4, 5,
        ]  # fmt: skip
    deal_log = outcome.result["deal_log"]
    assert first[-1]["last_deal"] is None
    # the previous deal, last turn included, from seat 1's side
    last = second[0]["last_deal"]
    assert last["turns"] == [[p, b, a] for p, a, b in deal_log[0]["turns"]]
    assert last["points"] == deal_log[0]["points"][::-1]
    assert second[0]["score"] == outcome.result["deal_log"][0]["returns"][1]


def test_the_contract_is_one_method_and_news_has_no_method():
    assert GAME.methods == botapi.METHODS == ("act",)
    assert botapi.bot_call(Prompt("act", {"prize": 3})) == ("act", [{"prize": 3}])
    with pytest.raises(ValueError, match="Goofspiel has no prompt 'deal_over'"):
        botapi.bot_call(Prompt("deal_over", {}, expects_answer=False))


class Cheater:
    """Bids the 13 again on the second turn."""

    def act(self, obs):
        return 13


class Crasher:
    def act(self, obs):
        raise KeyError("prize")


def test_an_illegal_bid_disqualifies_the_bot_and_the_other_takes_the_rest():
    outcome = run([InProcessAgent(Cheater, GAME.bot_call, "cheat"), builtin("random")],
                  {"deals": 3, "returns_type": "point_difference"})  # fmt: skip
    fault = outcome.faults[0]
    assert fault.kind == "invalid"
    assert fault.reason.startswith(
        "act returned an illegal answer: card 13 is not in your hand (already bid this deal)"
    )
    result = outcome.result
    assert result["forfeited_deals"] == 2 and result["deal_log"][-1]["forfeit"] == 0
    assert result["scores"][1] > 0 and sum(result["scores"]) == 0
    assert result["points"][1] >= 2 * 91 + 91 - 13  # every prize but the first deal's first


def test_a_bot_that_raises_is_recorded_with_the_reason():
    outcome = run([builtin("random"), InProcessAgent(Crasher, GAME.bot_call, "crash")],
                  {"deals": 2})  # fmt: skip
    assert outcome.faults[1].kind == "exception"
    assert "act raised KeyError" in outcome.faults[1].reason
    assert outcome.result["scores"] == [2, -2]


def test_the_random_bot_bids_legal_cards_and_not_always_the_same_way():
    outcome = run([builtin("random"), builtin("random")], {"deals": 4})
    assert not outcome.faults and outcome.result["deals"] == 4
    orders = {tuple(t[1] for t in d["turns"]) for d in outcome.result["deal_log"]}
    assert len(orders) == 4


def deal_wins(name: str, against: str, matches: int, config: dict[str, Any]) -> list[int]:
    """``name``'s deals won, tied and lost against ``against``, seats alternating."""
    tally = [0, 0, 0]
    for seed in range(matches):
        seat = seed % 2
        agents = [builtin(against), builtin(against)]
        agents[seat] = builtin(name)
        outcome = run(agents, config, seed=seed)
        assert not outcome.faults
        for done in outcome.result["deal_log"]:
            mine = done["returns"][seat]
            tally[0 if mine > 0 else 1 if mine == 0 else 2] += 1
    return tally


def test_matching_beats_random_clearly():
    # measured: about 97% of 500 deals won (13 cards)
    won, tied, lost = deal_wins("matching", "random", matches=40, config={"deals": 5})
    assert won + tied + lost == 200
    assert won / 200 > 0.8


def test_matching_wins_points_against_random_with_fewer_cards_too():
    config = {"num_cards": 6, "deals": 10, "returns_type": "point_difference"}
    won, _, lost = deal_wins("matching", "random", matches=20, config=config)
    assert won > 2 * lost


@pytest.mark.parametrize("name", ["random", "matching"])
def test_each_built_in_plays_as_a_child_process(tmp_path, name):
    process = BotProcess(
        plain_launch(GAME.builtin_path(name)), label=name, stderr_log=tmp_path / "err.log"
    )
    try:
        process.start(10.0)
        agents = [ProcessAgent(process, GAME.bot_call), builtin("random")]
        outcome = run(agents, {"num_cards": 8, "deals": 2}, seed=4)
    finally:
        process.close()
    assert not outcome.faults
    assert outcome.result["deals"] == 2 and outcome.stats[0].calls >= 2 * 7


def test_the_python_starter_does_not_tie_every_deal_with_matching():
    # matching, the opponent its header and the rules page name: a starter that always bid
    # what it bids (the card nearest the prize, in equal hands) drew 0 every match, and its
    # author could not tell whether it played at all
    import importlib.util

    path = GAME.starters["python"]
    loaded = importlib.util.spec_from_file_location("goofspiel_starter_under_test", path)
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    starter = InProcessAgent(module.Bot, GAME.bot_call, "starter")
    scores = [
        run([starter, builtin("matching")], {}, seed=seed).result["scores"] for seed in (1, 2)
    ]
    assert any(a != b for a, b in scores), scores
