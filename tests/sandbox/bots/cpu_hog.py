"""Burns CPU in threads that release the GIL (hashing), __THREADS__ of them, from its first
call to the end of its match, and reports a CPU time of 0 s of itself (it replaces
os.times): its sandbox must keep it to one core and count its CPU time from outside. Its
first three calls each take __HOLD__ s, so that the match lasts a while."""

import hashlib
import os
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
            for _ in range(int("__THREADS__")):
                threading.Thread(target=burn, daemon=True).start()
        if self.calls <= 3:
            time.sleep(float("__HOLD__"))

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
