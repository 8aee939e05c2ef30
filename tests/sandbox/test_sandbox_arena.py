"""The arena runs bot files in the sandbox (JavaScript ones too), marks a bot that faults in
most of its matches, and keeps playing whatever the bots do; --no-sandbox runs them as plain
child processes for an author debugging their own bot."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from bots.arena import Arena, is_faulty
from tests.sandbox.conftest import GAME, alone_but_for_the_host, hostile


@pytest.fixture(autouse=True)
def test_uids(settings, sandbox_config):
    """The arena command reads the sandbox's machine settings: point it at the test uids."""
    settings.SANDBOX_UID_BASE = sandbox_config.uid_base
    settings.SANDBOX_SLOTS = sandbox_config.slots
    settings.SANDBOX_LOCK_DIR = sandbox_config.lock_dir


def arena(*args: str) -> str:
    out = io.StringIO()
    call_command("arena", "--game", "rps-poker", "--no-progress", *args, stdout=out)
    return out.getvalue()


def test_it_plays_python_and_javascript_bot_files_in_the_sandbox(tmp_path):
    bots = [hostile(tmp_path, name) for name in ("fair.py", "fair.js", "module.js")]
    results, logs = tmp_path / "results.json", tmp_path / "logs"
    table = arena(*map(str, bots), "builtin:simple", "--rounds", "2", "--seed", "7",
                  "--jobs", "1", "--json", str(results), "--logs", str(logs))  # fmt: skip
    assert "Fair JS" in table and "Module JS" in table
    data = json.loads(results.read_text())
    assert data["matches"] == 2 * 6
    assert all(b["faults"] == 0 and not b["faulty"] for b in data["bots"])
    # Inside the sandbox the Python process is alone with the host's zygote (pid 1) and the
    # next process (a spare) in its PID namespace; the arena deals every table anew, so the
    # one process plays all the bot's matches (2 rounds, 3 opponents; one job: a second one
    # starts its own processes).
    log = next((logs / "stderr").glob("00-fair.stderr.log")).read_text()
    seen = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert seen and all(alone_but_for_the_host(r) for r in seen)
    assert [r["match"] for r in seen] == list(range(1, 7))


def test_it_runs_bot_files_as_plain_processes_with_no_sandbox(tmp_path):
    bots = [hostile(tmp_path, name) for name in ("fair.py", "fair.js")]
    logs = tmp_path / "logs"
    arena(*map(str, bots), "--rounds", "1", "--no-sandbox", "--logs", str(logs))
    log = next((logs / "stderr").glob("00-fair.stderr.log")).read_text()
    seen = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert seen and seen[0]["pid"] != 1 and seen[0]["calls"]["fork"] == "ok"


def test_it_finishes_a_tournament_with_hostile_bots_and_marks_them(tmp_path, sandbox_config):
    sources = [str(hostile(tmp_path, "exits.py")), str(hostile(tmp_path, "spam.js")),
               str(hostile(tmp_path, "invalid.py")), "builtin:simple", "builtin:minimal",
               "builtin:strong"]  # fmt: skip
    with Arena(GAME, sources, sandbox_config=sandbox_config, logs=tmp_path / "logs") as a:
        summary = a.run(rounds=2, seed=3)
    assert summary["matches"] == 2 * 15
    by_name = {b["name"]: b for b in summary["bots"]}
    assert by_name["simple"]["faulty"] is False and by_name["simple"]["faults"] == 0
    for name, kind in (("exits", "crash"), ("spam", "output"), ("invalid", "invalid")):
        bot = by_name[name]
        assert bot["faulty"] is True
        # every match it played to its turn (a hostile opponent may fault first)
        assert set(bot["fault_kinds"]) == {kind}
        assert bot["fault_reports"][-1]["kind"] == kind


def test_it_calls_a_bot_faulty_when_it_faults_in_most_of_its_matches():
    assert not is_faulty(0, 0)
    assert not is_faulty(5, 10)
    assert is_faulty(6, 10)
    assert is_faulty(1, 1)
