"""The interpreter scripts/setup makes .venv on: the one PYTHON names, else Debian's own
optimized python3.11 when it can make a virtual environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup"
DEBIAN = Path("/usr/bin/python3.11")


def which_python(**env: str) -> str:
    run = subprocess.run(
        [str(SETUP), "--which-python"],
        env={k: v for k, v in os.environ.items() if k != "PYTHON"} | env,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return run.stdout.strip()


def test_python_names_the_interpreter(tmp_path):
    assert which_python(PYTHON=str(tmp_path / "python3.12")) == str(tmp_path / "python3.12")


def test_it_prefers_debians_own_python_when_it_can_make_a_venv():
    picked = which_python()
    makes_venvs = (
        DEBIAN.exists()
        and subprocess.run([str(DEBIAN), "-c", "import ensurepip"], check=False).returncode == 0
    )
    if makes_venvs:  # (scripts/setup installs python3-venv, so on CI it can)
        assert picked == str(DEBIAN)
    else:
        assert picked and Path(picked).name.startswith("python3")
    if Path(sys.prefix) == ROOT / ".venv":  # this run's .venv was made on it (a shim followed)
        real = "import os, sys; print(os.path.realpath(sys.executable))"
        binary = subprocess.run([picked, "-c", real], capture_output=True, text=True, check=True)
        assert os.path.realpath(sys._base_executable) == binary.stdout.strip()
