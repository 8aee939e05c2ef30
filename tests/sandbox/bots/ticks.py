"""Sets a timer at its first call whose signal handler burns CPU (5 ms of hashing every
10 ms), so that its process would work between matches, while it waits for the next one:
the controller stops the sandbox's processes there (SIGSTOP), so nothing of it runs. With
``__FAILS__`` "yes" its match's last notice raises, so that its match ends with a fault."""

import hashlib
import signal
import time

BLOCK = b"x" * 4096


def burn(signum, frame):
    until = time.perf_counter() + 0.005
    while time.perf_counter() < until:
        hashlib.sha256(BLOCK).digest()


class Bot:
    name = "ticks"

    def __init__(self):
        self.told = 0
        signal.signal(signal.SIGALRM, burn)
        signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        self.told += 1
        if "__FAILS__" == "yes" and self.told == 10:
            raise ValueError("the last notice fails")
