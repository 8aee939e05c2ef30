"""A running site serves collectstatic's copies of the static files, not the checkout's
static/ folder: a file of the checkout changed under it (an update, before the restart) was
served with the size read when the site started, cut short or padded, and every table page
hung at "Connecting to the table...". Straight from static/ only in DEBUG, or before
collectstatic has run (tests, a first start)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def serves_static_folder(var: Path, debug: bool = False) -> bool:
    """``WHITENOISE_USE_FINDERS`` as a site on ``var`` reads it at its start."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env |= {"CARD_ARENA_VAR": str(var), "DJANGO_SETTINGS_MODULE": "cardsite.settings"}
    env["DEBUG"] = "1" if debug else "0"
    code = "from django.conf import settings; print(settings.WHITENOISE_USE_FINDERS)"
    said = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    return {"True": True, "False": False}[said]


@pytest.mark.parametrize("debug", [False, True])
def test_a_site_serves_collectstatics_copies_once_there_are_some(tmp_path, debug):
    var = tmp_path / "var"
    assert serves_static_folder(var, debug)  # nothing collected yet: static/ itself
    (var / "staticfiles" / "css").mkdir(parents=True)
    (var / "staticfiles" / "css" / "site.css").write_text("body {}")
    assert serves_static_folder(var, debug) is debug
