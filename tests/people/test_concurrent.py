"""Two rated tables of one person that end at the same moment both count (PostgreSQL, two
connections): the second is rated from the first's result, never from the same start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bots.ladder.ratings import MODEL

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pg(tmp_path_factory):
    """A migrated database on a PostgreSQL server of our own (in both test runs)."""
    from cardsite.localservices import postgres_server
    from tests.competition.services import Site

    base = tmp_path_factory.mktemp("pg")
    with postgres_server(base) as server:
        yield Site.migrated(server.url, base)


def test_two_finishes_at_once_both_count(pg):
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "people" / "two_finishes.py")],
        cwd=ROOT, env=pg.env(), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["vendor"] == "postgresql" and found["errors"] == []
    assert found["matches"] == 2
    [first, second] = found["history"]
    assert first[:3] == [1, MODEL.mu, MODEL.sigma]
    # the second started from the first's result: nothing was lost
    assert second[:3] == [2, first[3], first[4]] and found["mu"] == second[3]
