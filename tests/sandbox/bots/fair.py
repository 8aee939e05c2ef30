"""Plays properly, and reports what it sees of its surroundings on stderr as one JSON line
(identity, limits, environment, what the kernel lets it do). Keeps a count of its matches
to show that every match gets a fresh Bot."""

import ctypes
import errno
import json
import os
import resource
import socket
import sys
import threading


def outcome(action):
    try:
        action()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    except RuntimeError as exc:  # threading's words for a refused clone
        return f"RuntimeError: {exc}"
    return "ok"


def syscall(number, *args):
    libc = ctypes.CDLL(None, use_errno=True)

    def action():
        if os.uname().machine != "x86_64":
            raise OSError(errno.ENOTSUP, "x86_64 numbers only")
        if libc.syscall(number, *args) == -1:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))

    return action


def page_cache(how):
    fd = os.open(os.__file__, os.O_RDONLY)  # a file every sandbox reads
    try:
        if how == "fadvise":
            os.posix_fadvise(fd, 0, 4096, os.POSIX_FADV_DONTNEED)
        else:
            os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)
    finally:
        os.close(fd)


def thread():
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()


def interfaces():
    """The network's interfaces, from /proc: None where there is no /proc to read (a Python
    match's process has an empty one)."""
    try:
        with open("/proc/net/dev") as fh:
            return [line.split(":")[0].strip() for line in fh][2:]
    except FileNotFoundError:
        return None


def kernel_view():
    """What the kernel says of this process's privileges, asked with calls (a match's process
    has no /proc to read them in): seccomp's mode, no_new_privs, and each set of
    capabilities as /proc/self/status writes it (16 hex digits)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: low words, then high
    if libc.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capget")

    def word(low, high):
        return f"{data[low] | data[high] << 32:016x}"

    bounding = sum(1 << c for c in range(64) if libc.prctl(23, c, 0, 0, 0) == 1)
    ambient = sum(1 << c for c in range(64) if libc.prctl(47, 1, c, 0, 0) == 1)
    return {
        "seccomp": str(libc.prctl(21, 0, 0, 0, 0)),  # PR_GET_SECCOMP: 2, a filter
        "no_new_privs": str(libc.prctl(39, 0, 0, 0, 0)),  # PR_GET_NO_NEW_PRIVS
        "cap_eff": word(0, 3),
        "caps": {
            "CapInh": word(2, 5),
            "CapPrm": word(1, 4),
            "CapBnd": f"{bounding:016x}",
            "CapAmb": f"{ambient:016x}",
        },
    }


def survey():
    limits = {
        name: resource.getrlimit(getattr(resource, name))
        for name in (
            "RLIMIT_AS",
            "RLIMIT_CPU",
            "RLIMIT_NPROC",
            "RLIMIT_FSIZE",
            "RLIMIT_NOFILE",
            "RLIMIT_CORE",
        )
    }
    return {
        "uid": os.getuid(),
        "gid": os.getgid(),
        "groups": os.getgroups(),
        "pid": os.getpid(),
        "hostname": socket.gethostname(),
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "root": sorted(os.listdir("/")),
        "usr": sorted(os.listdir("/usr")),
        "usr_bin": sorted(os.listdir("/usr/bin"))[:10],
        "bot_dir": sorted(os.listdir(os.path.dirname(__file__))),
        "proc": sorted(os.listdir("/proc")),
        "processes": sorted(p for p in os.listdir("/proc") if p.isdigit()),
        "net": interfaces(),
        "limits": limits,
        # every set of capabilities: none, not even in the bounding set (the host's zygote
        # has two, to give each match's process a /tmp and a /proc of its own; they are
        # dropped before it is forked)
        **kernel_view(),
        "calls": {
            "thread": outcome(thread),
            "fork": outcome(os.fork),
            "inet": outcome(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()),
            "inet6": outcome(lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close()),
            "netlink": outcome(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW).close()),
            "unix": outcome(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()),
            # the machine's one counter of pipes' and sockets' inode numbers
            "socketpair": outcome(lambda: [end.close() for end in socket.socketpair()]),
            "pipe": outcome(lambda: [os.close(fd) for fd in os.pipe()]),
            # x86_64 numbers: unshare(CLONE_NEWUSER), ptrace(PTRACE_TRACEME), io_uring_setup,
            # clone3, bpf
            "unshare": outcome(syscall(272, 0x10000000)),
            # what the host's keepers may do (each match's process a /tmp of its own):
            # unshare(CLONE_NEWNS), mount(tmpfs, /tmp, MS_NOSUID | MS_NODEV)
            "unshare_mount": outcome(syscall(272, 0x20000)),
            "mount": outcome(syscall(165, b"tmpfs", b"/tmp", b"tmpfs", 6, None)),
            "ptrace": outcome(syscall(101, 0, 0, 0, 0)),
            "io_uring_setup": outcome(syscall(425, 8, None)),
            "clone3": outcome(syscall(435, None, 0)),
            "bpf": outcome(syscall(321, 0, None, 0)),
            # the shared page cache: evict a page, see whether one is cached
            "fadvise": outcome(lambda: page_cache("fadvise")),
            "nowait_read": outcome(lambda: page_cache("nowait")),
            "mincore": outcome(syscall(27, None, 4096, None)),
            "readahead": outcome(syscall(187, 0, 0, 4096)),
        },
    }


class Bot:
    matches = 0

    def __init__(self):
        Bot.matches += 1
        self.calls = 0
        print(json.dumps({"match": Bot.matches, **survey()}), file=sys.stderr)

    def draft_pick(self, cards):
        self.calls += 1
        return 0

    def draft_receive(self, card):
        self.calls += 1

    def main_play(self, hand, base):
        print(f"calls so far this match: {self.calls}", file=sys.stderr)
        return 0

    def main_postprocess(self, card):
        pass
