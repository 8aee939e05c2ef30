"""Answers with a value far too large for one protocol line."""


class Bot:
    def draft_pick(self, cards):
        return "x" * 200_000

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
