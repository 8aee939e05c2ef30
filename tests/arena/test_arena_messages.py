"""What ``manage.py arena`` says besides its table, as a newcomer's first hour read it at an
80-column terminal: a fault's lines wrapped under the bot's name (they were one line of up
to 330 columns), a bot faulty in every match said so, Last Card's refused moves explained
after the table, a timeout said as it happens and in one sentence, a compile said before
its seconds of silence, and the README's list of games whole."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots.arena import command
from bots.running import starved
from games.engine.runner import SeatStats, TimeControl, _allowance
from games.engine.table import a_title
from games.records import refused
from games.registry import games, get_game
from tests.arena.test_arena_command import blocks, unwrapped
from tests.compiles import CompileLookedUp, spy_on_compiles

ROOT = Path(__file__).resolve().parents[2]

#: Goofspiel's starter, its bids made strings ("7", not 7): an invalid answer every match
GOOFSPIEL_STR = (
    (ROOT / "games/goofspiel/starter.py")
    .read_text()
    .replace("return min(winners)", "return str(min(winners))")
    .replace("return min(hand)\n", "return str(min(hand))\n")
    .replace(
        "return min(hand, key=lambda card: abs(card - prize))",
        "return str(min(hand, key=lambda card: abs(card - prize)))",
    )
)
#: Last Card's starter playing a card ("As") where a move is a dict: refused every time, as
#: a pass
LAST_CARD_STR = (
    (ROOT / "games/last_card/starter.py")
    .read_text()
    .replace(
        "    def play(self, state):\n",
        "    def play(self, state):\n        return state['hand'][0]\n",
    )
)


@pytest.fixture(autouse=True)
def columns(monkeypatch):
    """Lines wrapped to 80 columns where they do not go to a terminal."""
    monkeypatch.setenv("COLUMNS", "80")


def manage(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``manage.py ARGS`` as a person runs it (the arena without Django), at 80 columns."""
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def test_a_faults_lines_fit_80_columns_under_the_bots_name(bot_file):
    # one line of 267 columns once: name, count, the first reason and --logs, wrapped
    # mid-word by the terminal
    path = bot_file("gs_str.py", GOOFSPIEL_STR)
    done = manage("arena", "--game", "goofspiel", str(path), "builtin:matching",
                  "--rounds", "3", "--seed", "1", "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert widest(done.stdout) <= 80 and widest(done.stderr) <= 80, done.stderr
    (block,) = blocks(done.stderr, "starter")
    header, first, keep = unwrapped(block)
    assert header == "starter (faulted in every match): invalid 3 times in 3 matches"
    assert re.fullmatch(
        r"first, in match 1: act returned an illegal answer: a bid is one of your cards "
        r"\(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13\), got '\d+'",
        first,
    ), first
    assert keep == "--logs DIR keeps every match record and each bot's stderr log"
    assert len(block) > 3  # (the reason took a second line, indented under the first)


def test_a_command_error_is_wrapped_and_a_file_of_another_game_is_told_its_game(bot_file):
    # "CommandError: ...: failed at import: ..." was 169-192 columns
    path = bot_file("gs_import.py", "import numpy\n\nclass Bot:\n    def act(self, obs):\n"
                    "        return 1\n")  # fmt: skip
    done = manage("arena", "--game", "goofspiel", path.name, "builtin:matching", cwd=path.parent)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0].startswith("CommandError: ") and len(lines) > 1
    assert all(line.startswith("  ") for line in lines[1:]) and widest(done.stderr) <= 80
    said = " ".join(line.strip() for line in lines)
    assert "gs_import.py: failed at import: ModuleNotFoundError: No module named 'numpy'" in said
    # a Last Card bot given to Goofspiel, whose text its start alone tells (it names act):
    # the game to give it
    text = (ROOT / "games/last_card/starter.py").read_text() + "# not act()\n"
    other = bot_file("last_card_mine.py", text)
    done = manage("arena", "--game", "goofspiel", other.name, "builtin:matching", cwd=other.parent)
    assert done.returncode == 1 and widest(done.stderr) <= 80, done.stderr
    said = " ".join(line.strip() for line in done.stderr.splitlines())
    assert said.endswith(
        "this file defines play (Last Card's method): is it for another game? If so, play it "
        "with --game last-card."
    ), said


