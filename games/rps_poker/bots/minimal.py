"""Always takes the first card offered and plays the first card in hand."""


class Bot:
    name = "minimal"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
