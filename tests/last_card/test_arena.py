"""``manage.py arena --game last-card``: tables of four, the kit's statistics, its config
file and its logs. No database."""

from __future__ import annotations

import io
import json
import shutil
import statistics
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from scipy.special import stdtrit

from bots.running.launch import plain_launch
from bots.running.process import BotProcess, ProcessAgent
from games.engine.agents import InProcessAgent
from games.engine.runner import MatchRunner
from games.engine.tournament import Standing
from games.last_card import movecheck
from games.last_card.logs import readable_from_record
from games.last_card.rules import STATISTICS, LastCardState
from games.last_card.tournament import Tables
from games.registry import get_game

STUBBORN_BOT = """
class Bot:
    name = "stubborn"

    def play(self, state):  # always its first card, legal or not
        return {"cards": [state["hand"][0]], "suit": "s", "last_card": False}
"""


def arena(*args: str) -> str:
    out = io.StringIO()
    call_command("arena", "--no-progress", *args, stdout=out)
    return out.getvalue()


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_it_prints_the_statistics_and_writes_every_one_to_the_json(tmp_path):
    out_json = tmp_path / "r.json"
    table = arena(
        "--game", "last-card", "builtin:heuristic", "builtin:naive", "builtin:naive",
        "builtin:naive", "--games", "12", "--seed", "5", "--json", str(out_json),
    )  # fmt: skip
    assert "points taken" in table and "lower points taken is better" in table
    assert "illegal" in table and "heuristic" in table
    data = json.loads(out_json.read_text())
    assert data["game"] == "last-card" and data["matches"] == 12 and data["seed"] == 5
    bots = data["bots"]
    assert [b["name"] for b in bots].count("naive#2") == 1
    for bot in bots:
        assert set(bot) >= {"name", "source", "score", "games", *STATISTICS}
        assert bot["games"] == 12
        assert bot["score"] == bot["points_taken"]
        assert bot["points_taken"] == pytest.approx(bot["hand_value_pts"] + bot["last_card_pts"])
        assert bot["illegal_moves"] == 0
    assert sum(b["games_won"] for b in bots) <= 1.0 + 1e-9
    assert bots == sorted(bots, key=lambda b: b["score"])  # lowest points first


def test_it_refuses_fewer_than_four_bots_unless_told_to_fill_the_table(tmp_path):
    with pytest.raises(CommandError, match=r"at least 4 bots .*--fill builtin:naive"):
        arena("--game", "last-card", "builtin:heuristic", "builtin:naive", "--games", "2")
    out_json = tmp_path / "r.json"
    arena(
        "--game", "last-card", "builtin:heuristic", "--fill", "builtin:naive", "--games", "3",
        "--json", str(out_json),
    )  # fmt: skip
    names = sorted(b["name"] for b in json.loads(out_json.read_text())["bots"])
    assert names == ["heuristic", "naive", "naive#2", "naive#3"]


def test_it_counts_last_card_in_games_and_rps_poker_in_rounds():
    with pytest.raises(CommandError, match="--games must be at least 1"):
        arena("--game", "last-card", "builtin:naive", "--fill", "builtin:naive", "--games", "0")
    with pytest.raises(CommandError, match="rps-poker counts --rounds, not --games"):
        arena("--game", "rps-poker", "builtin:simple", "builtin:strong", "--games", "3")


@pytest.mark.parametrize("entrants", [4, 5, 6, 9])
def test_it_seats_every_bot_equally_often_and_in_every_seat(entrants):
    fmt = Tables()
    tables = list(fmt.schedule(entrants, 20, seed=3))
    assert len(tables) == fmt.count(entrants, 20) >= 20
    assert len(tables) % entrants == 0 or entrants == 4
    played = Counter(i for t in tables for i in t.seats)
    assert len(set(played.values())) == 1 and len(played) == entrants
    for table in tables:
        assert len(set(table.seats)) == 4
    seats = Counter((i, s) for t in tables for s, i in enumerate(t.seats))
    rounds = len(tables) // entrants
    if entrants > 4:
        assert set(seats.values()) == {rounds}
    assert len({t.seed for t in tables}) == len(tables)


def test_it_rotates_four_bots_around_the_table():
    tables = list(Tables().schedule(4, 8, seed=1))
    seats = Counter((i, s) for t in tables for s, i in enumerate(t.seats))
    assert set(seats.values()) == {2}


def test_the_points_taken_interval_never_reaches_below_no_points():
    # most games taken clean, one with a full hand: mean +- t SE would start below 0
    standing = Standing(name="lucky", source="builtin:heuristic", games=10)
    points = [0.0] * 9 + [31.0]
    standing.extra["points"] = [len(points), sum(points), sum(p * p for p in points)]
    mean, se = statistics.fmean(points), statistics.stdev(points) / len(points) ** 0.5
    t = float(stdtrit(len(points) - 1, 0.975))  # Student's t with 9 degrees of freedom
    assert mean - t * se < 0
    low, high = Tables().bot_json(standing)["points_taken_ci95"]
    assert low == 0.0 and high == pytest.approx(mean + t * se)


