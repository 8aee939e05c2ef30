"""The floor under a match played over pipes: what a bare round trip, our JavaScript host's
round trip and a Node start cost on this machine, and what writing several requests at
once would save.

    .venv/bin/python bench/bench_round_trip.py [--requests N] [--runs K] [--batches 1,4,8]

A round trip is one request line from this (Python) process to a Node process and its reply
line back, both pinned to one CPU (as an arena job and its bots are: bots.running.cpus):

- **bare**: a Node loop that reads a line with ``fs.readSync``, parses it and writes a
  reply with ``fs.writeSync`` (what our host does, and nothing else);
- **host**: ``bots/languages/javascript/host.js`` serving ``bench/rps_js_bots/highest.js``
  (not sandboxed: the sandbox adds nothing measurable per call, docs/sandbox.md), asked
  RPS Poker's ``main_play`` again and again;
- **host, B at once**: the same, with B requests written in one write and their B replies
  read back (a design where one bot process serves B matches at a time would do this).

Also the start of a bare ``node -e 0`` (every sandboxed JavaScript bot pays it). For each,
the min and median over K runs of microseconds per request: wall time, this process's CPU,
Node's CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

BARE = r"""
const fs = require('fs');
const chunk = Buffer.alloc(65536);
for (;;) {
  const n = fs.readSync(0, chunk, 0, chunk.length, null);
  if (n === 0) break;
  for (const line of chunk.subarray(0, n).toString('utf8').split('\n')) {
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.type === 'quit') process.exit(0);
    fs.writeSync(1, `{"type":"return","value":0,"id":${message.id}}\n`);
  }
}
"""
CALL = b'{"id":%d,"type":"call","method":"main_play","args":[["R3","P5","S2","R1","P4"],"S3"]}\n'


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def serve(argv: list[str], requests: int, batch: int) -> tuple[float, float, float]:
    """(wall, own CPU, Node CPU) microseconds a request: ``requests`` calls, ``batch`` a
    write. Node's start is left out: the clocks start once it has answered a first line."""
    node = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert node.stdin is not None and node.stdout is not None
    to, back = node.stdin.fileno(), node.stdout.fileno()
    os.write(to, b'{"id":0,"type":"begin","game":"rps-poker","seat":0,"seats":2}\n')
    seen = b""
    while b'"id":0' not in seen:  # the begin's reply (after the host's hello)
        seen += os.read(back, 65536)
    wall, cpu = time.perf_counter(), time.process_time()
    node_before = _proc_cpu(node.pid)
    sent = 0
    while sent < requests:
        lines = b"".join(CALL % (sent + i + 1) for i in range(batch))
        os.write(to, lines)
        got = b""
        while got.count(b"\n") < batch:
            got += os.read(back, 65536)
        for line in got.splitlines():
            json.loads(line)
        sent += batch
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    node_used = _proc_cpu(node.pid) - node_before
    os.write(to, b'{"type":"quit"}\n')
    node.wait()
    return 1e6 * wall / sent, 1e6 * cpu / sent, 1e6 * node_used / sent


def _proc_cpu(pid: int) -> float:
    """CPU seconds a running process has used (/proc/PID/stat: utime + stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def node_start() -> tuple[float, float]:
    """(wall, CPU) milliseconds of ``node -e 0``."""
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run(["node", "-e", "0"], check=True)
    return 1e3 * (time.perf_counter() - wall), 1e3 * (children_cpu() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--batches", default="1,4,8")
    args = parser.parse_args()
    from games.registry import get_game

    cpu = sorted(os.sched_getaffinity(0))[-1]
    os.sched_setaffinity(0, [cpu])  # Node, started from here, runs on it too
    game_globals = json.dumps(get_game("rps-poker").js_globals)
    host = ["node", str(ROOT / "bots/languages/javascript/host.js")]
    bot = str(HERE / "rps_js_bots" / "highest.js")
    batches = [int(b) for b in args.batches.split(",")]
    cases = {"bare (sync Node echo)": (["node", "-e", BARE], 1)}
    for batch in batches:
        name = "host.js" if batch == 1 else f"host.js, {batch} at once"
        cases[name] = ([*host, bot, game_globals], batch)
    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cases}
    starts = []
    for _ in range(args.runs):
        for name, (argv, batch) in cases.items():
            figures[name].append(serve(argv, args.requests, batch))
        starts.append(node_start())
    print(
        f"{args.requests} requests a run, {args.runs} runs, all on CPU {cpu}; "
        "microseconds a request, min / median"
    )
    print(f"  {'':26} {'wall':>15} {'Python CPU':>15} {'Node CPU':>15}")
    for name, runs in figures.items():
        cells = [
            f"{min(r[i] for r in runs):6.1f} / {statistics.median(r[i] for r in runs):6.1f}"
            for i in range(3)
        ]
        print(f"  {name:26} {cells[0]:>15} {cells[1]:>15} {cells[2]:>15}")
    walls, cpus = [s[0] for s in starts], [s[1] for s in starts]
    print(
        f"  node -e 0: {min(walls):.0f} / {statistics.median(walls):.0f} ms wall, "
        f"{min(cpus):.0f} / {statistics.median(cpus):.0f} ms CPU"
    )


if __name__ == "__main__":
    main()
