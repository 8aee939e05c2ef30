"""The Python 3.12 environment holding the reference implementation (textarena).

TextArena's Ultimate Texas Hold'em module uses Python 3.12 syntax, so the differential test
runs it in a Python 3.12 child process of its own, from a virtual environment kept in
``.venv/uth-reference`` (inside the project's ignored ``.venv``; ``UTH_REFERENCE_VENV``
moves it). ``ensure()`` creates it once and is quick afterwards; ``scripts/setup`` runs

    .venv/bin/python -m tests.uth.reference_env

Python 3.12 is found as ``$PYTHON312``, else ``python3.12`` on the PATH, else under pyenv's
versions folder; there is no fallback that skips the test: without it, this fails and says so.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = Path(__file__).with_name("reference_requirements.txt")


class ReferenceUnavailable(Exception):
    """The reference environment could not be set up; the message says what to do."""


def venv_dir() -> Path:
    return Path(os.environ.get("UTH_REFERENCE_VENV", ROOT / ".venv" / "uth-reference"))


def python() -> Path:
    return venv_dir() / "bin" / "python"


def _works(candidate: str) -> bool:
    try:
        done = subprocess.run(
            [candidate, "-c", "import sys, venv; sys.exit(sys.version_info[:2] != (3, 12))"],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def find_python312() -> str:
    candidates = []
    if os.environ.get("PYTHON312"):
        candidates.append(os.environ["PYTHON312"])
    on_path = shutil.which("python3.12")
    if on_path:
        candidates.append(on_path)
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += [str(p) for p in sorted(pyenv_root.glob("versions/3.12*/bin/python3.12"))]
    candidates += ["/usr/local/bin/python3.12", "/usr/bin/python3.12"]
    for candidate in candidates:
        if _works(candidate):
            return candidate
    raise ReferenceUnavailable(
        "the Ultimate Texas Hold'em reference (textarena) needs Python 3.12 with venv, and none "
        f"works here (tried: {', '.join(candidates)}). Install Python 3.12 and put python3.12 "
        "on the PATH, or set PYTHON312=/path/to/python3.12, then run scripts/setup."
    )


def _stamp() -> str:
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def ensure(quiet: bool = True) -> Path:
    """The reference environment's interpreter, creating the environment if needed."""
    stamp = venv_dir() / ".card-arena-reference"
    if python().exists() and stamp.exists() and stamp.read_text().strip() == _stamp():
        return python()
    base = find_python312()
    if not quiet:
        print(f"reference_env: creating {venv_dir()} with {base} (textarena)", file=sys.stderr)
    shutil.rmtree(venv_dir(), ignore_errors=True)
    steps = [
        [base, "-m", "venv", str(venv_dir())],
        [
            str(python()),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-input",
            "-r",
            str(REQUIREMENTS),
        ],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
            raise ReferenceUnavailable(f"{' '.join(step)} failed:\n{tail}")
    stamp.write_text(_stamp() + "\n")
    return python()


if __name__ == "__main__":
    try:
        print(ensure(quiet=False))
    except ReferenceUnavailable as exc:
        sys.exit(f"reference_env: error: {exc}")
