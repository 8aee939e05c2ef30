"""Tries, in its first draft pick, every way it has to have SIGKILL sent to itself (a kill
from outside is the platform's trouble, and its match is played again: a bot must not be
able to pass its own for one), and says on stderr which were refused; then plays on."""

import fcntl
import os
import resource
import signal
import sys
import threading

tried = False


def attempts():
    pid = os.getpid()
    yield "kill", lambda: os.kill(pid, signal.SIGKILL)
    yield "kill 0", lambda: os.kill(0, signal.SIGKILL)
    yield "tgkill", lambda: signal.pthread_kill(threading.get_ident(), signal.SIGKILL)
    yield "pidfd", lambda: signal.pidfd_send_signal(os.pidfd_open(pid), signal.SIGKILL)

    def setsig():
        read_end, _ = os.pipe()
        fcntl.fcntl(read_end, 10, signal.SIGKILL)  # F_SETSIG

    yield "F_SETSIG", setsig
    yield "RLIMIT_CPU", lambda: resource.setrlimit(resource.RLIMIT_CPU, (1, 1))


class Bot:
    def draft_pick(self, cards):
        global tried
        if not tried:
            tried = True
            refused = []
            for name, attempt in attempts():
                try:
                    attempt()
                except (PermissionError, ValueError):  # (setrlimit says EPERM so)
                    refused.append(name)
            print("refused: " + ",".join(refused), file=sys.stderr, flush=True)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
