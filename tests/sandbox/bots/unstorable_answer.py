"""Answers draft_pick, straight onto the protocol channel, with a string holding NUL and a
lone surrogate (both as JSON escapes): the refusal quotes it, and it must still be storable."""

import contextlib
import os


class Bot:
    def draft_pick(self, cards):
        # id 2: the call after the hello
        line = b'{"type": "return", "id": 2, "value": "pick \\u0000 this \\ud800 card"}\n'
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
