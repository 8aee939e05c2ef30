"""Bot processes over the JSON-lines protocol (plain child processes; the sandbox has its own
tests): one process serves consecutive matches, and every failure is a typed fault."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, PlatformError, ProcessAgent
from games.engine import untrusted
from games.engine.agents import AgentFault, InProcessAgent, SeatInfo
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


def test_it_serves_consecutive_matches_from_one_process_with_a_new_bot_each(make_process):
    process = make_process()
    for seed in (0, 1, 2, 1, 3):
        outcome = play(process, seed)
        assert outcome.faults == {}
        assert sum(outcome.result["scores"]) == 10
    assert process.starts == 1
    # a new instance a match; the class attribute counting them goes on from one deal to
    # the next, and starts again in the fresh process that plays deal 1 again
    assert process.stderr.tail().split() == ["instance", "1", "instance", "2", "instance", "3",
                                             "instance", "1", "instance", "2"]  # fmt: skip


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
    # (where in the bot's file: the deepest line of it in the traceback)
    assert outcome.faults[0].reason == "main_play raised KeyError: 'base' (bot0.py, line 22)"
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


def test_it_faults_output_over_the_cap_in_the_match_that_wrote_it(make_process):
    # Quick replies are read without a poll, so what the bot writes to stderr before each
    # waits in the pipe: a cap crossed by the last of it is still this match's fault.
    process = make_process("print('x' * 3000, file=sys.stderr); return 0")
    process.launch = dataclasses.replace(process.launch, max_output=20_000)
    outcome = play(process)
    assert outcome.faults[0].kind == "output", outcome.faults
    assert "over 20,000 bytes" in outcome.faults[0].reason


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
    assert info.value.reason == "failed at import: SystemExit: bye (bot0.py, line 1)"


def test_it_kills_the_whole_process_group_on_close(make_process, tmp_path):
    marker, pid_file = tmp_path / "child-alive", tmp_path / "child-pid"
    process = make_process(
        source=f"""
        import pathlib, subprocess, sys
        LOOP = ("import time, pathlib\\nwhile True:\\n"
                " pathlib.Path({str(marker)!r}).touch(); time.sleep(0.05)")
        child = subprocess.Popen([sys.executable, "-c", LOOP])
        pathlib.Path({str(pid_file)!r}).write_text(str(child.pid))

        class Bot:
            pass
    """
    )
    process.start(10)
    deadline = time.monotonic() + 5
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists()
    child = int(pid_file.read_text())
    process.close()
    marker.unlink()
    # the bot's own child is gone (dead, or a zombie not yet reaped), and touched nothing since
    deadline = time.monotonic() + 30
    while (state := process_state(child)) not in (None, "Z"):
        assert time.monotonic() < deadline, f"the bot's child {child} outlived it: {state}"
        time.sleep(0.05)
    assert not marker.exists()


def process_state(pid: int) -> str | None:
    """The state letter of process ``pid`` (R, S, Z...), None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


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
        # the CPU time kept is the host's own measure of the match's process, not the bot's
        assert 0.0 <= process.cpu_s < 10


# ---- notices: told without a reply, still the bot's fault and on its clock ----------------
#: a bot with a line of its own in main_postprocess (``Bot.told`` counts the calls; each
#: match has a fresh process, so the count starts again)
NOTICE_BOT = BOT.replace("{main_play}", "return 0").replace(
    "    def main_postprocess(self, card):\n        pass",
    "    def main_postprocess(self, card):\n        Bot.told = getattr(Bot, 'told', 0) + 1\n"
    "        {notice}",
)


def notice_bot(make_process, notice: str) -> BotProcess:
    return make_process(source=NOTICE_BOT.replace("{notice}", notice))


