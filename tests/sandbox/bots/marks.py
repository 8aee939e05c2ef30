"""Tries to leave a mark that the next match's process could read: on that process, forked
ahead and waiting, on the host's zygote (pid 1), whose settings every later child inherits,
and on what every child shares with the zygote (the pipes it inherits as stdin, stdout and
stderr, and /tmp itself: the state the kernel keeps for a pipe or an open file description,
not for a process, outlives the process). At the first call of each match it says on stderr,
as one JSON line, what it finds of such marks at its start (its nice value, CPU affinity, a
lowered limit; each inherited descriptor's status flags, owner, signal, pipe size and unread
bytes; /tmp's times, mode, extended attributes and inode flags, and the inode number of a
new file there, which would count the files made before; the CPU time and page faults the
zygote counts of its children), how each attempt on another process or on that shared state
ended ("tried": refused), and what it changed that the host puts back ("left"); then
it plays (the first card). After the host's reply to ``renew``, its last act before its
process ends, it leaves unread bytes in stderr and writes into stdin where it can."""

import errno
import fcntl
import json
import os
import resource
import signal
import struct
import sys

import __main__

F_SETOWN_EX, F_GETOWN_EX = 15, 16
F_SETSIG, F_GETSIG = 10, 11
F_OFD_SETLK = 37
F_SETLEASE, F_NOTIFY = 1024, 1026
F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
FIONREAD, FIONBIO, FIOASYNC = 0x541B, 0x5421, 0x5452
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS = 0x80086601, 0x40086602
FS_NODUMP_FL = 0x40
#: how many files it makes (and deletes) in /tmp: a tmpfs numbers its inodes from one counter,
#: so the next process's first new file would count them (a number of cards)
FILES = 1000
#: how many pages it touches (the zygote would count its page faults as its children's)
PAGES = 2000


def attempt(call):
    try:
        call()
        return "ok"
    except OSError as exc:
        return errno_name(exc)
    except Exception as exc:  # noqa: BLE001 - any other refusal is named as it is
        return type(exc).__name__


def errno_name(exc):
    return errno.errorcode.get(exc.errno, str(exc.errno))


def others():
    """The other processes of its PID namespace. Its /proc is empty (it cannot list them), so
    by the host's layout: the zygote (1), its own keeper (the number before its own), and the
    next match's process and keeper, forked ahead (the numbers after)."""
    own = os.getpid()
    listed = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != own]
    return sorted(listed or [p for p in (1, own - 1, own + 1, own + 2) if p > 0])


def read_or_none(call):
    try:
        return call()
    except OSError:
        return None


def descriptor(fd):
    """What a process can read of an inherited descriptor's shared state."""
    return {
        "flags": fcntl.fcntl(fd, fcntl.F_GETFL),
        "owner": fcntl.fcntl(fd, F_GETOWN_EX, bytes(8)).hex(),
        "signal": fcntl.fcntl(fd, F_GETSIG),
        "pipe_size": read_or_none(lambda: fcntl.fcntl(fd, F_GETPIPE_SZ)),
        # what waits in the pipe: written by the process before (stdin's: the arena's own)
        "unread": None if fd == 0 else ioctl_int(fd, FIONREAD),
    }


def ioctl_int(fd, request, value=0):
    return struct.unpack("i", fcntl.ioctl(fd, request, struct.pack("i", value)))[0]


def tmp_state():
    info = os.stat("/tmp")
    fd = os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY)
    try:
        flags = read_or_none(lambda: fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8)).hex())
    finally:
        os.close(fd)
    return {
        "times": [info.st_atime_ns, info.st_mtime_ns],
        "mode": oct(info.st_mode),
        "xattrs": sorted(os.listxattr("/tmp")),
        "flags": flags,
        "inode": new_inode("/tmp"),
        # the working folder (where a relative path leads): the same /tmp
        "cwd_inode": new_inode("."),
    }


def new_inode(folder):
    """The inode number a new file in ``folder`` gets (a tmpfs counts every file made in
    it)."""
    path = os.path.join(folder, "inode")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)
        os.unlink(path)


def make_files(count):
    for n in range(count):
        for path in (f"/tmp/f{n}", f"f{n}"):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
            os.unlink(path)


def zygote_counts():
    """What /proc/1/stat says of the zygote's children: page faults, CPU ticks (None: there
    is no /proc/1 to read)."""
    try:
        with open("/proc/1/stat") as fh:
            fields = fh.read().rpartition(")")[2].split()
    except FileNotFoundError:
        return None
    # from the state (field 3): cminflt 11, cmajflt 13, cutime 16, cstime 17
    return {name: int(fields[n - 3]) for name, n in
            (("cminflt", 11), ("cmajflt", 13), ("cutime", 16), ("cstime", 17))}  # fmt: skip


def marks_on_me():
    return {
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "cpus": sorted(os.sched_getaffinity(0)),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        "fds": {fd: descriptor(fd) for fd in (0, 1, 2, 3)},
        "tmp": tmp_state(),
        "zygote": zygote_counts(),
    }