@pytest.mark.parametrize(
    ("game", "language", "said", "methods"),
    [
        # the kit's strategy: a wall of javac's "cannot find symbol" (class CardGameStrategy...)
        ("last-card", "java", "it is written with Last Card's kit",
         "draftPick, draftReceive, mainPlay and mainPostprocess"),
        # "this file defines none of the game's methods", naming no game
        ("goofspiel", "cpp", "it defines act (Goofspiel's method)",
         "draft_pick, draft_receive, main_play and main_postprocess"),
    ],
)  # fmt: skip
def test_a_file_for_another_game_is_told_its_game_before_it_is_compiled(
    tmp_path, monkeypatch, game, language, said, methods
):
    looked_up = spy_on_compiles(monkeypatch, tmp_path)
    spec = get_game(game)
    path = tmp_path / spec.starters[language].name
    path.write_bytes(spec.starters[language].read_bytes())
    with pytest.raises(CommandError) as refused:
        call_command("arena", "--game", "rps-poker", str(path), "builtin:simple")
    assert looked_up == []  # (no compile was even looked for)
    assert str(refused.value) == (
        f"{path}: This file looks like {a_title(spec.title)} bot, not an RPS Poker bot: "
        f"{said}, its text names {spec.title}, and it has none of {methods}, the methods an "
        f"RPS Poker bot needs. To play it in {spec.title}, run the arena with --game {game}."
    )


def test_if_so_follows_the_question_it_answers():
    # "...: is it for another game? A JavaScript bot names its methods in camelCase: ...
    # If so, play it with --game last-card.": "If so" seemed to answer the camelCase rule
    reason = (
        "this file defines play (Last Card's method): is it for another game? A JavaScript "
        "bot names its methods in camelCase: draftPick, not draft_pick."
    )
    assert command.with_another_game(reason, "play") == (
        "this file defines play (Last Card's method): is it for another game? If so, play it "
        "with --game last-card. A JavaScript bot names its methods in camelCase: draftPick, "
        "not draft_pick."
    )
    assert command.with_another_game("failed at import", "play") == "failed at import"


