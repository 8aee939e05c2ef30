"""``manage.py arena``: the bot authors' local round robin. It needs no database."""

from __future__ import annotations

import gc
import io
import json
import os
import pickle
import re
import time
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots.arena import TOURNAMENT_GC_THRESHOLD, Arena, ArenaError, busy_jobs
from bots.running import cpus
from bots.running.process import ProcessAgent
from games.engine.runner import MatchRunner
from games.registry import get_game
from tests.arena.conftest import FIRST_CARD_BOT, first_card_bot
from tests.engine.test_runner import FakeClock, minimal_agent


def arena(*args: str) -> str:
    out = io.StringIO()
    call_command("arena", "--game", "rps-poker", "--no-progress", *args, stdout=out)
    return out.getvalue()


def blocks(err: str, name: str) -> list[list[str]]:
    """The message blocks of stderr that begin with ``name`` (a bot's): each its first line and
    the lines under it, which begin with spaces (wrapped to 80 columns: each line checked)."""
    found: list[list[str]] = []
    within = False
    for line in err.splitlines():
        if line.startswith(name):
            found.append([line])
            within = True
        elif within and line.startswith(" "):
            found[-1].append(line)
        else:
            within = False
    assert all(len(line) <= 80 for block in found for line in block), found
    return found


def unwrapped(block: list[str]) -> list[str]:
    """A block's items (its first line, then each line indented by two spaces), each with the
    lines it was wrapped onto joined again."""
    items: list[str] = []
    for line in block:
        if not items or (line.startswith("  ") and not line.startswith("    ")):
            items.append(line.strip())
        else:
            items[-1] += " " + line.strip()
    return items


def test_the_machine_s_trouble_ends_it_in_a_line_that_blames_no_bot(monkeypatch):
    from bots.running.process import PlatformError

    def trouble(self, *args, **kwargs):
        raise PlatformError("the bot's process was killed by SIGKILL from outside")

    monkeypatch.setattr(Arena, "run", trouble)
    with pytest.raises(CommandError, match="killed by SIGKILL from outside. No bot is to blame"):
        arena("builtin:simple", "builtin:minimal", "--rounds", "1")


def test_it_prints_a_leaderboard_and_writes_the_json_schema(tmp_path):
    out_json = tmp_path / "out" / "results.json"
    table = arena(
        "builtin:strong",
        "builtin:simple",
        "builtin:minimal",
        "--rounds",
        "6",
        "--seed",
        "42",
        "--json",
        str(out_json),
    )
    assert "rank" in table and "strong" in table and "games won %" in table
    data = json.loads(out_json.read_text())
    assert data["game"] == "rps-poker"
    assert data["seed"] == 42
    assert data["rounds"] == 6
    assert data["matches"] == 6 * 3
    assert data["elapsed_s"] >= 0
    bots = data["bots"]
    assert next(b["name"] for b in bots) == "strong"
    assert {b["source"] for b in bots} == {"builtin:strong", "builtin:simple", "builtin:minimal"}
    for bot in bots:
        assert set(bot) >= {"name", "source", "score", "games", "wins", "faults"}
        assert bot["games"] == 6 * 2 * 10
        assert bot["matches"] == bot["wins"] + bot["draws"] + bot["losses"] == 12
    assert sum(b["score"] for b in bots) == 10 * 6 * 3
    assert bots == sorted(bots, key=lambda b: -b["score"])


def test_it_is_reproducible_from_its_seed(tmp_path):
    runs = []
    for n in range(2):
        path = tmp_path / f"{n}.json"
        arena(
            "builtin:strong", "builtin:simple", "--rounds", "5", "--seed", "7", "--json", str(path)
        )
        runs.append([(b["name"], b["score"]) for b in json.loads(path.read_text())["bots"]])
    assert runs[0] == runs[1]


def test_it_runs_bot_files_in_child_processes_and_names_them(tmp_path, bot_file):
    first = bot_file("first_card.py", FIRST_CARD_BOT.format(name="Firsty"))
    nameless = bot_file("plain_bot.py", FIRST_CARD_BOT.replace('name = "{name}"', "pass"))
    out_json = tmp_path / "r.json"
    arena(
        str(first),
        str(nameless),
        "builtin:minimal",
        "--rounds",
        "2",
        "--seed",
        "1",
        "--json",
        str(out_json),
    )
    bots = {b["name"]: b for b in json.loads(out_json.read_text())["bots"]}
    assert set(bots) == {"Firsty", "plain_bot", "minimal"}
    assert bots["Firsty"]["source"] == str(first)
    # The first-card bot and minimal play the same way: neither faults, and all 60 games split.
    assert sum(b["score"] for b in bots.values()) == 60
    assert all(b["faults"] == 0 for b in bots.values())