def leave_marks():
    """Attempts that must be refused (on other processes, and on the shared state)."""
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
        # its files and its /tmp, through /proc (the next process's /tmp is its keeper's)
        tried[f"{who}:root"] = attempt(lambda p=pid: os.listdir(f"/proc/{p}/root/tmp"))
        tried[f"{who}:cwd"] = attempt(lambda p=pid: os.listdir(f"/proc/{p}/cwd"))
        # a descriptor of its /proc folder serves as a pidfd
        tried[f"{who}:pidfd_send_signal"] = attempt(
            lambda p=pid: signal.pidfd_send_signal(
                os.open(f"/proc/{p}", os.O_RDONLY | os.O_DIRECTORY), 0
            )
        )
    tried["group:kill STOP"] = attempt(lambda: os.killpg(os.getpgid(0), signal.SIGSTOP))
    tried["user:setpriority"] = attempt(lambda: os.setpriority(os.PRIO_USER, 0, 19))
    # the shared descriptors' open file descriptions and pipes
    tried["shared:pipe size"] = attempt(lambda: fcntl.fcntl(2, F_SETPIPE_SZ, 1 << 20))
    tried["shared:status flags"] = attempt(lambda: fcntl.fcntl(2, fcntl.F_SETFL, os.O_APPEND))
    tried["shared:FIONBIO"] = attempt(lambda: fcntl.ioctl(3, FIONBIO, struct.pack("i", 1)))
    tried["shared:FIOASYNC"] = attempt(lambda: fcntl.ioctl(0, FIOASYNC, struct.pack("i", 1)))
    tried["shared:owner"] = attempt(lambda: fcntl.fcntl(0, fcntl.F_SETOWN, os.getpid()))
    tried["shared:owner_ex"] = attempt(
        lambda: fcntl.fcntl(0, F_SETOWN_EX, struct.pack("ii", 1, os.getpid()))
    )
    tried["shared:signal"] = attempt(lambda: fcntl.fcntl(0, F_SETSIG, signal.SIGUSR1))
    tried["shared:flock"] = attempt(lambda: fcntl.flock(0, fcntl.LOCK_SH | fcntl.LOCK_NB))
    lock = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0).ljust(32, b"\0")
    tried["shared:OFD lock"] = attempt(lambda: fcntl.fcntl(0, F_OFD_SETLK, lock))
    # /tmp itself (what is in it is wiped)
    folder = os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY)
    tried["tmp:notify"] = attempt(lambda: fcntl.fcntl(folder, F_NOTIFY, 0x2))
    tried["tmp:inode flags"] = attempt(
        lambda: fcntl.ioctl(folder, FS_IOC_SETFLAGS, struct.pack("l", FS_NODUMP_FL))
    )
    os.close(folder)
    tried["tmp:xattr"] = attempt(lambda: os.setxattr("/tmp", "user.mark", b"R5"))
    with open("/tmp/leased", "w") as fh:
        tried["tmp:lease"] = attempt(lambda: fcntl.fcntl(fh.fileno(), F_SETLEASE, fcntl.F_RDLCK))
    os.unlink("/tmp/leased")
    # what a bot may still do to itself
    tried["self:kill 0"] = attempt(lambda: os.kill(os.getpid(), 0))
    tried["self:setpriority"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, 1))
    return tried


def leave_marks_allowed():
    """Changes a bot may make, which the host puts back before the next process starts."""
    left = {}
    # the status flags of a shared description, through a copy of its descriptor
    left["copy:FIONBIO"] = attempt(lambda: fcntl.ioctl(os.dup(3), FIONBIO, struct.pack("i", 1)))
    left["copy:FIOASYNC"] = attempt(lambda: fcntl.ioctl(os.dup(2), FIOASYNC, struct.pack("i", 1)))
    left["tmp:times"] = attempt(lambda: os.utime("/tmp", ns=(123456789, 987654321)))
    left["tmp:mode"] = attempt(lambda: os.chmod("/tmp", 0o751))
    left["tmp:files"] = attempt(lambda: make_files(FILES))
    # page faults, which the zygote would count as its children's
    left["pages"] = attempt(lambda: touch(PAGES))
    return left


def touch(pages):
    memory = bytearray(pages * 4096)
    memory[::4096] = b"\1" * pages


def after_renewal():
    """Replace the host's way of replying, so as to act once it has replied to ``renew``
    (its process then ends): bytes left in stderr, unread by the arena, and a line written
    into stdin (where the pipe may be opened for writing: a sandbox run as the worker's own
    user), which the next process would read first."""
    send, ended = __main__.send, [False]

    def replaced(out, message):
        send(out, message)
        if message.get("type") == "ok" and "cpu" in message:
            ended[0] = True  # the reply to "end"
        elif message.get("type") == "ok" and ended[0]:  # to "renew"
            ended[0] = False
            os.write(2, b"x" * 32767 + b"\n")
            try:
                fd = os.open("/proc/self/fd/0", os.O_WRONLY)
            except OSError:
                return
            os.write(fd, b'{"type":"tell","method":"draft_receive","args":["R5"]}\n')

    __main__.send = replaced


after_renewal()


class Bot:
    name = "marks"

    def __init__(self):
        self.first = True

    def _note(self):
        if self.first:
            self.first = False
            found = marks_on_me()
            said = {"found": found, "tried": leave_marks(), "left": leave_marks_allowed()}
            print(json.dumps(said), file=sys.stderr, flush=True)

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
