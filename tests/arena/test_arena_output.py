"""What ``manage.py arena`` leaves an author to read: leaderboards that fit 80 columns for
every game, the same keys in every game's ``--json``, logs of one run under one numbering,
and options checked against the chosen game. No database."""

from __future__ import annotations

import io
import json
import re
import statistics
import tempfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from scipy.special import stdtrit

from games.registry import games, get_game
from tests.arena.conftest import FIRST_CARD_BOT

#: two cheap built-ins of every game (their names are each game's own), and its options
CHEAP = {
    game.slug: [f"builtin:{name}" for name in game.builtin_names if name != "cfr"][:2]
    for game in games()
}

#: the keys README calls stable, in every game's --json
STABLE = {
    "name", "source", "score", "games", "wins", "faults", "matches", "draws", "losses",
    "win_rate", "win_rate_ci95", "fault_kinds", "mean_call_ms", "head_to_head",
}  # fmt: skip


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    """Lines as long as they are (a test of the width sets its own)."""
    monkeypatch.setenv("COLUMNS", "1000")


def run(*args: str) -> str:
    """The command's standard output (its notes go to stderr: ``capsys``)."""
    out = io.StringIO()
    call_command("arena", "--no-progress", *args, stdout=out)
    return out.getvalue()


def short_run(slug: str, *args: str) -> list[str]:
    """Arguments for a short tournament of the game's cheap built-ins (with --fill for a
    game of tables, as its format says)."""
    game = get_game(slug)
    unit = getattr(game.tournament, "count_label", "rounds")
    extra = ["--fill", CHEAP[slug][-1]] if getattr(game.tournament, "fills_seats", False) else []
    if game.session_rounds:
        extra += ["--rounds-per-session", "20"]
    return ["--game", slug, *CHEAP[slug], *extra, f"--{unit}", "4", "--seed", "3", *args]


@pytest.mark.parametrize("slug", [game.slug for game in games()])
def test_every_games_leaderboard_fits_80_columns_and_the_logs_keep_it_whole(
    tmp_path, monkeypatch, slug
):
    monkeypatch.setenv("COLUMNS", "80")
    logs, out_json = tmp_path / "logs", tmp_path / "r.json"
    table = run(*short_run(slug, "--logs", str(logs), "--json", str(out_json)))
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in table  # no number cut short
    bots = json.loads(out_json.read_text())["bots"]
    columns = get_game(slug).tournament().columns()
    for bot in bots:  # every cell of every bot is shown whole, on the bot's lines
        rows = [line for line in lines if f" {bot['name']} " in line]
        for column in columns:
            assert any(column.show(bot) in row for row in rows), (column.title, rows)
    # the log folder has the whole table, every header on one line
    whole = (logs / "leaderboard.txt").read_text()
    header = next(line for line in whole.splitlines() if "rank" in line)
    assert all(column.title in header for column in columns)


def headers(table: str) -> list[list[str]]:
    """Each table's headers (its lines under ┏, above ┡), every header's lines joined."""
    found = []
    for block in re.findall(r"┏[^\n]*\n(.*?)\n┡", table, re.S):
        rows = [line.strip("┃").split("┃") for line in block.splitlines()]
        found.append([" ".join(" ".join(cells).split()) for cells in zip(*rows, strict=True)])
        for cells in rows:  # never a line break inside parentheses: "(95% / CI)"
            assert all(cell.count("(") == cell.count(")") for cell in cells), block
    return found


@pytest.mark.parametrize("columns", ["60", "80", "120"])
@pytest.mark.parametrize("slug", [game.slug for game in games()])
def test_every_games_headers_break_between_words_only(monkeypatch, slug, columns):
    monkeypatch.setenv("COLUMNS", columns)
    table = run(*short_run(slug))
    assert max(len(line) for line in table.splitlines()) <= int(columns)
    titles = [column.title for column in get_game(slug).tournament().columns()]
    shown = [title for found in headers(table) for title in found if title not in ("rank", "bot")]
    assert shown == titles


def test_headers_at_80_columns_take_the_width_the_table_leaves(monkeypatch):
    # "score (games won)" took three lines ("score", "(games", "won)") in a table 10 columns
    # narrower than the terminal, and Goofspiel's "deals won (95% CI)" broke inside "(95% CI)"
    monkeypatch.setenv("COLUMNS", "80")
    rps = run("--game", "rps-poker", "builtin:simple", "builtin:strong", "--rounds", "10",
              "--seed", "3")  # fmt: skip
    assert "┃ rank ┃ bot    ┃ score (games won) ┃ games won % (95% CI) ┃   W-D-L ┃ faults ┃" in rps
    assert rps.count("┃") == 2 * 7  # its headers on two lines
    goofspiel = run("--game", "goofspiel", "builtin:matching", "builtin:random", "--rounds",
                    "6", "--seed", "3")  # fmt: skip
    assert "┃       score/deal (95% CI) ┃  deals won (95% CI) ┃    deal ┃" in goofspiel
    assert "┃ rank ┃ bot      ┃ deals decided ┃ matches W-D-L ┃ faults ┃" in goofspiel
    assert max(len(line) for line in (rps + goofspiel).splitlines()) <= 80


