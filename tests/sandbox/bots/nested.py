"""Answers main_play with a list nested 5000 deep (it raised its own recursion limit so that
the host can still write it out as JSON)."""

import sys

sys.setrecursionlimit(100_000)


def nested(depth):
    value = 0
    for _ in range(depth):
        value = [value]
    return value


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return nested(5000)

    def main_postprocess(self, card):
        pass
