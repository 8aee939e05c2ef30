"""The runner on an event loop (live tables): the same match as the blocking runner, with
blocking agents kept off the loop."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from games.engine.agents import Agent, AgentFault, InProcessAgent, ScriptedAgent
from games.engine.game import Prompt
from games.engine.runner import MatchRunner, TimeControl
from games.rps_poker import botapi
from games.rps_poker.rules import RpsPokerState
from tests.engine.test_runner import FakeClock, Raising, SlowAgent, minimal_agent


def both(make_agents, tc: TimeControl | None = None, seed: int = 7):
    """The record of one match played by ``run`` and by ``run_async``, with fresh agents."""
    clock = FakeClock()
    blocking = MatchRunner(clock, tc or TimeControl()).run(
        RpsPokerState.new(seed), make_agents(clock), seed=seed
    )
    clock = FakeClock()
    on_loop = asyncio.run(
        MatchRunner(clock, tc or TimeControl()).run_async(
            RpsPokerState.new(seed), make_agents(clock), seed=seed
        )
    )
    return blocking.record, on_loop.record


@pytest.mark.parametrize(
    "make_agents",
    [
        lambda clock: [minimal_agent("a"), minimal_agent("b")],
        lambda clock: [
            InProcessAgent(Raising("main_play", 3), botapi.bot_call, "r"),
            minimal_agent("b"),
        ],
        lambda clock: [ScriptedAgent([0] * 4 + [9], "bad"), ScriptedAgent([1] * 15, "b")],
        lambda clock: [SlowAgent(clock, 0.4), SlowAgent(clock, 2.5, "slower")],
        lambda clock: [ScriptedAgent([AgentFault("crash", "gone")]), minimal_agent("b")],
    ],
    ids=["clean", "exception", "illegal", "timeouts", "crash"],
)
def test_run_async_plays_the_same_match_as_run(make_agents):
    blocking, on_loop = both(make_agents, TimeControl(move=1.0, bank=2.0))
    assert on_loop == blocking
    assert blocking["events"]  # a match was played, not two empty records


class Where(ScriptedAgent):
    """Answers from a script and notes the thread of every call."""

    def __init__(self, answers: list[Any], name: str, blocking: bool) -> None:
        super().__init__(answers, name)
        self.blocking = blocking
        self.threads: set[int] = set()

    def send(self, prompt: Prompt) -> None:
        self.threads.add(threading.get_ident())
        super().send(prompt)

    def receive(self, timeout: float) -> Any:
        self.threads.add(threading.get_ident())
        return super().receive(timeout)


@pytest.mark.asyncio
async def test_blocking_agents_are_called_through_offload_and_others_on_the_loop():
    quick, slow = Where([0] * 15, "quick", False), Where([0] * 15, "slow", True)
    offloaded: list[str] = []

    async def offload(call):
        offloaded.append(call.func.__name__)
        return await asyncio.to_thread(call)

    runner = MatchRunner(time.monotonic, TimeControl())
    outcome = await runner.run_async(RpsPokerState.new(3), [quick, slow], seed=3, offload=offload)
    assert not outcome.faults
    assert quick.threads == {threading.get_ident()}
    assert threading.get_ident() not in slow.threads
    assert set(offloaded) == {"begin", "started", "send", "receive", "end"}
    assert offloaded.count("receive") == offloaded.count("send") == len(slow.seen)


class Sleepy(ScriptedAgent):
    """A bot process in all but name: its answers take real time, in ``receive``."""

    blocking = True

    def receive(self, timeout: float) -> Any:
        if self._last is not None and self._last.expects_answer:
            time.sleep(0.05)
        return super().receive(timeout)


@pytest.mark.asyncio
async def test_a_blocking_agent_does_not_hold_up_the_event_loop():
    ticks = 0
    stop = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0.005)

    ticker = asyncio.create_task(tick())
    started = time.monotonic()
    runner = MatchRunner(time.monotonic, TimeControl(move=5.0))
    agents: list[Agent] = [Sleepy([0] * 15, "a"), ScriptedAgent([0] * 15, "b")]
    outcome = await runner.run_async(RpsPokerState.new(5), agents, seed=5)
    took = time.monotonic() - started
    stop.set()
    await ticker
    assert not outcome.faults
    assert took >= 15 * 0.05
    # the loop went on ticking while the bot thought: about took/5 ms ticks, not none
    assert ticks > took / 0.005 / 4
