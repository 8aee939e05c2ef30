"""What one bot's JavaScript host costs, fed the arena's own traffic: all at once, and at the
arena's pace (a write, then its replies, then the next write). The difference is what the
host pays for being woken, which the arena's rounds decide; the first is its work.

    .venv/bin/python bench/bench_host_pace.py [--runs K] [--rounds R] [--bot STEM]
        [--before DIR] [--instructions]

The traffic is recorded once per checkout: ``manage.py arena`` plays the original RPS Poker
tournament (the five bots of ``bench/rps_js_bots/``, ``--jobs 1 --no-sandbox``) and every
write to one bot's process (``--bot``, its file's stem: ``highest``) is kept with its
boundaries. Then the
checkout's host (``bots/languages/javascript/host.js``, run directly with the checkout's own
Node flags as ``--no-sandbox`` runs it, not sandboxed, in the environment a bot gets:
``bench_arena_floor.BOT_ENV``) is fed
that traffic K times each way, and the CPU of its process is read from ``getrusage``: min and
median, in all and per seat-match, and a bare start of the host (its hello, then ``quit``).
``--before DIR`` does the same for another checkout (its own host, its own traffic), in the
same runs, interleaved: what changed in a host and in what the arena sends it, side by side
on a machine others share.

``--instructions`` counts instead what the host's process executes, under valgrind's
callgrind (Node single-threaded, so that its compiler's work is on the counted thread too),
fed the traffic at the arena's pace, and for a bare start: repeatable to about 1%, for
changes too small for CPU time on a shared machine to show. A run takes about ten seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from bench_arena_floor import BOT_ENV, BOTS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: runs the arena in a checkout, keeping every write to one bot's process:
#: argv: checkout, bot file's name, output file, arena arguments...
RECORD = r"""
import os, struct, sys
checkout, name, out = sys.argv[1:4]
os.chdir(checkout)
sys.path.insert(0, checkout)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
from bots.running import process
kept = open(out, "wb")
send = process.BotProcess._send
def recorded(self, child, data, method, message):
    if any(str(arg).endswith("/" + name) for arg in self.launch.argv):
        kept.write(struct.pack("<I", len(data)) + data)
    return send(self, child, data, method, message)
