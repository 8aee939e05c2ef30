"""``manage.py replay --game uth FILE.json [--json OUT]``."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

HISTORY = {
    "game": "uth",
    "variant": "default",
    "rounds": [
        {
            "player": ["As", "Kd"],
            "dealer": ["2c", "2d"],
            "board": ["3h", "4h", "5h", "9s", "Tc"],
            "actions": ["[check]", "[2x]"],
        },
        {
            "player": ["Ah", "9h"],
            "dealer": ["Qc", "Qd"],
            "board": ["2h", "5h", "Kh", "7c", "8d"],
            "actions": ["[check]", "[check]", "[1x]"],
        },
        {
            "player": ["Ah", "Ad"],
            "dealer": ["Kc", "Kd"],
            "board": ["2c", "7d", "9h", "Js", "3s"],
            "actions": ["[4x]", "[skip]", "[s]"],
        },
    ],
}


def replay(tmp_path, history, *extra: str) -> str:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    out = io.StringIO()
    call_command("replay", "--game", "uth", str(path), *extra, stdout=out)
    return out.getvalue()


def test_a_history_of_one_round_says_one_round(tmp_path):
    text = replay(tmp_path, HISTORY | {"rounds": HISTORY["rounds"][:1]})
    assert "total: -100 over 1 round\n" in text, text


def test_it_reports_each_rounds_bets_and_net_and_the_total(tmp_path):
    out_json = tmp_path / "out" / "report.json"
    text = replay(tmp_path, HISTORY, "--json", str(out_json))
    assert "bets: ante 25, blind 25, play 50" in text and "net -100" in text
    assert "net +125" in text and "total: +150 over 3 rounds" in text
    report = json.loads(out_json.read_text())
    assert [r["net"] for r in report["rounds"]] == [-100, 125, 125]
    assert [r["bets"]["play"] for r in report["rounds"]] == [50, 25, 100]
    assert report["total"] == 150 and report["chips"] == 1150


def test_it_pays_by_the_histories_variant(tmp_path):
    out_json = tmp_path / "r.json"
    replay(tmp_path, HISTORY | {"variant": "standard"}, "--json", str(out_json))
    assert json.loads(out_json.read_text())["rounds"][1]["results"]["blind"] == 37.5


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"dealer": ["Ah", "2d"]}, r"round 2: card Ah dealt twice"),
        ({"board": ["2h", "5h", "Kh", "7c"]}, r"round 2: board: expected 5 cards, got 4"),
        ({"player": ["Ah", "1h"]}, r"round 2: player: not a card"),
        ({"actions": ["[check]", "[4x]"]}, r"round 2: action 2: '\[4x\]' is not a legal action"),
        ({"actions": ["[check]"]}, r"round 2: the actions stop before the showdown"),
        ({"actions": ["[check]", "[check]", "[1x]", "[s]"]}, r"round 2: action 4"),
    ],
)
def test_it_refuses_a_malformed_history_with_the_round_and_the_reason(tmp_path, change, reason):
    history = json.loads(json.dumps(HISTORY))
    history["rounds"][1] |= change
    with pytest.raises(CommandError, match=reason):
        replay(tmp_path, history)


def test_it_refuses_files_that_are_not_histories(tmp_path):
    with pytest.raises(CommandError, match="no such file|No such file"):
        call_command("replay", "--game", "uth", str(tmp_path / "missing.json"))
    with pytest.raises(CommandError, match="variant"):
        replay(tmp_path, HISTORY | {"variant": "vegas"})
    with pytest.raises(CommandError, match="not 'uth'"):
        replay(tmp_path, HISTORY | {"game": "rps-poker"})


def test_it_reads_textarenas_card_notation_too(tmp_path):
    history = json.loads(json.dumps(HISTORY))
    history["rounds"][0] |= {
        "player": ["A\u2660", "k\u2666"],
        "board": ["3h", "4h", "5h", "9s", "10\u2663"],
    }
    out_json = tmp_path / "r.json"
    replay(tmp_path, history, "--json", str(out_json))
    first = json.loads(out_json.read_text())["rounds"][0]
    assert first["player"] == ["As", "Kd"] and first["board"][-1] == "Tc"
    assert first["net"] == -100


def test_a_card_it_cannot_read_is_refused_with_the_notation(tmp_path):
    history = json.loads(json.dumps(HISTORY))
    history["rounds"][0]["dealer"] = ["2c", "A\u2664"]
    with pytest.raises(
        CommandError, match=r"round 1: dealer: not a card: 'A.' \(write rank 2-9, T \(or 10\)"
    ):
        replay(tmp_path, history)


def test_it_finds_the_game_in_the_history(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps(HISTORY))
    out = io.StringIO()
    call_command("replay", str(path), stdout=out)
    assert "total: +150 over 3 rounds" in out.getvalue()
