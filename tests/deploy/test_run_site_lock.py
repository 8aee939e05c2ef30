"""scripts/run-site serves one site a var/ folder: a second one on the same folder stops at
once and says which site holds it, before it installs, migrates or collects anything."""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
RUN_SITE = ROOT / "scripts" / "run-site"


def test_a_second_site_on_the_same_var_folder_is_refused(tmp_path):
    var = tmp_path / "var"
    var.mkdir()
    lock = var / "run-site.lock"
    with lock.open("a+") as held:  # a site that serves from it (what run-site takes)
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("pid 4242, port 8000\n")
        held.flush()
        run = subprocess.run(
            [str(RUN_SITE)],
            env=os.environ
            | {"CARD_ARENA_VAR": str(var), "PORT": str(free_port()), "COLUMNS": "80"},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1
    # wrapped to the terminal between words: the folder's path kept whole, on a line of its own
    # where it is longer than a line
    lines = run.stderr.splitlines()
    assert all(len(line) <= 80 or line.strip() == f"{var}" for line in lines), run.stderr
    said = " ".join(line.strip() for line in lines)
    assert f"another scripts/run-site serves from {var} (pid 4242, port 8000)" in said
    assert "CARD_ARENA_VAR" in said
    assert "setup:" not in run.stderr  # nothing was installed, migrated or collected
    assert sorted(p.name for p in var.iterdir()) == ["run-site.lock"]
