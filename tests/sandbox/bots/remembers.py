"""Tries every way a Python bot has to remember the deals it was shown from one match to the
next: a module-level list, a class attribute, files in /tmp and in its home, a thread left
running, a child process (refused), the host's process (not reachable). At the first call
of each match it says on stderr, as one JSON line, how many matches its process has played,
what it remembers of earlier matches and whether it knows this match's deal (the first
cards it is shown, seen before); then it plays (the first card, always)."""

import contextlib
import json
import os
import sys
import threading

SEEN = []  # the cards of earlier matches, if anything survived
DEALS = []  # the first cards of each earlier match
MATCHES = [0]
LEFT = "/tmp/remembered.json"


def _keep_alive():
    threading.Event().wait()  # a thread that would outlive the match, if the process did


def recall(cards):
    remembered = {"module": len(SEEN), "files": 0, "threads": threading.active_count() - 1}
    remembered["again"] = cards in DEALS
    try:
        with open(LEFT) as fh:
            kept = json.load(fh)
            remembered["files"] = len(kept["seen"])
            remembered["again"] = remembered["again"] or cards in kept["deals"]
    except (OSError, ValueError):
        pass
    try:
        with open("/proc/1/mem", "rb") as mem:
            mem.read(1)
            remembered["host"] = "readable"
    except OSError as exc:
        remembered["host"] = f"refused ({exc.strerror})"
    try:
        os.fork()
        remembered["fork"] = "ok"
    except OSError as exc:
        remembered["fork"] = f"refused ({exc.strerror})"
    return remembered


class Bot:
    name = "remembers"

    def __init__(self):
        MATCHES[0] += 1
        self.first = True

    def _note(self, cards):
        if self.first:
            self.first = False
            print(json.dumps({"matches": MATCHES[0], **recall(cards)}), file=sys.stderr)
            DEALS.append(cards)
            # a match's process may start none (its host's rules): refused, it goes on
            with contextlib.suppress(RuntimeError):
                threading.Thread(target=_keep_alive, daemon=True).start()
        SEEN.extend(cards)
        with open(LEFT, "w") as fh:
            json.dump({"seen": SEEN, "deals": DEALS}, fh)

    def draft_pick(self, cards):
        self._note(cards)
        return 0

    def draft_receive(self, card):
        self._note([card])

    def main_play(self, hand, base):
        self._note([*hand, base])
        return 0

    def main_postprocess(self, card):
        self._note([card])
