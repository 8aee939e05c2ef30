"""Writes a truncated JSON reply on the protocol channel (the host's dup of stdout)."""

import contextlib
import os


class Bot:
    def draft_pick(self, cards):
        for fd in range(3, 20):
            with contextlib.suppress(OSError):
                os.write(fd, b'{"type": "return", "value": \n')
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
