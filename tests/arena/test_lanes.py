"""Lanes: one bot process plays several matches at once (bots.running.lanes), with the same
results, faults and time rules as matches played one at a time."""

from __future__ import annotations

import functools
import io
import json
import re
import sys
import threading
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots.arena import Arena
from bots.running.lanes import LaneHost, LaneMatch, LanePlayer
from bots.running.process import BotProcess, Launch, ProcessAgent
from bots.sandbox import SandboxLimits
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner, TimeControl
from games.registry import get_game
from games.rps_poker.botapi import bot_call
from games.rps_poker.bots.minimal import Bot

#: plays the first card; raises in a notice of one card (a fault in some of its matches)
TOUCHY_JS = """({
  name: 'Touchy',
  draftPick(cards) { return 0; },
  draftReceive(card) { if (card === 'S7') throw new Error('not that one'); },
  mainPlay(hand, base) { return 0; },
  mainPostprocess(card) {},
})
"""
#: plays the highest card, keeping what it was passed in a match
HIGHEST_JS = """({
  name: 'High',
  passed: [],
  draftPick(cards) { return cards[0][1] >= cards[1][1] ? 0 : 1; },
  draftReceive(card) { this.passed.push(card); },
  mainPlay(hand, base) {
    let best = 0;
    hand.forEach((card, i) => { if (card[1] > hand[best][1]) best = i; });
    return best;
  },
  mainPostprocess(card) {},
})
"""
#: plays the last card, and says so in its log
CHATTY_JS = """({
  name: 'Chatty',
  draftPick(cards) { return 1; },
  draftReceive(card) {},
  mainPlay(hand, base) { console.log('playing\\nagainst ' + base); return hand.length - 1; },
  mainPostprocess(card) {},
})
"""


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


def arena(*args: str) -> str:
    out = io.StringIO()
    call_command("arena", "--game", "rps-poker", "--no-progress", *args, stdout=out)
    return out.getvalue()


def test_lanes_play_the_same_tournament_as_one_match_at_a_time(tmp_path):
    bots = [
        str(write(tmp_path, "touchy.js", TOUCHY_JS)),
        str(write(tmp_path, "highest.js", HIGHEST_JS)),
        str(write(tmp_path, "chatty.js", CHATTY_JS)),
        "builtin:simple",
    ]
    runs = {}
    for lanes, jobs in ((1, 1), (8, 1), (8, 2)):
        name = f"{lanes}-{jobs}"
        out_json, logs = tmp_path / f"{name}.json", tmp_path / f"logs-{name}"
        arena(*bots, "--rounds", "10", "--seed", "5", "--lanes", str(lanes), "--jobs", str(jobs),
              "--json", str(out_json), "--logs", str(logs))  # fmt: skip
        data = json.loads(out_json.read_text())
        data.pop("elapsed_s")
        for bot in data["bots"]:
            bot.pop("mean_call_ms")
            for note in bot["fault_details"].values():
                for key in ("match_file", "stderr_log"):
                    note[key] = str(Path(note[key]).relative_to(logs))
            for report in bot["fault_reports"]:
                report.pop("stderr_tail")
        records = []
        for path in sorted((logs / "matches").glob("*.json")):
            record = json.loads(path.read_text())
            records.append((path.name, record["seed"], record["events"], record["result"]))
        runs[name] = (data, records)
    assert runs["8-1"] == runs["1-1"]
    assert runs["8-2"] == runs["1-1"]
    data, records = runs["8-1"]
    assert data["matches"] == len(records) == 60
    touchy = next(b for b in data["bots"] if b["name"] == "Touchy")
    assert 0 < touchy["faults"] < 30
    assert touchy["fault_reports"][-1]["reason"].startswith("draftReceive raised Error: not that")
    assert all(b["faults"] == 0 for b in data["bots"] if b["name"] != "Touchy")