def test_it_tells_apart_two_bots_with_one_name(tmp_path):
    out_json = tmp_path / "r.json"
    arena("builtin:simple", "builtin:simple", "--rounds", "1", "--json", str(out_json))
    assert sorted(b["name"] for b in json.loads(out_json.read_text())["bots"]) == [
        "simple",
        "simple#2",
    ]


def test_it_writes_match_records_and_bot_logs(tmp_path, bot_file):
    chatty = bot_file(
        "chatty.py",
        first_card_bot("chatty", "main_play", "print('thinking about', hand)"),
    )
    logs = tmp_path / "logs"
    arena(str(chatty), "builtin:simple", "--rounds", "2", "--seed", "3", "--logs", str(logs))
    records = sorted((logs / "matches").glob("*.json"))
    assert len(records) == 2
    record = json.loads(records[0].read_text())
    assert record["game"] == "rps-poker"
    assert {s["name"] for s in record["seats"]} == {"chatty", "simple"}
    assert sum(record["result"]["scores"]) == 10
    (stderr_log,) = (logs / "stderr").glob("*chatty*")
    # print() in a bot goes to its log, never into the protocol.
    assert "thinking about" in stderr_log.read_text()


def test_it_records_faults_and_keeps_going(tmp_path, bot_file):
    raiser = bot_file(
        "raiser.py",
        FIRST_CARD_BOT.format(name="raiser").replace(
            "        return 0\n\n    def main_postprocess",
            "        raise ValueError('no idea')\n\n    def main_postprocess",
        ),
    )
    wrong = bot_file(
        "wrong.py",
        FIRST_CARD_BOT.format(name="wrong").replace(
            "    def draft_pick(self, cards):\n        return 0",
            "    def draft_pick(self, cards):\n        return 2",
        ),
    )
    out_json = tmp_path / "r.json"
    arena(str(raiser), str(wrong), "builtin:minimal", "--rounds", "2", "--json", str(out_json))
    bots = {b["name"]: b for b in json.loads(out_json.read_text())["bots"]}
    # wrong faults at its first draft pick in every match, so against it raiser never reaches
    # the main phase; raiser faults at its first main play against minimal.
    assert bots["wrong"]["faults"] == 4
    assert bots["wrong"]["fault_kinds"] == {"invalid": 4}
    assert bots["raiser"]["fault_kinds"] == {"exception": 2}
    assert bots["minimal"]["faults"] == 0
    assert bots["minimal"]["score"] == 40
    assert bots["raiser"]["score"] == 20
    assert bots["wrong"]["score"] == 0


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("missing.py", "missing.py: no such file"),
        ("builtin:nobody", "rps-poker has no built-in bot 'nobody'"),
    ],
)
def test_it_names_the_problem_with_a_bad_bot_argument(source, message):
    with pytest.raises(CommandError, match=message):
        arena(source, "builtin:minimal", "--rounds", "1")


def test_it_refuses_a_file_without_a_bot_class(bot_file):
    path = bot_file("nobot.py", "class Player:\n    pass\n")
    with pytest.raises(CommandError, match=r"nobot.py: no top-level class Bot$"):
        arena(str(path), "builtin:minimal", "--rounds", "1")


def test_it_refuses_a_bot_missing_a_method(bot_file):
    path = bot_file("half.py", "class Bot:\n    def draft_pick(self, cards):\n        return 0\n")
    with pytest.raises(
        CommandError,
        match="half.py: class Bot has no method draft_receive, main_play, main_postprocess",
    ):
        arena(str(path), "builtin:minimal", "--rounds", "1")


def test_it_reports_an_import_failure_with_the_traceback_in_the_log(bot_file):
    path = bot_file("crashy.py", "import math\nVALUE = math.sqrt(-1)\n")
    with pytest.raises(CommandError) as info:
        arena(str(path), "builtin:minimal", "--rounds", "1")
    message = str(info.value)
    assert "crashy.py: failed at import: ValueError: math domain error" in message
    assert "\n" not in message
    log = Path(message.split("(traceback in ")[1].rstrip(")"))
    assert "Traceback (most recent call last)" in log.read_text()
    assert "math.sqrt(-1)" in log.read_text()


def test_it_refuses_an_unsupported_file_type(bot_file):
    path = bot_file("bot.rb", "puts 1\n")
    with pytest.raises(CommandError, match="unsupported bot file type '.rb'"):
        arena(str(path), "builtin:minimal", "--rounds", "1")


def test_it_needs_two_bots():
    with pytest.raises(CommandError, match="an arena needs at least 2 bots"):
        arena("builtin:minimal", "--rounds", "1")


