"""Tries, in its first draft pick, every way it has to have SIGKILL sent to itself (a kill
from outside is the platform's trouble, and its match is played again: a bot must not be
able to pass its own for one), and SIGTERM, SIGINT and SIGHUP (the same), and says on
stderr which were refused; then plays on. The
"(high bits)" ways make the system call itself with the upper half of an ``int`` argument
set, which the kernel drops (0x100000009 is SIGKILL to it)."""

import ctypes
import errno
import fcntl
import os
import resource
import signal
import sys
import threading

tried = False
HIGH = 1 << 32
#: system call numbers: kill, fcntl, prctl, setrlimit
CALLS = {
    "x86_64": {"kill": 62, "fcntl": 72, "prctl": 157, "setrlimit": 160},
    "aarch64": {"kill": 129, "fcntl": 25, "prctl": 167, "setrlimit": 164},
}.get(os.uname().machine, {})
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def raw(name, *args):
    """The system call, its arguments passed as 64-bit values."""
    if libc.syscall(ctypes.c_long(CALLS[name]), *(ctypes.c_long(a) for a in args)) == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def high_bits():
    pid = os.getpid()
    yield "kill (high bits)", lambda: raw("kill", pid, HIGH | signal.SIGKILL)

    def setsig():
        read_end, _ = os.pipe()
        raw("fcntl", read_end, 10, HIGH | signal.SIGKILL)  # F_SETSIG

    yield "F_SETSIG (high bits)", setsig

    def pdeathsig():
        raw("prctl", HIGH | 1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        raw("prctl", 1, 0)

    yield "PR_SET_PDEATHSIG (high bits)", pdeathsig
    limit = (ctypes.c_ulong * 2)(1, 1)
    yield "RLIMIT_CPU (high bits)", lambda: raw("setrlimit", HIGH | 0, ctypes.addressof(limit))


def attempts():
    pid = os.getpid()
    yield "kill", lambda: os.kill(pid, signal.SIGKILL)
    yield "kill 0", lambda: os.kill(0, signal.SIGKILL)
    yield "tgkill", lambda: signal.pthread_kill(threading.get_ident(), signal.SIGKILL)
    yield "pidfd", lambda: signal.pidfd_send_signal(os.pidfd_open(pid), signal.SIGKILL)
    # the signals an operator stops a process with: a death by one is someone else's too
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        yield f"kill {sig.name}", lambda sig=sig: os.kill(pid, sig)
        yield f"tgkill {sig.name}", lambda sig=sig: signal.pthread_kill(threading.get_ident(), sig)
    # a session or a group of its own, whose terminal (a pty) would signal it later
    yield "setsid", os.setsid
    yield "setpgid", lambda: os.setpgid(0, 0)

    def setsig():
        read_end, _ = os.pipe()
        fcntl.fcntl(read_end, 10, signal.SIGKILL)  # F_SETSIG

    yield "F_SETSIG", setsig
    yield "RLIMIT_CPU", lambda: resource.setrlimit(resource.RLIMIT_CPU, (1, 1))
    if CALLS:
        yield from high_bits()


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
                except OSError as exc:  # (a raw call's EINVAL: not refused, not done)
                    print(f"{name}: {errno.errorcode.get(exc.errno)}", file=sys.stderr)
            print("refused: " + ",".join(refused), file=sys.stderr, flush=True)
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
