"""scripts/run-site's stop: a worker that has not finished its match once the others are
given time to stop is told a second time, so that it gives its jobs back to the queue at once
(bots.worker: a second SIGTERM), instead of being killed with them held until their lease
runs out (an audit's job was held for a minute and played again from scratch).

Starting the whole site to stop it would take a minute; the test runs run-site's own stop
functions, taken from the script, on a stand-in worker that counts its SIGTERMs. (The
worker's side, that a second SIGTERM gives its job back at once: tests/competition/
test_reliability.py.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN_SITE = ROOT / "scripts" / "run-site"


def functions(*names: str) -> str:
    """The shell functions ``names`` of scripts/run-site, as written there."""
    text = RUN_SITE.read_text()
    found = []
    for name in names:
        match = re.search(rf"^{name}\(\) \{{\n.*?^\}}\n", text, re.MULTILINE | re.DOTALL)
        assert match, f"scripts/run-site has no function {name}"
        found.append(match.group(0))
    return "".join(found)


#: a worker that, like bots.worker, goes on with its match at a first SIGTERM and gives it
#: back and exits at a second; it says when it is ready to be signalled
STAND_IN = """
( terms=0
  trap 'terms=$((terms + 1)); echo "worker: SIGTERM $terms"; ((terms < 2)) || exit 0' TERM
  echo ready > "$READY"
  while :; do sleep 0.02; done ) &
"""


#: a worker that stops at the first SIGTERM (its match over)
QUICK = """
( trap 'echo worker: SIGTERM; exit 0' TERM
  echo ready > "$READY"; while :; do sleep 0.02; done ) &
"""


def stopped(tmp_path: Path, worker: str, tenths: int) -> list[str]:
    """What run-site's stop_all prints, given ``tenths`` of a second to wait, for the
    stand-in ``worker`` (its lines, then "stopped")."""
    script = "\n".join(
        [
            "set -euo pipefail",
            "say() { printf 'run-site: %s\\n' \"$*\"; }",
            functions("wait_gone", "stop_all"),
            f"READY={tmp_path / 'ready'}",
            worker,
            "PIDS=($!); WORKER=$!",
            "until [[ -s $READY ]]; do sleep 0.01; done",
            f"STOP_WAIT_TENTHS={tenths}",
            "stop_all",
            "echo stopped",
        ]
    )
    run = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def test_a_worker_still_playing_when_the_site_stops_is_told_twice_not_killed(tmp_path):
    assert stopped(tmp_path, STAND_IN, 3) == [
        "worker: SIGTERM 1",
        "run-site: the worker's match is not over: it goes back to the queue, to be played again",
        "worker: SIGTERM 2",
        "stopped",
    ]


def test_a_worker_that_stops_at_the_first_sigterm_is_not_told_again(tmp_path):
    assert stopped(tmp_path, QUICK, 50) == ["worker: SIGTERM", "stopped"]
