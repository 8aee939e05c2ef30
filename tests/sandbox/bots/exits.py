"""Exits in the middle of the match."""

import os


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        os._exit(3)

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
