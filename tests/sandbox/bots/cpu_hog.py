"""Tries to burn CPU in threads that release the GIL (hashing), __THREADS__ of them, from its
first call to the end of its match, and reports a CPU time of 0 s of itself (it replaces
os.times). A match's process may start no thread (its host's rules), so it says on stderr
that it was refused ("THREADS REFUSED: ...") and burns in its own calls instead. Its first
three calls each take __HOLD__ s, so that the match lasts a while."""

import hashlib
import os
import sys
import threading
import time

BLOCK = b"x" * (1 << 20)


def burn():
    while True:
        hashlib.sha256(BLOCK).digest()


os.times = lambda: os.times_result((0.0, 0.0, 0.0, 0.0, 0.0))


class Bot:
    name = "cpu-hog"

    def __init__(self):
        self.calls = 0

    def _hold(self):
        self.calls += 1
        if self.calls == 1:
            try:
                for _ in range(int("__THREADS__")):
                    threading.Thread(target=burn, daemon=True).start()
            except RuntimeError as exc:
                print("THREADS REFUSED:", exc, file=sys.stderr, flush=True)
        if self.calls <= 3:
            until = time.monotonic() + float("__HOLD__")
            while time.monotonic() < until:
                hashlib.sha256(BLOCK).digest()

    def draft_pick(self, cards):
        self._hold()
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        self._hold()
        return 0

    def main_postprocess(self, card):
        pass