def test_a_notice_needs_no_reply_but_its_failure_is_the_bots_fault_in_that_match(make_process):
    process = notice_bot(make_process, "if Bot.told == 4: raise KeyError('told')")
    outcome = play(process)
    fault = outcome.faults[0]
    assert fault.kind == "exception"
    assert fault.reason == "main_postprocess raised KeyError: 'told' (bot0.py, line 26)"
    # four games played, then the next call carried the failure: the rest go to the opponent
    assert len(outcome.state.games) == 4
    assert outcome.result["scores"][1] >= 6
    assert "Traceback" in process.stderr.tail()
    # nothing leaks into the next match (the same deal: a fresh process, whose class counts
    # from 0 again): it fails at its own fourth notice, no sooner
    assert process.alive
    again = play(process, seed=1)
    assert again.faults[0].reason == fault.reason and len(again.state.games) == 4
    assert process.starts == 1


def test_a_failure_in_the_last_notice_of_a_match_is_still_a_fault_in_it(make_process):
    process = notice_bot(make_process, "if Bot.told == 10: raise ValueError('last')")
    outcome = play(process)
    assert outcome.faults[0].reason == "main_postprocess raised ValueError: last (bot0.py, line 26)"
    assert len(outcome.state.games) == 10
    again = play(process, seed=1)  # the next match's own last notice, not an earlier one
    assert again.faults[0].reason == outcome.faults[0].reason
    assert len(again.state.games) == 10


def test_a_bot_stuck_in_a_notice_times_out_on_its_own_clock(make_process):
    process = notice_bot(make_process, "if Bot.told == 3: import time; time.sleep(30)")
    started = time.monotonic()
    outcome = play(process, tc=TimeControl(move=0.3, bank=0.2, startup=10))
    assert time.monotonic() - started < 5
    fault = outcome.faults[0]
    assert fault.kind == "timeout"
    assert "no answer to main_play within" in fault.reason  # a notice's time is the next's
    assert not process.alive  # killed: the next match starts a fresh one


def test_a_bot_stuck_in_its_last_notice_times_out_when_the_match_is_confirmed(make_process):
    process = notice_bot(make_process, "if Bot.told == 10: import time; time.sleep(30)")
    outcome = play(process, tc=TimeControl(move=0.3, bank=0.2, startup=10))
    fault = outcome.faults[0]
    assert fault.kind == "timeout"
    assert "no answer to end of match within" in fault.reason
    assert len(outcome.state.games) == 10


def test_a_bot_flooding_stderr_in_a_notice_is_drained_and_plays_on(make_process):
    flood = "import sys; sys.stderr.write('x' * 300000 + '\\n'); sys.stderr.flush()"
    process = notice_bot(make_process, flood)
    outcome = play(process)
    assert outcome.faults == {}
    assert process.stderr.total >= 10 * 300000


def test_a_bot_that_stops_reading_its_requests_cannot_hang_the_arena(make_process):
    process = notice_bot(make_process, "import time; time.sleep(30)")
    process.start(10)
    rid = process.request({"type": "begin", "game": "rps-poker", "seat": 0, "seats": 2})
    process.reply(rid, 10, "start of match")
    card = "R1" * 2000
    with pytest.raises(AgentFault) as info:
        for _ in range(1000):  # 4 MB of notices: far more than a pipe holds
            process.request({"type": "tell", "method": "main_postprocess", "args": [card]},
                            reply=False)  # fmt: skip
            # the notices go with the next request that takes a reply
            process.request({"type": "call", "method": "main_play", "args": [["R1"], "S2"]})
    assert info.value.kind == "timeout"
    assert "stopped reading its requests" in info.value.reason
    assert not process.alive


def test_simultaneous_seats_are_each_charged_only_for_their_own_time(make_process):
    slow = make_process(source=BOT.replace("{main_play}", "return 0").replace(
        "        self.calls += 1\n        return 0",
        "        self.calls += 1\n        import time; time.sleep(0.4)\n        return 0",
        1,
    ))  # fmt: skip
    quick = make_process()
    slow.peers = quick.peers  # the seats of one match, as the arena and the worker set them
    tc = TimeControl(move=2.0, bank=0.0, startup=10.0)
    agents = []
    for process in (slow, quick):
        process.start(10)
        agents.append(ProcessAgent(process, botapi.bot_call))
    outcome = MatchRunner(time.monotonic, tc).run(RpsPokerState.new(1), agents, seed=1)
    assert outcome.faults == {}
    slow_stats, quick_stats = outcome.stats
    assert slow_stats.slowest_s >= 0.4
    # the quick seat's answers were read (and timed) while the slow one was awaited
    assert quick_stats.slowest_s < 0.2


