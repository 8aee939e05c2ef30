"""Writes a reply of 5000 nested lists straight onto the protocol channel."""

import contextlib
import os


class Bot:
    def draft_pick(self, cards):
        line = b'{"type": "return", "id": 1, "value": ' + b"[" * 5000 + b"]" * 5000 + b"}\n"
        for fd in range(3, 20):
            with contextlib.suppress(OSError):
                os.write(fd, line)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
