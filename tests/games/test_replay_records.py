"""``manage.py replay FILE.json``: the arena's match records of every game replay to the
result they record; the site's copies say why they cannot when they hide the deal."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.registry import games, get_game

#: what makes a short tournament of each game (the default: one round of every pair)
SHORT = {
    "last-card": ["--games", "2", "--fill", "builtin:naive"],
    "uth": ["--sessions", "1", "--rounds-per-session", "25"],
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[Path]]:
    """The match records the arena writes for a game, played once per game for the module."""
    logs: dict[str, Path] = {}

    def records(slug: str) -> list[Path]:
        if slug not in logs:
            logs[slug] = tmp_path_factory.mktemp("logs")
            # two built-in bots (a solved one can take long to load)
            bots = [f"builtin:{name}" for name in list(get_game(slug).builtin_bots)[:2]]
            call_command(
                "arena", "--game", slug, *bots, *SHORT.get(slug, ["--rounds", "1"]),
                "--seed", "5", "--jobs", "1", "--no-progress", "--logs", str(logs[slug]),
                stdout=io.StringIO(),
            )  # fmt: skip
        found = sorted((logs[slug] / "matches").glob("*.json"))
        assert found, f"the arena wrote no match record of {slug}"
        return found

    return records


def arena_records(played: Callable[[str], list[Path]], tmp_path: Path, slug: str) -> list[Path]:
    """Copies of the arena's records, for a test to change."""
    copies = []
    for path in played(slug):
        copies.append(tmp_path / path.name)
        shutil.copy(path, copies[-1])
    return copies


def replay(path: Path, *extra: str) -> str:
    out = io.StringIO()
    call_command("replay", str(path), *extra, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("slug", [spec.slug for spec in games()])
def test_every_record_the_arena_writes_replays_to_its_result(played, tmp_path, slug):
    for path in arena_records(played, tmp_path, slug):
        record = json.loads(path.read_text())
        report_path = tmp_path / "report.json"
        text = replay(path, "--json", str(report_path))
        assert "replayed: the same result as recorded" in text, path.name
        report = json.loads(report_path.read_text())
        assert report["game"] == slug and report["result"] == record["result"]
        assert report["seats"] == [s["name"] for s in record["seats"]]
        assert len(report["steps"]) > 1


@pytest.mark.parametrize("slug", [spec.slug for spec in games()])
def test_a_record_that_does_not_reach_its_result_or_names_another_game_is_refused(
    played, tmp_path, slug
):
    path = arena_records(played, tmp_path, slug)[0]
    record = json.loads(path.read_text())
    other = next(spec.slug for spec in games() if spec.slug != slug)
    with pytest.raises(CommandError, match=f"a record of '{slug}', not '{other}'"):
        replay(path, "--game", other)
    record["result"]["scores"] = [s + 1 for s in record["result"]["scores"]]
    path.write_text(json.dumps(record))
    with pytest.raises(CommandError, match="does not reach the recorded result .*scores"):
        replay(path)


@pytest.mark.parametrize("slug", [spec.slug for spec in games()])
def test_the_sites_copy_replays_or_says_why_not(played, tmp_path, slug):
    path = arena_records(played, tmp_path, slug)[0]
    record = json.loads(path.read_text())
    public = get_game(slug).state_class.public_record(record)
    # as the API answers it: the record inside the match
    api = tmp_path / "api.json"
    api.write_text(json.dumps({"id": 1, "game": slug, "record": public}))
    hides_the_deal = any(
        e["type"] == "chance" and "outcome" not in e for e in public["events"]
    )  # fmt: skip
    if hides_the_deal:
        with pytest.raises(CommandError, match="site's public copy .* --logs DIR/matches/"):
            replay(api)
    else:
        assert "replayed: the same result as recorded" in replay(api)


def test_a_file_without_a_game_asks_for_one(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"rounds": []}))
    with pytest.raises(CommandError, match="names no game: give --game"):
        replay(path)
    with pytest.raises(CommandError, match="not a match record"):
        replay(path, "--game", next(s.slug for s in games() if s.hand_history is None))


def test_its_steps_show_the_cards_on_the_table_a_uth_board_too(played, tmp_path):
    # the steps' log lines never name the board's cards: the table under them does
    record = played("uth")[0]
    lines = replay(record, "--steps").splitlines()
    boards = [line.strip() for line in lines if line.strip().startswith("| Board: ")]
    assert "| Board: 5 face down" in boards
    flop = next(b for b in boards if b.endswith(", 2 face down") and b != "| Board: 5 face down")
    assert len(flop.removeprefix("| Board: ").split(",")[0].split()) == 3
    assert any(len(b.removeprefix("| Board: ").split()) == 5 and "down" not in b for b in boards)
    assert any(line.strip().startswith("| Dealer: ") for line in lines)
    out = tmp_path / "report.json"
    replay(record, "--steps", "--json", str(out))
    steps = json.loads(out.read_text())["steps"]
    assert any(line.startswith("Board: ") for step in steps for line in step["table"])


def test_its_steps_are_wrapped_between_words(played, monkeypatch):
    # "each player is offered two cards 5 times, keeps o" / "ne and passes the other."
    monkeypatch.setenv("COLUMNS", "80")
    out = replay(played("rps-poker")[0], "--steps")
    assert all(len(line) <= 80 for line in out.splitlines()), out
    deal = "each player is offered two cards 5 times, keeps one and passes the other."
    assert deal in " ".join(out.split())


def test_replaying_a_record_loads_its_own_game_only(played):
    # Replaying an RPS Poker record once loaded every game, the solver and NumPy with them
    # (seconds on a busy machine).
    record = played("rps-poker")[0]
    code = (
        "import io, os, sys, django\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'cardsite.settings')\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        f"call_command('replay', {str(record)!r}, stdout=io.StringIO())\n"
        "print(sorted(m for m in sys.modules if m.startswith(('games.solver', 'numpy',"
        " 'games.kuhn', 'games.uth'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.stdout.strip() == "[]"
