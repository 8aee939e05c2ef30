"""A game's toolkit modules sit beside the bot in the sandbox: a Last Card bot imports the
move checker (``import movecheck``) as the docs tell it to, and nothing else of the project
is there."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

from bots.running.process import BotProcess, ProcessAgent
from bots.sandbox import SandboxConfig, sandbox_launch
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner, TimeControl
from games.registry import get_game

LAST_CARD = get_game("last-card")

CHECKED_BOT = """
import os
import sys

from movecheck import PASS, legal_moves


class Bot:
    name = "checked"

    def __init__(self):
        print("beside me:", sorted(os.listdir(os.path.dirname(__file__))), file=sys.stderr)

    def play(self, state):
        for move in legal_moves(state, last_card=len(state["hand"]) == 2):
            return move
        return PASS
"""


def test_it_lets_a_last_card_bot_import_the_move_checker(
    tmp_path: Path, sandbox_config: SandboxConfig
):
    path = tmp_path / "checked_bot.py"
    path.write_text(textwrap.dedent(CHECKED_BOT))
    launch = sandbox_launch(path, game=LAST_CARD, config=sandbox_config)
    process = BotProcess(launch, label="checked", stderr_log=tmp_path / "checked.log")
    agent = ProcessAgent(process, LAST_CARD.bot_call)
    naive = [
        InProcessAgent(LAST_CARD.builtin_class("naive"), LAST_CARD.bot_call, f"n{i}")
        for i in range(3)
    ]
    runner = MatchRunner(time.monotonic, TimeControl(move=2.0, bank=5.0, startup=10.0))
    with process:
        process.start(10)
        outcome = runner.run(LAST_CARD.state_class.new(3, num_seats=4), [agent, *naive], seed=3)
        stderr = process.stderr.tail()
    assert outcome.faults == {}
    assert "beside me: ['checked_bot.py', 'movecheck.py']" in stderr
    stats = outcome.result["stats"][0]
    assert stats["illegal_moves"] == 0
    assert stats["cards_played"] > 0


def test_it_lets_a_textarena_agent_play_uth_through_the_adapter(
    tmp_path: Path, sandbox_config: SandboxConfig
):
    from tests.uth.test_textarena_bot import AGENT_FILE

    uth = get_game("uth")
    path = tmp_path / "reading_agent.py"
    path.write_text(AGENT_FILE)
    launch = sandbox_launch(path, game=uth, config=sandbox_config)
    process = BotProcess(launch, label="reading", stderr_log=tmp_path / "reading.log")
    agent = ProcessAgent(process, uth.bot_call)
    runner = MatchRunner(time.monotonic, TimeControl(move=2.0, bank=5.0, startup=10.0))
    config = uth.state_class.default_config() | {"max_rounds": 15}
    with process:
        process.start(10)
        outcome = runner.run(uth.state_class.new(3, config=config), [agent], seed=3)
        stderr = process.stderr.tail()
    assert outcome.faults == {}
    assert outcome.result["rounds_played"] == 15
    assert "Available actions: [play_bet_4x], [check]" in stderr
