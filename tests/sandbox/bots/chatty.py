"""Prints a lot, but less than the output cap, in every match: never a fault."""

import sys


class Bot:
    def draft_pick(self, cards):
        sys.stderr.write("x" * (int("__BYTES__") // 5) + "\n")
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
