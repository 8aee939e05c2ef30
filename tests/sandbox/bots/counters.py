"""A simplified copy of an audit's bot that passed a deal's cards from one seating to the
next, another process in another sandbox, through a count the whole machine keeps: the
huge pages faulted in since it started (``thp_fault_alloc`` in /proc/vmstat), which
nothing else on a worker moves and which a bot moves one by one (a huge page of its own).

``__MODE__`` "mark" (the first seating): moves the count until it is ``__KEY__`` modulo
:data:`MODULUS`. "read" (the second): reads it. Both report on stderr as one JSON line what
each of the machine's counter files (``__PATHS__``) let them read, the count they saw (or
None) and how many CPUs the process counts; then play properly."""

import ctypes
import json
import os
import sys

MODE = "__MODE__"
KEY = int("__KEY__")
SEPARATOR = ","
PATHS = "__PATHS__".split(SEPARATOR)
MODULUS = 97
HUGE = 2 << 20


def count():
    try:
        with open("/proc/vmstat") as fh:
            for line in fh:
                if line.startswith("thp_fault_alloc "):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def fault_a_huge_page():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    )
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    at = libc.mmap(None, 2 * HUGE, 3, 0x22, -1, 0)  # read/write, private, anonymous
    start = (at + HUGE - 1) & ~(HUGE - 1)
    libc.madvise(start, HUGE, 14)  # MADV_HUGEPAGE
    ctypes.memset(start, 1, 1)
    libc.munmap(at, 2 * HUGE)


def readable(path):
    try:
        with open(path, "rb") as fh:
            return len(fh.read())
    except OSError as exc:
        return exc.errno


seen = count()
if MODE == "mark" and seen is not None:
    for _ in range((KEY - seen) % MODULUS):
        fault_a_huge_page()
    seen = count()
print(
    json.dumps(
        {
            "mode": MODE,
            "count": None if seen is None else seen % MODULUS,
            "files": {path: readable(path) for path in PATHS},
            "cpus": os.cpu_count(),
        }
    ),
    file=sys.stderr,
    flush=True,
)


class Bot:
    name = "counters"

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
