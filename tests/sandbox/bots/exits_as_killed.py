"""Exits in the middle of the match with the status a SIGKILL would leave (128 + 9), as a
losing bot would to have its match taken for the platform's trouble and played again
(and, at 256 + 137, with the same low byte)."""

import os


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        os._exit(int("__STATUS__"))

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