process.BotProcess._send = recorded
sys.argv = ["manage.py", *sys.argv[4:]]
import manage
manage.main()
"""


def record(checkout: Path, bot: str, rounds: int, into: Path) -> list[bytes]:
    """The writes to the process of the bot file ``bot`` in one arena run of ``checkout``."""
    python = str(checkout / ".venv" / "bin" / "python")
    args = ["arena", "--game", "rps-poker", *BOTS, "--rounds", str(rounds), "--seed", "1"]
    args += ["--no-progress", "--jobs", "1", "--no-sandbox"]
    env = {**os.environ, "CARD_ARENA_VAR": str(into.parent / "var")}
    done = subprocess.run(
        [python, "-c", RECORD, str(checkout), bot, str(into), *args],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"the arena of {checkout} failed:\n{done.stderr[-2000:]}")
    data, chunks, at = into.read_bytes(), [], 0
    while at < len(data):
        (size,) = struct.unpack_from("<I", data, at)
        chunks.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    if not chunks:
        sys.exit(f"no bot file {bot} in the tournament")
    return chunks


def host_command(checkout: Path, bot_file: Path) -> list[str]:
    """The checkout's command for a JavaScript bot run outside the sandbox (``--no-sandbox``:
    Node with the checkout's own flags, its host, the bot and RPS Poker's globals)."""
    python = str(checkout / ".venv" / "bin" / "python")
    code = (
        "import json, os, sys; sys.path.insert(0, '.');"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'cardsite.settings');"
        "from bots.languages.javascript import LANGUAGE as js;"
        f"print(json.dumps(js.plain_argv(js.host, {str(bot_file)!r}, 'rps-poker', 'node')))"
    )
    found = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, check=True, cwd=checkout
    )
    return json.loads(found.stdout)


def replies_owed(chunk: bytes) -> int:
    """Replies a write asks for: its lines but notices and the begins sent without one."""
    return sum(
        1
        for line in chunk.split(b"\n")
        if line and b'"reply":false' not in line and b'"type":"tell"' not in line
    )


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def drain(fd: int) -> None:
    while os.read(fd, 65536):
        pass


def feed(command: list[str], chunks: list[bytes], mode: str) -> float:
    """CPU seconds of the host fed ``chunks``: ``paced`` (each write's replies read before
    the next write), ``bulk`` (all written while a thread reads), or ``start`` (none)."""
    before = children_cpu()
    host = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=BOT_ENV)
    assert host.stdin is not None and host.stdout is not None
    out, into = host.stdout.fileno(), host.stdin.fileno()
    host.stdout.readline()  # its hello
    if mode == "paced":
        buffered = b""
        for chunk in chunks:
            os.write(into, chunk)
            owed = replies_owed(chunk)
            while owed:
                while b"\n" not in buffered:
                    buffered += os.read(out, 65536)
                lines = buffered.split(b"\n")
                taken = min(len(lines) - 1, owed)
                buffered = b"\n".join(lines[taken:])
                owed -= taken
    elif mode == "bulk":
        reader = threading.Thread(target=drain, args=(out,))
        reader.start()
        for chunk in chunks:
            os.write(into, chunk)
    os.write(into, b'{"type":"quit"}\n')
    host.wait()
    if mode == "bulk":
        reader.join()
    return children_cpu() - before


def instructions(command: list[str], chunks: list[bytes]) -> int:
    """Instructions the host's process (``command``: node and its arguments) executes, fed
    ``chunks`` at the arena's pace (none: its start alone)."""
    with tempfile.NamedTemporaryFile(prefix="host-pace-", suffix=".callgrind") as out:
        counted = [
            "valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out.name}",
            "--smc-check=all-non-file", command[0], "--single-threaded", *command[1:],
        ]  # fmt: skip
        feed(counted, chunks, "paced")
        for line in Path(out.name).read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
    sys.exit("callgrind wrote no summary")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--bot", default="highest", help="the bot whose host is fed (file stem)")
    parser.add_argument("--before", type=Path, help="another checkout, measured alongside")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (callgrind), not CPU"
    )
    args = parser.parse_args()
    checkouts = {"now": ROOT}
    if args.before:
        checkouts = {"before": args.before.resolve(), **checkouts}
    bot_file = HERE / "rps_js_bots" / f"{args.bot}.js"
    if str(bot_file) not in BOTS:
        sys.exit(f"--bot: one of {', '.join(Path(p).stem for p in BOTS)}")
    setups = {}
    with tempfile.TemporaryDirectory(prefix="host-pace-") as tmp:
        for label, checkout in checkouts.items():
            chunks = record(checkout, bot_file.name, args.rounds, Path(tmp) / f"{label}.bin")
            command = host_command(checkout, bot_file)
            lines = sum(chunk.count(b"\n") for chunk in chunks)
            matches = sum(chunk.count(b'"type":"begin"') for chunk in chunks)
            setups[label] = (command, chunks, matches)
            print(f"  {label}: {len(chunks)} writes, {lines} lines, {matches} seat-matches")
    if args.instructions:
        print(f"Instructions of {args.bot}'s host (a seat-match: all less a start's, over them)")
        for label, (command, chunks, matches) in setups.items():
            start, paced = instructions(command, []), instructions(command, chunks)
            each = (paced - start) / matches
            print(f"  {label:7s} start {start / 1e6:7.1f} M  paced {paced / 1e6:7.1f} M", end="")
            print(f"  {each / 1e6:6.3f} M a seat-match")
        return
    cpu: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.runs):
        for label, (command, chunks, _) in setups.items():
            for mode in ("start", "bulk", "paced"):
                cpu.setdefault((label, mode), []).append(feed(command, chunks, mode))
    print(
        f"CPU of {args.bot}'s host, {args.runs} runs, min / median (a seat-match: the median "
        "less a start's, over the seat-matches)"
    )
    for (label, mode), runs in cpu.items():
        matches = setups[label][2]
        start = statistics.median(cpu[(label, "start")])
        each = (statistics.median(runs) - start) / matches * 1e6 if mode != "start" else 0.0
        per = f"  {each:6.0f} us a seat-match" if mode != "start" else ""
        print(f"  {label:7s} {mode:6s} {min(runs):6.3f} / {statistics.median(runs):6.3f} s{per}")


if __name__ == "__main__":
    main()
