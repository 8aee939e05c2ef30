"""Tries to outlive its match (``__WHEN__`` "match") or its hello ("hello") to read what comes
next: it replaces the host's way of ending its process with a loop that keeps reading stdin
and reports on stderr whatever it reads ("LINGERED: ..."). The controller sends a match only
once the host says the process before it is gone, so it must read nothing more."""

import os
import sys

import __main__


def linger(status):
    while True:
        data = os.read(0, 65536)
        if not data:
            break
        print("LINGERED:", data.decode(errors="replace"), file=sys.stderr, flush=True)
    os.abort()


def stay():
    __main__.os = type(
        "os",
        (),
        {
            "_exit": staticmethod(linger),
            **{k: getattr(os, k) for k in dir(os) if not k.startswith("__") and k != "_exit"},
        },
    )


if "__WHEN__" == "hello":
    stay()


class Bot:
    name = "lingers"

    def __init__(self):
        if "__WHEN__" == "match":
            stay()

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
