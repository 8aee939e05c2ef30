"""The TextArena-style environment: a TextArena agent's loop plays it unchanged."""

from __future__ import annotations

import re

import pytest

from games.uth.env import UltimateTexasHoldemEnv, make


def first_legal(observation: str) -> str:
    """A stand-in for a language model: it answers with the first legal action it is shown."""
    legal = re.findall(r"Legal actions: (.*)", observation)[-1]
    return f"I will play {legal.split(', ')[0]} here."


def test_it_runs_the_textarena_agent_loop_to_the_end_of_a_session():
    env = make("UltimateTexasHoldem-v0", max_rounds=5)
    env.reset(num_players=1, seed=4)
    done, steps = False, 0
    while not done:
        player_id, observation = env.get_observation()
        assert player_id == 0 and "Legal actions:" in observation
        done, info = env.step(first_legal(observation))
        assert info == {}
        steps += 1
    rewards, game_info = env.close()
    assert steps == 15  # 4x, skip, skip in each of the five rounds
    assert env.state.result()["rounds_played"] == 5
    expected = 1.0 if env.state.outcome == "won" else -1.0
    assert rewards == {0: expected}
    assert game_info[0]["turn_count"] == 15 and not game_info[0]["invalid_move"]


def test_it_tells_the_rules_once_then_the_news_and_the_state():
    env = UltimateTexasHoldemEnv(variant="standard")
    env.reset(seed=1)
    _, first = env.get_observation()
    assert "flush 3:2" in first and "Round 1 of 1000, pre-flop" in first
    assert "Legal actions: [4x], [check]" in first
    env.step("[check]")
    _, second = env.get_observation()
    assert "Ultimate Texas Hold'em against the dealer" not in second
    assert "Board: " in second and "Legal actions: [2x], [check]" in second


def test_it_refuses_an_illegal_action_with_the_legal_ones_and_ends_on_a_second():
    env = UltimateTexasHoldemEnv()
    env.reset(seed=2)
    done, info = env.step("[fold]")
    assert not done and info["invalid_move"] and "[4x], [check]" in info["reason"]
    _, observation = env.get_observation()
    assert "Refused" in observation and "'[fold]'" in observation
    done, info = env.step("[2x]")
    assert done and info["invalid_move"]
    rewards, game_info = env.close()
    assert rewards == {0: -1.0} and game_info[0]["invalid_move"]
    assert game_info[0]["chips"] == 950


def test_it_is_reproducible_from_its_seed_and_reports_a_lost_session():
    outcomes = []
    for _ in range(2):
        env = UltimateTexasHoldemEnv(start_chips=50, max_rounds=50)
        env.reset(seed=11)
        done = False
        while not done:
            done, _ = env.step("[check]" if env.state.phase != "river" else "[fold]")
        outcomes.append(env.close())
    assert outcomes[0] == outcomes[1]
    rewards, info = outcomes[0]
    assert rewards == {0: -1.0} and info[0]["rounds_played"] == 1 and info[0]["chips"] == 0


def test_it_refuses_more_than_one_player_and_use_before_reset():
    env = UltimateTexasHoldemEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.get_observation()
    with pytest.raises(ValueError, match="one player"):
        env.reset(num_players=2)
    with pytest.raises(ValueError, match="unknown environment"):
        make("Poker-v0")
