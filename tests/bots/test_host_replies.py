"""What the hosts say of a bot's reply or failure is true whatever the bot does to itself: a
reply too deep to write is an invalid reply (not an error the bot raised), a JavaScript bot
that replaces the built-ins or throws an error that reads like running out of memory gets
its own error reported as it is, and a Python bot that closes its protocol output is told
so, without the host's traceback in its log."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.game import Fault
from games.engine.runner import MatchRunner, TimeControl
from games.rps_poker import botapi
from games.rps_poker.bots import minimal
from games.rps_poker.rules import RpsPokerState

DEEP_JS = """({
  name: 'deep',
  draftPick(cards) { let a = 0; for (let i = 0; i < 10000; i++) a = [a]; return a; },
  draftReceive(card) {},
  mainPlay(hand, base) { return 0; },
  mainPostprocess(card) {},
})
"""
DEEP_PY = """
class Bot:
    def draft_pick(self, cards):
        value = 0
        for _ in range(100_000):
            value = [value]
        return value

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
"""
#: replaces what a host's code in its realm could use, then raises in its next call
POISONS_JS = """({
  name: 'poisons',
  draftPick(cards) {
    Object.prototype.toJSON = function () { return 'poison'; };
    Array.prototype.toJSON = function () { return 7; };
    JSON.stringify = () => '7';
    JSON.parse = () => ({});
    String.prototype.startsWith = () => true;
    String.prototype.replace = () => 'mainPlay';
    String.prototype.split = () => [];
    Array.prototype.join = () => 'joined';
    Array.prototype.map = () => [];
    Array.prototype.filter = () => [];
    Array.prototype[Symbol.iterator] = function* () {};
    RegExp.prototype.test = () => true;
    RegExp.prototype.exec = () => null;
    Map.prototype.get = () => 'mainPlay';
    Map.prototype.set = function () { return this; };
    Object.prototype.told = [['main_play', []]];
    return 0;
  },
  draftReceive(card) {},
  mainPlay(hand, base) { console.log('about to fail'); throw new Error('no play'); },
  mainPostprocess(card) {},
})
"""
#: throws, of its own, the error V8 throws when an ArrayBuffer cannot be allocated
SELF_MEMORY_JS = """({
  name: 'selfmem',
  draftPick(cards) { throw new RangeError('Array buffer allocation failed'); },
  draftReceive(card) {},
  mainPlay(hand, base) { return 0; },
  mainPostprocess(card) {},
})
"""
#: closes the host's protocol descriptors (its input, 0, and its output, 3) in a call
CLOSES_PY = """
import os

class Bot:
    def draft_pick(self, cards):
        os.close(3)
        os.close(0)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
"""


def fault_of(tmp_path: Path, name: str, source: str, matches: int = 1) -> tuple[Fault, str]:
    """The bot's fault in its last match against a built-in, and its log."""
    path = tmp_path / name
    path.write_text(source)
    log = tmp_path / f"{path.stem}.log"
    tc = TimeControl(move=5.0, bank=0.0, startup=10.0)
    with BotProcess(plain_launch(path, game="rps-poker"), label=path.stem, stderr_log=log) as p:
        for seed in range(1, matches + 1):
            if not p.alive:
                p.start(tc.startup)
            agent = ProcessAgent(p, botapi.bot_call)
            opponent = InProcessAgent(minimal.Bot, botapi.bot_call, "minimal")
            outcome = MatchRunner(time.monotonic, tc).run(
                RpsPokerState.new(seed), [agent, opponent], seed=seed
            )
    fault = outcome.faults.get(0)
    assert fault is not None, outcome
    return fault, log.read_text()


@pytest.mark.parametrize(
    ("name", "source", "method"),
    [("deep.js", DEEP_JS, "draftPick"), ("deep.py", DEEP_PY, "draft_pick")],
)
def test_a_reply_too_deep_to_write_is_an_invalid_reply(tmp_path, name, source, method):
    fault, _ = fault_of(tmp_path, name, source)
    assert (fault.kind, fault.reason) == (
        "invalid",
        f"the reply to {method} is nested more than 32 deep",
    )


def test_a_javascript_bot_that_replaces_built_ins_gets_its_own_error_reported(tmp_path):
    # two matches: the second's bot is made in the realm the first one poisoned
    fault, log = fault_of(tmp_path, "poisons.js", POISONS_JS, matches=2)
    assert fault.kind == "exception", fault
    assert fault.reason == "mainPlay raised Error: no play (poisons.js, line 23)"
    assert "about to fail" in log


def test_a_javascript_error_that_reads_like_memory_is_the_error_the_bot_threw(tmp_path):
    fault, _ = fault_of(tmp_path, "selfmem.js", SELF_MEMORY_JS)
    assert (fault.kind, fault.reason) == (
        "exception",
        "draftPick raised RangeError: Array buffer allocation failed (selfmem.js, line 3)",
    )


def test_a_python_bot_that_closes_its_output_is_told_so(tmp_path):
    fault, log = fault_of(tmp_path, "closes.py", CLOSES_PY)
    assert (fault.kind, fault.reason) == ("crash", "the bot closed its output during draft_pick")
    assert "the bot closed its output: its reply could not be written" in log
    assert "Traceback" not in log and "python_host" not in log
