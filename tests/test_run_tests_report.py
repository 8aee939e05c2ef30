"""What scripts/run-tests says of the tests it skipped (scripts/test_report.py ``skips``):
each reason once, with how many tests, in which half, and which, read from a JUnit file that
pytest wrote for real."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import test_report  # noqa: E402  (scripts/test_report.py)

SUITE = """
import pytest


def test_runs():
    assert True


@pytest.mark.skip(reason="needs a Java compiler (apt-get install default-jdk)")
def test_java():
    pass


@pytest.mark.parametrize("n", range(5))
def test_root_only(n):
    pytest.skip("needs root")
"""


def junit(tmp_path: Path) -> Path:
    (tmp_path / "test_some.py").write_text(textwrap.dedent(SUITE))
    xml = tmp_path / "junit.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:django",
         f"--junitxml={xml}", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    return xml


def test_it_lists_each_reason_of_the_skipped_tests_with_their_count_and_names(tmp_path):
    xml = junit(tmp_path)
    assert test_report.counts(str(xml)) == "1 0 6"
    lines = test_report.skips([f"sqlite={xml}", f"services={xml}"])
    assert len(lines) == 2, lines
    root, java = lines
    assert root.startswith("10 skipped (sqlite, services): needs root: ")
    assert root.endswith("and 2 more")  # five tests, three named
    assert "test_root_only[0]" in root
    assert java.startswith(
        "2 skipped (sqlite, services): needs a Java compiler (apt-get install default-jdk): "
    )
    assert java.endswith("test_java")


def test_it_says_nothing_when_nothing_was_skipped(tmp_path):
    assert test_report.skips([f"sqlite={tmp_path / 'none.xml'}"]) == []