@pytest.mark.parametrize("sandbox", [[], ["--no-sandbox"]])
def test_hostile_answers_end_as_faults_of_their_bots(tmp_path, sandbox):
    # A Python and a JS bot answering main_play with lists nested thousands deep, and one
    # writing NUL and bytes that are not UTF-8 to stderr and raising with NUL in its message.
    hostile = Path(__file__).resolve().parent.parent / "sandbox" / "bots"
    names = ["nested.py", "nested.js", "unstorable.py"]
    out_json = tmp_path / "r.json"
    arena(
        *(str(hostile / name) for name in names), "builtin:minimal", "--rounds", "1",
        "--json", str(out_json), "--logs", str(tmp_path / "logs"), *sandbox,
    )  # fmt: skip
    results = json.loads(out_json.read_text())["bots"]
    kinds = {b["name"]: b["fault_kinds"] for b in results}
    # each of them meets the three others once
    assert kinds["nested"] == kinds["nested#2"] == {"invalid": 3}
    assert kinds["unstorable"] == {"exception": 3}
    assert kinds["minimal"] == {}
    records = list((tmp_path / "logs" / "matches").glob("*.json"))
    assert len(records) == 6
    for path in records:
        assert "\\u0000" not in path.read_text()


def test_a_bots_name_and_reasons_are_shown_never_interpreted(tmp_path, bot_file, capfd):
    # Console markup in a name used to end the command with MarkupError; an escape sequence
    # in a reason reached the terminal.
    evil = bot_file(
        "evil.py",
        FIRST_CARD_BOT.format(name="[/evil]").replace(
            "        return 0\n\n    def main_postprocess",
            "        raise ValueError('[/bold] \\x1b[2J cleared')\n\n    def main_postprocess",
        ),
    )
    table = arena(str(evil), "builtin:minimal", "--rounds", "2")
    err = capfd.readouterr().err
    assert "[/evil] (faulty)" in table
    assert "ValueError: [/bold] \\x1b[2J cleared" in err
    assert "\x1b[2J" not in err + table


def test_a_bot_cannot_print_a_line_of_its_own_in_the_arenas_output(bot_file, capfd, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # (the lines checked at 80 columns)
    # A new line in a bot's name or a fault's reason once began a line the bot wrote: "second
    # line", or a forged fault of another bot's.
    forger = bot_file(
        "forger.py",
        FIRST_CARD_BOT.format(name="forger\\nsimple").replace(
            "        return 0\n\n    def main_postprocess",
            "        raise ValueError('boom\\x1b[1A\\rforged: simple crashed\\nsecond line')"
            "\n\n    def main_postprocess",
        ),
    )
    table = arena(str(forger), "builtin:minimal", "--rounds", "2")
    err = capfd.readouterr().err
    assert "forger\\nsimple (faulty)" in table
    assert not any(line.strip("│ ").startswith("simple") for line in table.splitlines())
    (block,) = blocks(err, "forger")
    header, first, keep = unwrapped(block)
    assert header == "forger\\nsimple (faulted in every match): exception 2 times in 2 matches"
    assert first.startswith(
        "first, in match 1: main_play raised ValueError: boom\\x1b[1A\\x0dforged: simple "
        "crashed\\nsecond line"
    )
    assert keep == "--logs DIR keeps every match record and each bot's stderr log"
    assert not any(line.startswith(("second line", "forged")) for line in err.splitlines())


def test_a_bot_that_cannot_start_cannot_print_a_line_of_its_own_either(bot_file):
    path = bot_file("imports.py", "raise ValueError('x\\nforged line\\x1b[2J')\n")
    with pytest.raises(CommandError) as refused:
        arena(str(path), "builtin:minimal", "--rounds", "1")
    said = str(refused.value)
    assert "\n" not in said and "\x1b" not in said
    said_at = "(imports.py, line 1) (traceback in"
    assert f"imports.py: failed at import: ValueError: x\\nforged line\\x1b[2J {said_at}" in said


def test_it_reads_a_configuration_file_for_any_game(tmp_path, bot_file):
    # the original kit's format: bot folders (helper modules skipped), single bots, a seed
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "first.py").write_text(FIRST_CARD_BOT.format(name="first"))
    (folder / "helper.py").write_text("SOMETHING = 1\n")
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps({"game": "rps-poker", "ai_dirs": ["mine"], "ai": ["builtin:minimal"],
                    "seed": 4})
    )  # fmt: skip
    out_json = tmp_path / "r.json"
    out = io.StringIO()
    call_command(
        "arena", "--config", str(config), "--rounds", "1", "--no-progress", "--json",
        str(out_json), stdout=out,
    )  # fmt: skip
    data = json.loads(out_json.read_text())
    assert data["game"] == "rps-poker" and data["seed"] == 4 and data["matches"] == 1
    assert {b["source"] for b in data["bots"]} == {str(folder / "first.py"), "builtin:minimal"}


