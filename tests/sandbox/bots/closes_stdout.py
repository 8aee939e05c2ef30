"""Closes every descriptor that could carry its answers, then waits without exiting."""

import contextlib
import os
import time


class Bot:
    def draft_pick(self, cards):
        for fd in range(1, 20):
            if fd != 2:
                with contextlib.suppress(OSError):
                    os.close(fd)
        time.sleep(60)

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
