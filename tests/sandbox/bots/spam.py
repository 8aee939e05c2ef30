"""Prints without end."""


class Bot:
    def draft_pick(self, cards):
        line = "spam " * 200
        while True:
            print(line)

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
