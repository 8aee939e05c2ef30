"""Bot processes over the JSON-lines protocol (plain child processes; the sandbox has its own
tests): one process serves consecutive matches, and every failure is a typed fault."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from bots.launch import plain_launch
from bots.process import BotProcess, ProcessAgent
from games.engine.agents import AgentFault, InProcessAgent
from games.engine.runner import MatchRunner, TimeControl
from games.rps_poker import botapi
from games.rps_poker.bots import minimal
from games.rps_poker.rules import RpsPokerState

BOT = """
import sys

class Bot:
    name = "counter"
    instances = 0

    def __init__(self):
        Bot.instances += 1
        self.calls = 0
        print("instance", Bot.instances, file=sys.stderr)

    def draft_pick(self, cards):
        self.calls += 1
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        self.calls += 1
        {main_play}

    def main_postprocess(self, card):
        pass
"""


@pytest.fixture
def make_process(tmp_path: Path):
    processes: list[BotProcess] = []

    def make(main_play: str = "return 0", source: str | None = None) -> BotProcess:
        path = tmp_path / f"bot{len(processes)}.py"
        text = source if source is not None else BOT.replace("{main_play}", main_play)
        path.write_text(textwrap.dedent(text))
        process = BotProcess(
            plain_launch(path), label=path.stem, stderr_log=tmp_path / f"{path.stem}.log"
        )
        processes.append(process)
        return process

    yield make
    for process in processes:
        process.close()


def play(process: BotProcess, seed: int = 1, tc: TimeControl | None = None):
    tc = tc or TimeControl(move=2.0, bank=0.0, startup=10.0)
    if not process.alive:
        process.start(tc.startup)
    agent = ProcessAgent(process, botapi.bot_call)
    opponent = InProcessAgent(minimal.Bot, botapi.bot_call, "minimal")
    return MatchRunner(time.monotonic, tc).run(
        RpsPokerState.new(seed), [agent, opponent], seed=seed
    )


def test_it_says_hello_with_the_bots_name_and_methods(make_process):
    process = make_process()
    hello = process.start(10)
    assert hello.name == "counter"
    assert hello.language == "python"
    assert {"draft_pick", "main_play", "main_postprocess", "draft_receive"} <= set(hello.methods)


def test_it_serves_consecutive_matches_from_one_process_with_a_fresh_bot_each(make_process):
    process = make_process()
    for seed in range(3):
        outcome = play(process, seed)
        assert outcome.faults == {}
        assert sum(outcome.result["scores"]) == 10
    assert process.starts == 1
    assert "instance 3" in process.stderr.tail()


def test_it_times_out_a_slow_bot_and_restarts_it_for_the_next_match(make_process):
    process = make_process("import time; time.sleep(5)")
    started = time.monotonic()
    outcome = play(process, tc=TimeControl(move=0.3, bank=0.2, startup=10))
    assert time.monotonic() - started < 3
    fault = outcome.faults[0]
    assert fault.kind == "timeout"
    assert "main_play" in fault.reason
    assert not process.alive
    assert play(process, tc=TimeControl(move=0.3, bank=0.2)).faults[0].kind == "timeout"
    assert process.starts == 2


def test_it_reports_an_exception_with_its_type_and_keeps_the_traceback(make_process):
    process = make_process("raise KeyError('base')")
    outcome = play(process)
    assert outcome.faults[0].kind == "exception"
    assert outcome.faults[0].reason == "main_play raised KeyError: 'base'"
    assert "Traceback" in process.stderr.tail()
    assert process.alive  # an exception does not kill the process: the next match is fine


def test_it_reports_a_bot_that_exits(make_process):
    process = make_process("import os; os._exit(3)")
    outcome = play(process)
    assert outcome.faults[0].kind == "crash"
    assert "exited with status 3" in outcome.faults[0].reason


def test_it_reports_a_return_value_that_is_not_json(make_process):
    process = make_process("return object()")
    outcome = play(process)
    assert outcome.faults[0].kind == "exception"
    assert "not plain JSON data" in outcome.faults[0].reason


def test_it_refuses_an_oversized_answer(make_process):
    process = make_process("return [0] * 100000")
    outcome = play(process)
    assert outcome.faults[0].kind == "output"
    assert "over 65536 bytes" in outcome.faults[0].reason


def test_it_treats_a_wrong_answer_type_as_invalid(make_process):
    process = make_process("return 'left'")
    outcome = play(process)
    assert outcome.faults[0].kind == "invalid"
    assert "'left'" in outcome.faults[0].reason


def test_it_keeps_the_protocol_clean_when_the_bot_prints(make_process):
    process = make_process("print('hello on stdout'); return 0")
    outcome = play(process)
    assert outcome.faults == {}
    assert "hello on stdout" in process.stderr.tail()


def test_it_reports_a_bot_that_fails_to_import(make_process):
    process = make_process(source="raise SystemExit('bye')\n")
    with pytest.raises(AgentFault) as info:
        process.start(10)
    assert info.value.kind == "startup"
    assert info.value.reason == "failed at import: SystemExit: bye"


def test_it_kills_the_whole_process_group_on_close(make_process, tmp_path):
    marker = tmp_path / "child-alive"
    process = make_process(
        source=f"""
        import subprocess, sys
        LOOP = ("import time, pathlib\\nwhile True:\\n"
                " pathlib.Path({str(marker)!r}).touch(); time.sleep(0.05)")
        child = subprocess.Popen([sys.executable, "-c", LOOP])

        class Bot:
            pass
    """
    )
    process.start(10)
    deadline = time.monotonic() + 5
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists()
    process.close()
    marker.unlink()
    time.sleep(0.3)
    assert not marker.exists()


def test_a_bot_file_named_like_a_standard_module_still_imports_the_standard_one(tmp_path):
    """A bot called "random" is stored as random.py: its own ``import random`` must find
    the standard library, not itself."""
    path = tmp_path / "random.py"
    path.write_text(
        textwrap.dedent(
            """
            import random

            class Bot:
                def draft_pick(self, cards):
                    return random.randrange(len(cards))

                def draft_receive(self, card):
                    pass

                def main_play(self, hand, base):
                    return random.randrange(len(hand))

                def main_postprocess(self, card):
                    pass
            """
        )
    )
    process = BotProcess(plain_launch(path), label="random")
    try:
        outcome = play(process)
        assert outcome.faults == {}, outcome.faults
    finally:
        process.close()


#: a bot that rewrites what its host says (it runs in the host's interpreter): a name and a
#: list of methods no label can hold, and CPU times no float holds
FORGER = """
import __main__

_send = __main__.send


def forged(out, message):
    if message.get("type") == "hello":
        message["name"] = "\\u202e" + "x" * 10000 + "\\x00"
        message["methods"] = [[[["deep"]]]] * 1000
    if "cpu" in message:
        message["cpu"] = 10**400
    _send(out, message)


__main__.send = forged
""" + BOT.replace("{main_play}", "return 0")


def test_what_a_bot_forges_of_its_hosts_replies_stays_harmless(make_process):
    process = make_process(source=FORGER)
    hello = process.start(10.0)
    assert len(hello.name) <= 60 and "\x00" not in hello.name
    assert len(hello.methods) <= 100
    for seed in (1, 2):  # the end of each match reports a CPU time no float holds
        outcome = play(process, seed=seed)
        assert not outcome.faults
        assert process.cpu_s == 0.0
