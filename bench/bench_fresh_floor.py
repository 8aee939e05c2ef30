"""The floor of a fresh bot per match on this machine: what the kernel and the runtimes charge
for the parts of a match that no code of ours can take away, next to the cost of one message.
(bench/bench_fresh_bots.py measures the arena itself, before and after.)

    .venv/bin/python bench/bench_fresh_floor.py [--runs K] [--n N]

Each figure is measured K times (N repetitions each); it prints min and median:

- **round trip**: one JSON line to a child process that only echoes it back, and its answer
  (a Node child and a Python child), wall time and CPU time (both processes) per round trip;
  a match of RPS Poker makes about 16 per seat; and the Node child again with both processes
  on one core, where no message has to wake another CPU (this machine's idle CPUs halt);
- **fresh JavaScript bot**: the host's own ``freshBot`` (a new V8 context, the realm's code,
  the bot file, its load) on bench/rps_js_bots/counter.js, CPU per bot; and one call of a
  bot already made, for scale;
- **fresh Python process**: fork, exit and wait from a bare interpreter (the kernel's least),
  and from a state like the host's zygote (its code, the bot compiled and the standard
  modules it names imported, its module made, ``gc.freeze``) with a child that loads the
  bot and makes it, as a match's process does: RPS Poker's ``strong`` bot, CPU per child.

It ends with the least CPU the fresh design adds to a match (two seats) in round trips'
worth: what a warm process saved, which no code of the arena can win back per match.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ROOT / "bots" / "languages"
JS_BOT = ROOT / "bench" / "rps_js_bots" / "counter.js"
PY_BOT = ROOT / "games" / "rps_poker" / "bots" / "strong.py"
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

ECHO_NODE = r"""
const fs = require('fs'); const b = Buffer.alloc(65536); let p = '';
for (;;) {
  const n = fs.readSync(0, b, 0, 65536, null); if (!n) break;
  p += b.toString('utf8', 0, n); let i;
  while ((i = p.indexOf('\n')) >= 0) {
    const m = JSON.parse(p.slice(0, i)); p = p.slice(i + 1);
    fs.writeSync(1, JSON.stringify({ type: 'return', value: m.args[0], id: m.id }) + '\n');
  }
}
"""
ECHO_PYTHON = r"""
import json, os
pending = b""
while chunk := os.read(0, 65536):
    pending += chunk
    while b"\n" in pending:
        line, pending = pending.split(b"\n", 1)
        m = json.loads(line)
        os.write(1, (json.dumps({"type": "return", "value": m["args"][0], "id": m["id"]})
                     + "\n").encode())
"""

FRESH_JS = r"""
const host = require(process.argv[1]);
const file = process.argv[2], n = +process.argv[3];
const globals = JSON.stringify({ fullDeck: ['R1', 'P1', 'S1', 'R2', 'P2', 'S2'] });
const script = host.compile(file, globals);
const call = '{"id":1,"type":"call","method":"draft_pick","args":[["R1","P2"]]}';
for (let i = 0; i < 100; i++) host.freshBot(script, file, globals);
let start = process.cpuUsage();
for (let i = 0; i < n; i++) host.freshBot(script, file, globals);
let used = process.cpuUsage(start);
const fresh = (used.user + used.system) / n;
const bot = host.freshBot(script, file, globals).dispatch;
for (let i = 0; i < 1000; i++) host.call(bot, call);
start = process.cpuUsage();
for (let i = 0; i < n * 10; i++) host.call(bot, call);
used = process.cpuUsage(start);
console.log(JSON.stringify({ fresh_us: fresh, call_us: (used.user + used.system) / (n * 10) }));
"""

FORK_PYTHON = r"""
import gc, os, resource, sys, json
zygote = sys.argv[1] == "zygote"
n = int(sys.argv[2])
if zygote:
    sys.path.insert(0, sys.argv[3])
    import host
    path = sys.argv[4]
    code = host.compile_bot(path)
    host.warm(code)
    made = host.module_for(path)
    gc.freeze()
def cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
def child():
    if zygote:
        cls, _ = host.load(path, code, made)
        cls()
    os._exit(0)
for i in range(20):
    pid = os.fork()
    if pid == 0:
        child()
    os.waitpid(pid, 0)
