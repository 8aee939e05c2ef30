"""Every benchmark script under bench/ still starts: its imports of the project's code hold
and it parses its options (``--help``). A bench is run by hand, seldom; one that broke when
the code it measures moved (a setting renamed, a module split) was found only when a figure
was wanted. What each one measures is its own run's business, not a test's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHES = sorted(p.name for p in (ROOT / "bench").glob("*.py") if p.name != "benchsite.py")


def test_every_bench_is_here():
    assert "bench_arena_floor.py" in BENCHES and len(BENCHES) > 40


@pytest.mark.parametrize("name", BENCHES)
def test_a_bench_starts_and_says_how_it_is_run(name):
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / name), "--help"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: "), done.stdout[:500]