def test_games_that_all_took_the_same_points_have_no_interval_yet():
    # nothing bounds the points a game takes from above, so no range to widen it by
    standing = Standing(name="clean", source="builtin:heuristic", games=6)
    standing.extra["points"] = [6, 0.0, 0.0]
    entry = Tables().bot_json(standing)
    assert entry["points_taken_ci95"] is None
    entry["score"] = 0.0
    assert Tables().columns()[0].show(entry) == "0.00 (too few matches)"


def test_it_reads_the_original_kits_config_file(tmp_path):
    kit = tmp_path / "kit"
    write(kit / "ai-bots", "stubborn.py", STUBBORN_BOT)
    shutil.copy(movecheck.__file__, kit / "ai-bots" / "movecheck.py")
    write(kit / "ai-bots", "notes.txt", "not a bot")
    config = write(
        kit,
        "config.json",
        json.dumps(
            {
                "game": "last-card",
                "ai_dirs": ["ai-bots"],
                "ai": ["builtin:heuristic", "builtin:naive"],
                "num_games": 4,
            }
        ),
    )
    out_json = tmp_path / "r.json"
    arena("--config", str(config), "builtin:naive", "--seed", "2", "--json", str(out_json))
    data = json.loads(out_json.read_text())
    assert data["matches"] == 4 and data["seed"] == 2
    bots = {b["name"]: b for b in data["bots"]}
    assert set(bots) == {"stubborn", "heuristic", "naive", "naive#2"}
    assert bots["stubborn"]["illegal_moves"] > 0
    assert bots["stubborn"]["source"] == str(kit / "ai-bots" / "stubborn.py")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"game": "last-card", "ai": ["builtin:naive"], "num_games": 0}, "num_games must be"),
        ({"game": "last-card", "ai_dirs": ["nowhere"]}, "'nowhere' is not a folder"),
        ({"game": "last-card", "ais_dir": []}, "unknown key 'ais_dir'"),
        ({"ai": ["builtin:random"]}, 'no "game" key and its bots could play any of kuhn, '),
        ({"ai": ["builtin:naive", "builtin:simple"]}, 'fit no game: add "game": one of '),
        ({"game": "nope", "ai": ["builtin:naive"]}, r"unknown game 'nope' \(known: "),
    ],
)
def test_it_names_the_problem_with_a_bad_config_file(tmp_path, config, message):
    path = write(tmp_path, "config.json", json.dumps(config))
    with pytest.raises(CommandError, match=message):
        arena("--config", str(path))


def test_it_writes_the_kits_logs_with_the_reason_for_every_illegal_move(tmp_path):
    bot = write(tmp_path, "stubborn.py", STUBBORN_BOT)
    logs = tmp_path / "logs"
    arena(
        "--game", "last-card", str(bot), "builtin:heuristic", "--fill", "builtin:naive",
        "--games", "3", "--seed", "8", "--logs", str(logs),
    )  # fmt: skip
    overall = (logs / "overall-stats.log").read_text()
    assert "points taken" in overall and "stubborn" in overall and "illegal moves" in overall
    rows = json.loads((logs / "overall-stats.json").read_text())
    assert {r["name"] for r in rows} == {"stubborn", "heuristic", "naive", "naive#2"}
    per_game = json.loads((logs / "ai" / "stubborn.json").read_text())
    # one numbering: game 1 is the first match record, 00001-...json
    assert [r["game"] for r in per_game] == [1, 2, 3]
    assert len((logs / "ai" / "stubborn.log").read_text().splitlines()) == 1 + 3
    game = json.loads((logs / "game" / "0001.json").read_text())
    assert len(game["players"]) == 4
    assert sum(p["points_taken"] for p in game["players"]) == pytest.approx(
        sum(p["hand_value_pts"] + p["last_card_pts"] for p in game["players"])
    )
    assert (logs / "game" / "0001.log").read_text().startswith("game 1: ")
    story = (logs / "readable" / "0001.log").read_text()
    assert "stubborn plays [" in story
    assert "Illegal move! " in story
    illegal = story.count("Illegal move! ")
    assert illegal == per_game[0]["illegal_moves"]
    # Every readable log is the story of a replayable match record.
    records = sorted((logs / "matches").glob("*.json"))
    assert len(records) == 3
    assert records[0].name.startswith("00001-")
    record = json.loads(records[0].read_text())
    assert "\n".join(readable_from_record(record)) + "\n" == story


def test_it_lets_a_bot_file_import_a_copy_of_the_move_checker(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(movecheck.__file__, folder / "movecheck.py")
    path = write(
        folder,
        "checked.py",
        """
        from movecheck import PASS, legal_moves

        class Bot:
            def play(self, state):
                moves = legal_moves(state, last_card=len(state["hand"]) == 2)
                return moves[0] if moves else PASS
        """,
    )
    game = get_game("last-card")
    process = BotProcess(plain_launch(path), label="checked", stderr_log=tmp_path / "err.log")
    try:
        process.start(10.0)
        agents = [ProcessAgent(process, game.bot_call)] + [
            InProcessAgent(game.builtin_class("naive"), game.bot_call, "naive") for _ in range(3)
        ]
        outcome = MatchRunner(time.monotonic, game.time_control).run(
            LastCardState.new(4, num_seats=4), agents, seed=4
        )
    finally:
        process.close()
    stats = outcome.result["stats"][0]
    assert not outcome.faults
    assert stats["illegal_moves"] == 0 and stats["cards_played"] > 0
