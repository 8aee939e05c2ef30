"""Tries to write files outside /tmp (the host path filled in by the test) and a file larger
than the limits inside /tmp; reports each attempt on stderr, then plays properly."""

import sys

HOST_PATH = "__HOST_PATH__"


def report(what, action):
    try:
        action()
    except OSError as exc:
        print(f"cannot write {what}: {exc.strerror}", file=sys.stderr)
    else:
        print(f"WROTE {what}", file=sys.stderr)


def write(path):
    def action():
        with open(path, "w") as fh:
            fh.write("written by a hostile bot\n")

    return action


def big_file():
    with open("/tmp/big", "wb") as fh:
        for _ in range(64):
            fh.write(b"x" * (1 << 20))


class Bot:
    def __init__(self):
        targets = [
            HOST_PATH,
            "/escape.txt",
            "/bot/escape.txt",
            "/usr/escape.txt",
            "/sandbox/escape.txt",
            "/dev/shm/escape.txt",
            "/proc/escape.txt",
            "/tmp/../escape2.txt",
        ]
        for path in targets:
            report(path, write(path))
        report("/tmp/ok.txt", write("/tmp/ok.txt"))
        report("64 MiB into /tmp", big_file)

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