JS_BOT = """
({
  name: 'first',
  matches: 0,
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(hand, base) { return 0; },
  mainPostprocess(card) {},
})
"""


def test_a_javascript_bots_begin_goes_with_its_first_question(tmp_path):
    path = tmp_path / "first.js"
    path.write_text(JS_BOT)
    with BotProcess(plain_launch(path, game="rps-poker"), label="first") as process:
        assert process.start(10).quiet_begin  # its begin makes nothing: no reply awaited
        begin = {"type": "begin", "game": "rps-poker", "seat": 0, "seats": 2, "reply": False}
        process.request(begin, reply=False)
        rid = process.request({"type": "call", "method": "draft_pick", "args": [["R1", "S2"]]})
        _, message = process.reply(rid, 10, "draft_pick")  # the first reply is the question's
        assert message == {"id": rid, "type": "return", "value": 0}
        outcome = play(process)  # and whole matches go on as usual
        assert outcome.faults == {}
        assert sum(outcome.result["scores"]) == 10


JS_COUNTS = """
({
  name: 'counts',
  heard: [],
  draftPick(cards) { return this.heard.length; },
  draftReceive(card) { if (card === 'X') throw new Error('not X'); this.heard.push(card); },
  mainPlay(hand, base) { return this.heard.join(','); },
  mainPostprocess(card) { if (card === 'last') throw new Error('not the last'); },
})
"""


def test_a_javascript_host_takes_notices_folded_into_the_next_request(tmp_path):
    # The notices go in the next request's line (`told`), run first and in order; the
    # first that fails is that request's answer, named, and neither the request nor the
    # notices after it run.
    path = tmp_path / "counts.js"
    path.write_text(JS_COUNTS)
    with BotProcess(plain_launch(path, game="rps-poker"), label="counts") as process:
        assert process.start(10).folds
        begin = {"type": "begin", "game": "rps-poker", "seat": 0, "seats": 2, "reply": False}
        process.request(begin, reply=False)
        assert process.call("draft_receive", ["A"], reply=False) == 0  # no line of its own
        process.call("draft_receive", ["B"], reply=False)
        rid = process.call("draft_pick", [["R1", "S2"]])
        assert process.reply(rid, 10, "draft_pick")[1]["value"] == 2
        for card in ("C", "X", "D"):
            process.call("draft_receive", [card], reply=False)
        rid = process.call("main_play", [["R1"], "S2"])
        _, failed = process.reply(rid, 10, "main_play")
        assert failed["type"] == "error" and failed["method"] == "draft_receive"
        assert failed["error"] == "Error: not X (counts.js, line 6)" and failed["told"] == rid
        rid = process.call("main_play", [["R1"], "S2"])  # D was not run, nor main_play
        assert process.reply(rid, 10, "main_play")[1]["value"] == "A,B,C"
        # the last notices go with the match's end
        process.call("main_postprocess", ["last"], reply=False)
        rid = process.request({"type": "end"})
        _, ended = process.reply(rid, 10, "end of match")
        assert ended["type"] == "error" and ended["method"] == "main_postprocess"
        # a new match hears nothing of the last one's notices not sent
        process.call("draft_receive", ["E"], reply=False)
        process.request(begin, reply=False)
        rid = process.call("draft_pick", [["R1", "S2"]])
        assert process.reply(rid, 10, "draft_pick")[1]["value"] == 0


#: a CommonJS bot that counts the times its file has run in its realm
JS_LOADS = """
globalThis.loads = (globalThis.loads || 0) + 1;
const loads = globalThis.loads;
module.exports = { name: 'loads', draftPick(cards) { return loads; } };
"""