def test_a_bots_log_is_the_same_whatever_the_number_of_lanes(tmp_path):
    # the host marks each line with its lane; the arena sorts them into their matches and
    # writes each match's part whole, under its header, in schedule order
    chatty = write(tmp_path, "chatty.js", CHATTY_JS)
    touchy = write(tmp_path, "touchy.js", TOUCHY_JS)
    logs = {}
    for lanes, jobs in ((1, 1), (8, 1), (8, 2)):
        folder = tmp_path / f"logs-{lanes}-{jobs}"
        arena(str(chatty), str(touchy), "builtin:simple", "--rounds", "6", "--seed", "2",
              "--lanes", str(lanes), "--jobs", str(jobs), "--logs", str(folder))  # fmt: skip
        logs[lanes, jobs] = [
            (folder / "stderr" / name).read_text()
            for name in ("00-chatty.stderr.log", "01-touchy.stderr.log")
        ]
    assert logs[8, 1] == logs[1, 1]
    assert logs[8, 2] == logs[1, 1]
    chatty_log, touchy_log = logs[8, 1]
    parts = chatty_log.split("--- match start: rps-poker, ")[1:]
    assert len(parts) == 12
    assert parts[0].startswith("match 2 (00002-r001-Chatty-vs-simple.json), seat 0, against simple")
    # every play's two lines, unmarked, in its own match's part (fewer when Touchy faulted)
    assert all(part.count("playing\nagainst ") <= 10 for part in parts)
    assert sum(part.count("playing\nagainst ") == 10 for part in parts) >= 6
    said = [line for line in chatty_log.splitlines() if not line.startswith("---")]
    assert said and all(line == "playing" or line.startswith("against ") for line in said)
    fault = "--- fault (exception): draftReceive raised Error: not that one (touchy.js, line 4) ---"
    assert fault in touchy_log


#: hangs in one deal's plays (the first game whose base is S9 while it holds a paper), else
#: plays its first card
STUCK_JS = """({
  name: 'Stuck',
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(hand, base) {
    if (base === 'S9' && hand.some((card) => card[0] === 'P')) for (;;) {}
    return 0;
  },
  mainPostprocess(card) {},
})
"""


def test_a_bot_stuck_in_one_lane_faults_that_match_and_no_other(tmp_path):
    # Its process is stopped; the other matches it was playing are played again from their
    # start (the opponent's process renewed: it has seen those deals), so the faults are
    # those of matches played one at a time.
    stuck = write(tmp_path, "stuck.js", STUCK_JS)
    high = write(tmp_path, "highest.js", HIGHEST_JS)
    game = get_game("rps-poker")
    tc = TimeControl(move=0.2, bank=0.0, startup=10.0)
    faults = {}
    for lanes in (1, 8):
        seen: list[tuple[int, dict[int, str]]] = []
        with Arena(game, [str(stuck), str(high)], time_control=tc, sandbox=False,
                   lanes=lanes) as played:  # fmt: skip
            summary = played.run(
                rounds=24,
                seed=3,
                # (the reasons are compared up to their figures: on a busy machine a call's
                # deadline moves on by the bot's waits for a CPU, said in the reason)
                on_match=lambda n, o, seen=seen: seen.append(
                    (n, {s: f.reason.split(" within")[0] for s, f in o.faults.items()})
                ),
            )
        bots = [(b["name"], b["score"], b["faults"]) for b in summary["bots"]]
        reasons = [r["reason"] for b in summary["bots"] for r in b["fault_reports"]]
        faults[lanes] = (seen, bots)
    assert faults[8] == faults[1]
    seen, bots = faults[8]
    hung = [reasons for _, reasons in seen if reasons]
    assert 0 < len(hung) < 24
    assert all(r == "no answer to mainPlay" for seats in hung for r in seats.values()), hung
    # in lanes, the call's whole time: it waited on no other call (and, on a busy machine,
    # more by the time the machine kept it waiting for a CPU: bots.running.starved)
    extra = re.compile(
        r"( of its own time \(not counting the \d+\.\d\d s the busy machine kept it "
        r"waiting for a CPU\))?"
    )
    assert reasons and all(
        re.fullmatch(
            rf"no answer to mainPlay within 0\.20 s{extra.pattern}, the 0\.2 s per call", r
        )
        for r in reasons
    ), reasons
    assert next(b for b in bots if b[0] == "High")[2] == 0


#: thinks about 10 ms a play (a busy loop), else plays at once
SLOW_JS = """({
  name: 'Slow',
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(hand, base) { const end = Date.now() + 10; while (Date.now() < end) {} return 0; },
  mainPostprocess(card) {},
})
"""


