"""Burns __BURN__ s of CPU time (its own process's, as the kernel counts it) in its first
draft pick, then answers at once: a call that needs that much CPU, and the machine's time to
give it (tests/sandbox/test_starved.py)."""

import time

burned = False


class Bot:
    def draft_pick(self, cards):
        global burned
        if not burned:
            burned = True
            until = time.process_time() + float("__BURN__")
            while time.process_time() < until:
                pass
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