#: RPS Poker bots in the contract's two forms with a syntax error each: the fault's line,
#: what the excerpt under it points at, and what the reason says
JS_BROKEN = {
    # an object literal with a typo in its fifth line: as a script it fails at its first
    # property (line 3), which is not where the author went wrong
    "typo": (
        "// a comment\n({\n  name: 'typo',\n  draftPick(cards) {\n    return 0 +;\n  },\n})\n",
        5,
        "return 0 +;",
        "Unexpected token ';'",
    ),
    # a CommonJS file whose object is never closed: both reads run off its end
    "unclosed": (
        "const one = 1;\nmodule.exports = {\n  draftPick(cards) { return one - 1; },\n",
        3,
        "draftPick(cards) { return one - 1; },",
        "Unexpected end of file: a brace, bracket, parenthesis, string or comment is not closed",
    ),
}


@pytest.mark.parametrize("broken", sorted(JS_BROKEN))
def test_a_javascript_syntax_error_is_reported_where_the_author_made_it(tmp_path, broken):
    # The host reads a file as an object literal, then as a script: the error a person sees
    # is the one of the read that got further, with its line, and the log shows that line
    # (not the host's own stack)
    source, line, excerpt, says = JS_BROKEN[broken]
    path = tmp_path / f"{broken}.js"
    path.write_text(source)
    process = BotProcess(plain_launch(path, game="rps-poker"), label=broken)
    with process, pytest.raises(AgentFault) as fault:
        process.start(10)
    assert fault.value.kind == "startup"
    assert f"SyntaxError: {says} ({broken}.js, line {line})" in fault.value.reason
    log = process.stderr.tail()
    assert f"{broken}.js:{line}\n" in log and excerpt in log
    assert "host.js" not in log and "node:internal" not in log


def test_each_lane_of_a_javascript_host_begins_in_a_realm_of_its_own(tmp_path):
    # The first lane to begin plays the bot made for the hello, in its realm (the file has
    # run there once: for this match); a lane begun beside it, a new realm; a lane's next
    # match, its own realm again. After a renew, every lane begins afresh (in a realm made
    # at its begin: nothing of a bot runs between matches), and none finds what was run
    # before it.
    path = tmp_path / "loads.js"
    path.write_text(JS_LOADS)
    with BotProcess(plain_launch(path, game="rps-poker"), label="loads") as process:
        assert process.start(10).lanes >= 2

        def loads(lane: int) -> int:
            begin = {"type": "begin", "lane": lane, "game": "rps-poker", "seat": 0, "seats": 2}
            process.request(begin | {"reply": False}, reply=False)
            rid = process.call("draft_pick", [["R1", "S2"]], lane=lane)
            return process.reply(rid, 10, "draft_pick")[1]["value"]

        def end(lane: int) -> None:
            rid = process.request({"type": "end", "lane": lane})
            assert process.reply(rid, 10, "end of match")[1]["type"] == "ok"

        assert [loads(1), loads(2)] == [1, 1]
        end(1)
        assert [loads(1), loads(3)] == [2, 1]
        for lane in (1, 2, 3):
            end(lane)
        rid = process.request({"type": "renew"})
        assert process.reply(rid, 10, "renew")[1]["type"] == "ok"
        assert [loads(2), loads(1)] == [1, 1]
        end(2)
        assert loads(2) == 2


#: a CommonJS bot that declares a game global's name and a built-in's for itself, and one
#: that reads the game's global and its realm's built-ins
JS_SHADOWS = """
const fullDeck = ['mine'];
function escape(x) { return x + 1; }
module.exports = {
  name: 'shadows',
  draftPick(cards) { return fullDeck.length === 1 && escape(0) === 1 ? 0 : 1; },
  draftReceive(card) {},
  mainPlay(hand, base) { Math = null; return 0; },
  mainPostprocess(card) {},
};
"""
JS_READS = """
({
  name: 'reads',
  draftPick(cards) {
    const own = Object.getPrototypeOf([]) === Array.prototype && [] instanceof Array;
    return fullDeck.length === 30 && own && globalThis.fullDeck === fullDeck ? 0 : 1;
  },
  draftReceive(card) {},
  mainPlay(hand, base) { return Math.max(0, Math.min(hand.length - 1, 0)); },
  mainPostprocess(card) {},
})
"""


