"""A JavaScript bot's code runs only while a match is played: its file is run for a match at
the match's begin, never after a match's end or a renew, before the next match is begun
(docs/bot-protocol.md, "Between matches nothing of the bot runs")."""

from __future__ import annotations

import time
from pathlib import Path

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner, TimeControl
from games.rps_poker import botapi
from games.rps_poker.bots import minimal
from games.rps_poker.rules import RpsPokerState

#: says in its log each time its file runs, and how often it has run in its realm
RUNS_JS = """
globalThis.runs = (globalThis.runs || 0) + 1;
console.log('file run ' + globalThis.runs);
module.exports = {
  name: 'runs',
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(hand, base) { return 0; },
  mainPostprocess(card) {},
};
"""


def play(process: BotProcess, seed: int) -> None:
    agent = ProcessAgent(process, botapi.bot_call)
    opponent = InProcessAgent(minimal.Bot, botapi.bot_call, "minimal")
    tc = TimeControl(move=2.0, bank=0.0, startup=10.0)
    outcome = MatchRunner(time.monotonic, tc).run(
        RpsPokerState.new(seed), [agent, opponent], seed=seed
    )
    assert outcome.faults == {}


def runs(process: BotProcess) -> list[str]:
    """The "file run" lines of the bot's log so far. The host answers its requests in order,
    and writes what the bot printed before its next reply: once a reply is read, what came
    before it is in the pipe."""
    process.settle_stderr()
    return [line for line in process.stderr.tail().splitlines() if line.startswith("file run")]


def probe(process: BotProcess) -> None:
    """A request the host answers with no code of the bot's: a call with no match begun."""
    rid = process.request({"type": "call", "method": "draft_pick", "args": [["R1", "S2"]]})
    _, message = process.reply(rid, 10, "draft_pick")
    assert message["type"] == "error" and "before begin" in message["error"]


def test_a_javascript_bots_file_runs_at_a_begin_not_after_an_end_or_a_renew(tmp_path: Path):
    path = tmp_path / "runs.js"
    path.write_text(RUNS_JS)
    with BotProcess(plain_launch(path, game="rps-poker"), label="runs") as process:
        process.start(10)
        assert runs(process) == ["file run 1"]  # the hello's bot, which plays the first match
        play(process, 1)
        probe(process)  # after the match's end: nothing ran
        assert runs(process) == ["file run 1"]
        play(process, 2)  # the second match's bot: made at its begin, in the same realm
        assert runs(process) == ["file run 1", "file run 2"]
        rid = process.request({"type": "renew"})
        assert process.reply(rid, 10, "renewal")[1]["type"] == "ok"
        probe(process)  # after a renew: nothing ran either
        assert runs(process) == ["file run 1", "file run 2"]
        play(process, 3)  # a new realm, made at the begin
        assert runs(process) == ["file run 1", "file run 2", "file run 1"]
