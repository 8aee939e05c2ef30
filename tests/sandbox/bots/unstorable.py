"""Writes NUL and bytes that are not UTF-8 to stderr, then raises with NUL and a lone
surrogate in its message: none of it may reach a database as it is."""

import sys


class Bot:
    def draft_pick(self, cards):
        sys.stderr.buffer.write(b"before\x00\xff\xfe\xed\xa0\x80after\n")
        sys.stderr.flush()
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        raise ValueError("bad \x00 value \ud800 here")

    def main_postprocess(self, card):
        pass
