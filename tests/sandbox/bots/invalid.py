"""Answers with an index that is not in the hand."""


class Bot:
    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 7

    def main_postprocess(self, card):
        pass