def test_it_can_run_built_in_bots_as_child_processes(tmp_path):
    # what the benchmarks compare: the same bots through the protocol, in plain processes
    game = get_game("rps-poker")
    logs = tmp_path / "logs"
    with Arena(game, ["builtin:simple", "builtin:minimal"], in_process_builtins=False,
               logs=logs) as arena:  # fmt: skip
        assert all(isinstance(e.agent, ProcessAgent) for e in arena.entrants)
        assert not any(e.process.launch.sandbox for e in arena.entrants)  # trusted
        summary = arena.run(rounds=2, seed=5)
    assert summary["matches"] == 2
    assert {b["name"] for b in summary["bots"]} == {"simple", "minimal"}
    assert sorted(p.name for p in (logs / "stderr").iterdir()) == [
        "00-simple.stderr.log",
        "01-minimal.stderr.log",
    ]


def test_its_results_are_the_same_whatever_the_number_of_jobs(tmp_path, bot_file):
    # a bot that raises in a notice on some deals: its faults and their reports come back
    # from the processes that played them
    touchy = bot_file(
        "touchy.py",
        FIRST_CARD_BOT.format(name="touchy").replace(
            "    def draft_receive(self, card):\n        pass",
            "    def draft_receive(self, card):\n"
            "        if card == 'S7':\n            raise ValueError('not that one')",
        ),
    )
    runs = {}
    for jobs in (1, 2):
        out_json, logs = tmp_path / f"{jobs}.json", tmp_path / f"logs{jobs}"
        # 240 matches: in two jobs, chunks of 12, then 10 (bots.arena.chunk_sizes)
        table = arena(str(touchy), "builtin:simple", "builtin:strong", "--rounds", "80",
                      "--seed", "11", "--jobs", str(jobs), "--json", str(out_json),
                      "--logs", str(logs))  # fmt: skip
        data = json.loads(out_json.read_text())
        for bot in data["bots"]:
            bot.pop("mean_call_ms")
            for note in bot["fault_details"].values():  # each run has its own --logs
                for key in ("match_file", "stderr_log"):
                    note[key] = str(Path(note[key]).relative_to(logs))
            for report in bot["fault_reports"]:
                report.pop("stderr_tail")  # the same bot's output, but how much of it varies
        records = []
        for path in sorted((logs / "matches").glob("*.json")):
            record = json.loads(path.read_text())
            records.append((path.name, record["seed"], record["events"], record["result"]))
        runs[jobs] = (table.splitlines()[1:], data.pop("elapsed_s") >= 0, data, records)
    # (on a failure, what the bot's logs said says why)
    logs = {jobs: (tmp_path / f"logs{jobs}" / "stderr" / "00-touchy.stderr.log") for jobs in runs}
    told = "\n".join(f"--jobs {j}:\n{p.read_text()[-3000:]}" for j, p in logs.items() if p.exists())
    assert runs[1][2]["bots"] == runs[2][2]["bots"], told
    assert runs[1] == runs[2]
    data = runs[2][2]
    assert data["matches"] == 240 and len(runs[2][3]) == 240
    touchy_json = next(b for b in data["bots"] if b["name"] == "touchy")
    assert 0 < touchy_json["faults"] < 160
    assert touchy_json["fault_reports"][-1]["reason"] == (
        "draft_receive raised ValueError: not that one (touchy.py, line 10)"
    )
    assert "not that one" in (tmp_path / "logs2" / "stderr" / "00-touchy.stderr.log").read_text()


#: raises in a notice on one card, answers True to a draft pick offering another: faults of
#: two kinds, in fewer than half of its matches
NOW_AND_THEN = FIRST_CARD_BOT.replace(
    "    def draft_pick(self, cards):\n        return 0",
    "    def draft_pick(self, cards):\n        return True if 'P3' in cards else 0",
).replace(
    "    def draft_receive(self, card):\n        pass",
    "    def draft_receive(self, card):\n"
    "        if card == 'S7':\n            raise ValueError('not that one')",
)