@pytest.mark.parametrize("slug", [game.slug for game in games()])
def test_every_games_json_has_the_stable_keys(tmp_path, slug):
    out_json = tmp_path / "r.json"
    run(*short_run(slug, "--json", str(out_json)))
    for bot in json.loads(out_json.read_text())["bots"]:
        assert set(bot) >= STABLE
        low, high = bot["win_rate_ci95"]
        assert 0 <= low <= bot["win_rate"] <= high <= 1
        assert isinstance(bot["head_to_head"], dict)
    assert not re.search(r"-0\.0+(?![0-9])", out_json.read_text())  # no "won -0.0"


def test_last_cards_points_taken_have_a_95_percent_interval(tmp_path):
    logs, out_json = tmp_path / "logs", tmp_path / "r.json"
    table = run(
        "--game", "last-card", "builtin:heuristic", "builtin:naive", "--fill", "builtin:naive",
        "--games", "40", "--seed", "5", "--logs", str(logs), "--json", str(out_json),
    )  # fmt: skip
    assert "points taken per game (95% CI)" in (logs / "leaderboard.txt").read_text()
    heuristic = next(
        b for b in json.loads(out_json.read_text())["bots"] if b["name"] == "heuristic"
    )
    # the interval from the bot's own per-game points (its log), by the statistics module
    points = [g["points_taken"] for g in json.loads((logs / "ai" / "heuristic.json").read_text())]
    mean, se = statistics.fmean(points), statistics.stdev(points) / len(points) ** 0.5
    t = float(stdtrit(len(points) - 1, 0.975))  # Student's t, not the normal's 1.96
    # (cut at 0: no game takes fewer points)
    expected = [max(0.0, mean - t * se), mean + t * se]
    assert heuristic["points_taken_ci95"] == pytest.approx(expected)
    low, high = heuristic["points_taken_ci95"]
    assert heuristic["score"] == pytest.approx(mean)
    assert f"{heuristic['score']:.2f} ({low:.2f} to {high:.2f})" in table
    # Last Card's win_rate is the share of games won; head_to_head sums the points taken
    assert heuristic["win_rate"] == pytest.approx(heuristic["games_won"])
    assert set(heuristic["head_to_head"]) == {"naive", "naive#2", "naive#3"}


def test_a_rerun_into_a_used_logs_folder_is_refused_before_it_starts(tmp_path):
    logs = tmp_path / "logs"
    args = ("--game", "rps-poker", "builtin:simple", "builtin:minimal", "--rounds", "2")
    run(*args, "--logs", str(logs))
    before = sorted(p.relative_to(logs) for p in logs.rglob("*"))
    with pytest.raises(CommandError, match=rf"--logs {logs} is not empty"):
        run(*args, "--logs", str(logs))
    assert sorted(p.relative_to(logs) for p in logs.rglob("*")) == before  # nothing lost
    (tmp_path / "file").write_text("x")
    with pytest.raises(CommandError, match="not a folder"):
        run(*args, "--logs", str(tmp_path / "file"))


def test_match_files_game_logs_and_stderr_headers_share_one_numbering(tmp_path, bot_file):
    talker = bot_file(
        "talker.py",
        """
        import sys

        class Bot:
            name = "talker"

            def play(self, state):
                print("my turn", file=sys.stderr)
                return {"cards": []}
        """,
    )
    logs = tmp_path / "logs"
    run(
        "--game", "last-card", str(talker), "builtin:naive", "--fill", "builtin:naive",
        "--games", "3", "--seed", "2", "--logs", str(logs),
    )  # fmt: skip
    records = sorted(p.name for p in (logs / "matches").iterdir())
    assert [r[:5] for r in records] == ["00001", "00002", "00003"]
    assert sorted(p.name for p in (logs / "readable").iterdir()) == [
        "0001.log", "0002.log", "0003.log",
    ]  # fmt: skip
    (stderr,) = (logs / "stderr").glob("*talker*")
    headers = [line for line in stderr.read_text().splitlines() if line.startswith("---")]
    first = json.loads((logs / "matches" / records[0]).read_text())
    seat = next(n for n, s in enumerate(first["seats"]) if s["name"] == "talker")
    others = ", ".join(s["name"] for s in first["seats"] if s["name"] != "talker")
    assert headers[0] == (
        f"--- match start: last-card, match 1 ({records[0]}), seat {seat}, against {others} ---"
    )
    assert [h.split(", ")[1].split(" (")[0] for h in headers] == ["match 1", "match 2", "match 3"]


