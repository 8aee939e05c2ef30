"""``manage.py solve``: what it prints, the JSON it writes, the strategy folders, its errors."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def run(*args: str) -> str:
    out = StringIO()
    call_command("solve", *args, "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_prints_payoffs_tree_size_times_and_exploitability_for_kuhn(tmp_path):
    text = run("kuhn", "--iterations", "400", "--json", str(tmp_path / "kuhn.json"))
    assert "Kuhn poker: CFR+, 400 iterations" in text
    assert "player 0 -0.0555" in text and "player 1 +0.0555" in text
    assert "58 histories" in text and "12 information sets" in text
    assert "build time" in text and "training time" in text and "exploitability" in text


def test_the_json_has_the_issues_keys_and_kuhn_keys_like_kpb(tmp_path):
    path = tmp_path / "out" / "kuhn.json"
    run("kuhn", "--algorithm", "cfr", "--iterations", "1000", "--json", str(path))
    doc = json.loads(path.read_text())
    assert list(doc)[:6] == [
        "game",
        "algorithm",
        "iterations",
        "value",
        "exploitability",
        "infosets",
    ]
    assert doc["game"] == "kuhn" and doc["algorithm"] == "cfr" and doc["iterations"] == 1000
    v0, v1 = doc["value"]
    assert abs(v0 + 1 / 18) < 2e-3 and v1 == -v0
    assert 0 < doc["exploitability"] < 1e-3
    assert set(doc["infosets"]) == {c + h for c in "JQK" for h in ("", "p", "b", "pb")}
    assert set(doc["infosets"]["Kpb"]) == {"p", "b"}
    assert doc["infosets"]["Kpb"]["b"] > 0.99  # the king calls
    assert all(abs(sum(row.values()) - 1) < 1e-9 for row in doc["infosets"].values())
    # the convergence record for a chart: (iteration, exploitability), log spaced, falling
    marks = doc["convergence"]
    assert marks[0][0] == 1 and marks[-1] == [1000, doc["exploitability"]]
    assert doc["settings"] == {} and doc["expected"] == {}


def test_leduc_solves_with_cfr_plus_by_default(tmp_path):
    path = tmp_path / "leduc.json"
    text = run("leduc", "--iterations", "600", "--json", str(path))
    assert "Leduc hold'em: CFR+, 600 iterations" in text
    doc = json.loads(path.read_text())
    assert doc["exploitability"] < 1e-3
    assert set(doc["infosets"]["Kr"]) == {"f", "c", "r"}


def test_blackjack_writes_one_folder_per_history_with_its_strategy_file(tmp_path):
    out = tmp_path / "sol"
    text = run(
        "blackjack", "--up", "6,6,2", "--max-hits", "1", "--iterations", "200", "--out", str(out)
    )
    assert "Blackjack++ (up cards 6,6,2, max hits 1)" in text
    assert "dealer points" in text
    assert "14,511 histories" in text and "120 information sets" in text
    root = (out / "strategy.txt").read_text()
    assert "history: (start)" in root
    rows = [line.split() for line in root.splitlines()[3:]]
    assert len(rows) == 10 and {r[0] for r in rows} == {"0"}  # player 0, every down card
    ace = next(r for r in rows if r[1] == "A")
    assert ace[2] == "17s" and abs(float(ace[3]) + float(ace[4]) - 1) < 1e-5
    after_stand = (out / "0s" / "strategy.txt").read_text()
    assert "player 0 stood" in after_stand
    assert (out / "0h5" / "strategy.txt").exists() and (out / "0hT" / "strategy.txt").exists()
    folders = [p for p in out.rglob("strategy.txt")]
    assert len(folders) == 12


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["poker"], "unknown game 'poker': choose one of kuhn, leduc, blackjack-pp"),
        (["kuhn", "--algorithm", "mccfr"], "unknown algorithm 'mccfr'"),
        (["kuhn", "--iterations", "0"], "--iterations must be at least 1"),
        (["blackjack-pp", "--up", "6,6"], "give three, for player 0, player 1 and the dealer"),
        (["blackjack-pp", "--up", "6,X,2"], "'X' is not a card"),
        (["blackjack-pp", "--max-hits", "4"], "--max-hits must be 1, 2 or 3 (got 4)"),
        (["blackjack-pp", "--max-hits", "0"], "--max-hits must be 1, 2 or 3 (got 0)"),
        (["leduc", "--up", "6,6,2"], "--up and --max-hits are options of blackjack-pp only"),
        (["kuhn", "--out", "x"], "--out writes Blackjack++ strategies"),
    ],
)
def test_bad_arguments_get_a_one_line_error(args, message):
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_blackjack_json_names_its_up_cards_and_keys_by_player_down_card_and_history(tmp_path):
    path = tmp_path / "bj.json"
    run(
        "blackjack-pp",
        "--up",
        "A,K,6",
        "--max-hits",
        "1",
        "--iterations",
        "100",
        "--json",
        str(path),
    )
    doc = json.loads(path.read_text())
    assert doc["game"] == "blackjack-pp"
    assert doc["settings"] == {"up": ["A", "T", "6"], "max_hits": 1}
    assert set(doc["expected"]) == {"player 0 points", "player 1 points", "dealer points"}
    # player 0 shows an ace: with a ten down it holds 21 and does not hit
    assert doc["infosets"]["0T:"]["h"] < 0.01
    assert set(doc["infosets"]["1A:0h5"]) == {"h", "s"}
    assert len(doc["infosets"]) == 120


def test_blackjack_solves_on_the_public_tree_with_the_history_trees_result(tmp_path):
    public, history = tmp_path / "public.json", tmp_path / "history.json"
    args = ("blackjack", "--up", "A,5,T", "--max-hits", "2", "--iterations", "30")
    text = run(*args, "--json", str(public))
    run(*args, "--history-tree", "--json", str(history))
    a, b = json.loads(public.read_text()), json.loads(history.read_text())
    assert a["tree"]["stored_nodes"] * 20 < b["tree"]["stored_nodes"]
    assert {k: v for k, v in a["tree"].items() if k != "stored_nodes"} == {
        k: v for k, v in b["tree"].items() if k != "stored_nodes"
    }
    assert f"{a['tree']['stored_nodes']:,} nodes stored" in text
    assert a["infosets"].keys() == b["infosets"].keys()
    assert all(
        abs(a["infosets"][k][x] - p) < 1e-9
        for k, row in b["infosets"].items()
        for x, p in row.items()
    )
    assert a["exploitability"] == pytest.approx(b["exploitability"], abs=1e-12)
    assert a["expected"] == pytest.approx(b["expected"], abs=1e-12)


def test_target_stops_once_the_exploitability_is_reached(tmp_path):
    path = tmp_path / "bj.json"
    text = run(
        "blackjack", "--up", "6,6,2", "--max-hits", "2", "--target", "2e-3",
        "--iterations", "1000", "--json", str(path),
    )  # fmt: skip
    doc = json.loads(path.read_text())
    assert doc["iterations"] < 1000 and doc["iterations"] % 10 == 0
    assert doc["exploitability"] <= 2e-3
    assert doc["convergence"][-1] == [doc["iterations"], doc["exploitability"]]
    # measured every 10 iterations (and at 1, 2, 5): every one before was above the target
    marks = [i for i, _ in doc["convergence"]]
    assert set(range(10, doc["iterations"] + 1, 10)) <= set(marks)
    assert all(e > 2e-3 for _, e in doc["convergence"][:-1])
    assert f"{doc['iterations']} iterations" in text


@pytest.mark.parametrize("target", ["0", "-1"])
def test_a_target_must_be_above_zero(target):
    with pytest.raises(CommandError, match="--target must be more than 0"):
        run("kuhn", "--target", target)


def test_ctrl_c_says_how_far_the_solve_got_in_a_line(monkeypatch):
    # Ctrl-C in `solve blackjack-pp --max-hits 3 --target 1e-3`: ~55 lines of traceback
    from games.management.commands import solve

    class Stopped:
        tree = None

        def train(self, iterations, progress=None, **_options):
            for done in (1, 2, 3):
                progress(done)
            raise KeyboardInterrupt

    monkeypatch.setattr(solve, "solver_for", lambda *_args: Stopped())
    err = StringIO()
    with pytest.raises(SystemExit) as ended:
        call_command("solve", "kuhn", "--iterations", "50", "--no-progress", stdout=StringIO(),
                     stderr=err)  # fmt: skip
    assert ended.value.code == 130
    assert err.getvalue() == "interrupted after 3 of 50 iterations; nothing was written\n"
