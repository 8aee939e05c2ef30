"""Tries to leave a mark that the next match's process could read: on that process, forked
ahead and waiting, and on the host's zygote (pid 1), whose settings every later child
inherits. At the first call of each match it says on stderr, as one JSON line, what it finds
of such marks on itself (its nice value, CPU affinity, a lowered limit, a pending signal's
effect) and how each attempt on another process ended; then it plays (the first card)."""

import json
import os
import resource
import signal
import sys


def attempt(call):
    try:
        call()
        return "ok"
    except OSError as exc:
        return errno_name(exc)
    except Exception as exc:  # noqa: BLE001 - any other refusal is named as it is
        return type(exc).__name__


def errno_name(exc):
    import errno

    return errno.errorcode.get(exc.errno, str(exc.errno))


def others():
    own = os.getpid()
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != own)


def marks_on_me():
    return {
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "cpus": sorted(os.sched_getaffinity(0)),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
    }


def leave_marks():
    tried = {}
    for pid in others():
        who = "zygote" if pid == 1 else "next"
        tried[f"{who}:kill STOP"] = attempt(lambda p=pid: os.kill(p, signal.SIGSTOP))
        tried[f"{who}:kill 0"] = attempt(lambda p=pid: os.kill(p, 0))
        tried[f"{who}:setpriority"] = attempt(lambda p=pid: os.setpriority(os.PRIO_PROCESS, p, 19))
        tried[f"{who}:affinity"] = attempt(lambda p=pid: os.sched_setaffinity(p, {0}))
        tried[f"{who}:prlimit"] = attempt(
            lambda p=pid: resource.prlimit(p, resource.RLIMIT_NOFILE, (20, 20))
        )
    tried["group:kill STOP"] = attempt(lambda: os.killpg(os.getpgid(0), signal.SIGSTOP))
    tried["user:setpriority"] = attempt(lambda: os.setpriority(os.PRIO_USER, 0, 19))
    # what a bot may still do to itself
    tried["self:kill 0"] = attempt(lambda: os.kill(os.getpid(), 0))
    tried["self:setpriority"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, 1))
    return tried


class Bot:
    name = "marks"

    def __init__(self):
        self.first = True

    def _note(self):
        if self.first:
            self.first = False
            found = marks_on_me()
            print(json.dumps({"found": found, "tried": leave_marks()}), file=sys.stderr)

    def draft_pick(self, cards):
        self._note()
        return 0

    def draft_receive(self, card):
        self._note()

    def main_play(self, hand, base):
        self._note()
        return 0

    def main_postprocess(self, card):
        self._note()
