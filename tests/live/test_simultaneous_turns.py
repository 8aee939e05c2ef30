"""A simultaneous turn at a live table: a person and a bot process are asked at once. The bot
is charged the time its reply took, never the time the runner spent awaiting the person
(a bot's reply is stamped when it is read, and nothing reads it while a person is awaited)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, ProcessAgent
from games.engine.agents import Agent
from games.engine.game import Prompt
from games.engine.runner import MatchRunner, TimeControl
from games.registry import get_game

GAME = get_game("rps-poker")


class SlowPerson(Agent):
    """A person who takes ``think`` seconds over every move (the first card, always), and
    says when they answered, as a live table's person does (HumanAgent.offer)."""

    blocking = False
    name = "person"

    def __init__(self, think: float) -> None:
        self.think = think
        self.prompt: Prompt | None = None

    def send(self, prompt: Prompt) -> None:
        self.prompt = prompt

    def receive(self, timeout: float) -> Any:
        raise RuntimeError("a person answers on an event loop")

    async def receive_async(self, timeout: float) -> Any:
        if self.prompt is None or not self.prompt.expects_answer:
            return None
        await asyncio.sleep(self.think)
        self.answered_at = time.monotonic()
        return 0


@pytest.mark.parametrize("person_seat", [0, 1])
def test_a_bot_is_not_charged_for_the_person_it_plays_with(person_seat):
    bot_file = GAME.builtin_path("simple")
    process = BotProcess(plain_launch(bot_file, game=GAME.slug), label="simple")
    bot = ProcessAgent(process, GAME.bot_call)
    person = SlowPerson(think=0.3)
    agents: list[Agent] = [person, bot] if person_seat == 0 else [bot, person]
    # the bot may take 0.2 s a call and 0.1 s more in the match: far less than the person
    tc = TimeControl(move=0.2, bank=0.1, startup=10.0)
    people = {person_seat: TimeControl(move=5.0, bank=0.0, startup=10.0)}
    runner = MatchRunner(time.monotonic, tc, seat_time_controls=people)
    with process:
        state = GAME.state_class.new(3, num_seats=2)
        outcome = asyncio.run(runner.run_async(state, agents, seed=3))
    assert not outcome.faults, outcome.faults
    bot_stats = outcome.stats[1 - person_seat]
    assert bot_stats.slowest_s < 0.2  # its own replies, not the person's 0.3 s
    assert outcome.stats[person_seat].slowest_s >= 0.3