start = cpu()
for i in range(n):
    pid = os.fork()
    if pid == 0:
        child()
    os.waitpid(pid, 0)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"child_us": (cpu() - start) / n * 1e6, "rss_mb": rss}))
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def round_trip(argv: list[str], n: int, *, one_core: bool = False) -> tuple[float, float]:
    """(wall µs, CPU µs of both processes) per round trip of one JSON line; ``one_core``:
    both processes on the first core (no message wakes another, halted, CPU)."""
    allowed = os.sched_getaffinity(0)
    if one_core:
        os.sched_setaffinity(0, {min(allowed)})  # the child inherits it
    try:
        return _round_trip(argv, n)
    finally:
        os.sched_setaffinity(0, allowed)


def _round_trip(argv: list[str], n: int) -> tuple[float, float]:
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    to_child, from_child = child.stdin.fileno(), child.stdout.fileno()
    poller = select.poll()
    poller.register(from_child, select.POLLIN)

    def once(i: int) -> None:
        line = {"id": i, "type": "call", "method": "draft_pick", "args": [["R1", "P2"]]}
        os.write(to_child, (json.dumps(line) + "\n").encode())
        poller.poll(5000)
        json.loads(os.read(from_child, 65536))

    for i in range(500):
        once(i)
    started, cpu = time.perf_counter(), self_cpu()
    for i in range(n):
        once(i)
    wall, mine = time.perf_counter() - started, self_cpu() - cpu
    theirs = children_cpu()
    child.stdin.close()
    child.wait()
    theirs = children_cpu() - theirs  # the child's whole life: its start is a small part
    return wall / n * 1e6, (mine + theirs) / n * 1e6


def fresh_js(n: int) -> tuple[float, float]:
    done = subprocess.run(
        ["node", "-e", FRESH_JS, str(LANGUAGES / "javascript" / "host.js"), str(JS_BOT), str(n)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    said = json.loads(done.stdout)
    return said["fresh_us"], said["call_us"]


def fork_python(kind: str, n: int) -> tuple[float, float]:
    done = subprocess.run(
        [PYTHON, "-I", "-c", FORK_PYTHON, kind, str(n), str(LANGUAGES / "python"), str(PY_BOT)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    said = json.loads(done.stdout)
    return said["child_us"], said["rss_mb"]


def line(label: str, values: list[float], unit: str = "us") -> float:
    median = statistics.median(values)
    print(f"  {label:<44} min {min(values):8.1f} {unit}  median {median:8.1f} {unit}")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    runs, n = args.runs, args.n
    figures: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        figures.setdefault(key, []).append(value)

    rss = 0.0
    for _ in range(runs):
        wall, cpu = round_trip(["node", "-e", ECHO_NODE], n * 5)
        add("rt node wall", wall)
        add("rt node cpu", cpu)
        wall, cpu = round_trip([PYTHON, "-I", "-c", ECHO_PYTHON], n * 5)
        add("rt python wall", wall)
        add("rt python cpu", cpu)
        wall, cpu = round_trip(["node", "-e", ECHO_NODE], n * 5, one_core=True)
        add("rt node one core wall", wall)
        add("rt node one core cpu", cpu)
        fresh, call = fresh_js(n)
        add("js fresh", fresh)
        add("js call", call)
        add("py bare", fork_python("bare", n // 4)[0])
        child, rss = fork_python("zygote", n // 4)
        add("py zygote", child)
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; {runs} runs; {PYTHON}")
    print("round trip of one JSON line, parent and child together:")
    line("Node child, wall", figures["rt node wall"])
    rt_node = line("Node child, CPU", figures["rt node cpu"])
    line("Python child, wall", figures["rt python wall"])
    rt_python = line("Python child, CPU", figures["rt python cpu"])
    line("Node child, both on one core, wall", figures["rt node one core wall"])
    line("Node child, both on one core, CPU", figures["rt node one core cpu"])
    print("fresh JavaScript bot (host's freshBot, counter.js), CPU:")
    js = line("a fresh bot", figures["js fresh"])
    line("one call of a bot already made", figures["js call"])
    print(f"fresh Python process (fork, exit, wait), CPU; zygote-like state {rss:.0f} MB:")
    line("bare interpreter, child exits at once", figures["py bare"])
    py = line("zygote-like, child loads and makes strong.py", figures["py zygote"])
    print("least CPU a fresh bot per seat adds to a two-seat match:")
    print(f"  JavaScript {2 * js / 1000:.2f} ms = {2 * js / rt_node:.0f} round trips' worth")
    print(f"  Python     {2 * py / 1000:.2f} ms = {2 * py / rt_python:.0f} round trips' worth")


if __name__ == "__main__":
    main()
