"""Thinks 0.15 s over every main_play: fine with a time bank, not without."""

import time


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        time.sleep(0.15)
        return 0

    def main_postprocess(self, card):
        pass