def test_no_temporary_folder_is_left_without_logs(tmp_path, monkeypatch, bot_file):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    bot = bot_file("first.py", FIRST_CARD_BOT.format(name="first"))
    run("--game", "rps-poker", str(bot), "builtin:minimal", "--rounds", "1")
    assert not list(tmp_path.glob("arena-logs-*"))
    # ... but kept when a message names a file in it
    crashy = bot_file("crashy.py", "raise RuntimeError('at import')\n")
    with pytest.raises(CommandError) as info:
        run("--game", "rps-poker", str(crashy), "builtin:minimal", "--rounds", "1")
    assert "(traceback in " in str(info.value), str(info.value)
    log = Path(str(info.value).split("(traceback in ")[1].rstrip(")"))
    assert log.parent.parent == tmp_path and "at import" in log.read_text()


def kit_config(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return path


def test_a_kits_config_without_a_game_plays_the_only_game_it_fits(tmp_path, capsys):
    folder = tmp_path / "ai-bots"
    folder.mkdir()
    (folder / "passer.py").write_text(
        "class Bot:\n    def play(self, state):\n        return {'cards': []}\n"
    )
    config = kit_config(tmp_path, {"ai_dirs": ["ai-bots"], "ai": ["builtin:naive"] * 3,
                                   "num_games": 2})  # fmt: skip
    run("--config", str(config), "--seed", "1")
    err = capsys.readouterr().err
    said = " ".join(err.split())  # (wrapped to 80 columns)
    assert f'{config} names no "game": playing last-card, the only game it fits' in said
    assert "Last Card: 4 bots, 2 games, 2 matches" in err


def test_a_config_that_fits_several_games_asks_for_its_game(tmp_path):
    config = kit_config(tmp_path, {"ai": ["builtin:random", "builtin:random"]})
    with pytest.raises(CommandError) as info:
        run("--config", str(config))
    assert str(info.value) == (
        f'{config} has no "game" key and its bots could play any of kuhn, leduc, '
        f'blackjack-pp, goofspiel: add "game": one of {", ".join(g.slug for g in games())} '
        "(or give --game)"
    )


def test_a_count_that_does_not_apply_is_refused_naming_what_was_given(tmp_path):
    config = kit_config(tmp_path, {"game": "rps-poker", "ai": ["builtin:simple"] * 2,
                                   "num_games": 10})  # fmt: skip
    with pytest.raises(CommandError) as info:
        run("--config", str(config))
    assert str(info.value) == (
        f"rps-poker counts --rounds, not num_games in {config} (--games is for --game last-card)"
    )
    with pytest.raises(CommandError, match=r"^uth counts --sessions, not --rounds \("):
        run("--game", "uth", "builtin:basic", "--rounds", "5")
    with pytest.raises(CommandError, match=r"^last-card counts --games, not --rounds \("):
        run("--game", "last-card", "builtin:naive", "--fill", "builtin:naive", "--rounds", "5")


def test_fill_is_refused_where_the_bots_play_in_pairs_and_noted_where_unneeded(capsys):
    with pytest.raises(CommandError, match=r"^--fill is for games played at tables of more "):
        run("--game", "rps-poker", "builtin:simple", "--fill", "builtin:simple")
    run("--game", "last-card", *["builtin:naive"] * 4, "--fill", "builtin:naive", "--games", "1")
    err = capsys.readouterr().err
    assert "--fill builtin:naive is not needed: 4 bots fill the tables" in err


def test_counts_of_one_are_singular(capsys):
    run("--game", "uth", "builtin:basic", "--sessions", "1", "--rounds-per-session", "3",
        "--seed", "1")  # fmt: skip
    err = capsys.readouterr().err
    assert "Ultimate Texas Hold'em: 1 bot, 1 session, 1 match, seed 1" in err


def test_a_config_whose_count_does_not_fit_its_bots_says_so(tmp_path):
    config = kit_config(tmp_path, {"ai": ["builtin:simple", "builtin:strong"], "num_games": 5})
    with pytest.raises(CommandError, match=r"its bots are for rps-poker, but num_games counts "):
        run("--config", str(config))
    empty = kit_config(tmp_path, {"game": "rps-poker"})
    with pytest.raises(CommandError, match=r"lists none in ai_dirs or ai\)$"):
        run("--config", str(empty))


def test_goofspiel_matches_all_won_show_an_interval_of_some_width_at_80_columns(monkeypatch):
    # matching wins every deal of these three matches (seed 2): the table said
    # "+1.000 (+1.000 to +1.000)", as if three matches made the score certain
    monkeypatch.setenv("COLUMNS", "80")
    table = run("--game", "goofspiel", "builtin:matching", "builtin:random",
                "--rounds", "3", "--seed", "2")  # fmt: skip
    assert "+1.000 (-0.123 to +1.000)" in table
    assert "-1.000 (-1.000 to +0.123)" in table
    assert "(+1.000 to +1.000)" not in table
    assert max(len(line) for line in table.splitlines()) <= 80
