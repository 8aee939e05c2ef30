"""Answers on time (though not at once) but keeps a thread burning CPU in the background."""

import threading
import time


def burn():
    while True:
        pass


class Bot:
    def draft_pick(self, cards):
        if not any(t.name == "burner" for t in threading.enumerate()):
            threading.Thread(target=burn, name="burner", daemon=True).start()
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        started = time.monotonic()
        while time.monotonic() - started < 0.2:
            pass  # think hard, within the time allowed
        return 0

    def main_postprocess(self, card):
        pass
