"""Writes garbage where the protocol expects JSON: on every descriptor it can find."""

import contextlib
import os


class Bot:
    def draft_pick(self, cards):
        for fd in range(1, 20):
            with contextlib.suppress(OSError):
                os.write(fd, b"garbage, not JSON at all\n")
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
