"""Dies of SIGSEGV in its first draft pick (as a bad pointer in a C extension would)."""

import os
import signal


class Bot:
    def draft_pick(self, cards):
        os.kill(os.getpid(), signal.SIGSEGV)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