def test_it_prints_a_line_for_every_kind_of_fault_of_every_bot(
    tmp_path, bot_file, capfd, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "80")  # (the lines checked at 80 columns)
    monkeypatch.chdir(tmp_path)  # (--logs logs: paths that fit a line)
    # Not "faulty" (it faults in fewer than half of its matches), yet every kind of fault it
    # made is told: how many, the first one's call and reason, and where to read the match.
    bot = bot_file("nowandthen.py", NOW_AND_THEN.format(name="nowandthen"))
    logs, out_json = Path("logs"), tmp_path / "r.json"
    arena(str(bot), "builtin:simple", "builtin:minimal", "--rounds", "10", "--seed", "3",
          "--logs", str(logs), "--json", str(out_json))  # fmt: skip
    err = capfd.readouterr().err
    mine = next(b for b in json.loads(out_json.read_text())["bots"] if b["name"] == "nowandthen")
    assert not mine["faulty"] and set(mine["fault_kinds"]) == {"exception", "invalid"}
    details = mine["fault_details"]
    assert {k: d["count"] for k, d in details.items()} == mine["fault_kinds"]
    assert details["exception"]["reason"] == (
        "draft_receive raised ValueError: not that one (nowandthen.py, line 10)"
    )
    assert details["invalid"]["reason"] == (
        "draft_pick returned an illegal answer: expected an index 0-1, got True"
    )
    found = [unwrapped(block) for block in blocks(err, "nowandthen")]
    assert len(found) == 2
    for kind, said in zip(details, found, strict=True):
        note = details[kind]
        number = note["first_match"]
        record = Path(note["match_file"])
        assert record.parent == logs / "matches" and record.name.startswith(f"{number:05d}-")
        assert record.exists()
        assert Path(note["stderr_log"]) == logs / "stderr" / "00-nowandthen.stderr.log"
        # the record is that of the match the fault happened in
        faults = [e for e in json.loads(record.read_text())["events"] if e["type"] == "fault"]
        assert {"kind": kind, "reason": note["reason"]} in [
            f for event in faults for f in event["faults"].values()
        ]
        times = f"{note['count']} times" if note["count"] > 1 else "once"
        assert said == [
            f"nowandthen: {kind} {times} in {mine['matches']} matches",  # (not faulty)
            f"first, in match {number}: {note['reason']}",
            f"match record: {record}",
            f"stderr log: {note['stderr_log']}",
        ]


