"""Sleeps far past the deadline in main_play."""

import time


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        time.sleep(60)
        return 0

    def main_postprocess(self, card):
        pass