#: a bot that replaces a built-in on its realm's global: the next match's bot (same realm)
#: still finds the built-in bound as the realm first had it
JS_REPLACES = """
({
  name: 'replaces',
  draftPick(cards) { return Math.max(0, 0); },
  draftReceive(card) {},
  mainPlay(hand, base) { globalThis.Math = null; return 0; },
  mainPostprocess(card) {},
})
"""


@pytest.mark.parametrize(
    "source", [JS_SHADOWS, JS_READS, JS_REPLACES], ids=["shadows", "reads", "replaces"]
)
def test_a_javascript_bot_finds_its_globals_bound_and_may_declare_their_names(tmp_path, source):
    # The host binds the realm's built-ins (as the realm first had them) and the game's
    # globals (as each match sets them) in the bot's own scope (a look-up on a context's
    # global object goes through Node's interceptors): the file may still declare those
    # names, and what it reads is its realm's and its game's.
    path = tmp_path / "bound.js"
    path.write_text(source)
    with BotProcess(plain_launch(path, game="rps-poker"), label="bound") as process:
        process.start(10)
        begin = {"type": "begin", "game": "rps-poker", "seat": 0, "seats": 2, "reply": False}
        process.request(begin, reply=False)
        rid = process.request({"type": "call", "method": "draft_pick", "args": [["R1", "S2"]]})
        assert process.reply(rid, 10, "draft_pick")[1]["value"] == 0
        for seed in (1, 2):  # and whole matches of two deals: the second in the same realm
            outcome = play(process, seed)
            assert outcome.faults == {}


def test_each_matchs_fresh_process_draws_its_own_random_seed(make_process):
    # the zygote imports `random` ahead for every match's process (it is in the bot's code);
    # each process still draws a seed of its own, as a fresh interpreter would
    source = (
        BOT.replace("import sys", "import random\nimport sys")
        .replace(
            'print("instance", Bot.instances, file=sys.stderr)',
            'print("draw", random.random(), file=sys.stderr)',
        )
        .replace("{main_play}", "return 0")
    )
    process = make_process(source=source)
    for seed in range(3):
        assert not play(process, seed).faults
    draws = [line for line in process.stderr.tail().splitlines() if line.startswith("draw")]
    assert len(draws) == 3 and len(set(draws)) == 3


def test_asked_to_quit_a_host_exits_by_itself_and_closes_as_ever(make_process):
    process = make_process()
    process.start(10.0)
    proc = process._proc
    assert proc is not None
    process.ask_to_quit()
    proc.wait(timeout=10)  # the host read the quit and exited, nothing killed it
    assert proc.returncode == 0
    process.close()
    process.ask_to_quit()  # closed: nothing to ask
    assert not process.alive


#: a bot whose host's replies reach the arena in pieces: each return value's line is written
#: in three parts, a moment apart (what a slow pipe or a big reply does)
PIECEMEAL = """
import time
import __main__


def piecemeal(out, message):
    line = __main__.ENCODE(message) + "\\n"
    if message.get("type") != "return":
        out.write(line)
        out.flush()
        return
    third = max(len(line) // 3, 1)
    for start in (0, third, 2 * third):
        out.write(line[start : start + third] if start < 2 * third else line[start:])
        out.flush()
        time.sleep(0.002)


__main__.send = piecemeal
""" + BOT.replace("{main_play}", "return len(hand) - 1")


def test_a_reply_that_comes_in_pieces_is_read_as_one_line(make_process):
    whole = make_process(main_play="return len(hand) - 1")
    pieces = make_process(source=PIECEMEAL)
    played = []
    for process in (whole, pieces):
        process.start(10.0)
        played.append(play(process, seed=3))
    assert not played[0].faults and not played[1].faults
    # the same answers to the same questions, each of its 15 calls answered
    assert played[1].record["events"] == played[0].record["events"]
    assert played[1].stats[0].calls == played[0].stats[0].calls >= 15