def test_a_request_is_timed_from_when_its_host_could_start_on_it(tmp_path):
    # 16 matches at once ask the slow bot to play together: each request waits behind the
    # others, which is not its time. Its process answers one request at a time, so the time
    # charged to it in all its matches is at least the time it was busy, and about the time
    # the whole run took at most (a notice is charged the moments the arena took to send
    # it, in matches that overlap); were each request charged from its write, the sum would
    # be about eight times that, whatever the machine's load.
    slow = write(tmp_path, "slow.js", SLOW_JS)
    high = write(tmp_path, "highest.js", HIGHEST_JS)
    outcomes = []
    with Arena(get_game("rps-poker"), [str(slow), str(high)], sandbox=False, lanes=16) as played:
        started = time.monotonic()
        played.run(rounds=16, seed=4, on_match=lambda _n, outcome: outcomes.append(outcome))
        elapsed = time.monotonic() - started
    assert len(outcomes) == 16
    assert not any(outcome.faults for outcome in outcomes)
    charged = 0.0
    for outcome in outcomes:
        seat = outcome.record["seats"].index({"name": "Slow"})
        stats = outcome.record["stats"][seat]
        assert stats["calls"] == 30
        charged += stats["think_s"]
    assert 16 * 10 * 0.009 <= charged <= 1.5 * elapsed


def test_a_process_is_written_to_once_it_has_answered_all_it_was_asked(tmp_path, monkeypatch):
    # each wake-up of a process costs more than a request: the requests that come while it
    # works wait for it to be done, and are written together
    writes: list[tuple[int, int]] = []
    flush = LaneHost.flush

    def counted(host: LaneHost, now: float) -> None:
        if host.unwritten:
            writes.append((len(host.owed), len(host.unwritten)))
        flush(host, now)

    monkeypatch.setattr(LaneHost, "flush", counted)
    high = write(tmp_path, "highest.js", HIGHEST_JS)
    slow = write(tmp_path, "slow.js", SLOW_JS)
    with Arena(get_game("rps-poker"), [str(slow), str(high)], sandbox=False, lanes=8) as played:
        played.run(rounds=8, seed=5)
    assert writes and all(owed == 0 for owed, _ in writes)
    assert sum(n for _, n in writes) > 1.5 * len(writes)  # several requests a write


def test_a_deal_a_process_has_seen_waits_until_it_is_free_and_renewed(tmp_path):
    from bots.running.playing import Entry, Launching, seat_agent

    game = get_game("rps-poker")
    launching = Launching(sandbox=False)
    sitters, hosts = [], []
    for name, source in (("high.js", HIGHEST_JS), ("chatty.js", CHATTY_JS)):
        entry = Entry(name, path=write(tmp_path, name, source))
        agent, process = seat_agent(game, entry, launching=launching)
        assert process is not None
        process.start(10.0)
        hosts.append(LaneHost(process, 4))
        sitters.append(agent)
    renewed_with_open = []
    for host in hosts:
        renew = host.renew

        def counted(timeout, host=host, renew=renew):
            renewed_with_open.append(len(host.open))
            return renew(timeout)

        host.renew = counted

    def matches(seeds):
        return iter(
            LaneMatch(functools.partial(game.state_class.new, seed, num_seats=2, config={}), seed,
                      [(hosts[0], sitters[0]), (hosts[1], sitters[1])], ["high", "chatty"],
                      where=f"match {i}")
            for i, seed in enumerate(seeds)
        )  # fmt: skip

    try:
        player = LanePlayer(MatchRunner(lambda: 0.0, TimeControl()), width=4)
        played = [
            (match.where, outcome.faults) for match, outcome in player.play(matches([7, 8, 7, 9]))
        ]
        # and a later run of matches (an arena's next chunk) on the same processes
        again = [outcome.faults for _, outcome in player.play(matches([9]))]
    finally:
        for host in hosts:
            host.process.close()
    assert sorted(where for where, faults in played if not faults) == [
        "match 0",
        "match 1",
        "match 2",
        "match 3",
    ], played
    # the second deal 7 began once both processes had ended the matches they were playing,
    # each then renewed: no process ever held two seatings of a deal at once
    assert renewed_with_open == [0, 0, 0, 0]
    assert again == [{}]


