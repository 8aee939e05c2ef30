"""Gives its CPU away for ever in its first draft pick (``sched_yield`` in a loop): a thread
that is always runnable and never runs long, as a starved one looks, but by its own choice
(tests/sandbox/test_starved.py)."""

import os


class Bot:
    def draft_pick(self, cards):
        while True:
            os.sched_yield()

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
