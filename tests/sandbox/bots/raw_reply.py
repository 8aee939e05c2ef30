"""Writes its reply to draft_pick straight onto the protocol channel, as the bytes the test
chooses (``__LINE__``, a bytes literal): the host must read whatever comes there."""

import contextlib
import os

LINE = __LINE__  # noqa: F821 (filled in by the test)


class Bot:
    def draft_pick(self, cards):
        for fd in range(3, 20):
            with contextlib.suppress(OSError):
                os.write(fd, LINE)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