#: a host that plays in lanes and, at the 12th call it is asked, breaks the protocol once
#: (its first start only: the file argv[2] says it did): its reply carries another id, or
#: comes with a line no request asked for
LIAR_HOST = """
import json, os, sys
mode, done = sys.argv[1], sys.argv[2]
lie = not os.path.exists(done)
methods = ["draft_pick", "draft_receive", "main_play", "main_postprocess"]
hello = {"type": "hello", "protocol": 1, "language": "javascript", "name": "Liar",
         "methods": methods, "quiet_begin": True, "isolation": "realm", "lanes": 64,
         "folds": True}
os.write(1, (json.dumps(hello) + "\\n").encode())
calls, pending = 0, b""
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
        if kind in ("begin", "tell") or message.get("reply") is False:
            continue
        reply = {"type": "ok", "id": message["id"]}
        if kind == "call":
            calls += 1
            reply = {"type": "return", "value": 0, "id": message["id"]}
            if calls == 12 and lie and mode == "wrong-id":
                reply["id"] += 1000
        out.append(json.dumps(reply))
    if calls >= 12 and lie and mode == "unasked":  # (after what it read is answered)
        out.append(json.dumps({"type": "return", "value": 0, "id": 99999}))
    if calls >= 12 and lie:
        lie = False
        open(done, "w").close()
    if out:
        os.write(1, ("\\n".join(out) + "\\n").encode())
"""


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("wrong-id", r"reply to (draftPick|mainPlay) has the wrong id"),
        ("unasked", "a reply to no request"),
    ],
)
def test_a_host_that_breaks_the_protocol_faults_one_match(tmp_path, mode, says):
    # A reply with another request's id, or a line no request asked for, stops the process:
    # a protocol fault of one match (never a quote of the bot's bytes); the other matches it
    # was playing are played again, by a new process, and end as if nothing happened.
    script = write(tmp_path, "liar.py", LIAR_HOST)
    game = get_game("rps-poker")
    argv = [sys.executable, str(script), mode, str(tmp_path / "lied")]
    process = BotProcess(Launch(argv=argv, env={}, isolation="realm"), label="liar")
    process.start(10.0)
    host = LaneHost(process, 4)
    owner = ProcessAgent(process, bot_call)
    minimal = functools.partial(InProcessAgent, Bot, bot_call, "minimal")
    matches = iter(
        LaneMatch(functools.partial(game.state_class.new, seed, num_seats=2, config={}), seed,
                  [(host, owner), minimal], ["liar", "minimal"], where=f"match {seed}")
        for seed in range(6)
    )  # fmt: skip
    try:
        player = LanePlayer(MatchRunner(time.monotonic, TimeControl(move=2.0)), width=4)
        played = [(match.where, outcome.faults) for match, outcome in player.play(matches)]
    finally:
        process.close()
    assert sorted(where for where, _ in played) == [f"match {seed}" for seed in range(6)]
    faulted = [faults for _, faults in played if faults]
    assert len(faulted) == 1, played
    fault = faulted[0][0]
    assert fault.kind == "protocol" and re.fullmatch(says, fault.reason), fault
    assert process.starts == 2  # the matches it interrupted were played by a new process


#: writes about 4 KB to its log in a match, and 30 KB in the matches where STUCK_JS hangs
LOUD_JS = STUCK_JS.replace("for (;;) {}", "console.log('y'.repeat(30000));").replace(
    "return 0;\n  },", "console.log('x'.repeat(400));\n    return 0;\n  },", 1
)


def test_a_process_in_lanes_may_write_each_matchs_output_allowance(tmp_path):
    # 20 KB a match (sandbox_limits): a process that plays 8 matches at once writes more than
    # that between two of their starts, and only the matches over it are faults
    loud = write(tmp_path, "loud.js", LOUD_JS)
    high = write(tmp_path, "highest.js", HIGHEST_JS)
    limits = SandboxLimits(output_bytes=20_000)
    runs = {}
    for lanes in (1, 8):
        seen: list[tuple[int, dict[int, str]]] = []
        with Arena(get_game("rps-poker"), [str(loud), str(high)], sandbox=False,
                   sandbox_limits=limits, lanes=lanes) as played:  # fmt: skip
            played.run(
                rounds=24,
                seed=3,
                # (the kind: one at a time, a reason may add the notice told before the
                # call, as the output came before or after the call's reply was read)
                on_match=lambda n, o, seen=seen: seen.append(
                    (n, {s: f.kind for s, f in o.faults.items()})
                ),
            )
        runs[lanes] = seen
    assert runs[8] == runs[1]
    faulted = [faults for _, faults in runs[8] if faults]
    assert 0 < len(faulted) < 24
    assert all(kind == "output" for faults in faulted for kind in faults.values()), faulted