@settings(max_examples=300, deadline=None)
@given(
    value=st.integers(min_value=-(10**16), max_value=10**16) | st.sampled_from([0, -1, 1]),
    rid=st.integers(min_value=0, max_value=10**16),
    form=st.sampled_from(["{}", "0{}", "{}.0", "{}e0", " {}", "{} ", "+{}", "-{}"]),
    end=st.sampled_from([b"\n", b"", b"\n\n", b" \n"]),
)
def test_an_integer_reply_is_read_as_the_json_decoder_reads_it(value, rid, form, end):
    # the usual reply (a call's integer value) is read without the decoder: the same message,
    # or the same refusal, for every line that looks like it (a process never started)
    process = BotProcess(plain_launch(Path(__file__)), label="bot")
    line = b'{"type":"return","value":%b,"id":%d}%b' % (form.format(value).encode(), rid, end)
    try:
        expected = untrusted.loads(line)
    except ValueError:
        expected = None
    if not isinstance(expected, dict):
        with pytest.raises(AgentFault):
            process.parse(line, "main_play")
        return
    got = process.parse(line, "main_play")
    assert got == expected
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]


def test_a_timeout_says_the_time_since_the_request_not_what_was_left_of_it(make_process):
    # The reply is asked for a while after the request was written (a notice told first,
    # the match's other seats asked first, a loaded machine): the bot had all of it, and the
    # fault said only what was left ("no answer to draft_pick within 0.10 s").
    source = BOT.replace("{main_play}", "return 0").replace(
        "        self.calls += 1\n        return 0", "        import time; time.sleep(30)", 1
    )
    process = make_process(source=source)
    process.start(10.0)
    agent = ProcessAgent(process, botapi.bot_call)
    agent.begin(SeatInfo("rps-poker", 0, 2, {}), 10.0)
    agent.started(10.0)
    agent.send(RpsPokerState.new(1).prompt(0))
    time.sleep(0.3)
    with pytest.raises(AgentFault) as raised:
        agent.receive(0.1)
    said = re.fullmatch(r"no answer to draft_pick within (\d\.\d\d) s", raised.value.reason)
    assert said, raised.value.reason
    assert 0.38 <= float(said.group(1)) < 1.0


@pytest.mark.parametrize(("limit", "kind"), [(300.0, None), (0.5, "crash")])
def test_a_sigkill_without_a_cpu_count_is_the_bots_only_if_it_could_be_its_limits(
    make_process, limit, kind
):
    # Without a CPU cgroup (a web process's live tables run without) a SIGKILL from outside
    # was the bot's crash, "its CPU-time limit, or the machine ran out of memory", even 0.3 s
    # into a process whose limit is 300 s: it cannot have used that much, with every core
    source = BOT.replace("{main_play}", "return 0").replace(
        "        self.calls += 1\n        return 0", "        import time; time.sleep(30)", 1
    )
    process = make_process(source=source)
    process.launch = dataclasses.replace(process.launch, cpu_limit_s=limit)
    process.start(10.0)
    assert process.measured_cpu_s() is None  # (no cgroup counts its CPU)
    agent = ProcessAgent(process, botapi.bot_call)
    agent.begin(SeatInfo("rps-poker", 0, 2, {}), 10.0)
    agent.started(10.0)
    agent.send(RpsPokerState.new(1).prompt(0))
    time.sleep(0.3)
    assert process._proc is not None
    os.killpg(process._proc.pid, signal.SIGKILL)  # (its match process too)
    if kind is None:
        with pytest.raises(PlatformError, match="SIGKILL from outside during draft_pick"):
            agent.receive(5.0)
    else:
        with pytest.raises(AgentFault) as raised:
            agent.receive(5.0)
        assert raised.value.kind == kind, raised.value
        assert "its CPU-time limit" in raised.value.reason
