"""Raises in one method, chosen by the test (__init__ included)."""

WHERE = "__METHOD__"


def maybe_raise(method):
    if method == WHERE:
        raise ValueError(f"hostile bot raising in {method}")


class Bot:
    def __init__(self):
        maybe_raise("__init__")

    def draft_pick(self, cards):
        maybe_raise("draft_pick")
        return 0

    def draft_receive(self, card):
        maybe_raise("draft_receive")

    def main_play(self, hand, base):
        maybe_raise("main_play")
        return 0

    def main_postprocess(self, card):
        maybe_raise("main_postprocess")
