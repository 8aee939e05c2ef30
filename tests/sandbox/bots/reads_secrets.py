"""Tries to read files outside its folder (paths filled in by the test), reports each
attempt on stderr (the content too, if it ever got any), then plays properly."""

import json
import os
import sys

PATHS = json.loads("""__PATHS__""")


class Bot:
    def __init__(self):
        here = os.path.dirname(os.path.abspath(__file__))
        for path in [*PATHS, os.path.join(here, "..", "secret.txt")]:
            try:
                with open(path, "rb") as fh:
                    print(f"READ {path}: {fh.read()!r}", file=sys.stderr)
            except OSError as exc:
                print(f"cannot read {path}: {exc.strerror}", file=sys.stderr)

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
