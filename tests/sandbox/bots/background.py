"""Tries to leave a process running after the match (a daemonised sleep, marked with a
number the test looks for), reports each attempt, then plays properly."""

import os
import subprocess
import sys

MARKER = "__MARKER__"


def attempt(what, action):
    try:
        action()
    except OSError as exc:
        print(f"blocked {what}: {exc.strerror}", file=sys.stderr)
    else:
        print(f"STARTED {what}", file=sys.stderr)


def popen():
    subprocess.Popen(["/bin/sleep", MARKER], start_new_session=True)


def double_fork():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", MARKER])
        os._exit(0)


def spawn():
    os.posix_spawn("/bin/sleep", ["sleep", MARKER], {})


class Bot:
    def draft_pick(self, cards):
        for what, action in (
            ("popen", popen),
            ("double fork", double_fork),
            ("posix_spawn", spawn),
        ):
            attempt(what, action)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
