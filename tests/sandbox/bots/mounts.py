"""Reports on stderr, as one JSON line, every mount of its sandbox (where and of which file
system type, from /proc/self/mountinfo: null where it has no /proc) and which of the
machine's large folders outside its runtime it can see, then plays properly."""

import json
import os
import sys

mounts = []
try:
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            fields = line.split()
            mounts.append([fields[4], fields[fields.index("-") + 1]])
except FileNotFoundError:  # a match's process has an empty /proc: nothing to say
    mounts = None
outside = {}
FAR = ["/usr/lib/google-cloud-sdk", "/usr/lib/gcc", "/usr/lib/gcc/x86_64-linux-gnu/12/lto1",
       "/usr/lib/x86_64-linux-gnu/dri", "/usr/share", "/usr/lib/python3/dist-packages"]  # fmt: skip
for path in FAR:
    outside[path] = os.path.exists(path)
print(json.dumps({"mounts": mounts, "outside": outside}), file=sys.stderr, flush=True)


class Bot:
    name = "mounts"

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
