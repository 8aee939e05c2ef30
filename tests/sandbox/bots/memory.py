"""Allocates memory without end (and keeps it)."""


class Bot:
    def __init__(self):
        self.hoard = []

    def draft_pick(self, cards):
        while True:
            self.hoard.append(bytearray(1 << 20))

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
