"""Never answers: an endless loop in draft_pick."""


class Bot:
    def draft_pick(self, cards):
        while True:
            pass

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
