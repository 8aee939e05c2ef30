"""A simplified copy of an audit's bot that passed a deal's cards from its first seating to
its second, a fresh process in another sandbox, through the machine's page cache.

``__MODE__`` "touch" (the first seating): reads one 4 KiB page of each of the cards of its
key (``__KEY__``, which the real bot made of the deal's cards), chosen by a hash among the
pages of every large file it can read. "probe" (the second seating): times a read of each
of those pages and of the pages of ten other keys; it would learn the key if its pages read
fast (cached) while the others read slow (from the disk). Reports its times on stderr as one
JSON line, then plays properly."""

import hashlib
import json
import os
import stat
import sys
import time

PAGE = 4096
MODE = "__MODE__"
KEY = "__KEY__"
CARDS = [s + str(n) for s in "RPS" for n in range(10)]


def large_files():
    found = []
    for top in ("/usr", "/etc"):
        for folder, _, names in os.walk(top):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and info.st_size >= 16 * PAGE:
                    found.append((path, info.st_size // PAGE - 1))
    return sorted(found)


FILES = large_files()
TOTAL = sum(pages for _, pages in FILES)


def page(key, card):
    n = int.from_bytes(hashlib.sha256(f"{key}|{card}".encode()).digest()[:8], "big") % TOTAL
    for path, pages in FILES:
        if n < pages:
            return path, n * PAGE
        n -= pages
    raise AssertionError


def read(key, card):
    """Nanoseconds one byte of the card's page takes to read."""
    path, offset = page(key, card)
    fd = os.open(path, os.O_RDONLY)
    try:
        started = time.perf_counter_ns()
        os.pread(fd, 1, offset)
        return time.perf_counter_ns() - started
    finally:
        os.close(fd)


if MODE == "touch":
    for card in CARDS:
        read(KEY, card)
    print(json.dumps({"files": len(FILES), "pages": TOTAL}), file=sys.stderr, flush=True)
else:
    marked = [read(KEY, card) for card in CARDS]
    others = [read(f"{KEY}-other-{n}", card) for n in range(10) for card in CARDS]
    print(
        json.dumps({"files": len(FILES), "pages": TOTAL, "marked": marked, "others": others}),
        file=sys.stderr,
        flush=True,
    )


class Bot:
    name = "pages"

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
