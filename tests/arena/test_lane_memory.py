"""Lanes share their process's memory: a process that runs out of it after playing in more
than one lane is no match's fault. Its matches are played again, one at a time, where running
out of memory is the fault of the match that did (bots.running.lanes, LaneHost.stop)."""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

from bots.running.lanes import LaneHost, LaneMatch, LanePlayer
from bots.running.process import BotProcess, Launch, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner, TimeControl
from games.registry import get_game
from games.rps_poker.botapi import bot_call
from games.rps_poker.bots.minimal import Bot

#: a host that plays in lanes and dies as V8 does when its heap is full ("JavaScript heap
#: out of memory") at the 12th call of its first start (mode "once") or of every start
#: ("always"), or (mode "says", first start) has its bot say those words in its lane and
#: hang; it writes how many matches it had open at each begin, by start, to argv[2]
HEAP_HOST = """
import json, os, sys, time
mode, seen = sys.argv[1], sys.argv[2]
with open(seen, "a") as fh:
    fh.write("start\\n")
with open(seen) as fh:
    start = fh.read().count("start")
methods = ["draft_pick", "draft_receive", "main_play", "main_postprocess"]
hello = {"type": "hello", "protocol": 1, "language": "javascript", "name": "Heap",
         "methods": methods, "quiet_begin": True, "isolation": "realm", "lanes": 64,
         "folds": True}
os.write(1, (json.dumps(hello) + "\\n").encode())
calls, pending, lanes = 0, b"", set()
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b"\\n")
    out = []
    for line in lines:
        message = json.loads(line)
        kind = message["type"]
        if kind == "quit":
            sys.exit(0)
        if kind == "begin":
            lanes.add(message.get("lane"))
            with open(seen, "a") as fh:
                fh.write(f"{start} {len(lanes)}\\n")
        if kind == "end":
            lanes.discard(message.get("lane"))
        if kind in ("begin", "tell") or message.get("reply") is False:
            continue
        reply = {"type": "ok", "id": message["id"]}
        if kind == "call":
            calls += 1
            if calls == 12 and mode == "says" and start == 1:
                if out:
                    os.write(1, ("\\n".join(out) + "\\n").encode())
                lane = message.get("lane")
                os.write(2, f"[{lane}] JavaScript heap out of memory\\n".encode())
                time.sleep(60)
            if calls == 12 and (mode == "always" or (mode == "once" and start == 1)):
                if out:
                    os.write(1, ("\\n".join(out) + "\\n").encode())
                os.write(2, b"FATAL ERROR: Reached heap limit Allocation failed - "
                            b"JavaScript heap out of memory\\n")
                os._exit(134)
            reply = {"type": "return", "value": 0, "id": message["id"]}
        out.append(json.dumps(reply))
    if out:
        os.write(1, ("\\n".join(out) + "\\n").encode())
"""


def play(
    tmp_path: Path, mode: str, matches: int = 6, move: float = 2.0
) -> tuple[list, BotProcess, list[str]]:
    """Play ``matches`` matches of the heap host against a built-in, four lanes at a time:
    the matches and their faults, the process, and what the host saw at each begin."""
    script = tmp_path / "heap.py"
    script.write_text(HEAP_HOST)
    seen = tmp_path / "seen.txt"
    game = get_game("rps-poker")
    argv = [sys.executable, str(script), mode, str(seen)]
    process = BotProcess(
        Launch(argv=argv, env={}, isolation="realm"), label="heap", stderr_log=tmp_path / "h.log"
    )
    process.start(10.0)
    host = LaneHost(process, 4)
    owner = ProcessAgent(process, bot_call)
    minimal = functools.partial(InProcessAgent, Bot, bot_call, "minimal")
    todo = iter(
        LaneMatch(functools.partial(game.state_class.new, seed, num_seats=2, config={}), seed,
                  [(host, owner), minimal], ["heap", "minimal"], where=f"match {seed}")
        for seed in range(matches)
    )  # fmt: skip
    try:
        player = LanePlayer(MatchRunner(time.monotonic, TimeControl(move=move)), width=4)
        played = [(match.where, outcome.faults) for match, outcome in player.play(todo)]
    finally:
        process.close()
    return played, process, seen.read_text().split("\n")


def test_running_out_of_memory_in_lanes_is_no_matchs_fault(tmp_path):
    # The process dies of memory with four matches open: none of them is charged; they are
    # played again by a new process, one at a time, and end as if nothing happened.
    played, process, seen = play(tmp_path, "once")
    assert sorted(where for where, _ in played) == [f"match {seed}" for seed in range(6)]
    assert [faults for _, faults in played if faults] == [], played
    assert process.starts == 2
    assert "1 4" in seen  # it ran out with four matches open...
    again = [line for line in seen if line.startswith("2 ")]
    assert len(again) == 6 and set(again) == {"2 1"}  # ...and played them again one at a time
    log = (tmp_path / "h.log").read_text()
    assert "lanes, which share its memory: no match is charged for it; the matches" in log


def test_running_out_of_memory_alone_is_the_matchs_fault(tmp_path):
    # Played one at a time, a match that runs out of memory is charged for it, as when its
    # bot plays with no lanes; and it is not played again.
    played, process, seen = play(tmp_path, "always", matches=3)
    assert sorted(where for where, _ in played) == [f"match {seed}" for seed in range(3)]
    faults = [faults.get(0) for _, faults in played]
    assert all(f is not None and f.kind == "memory" for f in faults), played
    assert all(f.reason.startswith("the bot ran out of memory during ") for f in faults)
    assert process.starts == 4  # once in lanes (no match charged), then once a match
    assert {line for line in seen if " " in line and line[0] != "1"} == {"2 1", "3 1", "4 1"}


def test_a_bot_that_says_it_ran_out_of_memory_in_its_lane_is_not_believed(tmp_path):
    # Its words are its own (the host marks them with its lane): it hangs, and times out in
    # its match, charged for it as ever; only the process's own lines (V8's) say memory.
    played, process, _ = play(tmp_path, "says", move=0.5)
    faults = [faults[0] for _, faults in played if faults]
    assert len(faults) == 1, played
    assert faults[0].kind == "timeout" and faults[0].reason.startswith("no answer to "), faults
    assert process.starts == 2