def test_without_logs_the_fault_lines_say_how_to_keep_them(tmp_path, bot_file, capfd, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # (the lines checked at 80 columns)
    bot = bot_file("nowandthen.py", NOW_AND_THEN.format(name="nowandthen"))
    out_json = tmp_path / "r.json"
    arena(str(bot), "builtin:simple", "builtin:minimal", "--rounds", "10", "--seed", "3",
          "--json", str(out_json))  # fmt: skip
    err = capfd.readouterr().err
    mine = next(b for b in json.loads(out_json.read_text())["bots"] if b["name"] == "nowandthen")
    assert all(d["match_file"] is d["stderr_log"] is None for d in mine["fault_details"].values())
    found = [unwrapped(block) for block in blocks(err, "nowandthen")]
    assert len(found) == len(mine["fault_kinds"]) > 0
    assert all(said[-1] == "--logs DIR keeps every match record and each bot's stderr log"
               for said in found)  # fmt: skip


def test_a_bot_whose_constructor_raises_has_a_startup_fault(bot_file, capfd, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # (the lines checked at 80 columns)
    broken = FIRST_CARD_BOT.replace(
        '    name = "{name}"\n',
        '    name = "{name}"\n\n    def __init__(self):\n        raise RuntimeError("no table")\n',
    )
    path = bot_file("broken.py", broken.format(name="broken"))
    table = arena(str(path), "builtin:minimal", "--rounds", "2")
    assert "2 (startup 2)" in table
    err = capfd.readouterr().err
    (block,) = blocks(err, "broken")
    header, first, _ = unwrapped(block)
    assert header == "broken (faulted in every match): startup 2 times in 2 matches"  # not "most"
    assert first.startswith(
        "first, in match 1: the bot's constructor raised RuntimeError: no table"
    )


def test_a_js_bot_is_told_its_own_method_names(bot_file):
    path = bot_file("half.js", "({ draftPick(cards) { return 0; } })\n")
    with pytest.raises(
        CommandError,
        match="half.js: the bot object has no method draftReceive, mainPlay, mainPostprocess",
    ):
        arena(str(path), "builtin:minimal", "--rounds", "1", "--no-sandbox")


def test_it_refuses_fewer_than_one_job():
    with pytest.raises(CommandError, match="--jobs must be at least 1"):
        arena("builtin:simple", "builtin:minimal", "--jobs", "0")


def test_a_bots_stderr_log_is_the_same_whatever_the_number_of_jobs(tmp_path, bot_file):
    # Each match's part of the log whole, and the matches in schedule order: with jobs, the
    # parts of two processes once interleaved (match 11's header above match 10's lines).
    noisy = bot_file(
        "noisy.py",
        first_card_bot(
            "noisy", "draft_pick", "print('pick', cards, file=sys.stderr)", "import sys\n"
        ),
    )
    logs = {}
    for jobs in (1, 3):
        folder = tmp_path / f"logs{jobs}"
        arena(str(noisy), "builtin:simple", "builtin:strong", "--rounds", "20", "--seed", "3",
              "--jobs", str(jobs), "--logs", str(folder))  # fmt: skip
        assert [p.name for p in (folder / "stderr").iterdir()] == ["00-noisy.stderr.log"]
        logs[jobs] = (folder / "stderr" / "00-noisy.stderr.log").read_text()
    headers = [line for line in logs[3].splitlines() if line.startswith("--- match start")]
    numbers = [int(re.search(r"match (\d+) \(", line).group(1)) for line in headers]
    assert len(numbers) == 40 and numbers == sorted(numbers) and numbers[-1] >= 59
    assert logs[3].count("pick [") == 40 * 5
    assert logs[3] == logs[1]


def test_it_holds_bots_to_the_uploads_limit_on_slow_calls_in_a_row(tmp_path, bot_file):
    # A bot slow on every call, well within its time bank: the upload's validation rejects
    # it after 3 such calls, and so must the arena (it once passed here; and under load, where
    # a bot just woken from its sleep was credited its whole call as a wait for a CPU:
    # tests/bots/test_starved.py).
    slow = bot_file(
        "slow.py",
        first_card_bot("slow", "draft_pick", "time.sleep(1.15)", "import time\n"),
    )
    out_json, logs = tmp_path / "r.json", tmp_path / "logs"
    arena(str(slow), "builtin:simple", "--rounds", "1", "--seed", "5", "--json", str(out_json),
          "--logs", str(logs))  # fmt: skip
    bot = next(b for b in json.loads(out_json.read_text())["bots"] if b["name"] == "slow")
    assert bot["faults"] == 1
    reason = bot["fault_details"]["timeout"]["reason"]
    assert re.match(r"3 calls in a row over the 1 s per call \(draft_pick took 1\.\d\d s; ", reason)
    assert reason.endswith("the 10 s time bank pays for occasional slow calls, not for 3 in a row")
    # the log's fault line, written when the call ran out, is followed by the record's reason
    # (it once said only "no answer to draft_pick within 1.00 s"); on a busy machine the
    # third call's deadline moves on by the bot's waits for a CPU, its late answer comes,
    # and the fault line says the record's reason itself
    log = (logs / "stderr" / "00-slow.stderr.log").read_text()
    line = next(x for x in log.splitlines() if x.startswith("--- fault (timeout): "))
    if line != f"--- fault (timeout): {reason} ---":
        assert f"--- the match recorded it as: {reason} ---" in log


def test_a_long_exception_is_quoted_whole_in_the_reason_and_the_record(tmp_path, bot_file):
    # an exception's description once lost all but its first 300 characters
    wordy = bot_file(
        "wordy.py",
        first_card_bot(
            "wordy",
            "draft_pick",
            "raise ValueError('no good pick among ' + repr(cards) * 40 + ' END')",
        ),
    )
    out_json, logs = tmp_path / "r.json", tmp_path / "logs"
    arena(str(wordy), "builtin:simple", "--rounds", "1", "--seed", "5", "--json", str(out_json),
          "--logs", str(logs))  # fmt: skip
    bot = next(b for b in json.loads(out_json.read_text())["bots"] if b["name"] == "wordy")
    reason = bot["fault_details"]["exception"]["reason"]
    assert len(reason) > 500 and reason.endswith(" END (wordy.py, line 6)")
    (record,) = (logs / "matches").glob("*.json")
    assert reason in record.read_text()


def test_a_games_options_are_set_with_option_and_checked_by_name(tmp_path):
    # Goofspiel's num_cards, deals and returns_type existed in the engine only
    logs = tmp_path / "logs"
    call_command("arena", "--game", "goofspiel", "builtin:matching", "builtin:random",
                 "--rounds", "2", "--seed", "1", "--no-progress", "--logs", str(logs),
                 "--option", "num_cards=6", "--option", "returns_type=point_difference",
                 stdout=io.StringIO())  # fmt: skip
    records = [json.loads(p.read_text()) for p in sorted((logs / "matches").glob("*.json"))]
    assert len(records) == 2
    for record in records:
        assert record["config"] == {"num_cards": 6, "deals": 3, "returns_type": "point_difference"}
        bids = [e for e in record["events"] if e.get("type") == "action"]
        assert bids and all(1 <= e["action"] <= 6 for e in bids)
    refusals = {
        "num_cards=20": "goofspiel: num_cards takes a whole number from 2 to 13, not 20",
        "deals=two": "goofspiel: deals takes a whole number from 1 to 1000, not two",
        "returns_type=all": (
            "goofspiel: returns_type takes one of win_loss, point_difference, not all"
        ),
        "cards=6": "goofspiel has no option 'cards' (its options: num_cards, deals, returns_type)",
        "num_cards": "an option is NAME=VALUE, such as num_cards=6, not 'num_cards'",
    }
    for given, message in refusals.items():
        with pytest.raises(CommandError) as refused:
            call_command("arena", "--game", "goofspiel", "builtin:matching", "builtin:random",
                         "--no-progress", "--option", given, stdout=io.StringIO())  # fmt: skip
        assert str(refused.value) == f"--option: {message}"
    with pytest.raises(CommandError, match="^--option: rps-poker has no options to set$"):
        arena("builtin:simple", "builtin:strong", "--option", "hands=10")
    with pytest.raises(CommandError, match="^--option: the rounds of a session are --rounds-per"):
        call_command("arena", "--game", "uth", "builtin:basic", "--option", "max_rounds=5",
                     "--no-progress", stdout=io.StringIO())  # fmt: skip


@pytest.mark.parametrize("pin", [True, False])
def test_each_job_plays_with_its_own_bots_on_its_share_of_the_cpus(tmp_path, bot_file, pin):
    """With --jobs 2 each process and the bots it starts run on a share of the CPUs
    (bots.running.cpus), and the command's own process is let go where it was; --no-pin leaves them
    anywhere. The bot says in each match where it may run (os.sched_getaffinity, from inside
    the sandbox)."""
    teller = bot_file(
        "teller.py",
        first_card_bot(
            "teller", "draft_pick",
            "print('cpus', sorted(os.sched_getaffinity(0)), file=sys.stderr)",
            "import os, sys\n",
        ),
    )  # fmt: skip
    before = os.sched_getaffinity(0)
    logs = tmp_path / "logs"
    arena(str(teller), "builtin:simple", "builtin:strong", "--rounds", "30", "--seed", "5",
          "--jobs", "2", "--logs", str(logs), *([] if pin else ["--no-pin"]))  # fmt: skip
    assert os.sched_getaffinity(0) == before
    said = set(
        re.findall(r"cpus (\[[\d, ]*\])", (logs / "stderr" / "00-teller.stderr.log").read_text())
    )
    shares = cpus.shares(2)
    if pin and shares:
        assert said == {str(share) for share in shares}  # both jobs played
    else:
        assert said == {str(sorted(before))}


def test_jobs_take_matches_in_chunks_of_about_a_tenth_of_their_share():
    from bots.arena import _first, chunk_size

    assert chunk_size(1000, 2) == 50  # the original tournament in two jobs
    assert chunk_size(60, 2) == 10 and chunk_size(5, 4) == 10  # never smaller than 10
    assert chunk_size(100_000, 2) == 100  # nor larger than 100
    tables = list(range(123))
    chunks = [tables[i : i + 50] for i in range(0, 123, 50)]
    assert [_first(chunks, i) for i in range(3)] == [1, 51, 101]
    chunks = [tables[:50], tables[50:80], tables[80:]]
    assert [_first(chunks, i) for i in range(3)] == [1, 51, 81]


def test_the_last_chunks_are_smaller_so_that_the_jobs_end_together():
    from bots.arena import CHUNK_MIN, chunk_sizes

    sizes = chunk_sizes(1000, 2)
    assert sum(sizes) == 1000
    assert sizes[:16] == [50] * 16  # while much is left, a tenth of a job's share
    assert sizes == sorted(sizes, reverse=True)  # then smaller, never larger again
    # the last chunk a process takes while another plays its own is CHUNK_MIN at most
    assert sizes[-4:] == [CHUNK_MIN, CHUNK_MIN, CHUNK_MIN, 6]
    for matches, jobs in ((5, 4), (60, 2), (240, 2), (100_000, 3), (1001, 4)):
        sizes = chunk_sizes(matches, jobs)
        assert sum(sizes) == matches and all(size > 0 for size in sizes)
        assert all(size >= CHUNK_MIN for size in sizes[:-1])
    assert chunk_sizes(0, 2) == []


def keep_forked_jobs(patch: pytest.MonkeyPatch) -> list:
    """Has ``Arena._fork_jobs`` keep what it makes (the jobs an arena forks) in the list
    returned."""
    jobs = []
    fork_jobs = Arena._fork_jobs

    def kept(self, count, job_cpus):
        made = fork_jobs(self, count, job_cpus)
        jobs.append(made)
        return made

    patch.setattr(Arena, "_fork_jobs", kept)
    return jobs


def test_jobs_start_their_bots_beside_the_arenas_and_go_when_a_bot_is_refused(tmp_path, bot_file):
    # The jobs are forked, and start their own bots, before this arena's bots have said
    # hello: a bot refused then ends them too, and none is left running.
    broken = bot_file("broken.py", "raise SystemExit('no')\n")
    game = get_game("rps-poker")
    with pytest.MonkeyPatch.context() as patch:
        jobs = keep_forked_jobs(patch)
        with pytest.raises(ArenaError, match="broken.py"):
            Arena(game, [str(broken), "builtin:simple"], in_process_builtins=False,
                  sandbox=False, jobs=3)  # fmt: skip
    assert len(jobs) == 1 and jobs[0].count == 2
    assert all(not worker.is_alive() for worker in jobs[0].workers)
    assert not jobs[0].parts.exists()


@pytest.mark.parametrize("how", ["dies", "fails"])
def test_a_job_that_dies_or_fails_mid_tournament_is_a_clear_error_and_leaves_nothing(how, tmp_path):
    # (30 matches: three chunks of 10; the forked job dies, or raises, in the first it plays;
    # the arena's own process waits for it to have taken one, else on a loaded machine it
    # could play all three before the job had started its bots)
    parent = os.getpid()
    play = Arena._play
    taken = tmp_path / "the job took a chunk"

    def breaking(self, tables, *args, **kwargs):
        if os.getpid() != parent:
            taken.touch()
            if how == "dies":
                os._exit(3)
            raise RuntimeError("the job broke here")
        deadline = time.monotonic() + 30
        while not taken.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return play(self, tables, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Arena, "_play", breaking)
        jobs = keep_forked_jobs(patch)
        game = get_game("rps-poker")
        with Arena(game, ["builtin:simple", "builtin:strong", "builtin:minimal"],
                   in_process_builtins=False, sandbox=False, jobs=2) as arena:  # fmt: skip
            said = "a process playing matches died" if how == "dies" else "the job broke here"
            with pytest.raises(ArenaError, match=said):
                arena.run(10, 7)
    assert len(jobs) == 1 and not any(worker.is_alive() for worker in jobs[0].workers)
    assert not jobs[0].parts.exists()
    assert all(entrant.process is None or not entrant.process.alive for entrant in arena.entrants)


def test_every_process_plays_its_matches_with_the_set_up_frozen_and_seldom_collected():
    # (30 matches: three chunks of 10, played here and in a forked job; each process says
    # how its garbage collector is set while it plays, the job by failing if it is not so)
    parent, seen = os.getpid(), []
    play = Arena._play

    def watched(self, tables, *args, **kwargs):
        state = (gc.get_freeze_count() > 0, gc.get_threshold()[0] >= TOURNAMENT_GC_THRESHOLD)
        if os.getpid() != parent and state != (True, True):
            raise RuntimeError(f"a job plays with the collector as it was: {state}")
        seen.append(state)
        return play(self, tables, *args, **kwargs)

    before = gc.get_threshold()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Arena, "_play", watched)
        game = get_game("rps-poker")
        with Arena(game, ["builtin:simple", "builtin:strong", "builtin:minimal"],
                   in_process_builtins=False, sandbox=False, jobs=2) as arena:  # fmt: skip
            assert arena.run(10, 7)["matches"] == 30
    assert seen and all(state == (True, True) for state in seen)
    assert gc.get_threshold() == before  # and as they were after


def test_an_arena_forks_no_more_jobs_than_it_has_chunks():
    assert busy_jobs(10, 2) == 1  # one chunk of 10
    assert busy_jobs(30, 4) == 3
    assert busy_jobs(1000, 2) == 2
    assert busy_jobs(1000, 1) == 1


def test_a_job_hands_a_match_back_whole_but_for_its_chance_s_generator():
    # (what a job sends through its queue: the match is over, nothing draws from it again)
    game = get_game("rps-poker")
    agents = [minimal_agent("a"), minimal_agent("b")]
    outcome = MatchRunner(FakeClock()).run(game.state_class.new(7, 2, {}), agents, seed=7)
    sent = ForkingPickler.dumps(outcome)
    back = pickle.loads(sent)
    assert back.record == outcome.record and back.result == outcome.result
    assert back.faults == outcome.faults and back.stats == outcome.stats
    assert back.state.log == outcome.state.log and back.state.scores == outcome.state.scores
    assert back.state._chance is None and outcome.state._chance is not None
    assert len(sent) < len(pickle.dumps(outcome)) / 2


def test_the_fault_summary_counts_one_match_in_the_singular():
    # (it said "timeout once in 1 matches")
    from rich.console import Console

    from bots.arena.command import _print_faults

    out = io.StringIO()
    note = {"count": 1, "first_match": 1, "reason": "act took too long", "match_file": ""}
    bot = {"name": "slow", "matches": 1, "fault_details": {"timeout": note}}
    _print_faults(Console(file=out, width=400), {"bots": [bot]})
    assert out.getvalue().splitlines()[:2] == [
        "slow: timeout once in 1 match",
        "  first, in match 1: act took too long",
    ]
