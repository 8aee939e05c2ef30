"""``manage.py arena --game uth``: duplicate sessions, ranked by mean net chips per round."""

from __future__ import annotations

import io
import json
import textwrap

import pytest
from django.core.management import CommandError, call_command

from games.registry import get_game
from games.uth.tournament import Duplicate

ALWAYS_CHECK_FILE = """
class Bot:
    name = "checker-file"

    def act(self, obs):
        for choice in ("[check]", "[1x]"):
            if choice in obs["legal"]:
                return choice
        return obs["legal"][0]
"""
RAISING_FILE = """
class Bot:
    def act(self, obs):
        if obs["round"] == 3:
            raise RuntimeError("tilted")
        return "[check]" if "[check]" in obs["legal"] else obs["legal"][0]
"""


def arena(*args: str) -> str:
    out = io.StringIO()
    call_command("arena", "--game", "uth", "--no-progress", *args, stdout=out)
    return out.getvalue()


def test_it_ranks_bots_by_mean_net_chips_per_round_with_an_interval(tmp_path):
    out_json = tmp_path / "results.json"
    table = arena(
        "builtin:basic",
        "builtin:always-check",
        "--sessions",
        "3",
        "--rounds-per-session",
        "40",
        "--seed",
        "5",
        "--json",
        str(out_json),
    )
    # (at 80 columns "sessions survived" takes two lines of its heading)
    assert "net chips/round" in table and "sessions" in table and "survived" in table
    data = json.loads(out_json.read_text())
    assert data["game"] == "uth" and data["rounds"] == 3 and data["matches"] == 6
    bots = data["bots"]
    assert bots == sorted(bots, key=lambda b: -b["score"])
    for bot in bots:
        low, high = bot["mean_net_ci95"]
        assert bot["score"] == bot["mean_net_per_round"] and low < bot["score"] < high
        assert bot["sessions"] == 3 and 0 <= bot["sessions_survived"] <= 3
        assert 3 <= bot["rounds_played"] <= 120 and bot["faults"] == 0


def test_it_deals_every_bot_the_same_sessions(tmp_path):
    bot = tmp_path / "checker.py"
    bot.write_text(textwrap.dedent(ALWAYS_CHECK_FILE))
    out_json = tmp_path / "r.json"
    arena(str(bot), "builtin:always-check", "--sessions", "2", "--rounds-per-session", "30",
          "--seed", "8", "--json", str(out_json))  # fmt: skip
    a, b = json.loads(out_json.read_text())["bots"]
    assert {a["name"], b["name"]} == {"checker-file", "always-check"}
    same = ("score", "rounds_played", "sessions_survived", "mean_final_chips")
    assert [a[k] for k in same] == [b[k] for k in same]


def test_it_ends_the_session_of_a_bot_that_raises_and_counts_the_fault(tmp_path):
    bot = tmp_path / "tilted.py"
    bot.write_text(textwrap.dedent(RAISING_FILE))
    out_json = tmp_path / "r.json"
    arena(str(bot), "--sessions", "2", "--rounds-per-session", "10", "--seed", "1",
          "--json", str(out_json))  # fmt: skip
    (entry,) = json.loads(out_json.read_text())["bots"]
    assert entry["faults"] == 2 and entry["fault_kinds"] == {"exception": 2}
    # rounds 1 and 2 of each session, and round 3, which the fault lost with its bets
    assert entry["sessions_survived"] == 0 and entry["rounds_played"] == 6
    assert entry["mean_final_chips"] - 1000 == pytest.approx(entry["score"] * 3, abs=0.01)


def test_it_keeps_the_session_options_for_uth():
    with pytest.raises(CommandError, match="for --game uth"):
        call_command("arena", "--game", "rps-poker", "builtin:simple", "builtin:strong",
                     "--sessions", "2", "--no-progress")  # fmt: skip
    with pytest.raises(CommandError, match="at least 1"):
        arena("builtin:basic", "--sessions", "0")
    with pytest.raises(CommandError, match="at least 1"):
        arena("builtin:basic", "--rounds-per-session", "0")


def test_it_schedules_one_seed_per_session_for_all_bots():
    tables = list(Duplicate().schedule(entrants=3, rounds=2, seed=7))
    assert len(tables) == Duplicate().count(3, 2) == 6
    assert [t.seats for t in tables] == [(0,), (1,), (2,)] * 2
    assert len({t.seed for t in tables[:3]}) == 1 and tables[0].seed != tables[3].seed
    assert get_game("uth").tournament is Duplicate


def test_rounds_that_all_netted_the_same_have_no_interval_yet():
    # a bot that folds every hand loses ante and blind every round: "-2.00 (-2.00 to
    # -2.00)" claimed certainty, and one round gave an interval of infinite ends
    from types import SimpleNamespace

    from games.engine.tournament import Standing

    fmt = Duplicate()
    folder, once = Standing(name="folder", source=""), Standing(name="once", source="")
    result = {"nets": [-2.0] * 40, "survived": True, "chips": 920.0}
    fmt.tally_scores([folder], SimpleNamespace(result=result))
    folder.matches += 1
    fmt.tally_scores([once], SimpleNamespace(result=result | {"nets": [-2.0]}))
    once.matches += 1
    for standing in (folder, once):
        entry = fmt.bot_json(standing)
        assert entry["mean_net_ci95"] is None and json.dumps(entry)  # no -Infinity
        assert fmt.interval(entry) is None  # no estimate: its rank stays provisional
        assert fmt.columns()[0].show(entry) == "-2.00 (too few matches)"
        stats = {c.title: c.cell(entry) for c in fmt.statistics().columns}
        assert stats["95% interval"] == {"text": "too few matches", "value": None}


def test_its_ranking_and_its_statistics_write_a_number_alike():
    """The ranking said "rounds 2000" and "+2.05" where the statistics under it said "2,000"
    and "2.05": the same figures, written two ways on one page."""
    from types import SimpleNamespace

    from games.engine.tournament import Standing

    fmt = Duplicate()
    bot = Standing(name="bot", source="")
    nets = [2.0, 3.0, 1.0, 2.2] * 500
    fmt.tally_scores([bot], SimpleNamespace(result={"nets": nets, "survived": True, "chips": 5e3}))
    bot.matches += 1
    entry = fmt.bot_json(bot)
    ranked = {c.title: c.show(entry) for c in fmt.columns()}
    stats = {c.title: c.cell(entry)["text"] for c in fmt.statistics().columns}
    assert ranked["rounds"] == stats["rounds"] == "2,000"
    assert ranked["net chips/round (95% CI)"].startswith(stats["mean net chips/round"] + " (")
    assert stats["mean net chips/round"] == "+2.05"
