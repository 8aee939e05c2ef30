"""Answers each draft pick after burning __BURN__ s of CPU time (its own process's, as the
kernel counts it): a few picks use up a small CPU-time limit within one match."""

import time


def burn(seconds):
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


class Bot:
    def draft_pick(self, cards):
        burn(float("__BURN__"))
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
