"""Drafts the card with the higher number and plays the first card in hand."""


class Bot:
    name = "simple"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def draft_pick(self, cards):
        return 0 if int(cards[0][1]) >= int(cards[1][1]) else 1

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