def test_a_number_and_its_unit_stay_on_one_line(monkeypatch):
    # "main_play took 2.00" / "    s;" at 80 columns
    from rich.console import Console

    reason = (
        "3 calls in a row over the 1 s per call (main_play took 2.00 s; main_play took 2.00 s; "
        "main_play took 2.00 s), a sandbox of 64 MiB"
    )
    note = {"count": 1, "first_match": 1, "reason": reason, "match_file": None}
    bot = {"name": "py_slow", "matches": 4, "fault_details": {"timeout": note}}
    for columns in range(60, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        out = io.StringIO()
        command._print_faults(Console(file=out, width=200), {"bots": [bot]})
        lines = out.getvalue().splitlines()
        assert all(len(line) <= columns for line in lines), lines
        assert not re.search(r"\d\n *(s|MiB)\b", "\n".join(lines)), lines
        assert reason in " ".join(line.strip() for line in lines)


def test_a_bot_faulty_in_every_match_is_not_said_to_be_so_in_most():
    from rich.console import Console

    note = {"count": 3, "first_match": 1, "reason": "act raised ValueError", "match_file": None}
    said = {}
    for faults in (3, 2):
        bot = {"name": "b", "matches": 3, "faults": faults, "faulty": True,
               "fault_details": {"exception": note | {"count": faults}}}  # fmt: skip
        out = io.StringIO()
        command._print_faults(Console(file=out, width=200), {"bots": [bot]})
        said[faults] = out.getvalue().splitlines()[0]
    assert said[3] == "b (faulted in every match): exception 3 times in 3 matches"
    assert said[2] == "b (faulted in most of its matches): exception 2 times in 3 matches"


def test_last_cards_refused_moves_are_explained_after_the_table(
    bot_file, tmp_path, monkeypatch, capfd
):
    # the table said "illegal moves per game 58.50", faults 0, and nothing else: the reason
    # was only in --logs DIR/readable/0001.log
    path = bot_file("lc_str.py", LAST_CARD_STR)
    monkeypatch.chdir(tmp_path)  # (--logs logs: a path that fits a line)
    logs = Path("logs")
    for kept in (None, logs):
        extra = ["--logs", str(kept)] if kept else []
        call_command("arena", "--game", "last-card", str(path), "--fill", "builtin:naive",
                     "--games", "2", "--seed", "4", "--no-progress", *extra,
                     stdout=io.StringIO())  # fmt: skip
        (block,) = blocks(capfd.readouterr().err, "starter")
        header, first, where = unwrapped(block)
        count = int(header.split()[1])
        assert header == (
            f"starter: {count} illegal moves in 2 of its 2 games (an illegal move is refused "
            "and counts as a pass)"
        )
        assert first == (
            'first, in game 1: a move is a dict like {"cards": ["7h"], "suit": None, '
            '"last_card": False}, not str'
        )
        if kept is None:
            assert where == "--logs DIR keeps each one's reason, in a readable log of every game"
    assert where == f"each one's reason: in the readable logs, {logs / 'readable'}"
    records = [json.loads(p.read_text()) for p in sorted((logs / "matches").glob("*.json"))]
    seats = [[s["name"] for s in r["seats"]].index("starter") for r in records]
    assert count == sum(len(refused(r, seat)) for r, seat in zip(records, seats, strict=True))
    assert "Illegal move! A move is a dict" in (logs / "readable" / "0001.log").read_text()


def test_a_bots_first_timeout_is_said_as_it_happens(bot_file, monkeypatch, capfd):
    # 3 matches of an endless loop took 107 s behind a progress bar alone
    import bots.arena

    quick = TimeControl(move=0.3, bank=0.0, startup=10.0)
    monkeypatch.setattr(bots.arena, "site_time_control", lambda game: quick)
    loop = GOOFSPIEL_STR.replace("    def act(self, obs):\n", "    def act(self, obs):\n"
                                 "        while True:\n            pass\n")  # fmt: skip
    path = bot_file("gs_loop.py", loop)
    call_command("arena", "--game", "goofspiel", str(path), "builtin:matching", "--rounds", "3",
                 "--jobs", "1", "--no-progress", stdout=io.StringIO())  # fmt: skip
    err = capfd.readouterr().err
    said = "starter timed out in match 1 (act); the other matches go on"
    assert err.count(said) == 1 and "timed out in match 2" not in err
    (block,) = blocks(err, "starter (")
    assert err.index(said) < err.index(block[0])  # before the results
    header, first, _ = unwrapped(block)
    assert header == "starter (faulted in every match): timeout 3 times in 3 matches"
    # (on a busy machine the deadline moves on by the bot's waits for a CPU; the time given
    # is counted from the request's writing, not from when its reply was asked for: a loaded
    # machine once made it "within 0.28 s, the 0.3 s per call", the rest unexplained)
    said_first = re.fullmatch(
        r"first, in match 1: no answer to act within (0\.\d\d) s( of its own time \(not "
        r"counting the \d+\.\d\d s the busy machine kept it waiting for a CPU\))?, the 0\.3 s "
        r"per call",
        first,
    )
    assert said_first, first
    own, _ = said_first.groups()
    assert 0.27 <= float(own) <= 0.3, first


def test_a_timeout_on_a_busy_machine_reads_as_one_sentence():
    # "no answer to act within 11.00 s (and 22.40 s more, the time the machine kept it
    # waiting for a CPU) (the 1 s per call plus 10.00 s left of the 10 s time bank)": two
    # parentheticals, and "22.40 s more" read as a second limit
    stats = SeatStats(bank_left=10.0)
    bank = TimeControl(move=1.0, bank=10.0)
    reason = "no answer to act within 11.00 s" + starved.given_more(22.4) + _allowance(bank, stats)
    assert reason == (
        "no answer to act within 11.00 s of its own time (not counting the 22.40 s the busy "
        "machine kept it waiting for a CPU), the 1 s per call plus 10.00 s left of the 10 s "
        "time bank"
    )
    assert starved.given_more(0.001) == ""  # (nothing waited for: nothing said)
    no_bank = TimeControl(move=1.0, bank=0.0)
    assert "within 1.00 s" + _allowance(no_bank, stats) == "within 1.00 s, the 1 s per call"


def test_a_compile_is_said_before_it_starts_and_not_once_it_is_kept(
    bot_file, tmp_path, monkeypatch, capfd
):
    # 22 s of silence before the tournament while a C++ bot compiled
    looked_up = spy_on_compiles(monkeypatch, tmp_path)
    path = bot_file("gs2.cpp", (ROOT / "games/goofspiel/starter.cpp").read_text())
    args = ["arena", "--game", "goofspiel", str(path), "builtin:matching", "--no-progress"]
    with pytest.raises(CompileLookedUp):
        call_command(*args, stdout=io.StringIO())
    # the file as it was given, not its name alone: three RpsPokerStarter.java of three
    # folders once got three identical lines
    note = f"compiling {path} in the sandbox (once for this code on this machine)..."
    assert note in " ".join(line.strip() for line in capfd.readouterr().err.splitlines())
    # kept (its program, or the compiler's refusal): nothing to say
    (kept,) = looked_up
    game, source = get_game("goofspiel"), path.read_bytes()
    for entry in (kept, kept.with_name(f"{kept.name}.refused")):
        assert command.compile_pending(game, path.name, source)
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(b"kept")
        assert not command.compile_pending(game, path.name, source)
        entry.unlink()
    kept.write_bytes(b"kept")
    with pytest.raises(CompileLookedUp):
        call_command(*args, stdout=io.StringIO())
    assert "compiling" not in capfd.readouterr().err
    # nor for a language that is not compiled
    assert not command.compile_pending(game, "gs.py", b"class Bot: pass\n")


def test_the_readmes_games_today_lists_every_game_with_its_doc():
    # Goofspiel was only in the starter table, further down
    readme = (ROOT / "README.md").read_text()
    listed = readme.split("Games today:", 1)[1].split("\n## ", 1)[0]
    for game in games():
        assert f"**{game.title}**" in listed, game.title
        assert f"(docs/games/{game.slug}.md)" in listed, game.slug
    assert "`manage.py arena --game goofspiel my_bot.py builtin:matching --rounds 20`" in listed
