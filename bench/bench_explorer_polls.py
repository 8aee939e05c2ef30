"""Two web processes behind one address: a solve asked of one, its page polled at both.

    .venv/bin/python bench/bench_explorer_polls.py [--before /work/main] [--solves 3]

For each checkout (this one, and with ``--before`` another one, the code before, side by
side in the same run) it makes a database of its own (SQLite in a temporary folder, shared
by the processes), starts two web processes of that checkout (``python -m cardsite.serve``
on two ports) and, if the checkout's worker runs solves, one ``manage.py worker
--no-validate``. Then, ``--solves`` times, it asks one process for a solve (Leduc hold'em,
CFR+, a different number of iterations each time) through the form, and polls the progress
JSON at the two processes in turn, every 0.1 s, until the solve is done (or 120 s). Then it
asks the other process for the same settings again. It prints, per checkout: the polls each
process answered and how many were 404, the seconds from the POST to the poll that saw it
done, how long a poll took (median and 90th percentile: a web process that solves in a
thread is slow to answer meanwhile), and whether the repeat asked of the other process was served at
once (done already).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One person: cookies (the CSRF token's) shared between the two addresses."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect()
        )

    def get(self, url: str) -> tuple[int, str]:
        try:
            with self.opener.open(url, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def post_form(self, base: str, fields: dict[str, str]) -> str:
        """The form's POST (with its CSRF token): the solve's address it redirects to."""
        status, page = self.get(base + "/solver/")
        assert status == 200, status
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(base + "/solver/", data=data, headers={"Referer": base})
        try:
            self.opener.open(request, timeout=30)
        except urllib.error.HTTPError as exc:
            assert exc.code == 303, (exc.code, exc.read().decode()[:500])
            return exc.headers["Location"]
        raise AssertionError("the form did not redirect")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def wait_listening(port: int, process: subprocess.Popen, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"a process exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def run_checkout(tree: Path, solves: int) -> dict:
    python = str(tree / ".venv/bin/python")
    env = {**os.environ, "CARD_ARENA_VAR": tempfile.mkdtemp(prefix="bench-polls-")}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    quiet = {"cwd": tree, "env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v", "0"], check=True, **quiet)
    processes = []
    ports = [free_port(), free_port()]
    try:
        for port in ports:
            argv = [python, "-m", "cardsite.serve", "--bind", "127.0.0.1", "--port", str(port)]
            processes.append(subprocess.Popen([*argv, "cardsite.asgi:application"], **quiet))
        help_text = subprocess.run(
            [python, "manage.py", "worker", "--help"], capture_output=True, text=True, **{
                k: v for k, v in quiet.items() if k in ("cwd", "env")
            }
        ).stdout  # fmt: skip
        worker = "--no-solve" in help_text
        if worker:
            argv = [python, "manage.py", "worker", "--no-validate", "--ladder-interval", "0"]
            processes.append(subprocess.Popen([*argv, "--display", "log"], **quiet))
        for port, process in zip(ports, processes, strict=False):
            wait_listening(port, process)
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        browser = Browser()
        polls = {base: [0, 0] for base in bases}  # answered, 404
        seconds, repeats, latency = [], [], []
        for n in range(solves):
            fields = {"game": "leduc", "algorithm": "cfr+", "iterations": str(200 + n)}
            began = time.monotonic()
            url = browser.post_form(bases[0], fields)
            done_at = None
            turn = 0
            while time.monotonic() - began < 120:
                base = bases[turn % 2]
                turn += 1
                asked = time.monotonic()
                status, body = browser.get(base + url.rstrip("/") + ".json")
                latency.append(time.monotonic() - asked)
                polls[base][0] += 1
                polls[base][1] += status == 404
                if status == 200 and '"state": "done"' in body:
                    done_at = time.monotonic() - began
                    break
                time.sleep(0.1)
            seconds.append(done_at)
            again = browser.post_form(bases[1], fields)
            status, body = browser.get(bases[1] + again.rstrip("/") + ".json")
            repeats.append(again == url and status == 200 and '"state": "done"' in body)
        return {
            "worker": worker,
            "polls": polls,
            "seconds": seconds,
            "repeats": repeats,
            "latency": latency,
        }
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout, measured alongside")
    parser.add_argument("--solves", type=int, default=3)
    args = parser.parse_args()
    trees = [("before", args.before)] if args.before else []
    trees.append(("now", ROOT))
    print(f"{'checkout':<9} {'worker':<7} {'polls A (404)':>14} {'polls B (404)':>14} "
          f"{'s to done (min, median)':>24} {'poll ms (median, p90)':>22} "
          f"{'repeat at B served':>19}")  # fmt: skip
    for label, tree in trees:
        result = run_checkout(tree.resolve(), args.solves)
        (a, a404), (b, b404) = result["polls"].values()
        seen = [s for s in result["seconds"] if s is not None]
        timing = f"{min(seen):.2f}, {statistics.median(seen):.2f}" if seen else "never (120 s each)"
        if seen and len(seen) < len(result["seconds"]):
            timing += f" ({len(result['seconds']) - len(seen)} never)"
        served = f"{sum(result['repeats'])} of {len(result['repeats'])}"
        latency = result["latency"]
        p90 = statistics.quantiles(latency, n=10)[-1]
        poll_ms = f"{1000 * statistics.median(latency):.1f}, {1000 * p90:.1f}"
        print(f"{label:<9} {'yes' if result['worker'] else 'no':<7} {f'{a} ({a404})':>14} "
              f"{f'{b} ({b404})':>14} {timing:>24} {poll_ms:>22} {served:>19}")  # fmt: skip
        sys.stdout.flush()


if __name__ == "__main__":
    main()