def test_a_process_stopped_mid_line_by_the_output_cap_faults_that_match_and_goes_on(tmp_path):
    # A log line longer than the pipe holds was cut off when its match went over the cap;
    # the next process's lines went on to that match (over), so the match played again was
    # stopped, and played again, for ever: the arena never ended
    flood = write(tmp_path, "flood.js", HIGHEST_JS.replace(
        "mainPlay(hand, base) {", "mainPlay(hand, base) {\n    console.log('y'.repeat(200000));", 1
    ))  # fmt: skip
    high = write(tmp_path, "highest.js", HIGHEST_JS)
    limits = SandboxLimits(output_bytes=20_000)
    seen: list[tuple[int, dict[int, str]]] = []

    def play() -> None:
        with Arena(get_game("rps-poker"), [str(flood), str(high)], sandbox=False,
                   sandbox_limits=limits, lanes=8) as played:  # fmt: skip
            played.run(rounds=6, seed=3, on_match=lambda n, o: seen.append(
                (n, {s: f.reason for s, f in o.faults.items()})
            ))  # fmt: skip

    playing = threading.Thread(target=play, daemon=True)
    playing.start()
    playing.join(60)
    assert not playing.is_alive(), f"still playing after 60 s, {len(seen)} matches played"
    assert [n for n, _ in seen] == [1, 2, 3, 4, 5, 6]
    said = (
        "the bot wrote over 20,000 bytes to stdout and stderr in one match (the last of it to "
        "stderr, during mainPlay): print less, or only while debugging"
    )
    assert all(list(faults.values()) == [said] for _, faults in seen), seen


def test_it_refuses_lanes_out_of_range():
    for given in ("0", "65"):
        with pytest.raises(CommandError, match="--lanes must be 1 to 64"):
            arena("builtin:simple", "builtin:minimal", "--lanes", given)


#: says "shared" when another bot wrote the global it wrote at its match's start
PROBE_JS = """({
  name: 'Probe',
  draftPick(cards) {
    if (this.id === undefined) { this.id = Math.random(); globalThis.last = this.id; }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(hand, base) { if (globalThis.last !== this.id) console.log('shared'); return 0; },
  mainPostprocess(card) {},
})
"""


def test_matches_played_at_once_share_nothing(tmp_path):
    # each lane has a realm of its own: a bot cannot follow its other matches as they go
    probe = write(tmp_path, "probe.js", PROBE_JS)
    logs = tmp_path / "logs"
    arena(str(probe), "builtin:simple", "builtin:minimal", "--rounds", "8", "--seed", "3",
          "--lanes", "8", "--jobs", "1", "--logs", str(logs))  # fmt: skip
    log = (logs / "stderr" / "00-probe.stderr.log").read_text()
    assert log.count("--- match start") == 16
    assert "shared" not in log


def test_a_js_bot_listed_before_a_bot_that_cannot_play_in_lanes_plays_its_matches(tmp_path):
    """The JavaScript starter listed before the Python one timed out in every match ("no
    answer to act within 11.10 s"): its process was made a host of lanes, which holds its
    requests until a round writes them, before the Python bot's showed that matches are
    played one at a time, and nothing wrote them."""
    python = tmp_path / "mine.py"
    python.write_text(
        (Path(__file__).resolve().parents[2] / "games/rps_poker/starter.py").read_text()
    )
    results = tmp_path / "results.json"
    arena(str(write(tmp_path, "high.js", HIGHEST_JS)), str(python), "--rounds", "2",
          "--json", str(results))  # fmt: skip
    bots = json.loads(results.read_text())["bots"]
    assert [b["faults"] for b in bots] == [0, 0], bots
    assert sum(b["matches"] for b in bots) == 4
