"""Answers draft_pick, straight onto the protocol channel, with a JSON line whose string
holds bytes that are not UTF-8."""

import contextlib
import os


class Bot:
    def draft_pick(self, cards):
        line = b'{"type": "return", "id": 1, "value": "\xff\xfe\xed\xa0\x80"}\n'
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
