"""The sandbox's seccomp filter, built with libseccomp (Debian's ``libseccomp2``) via ctypes.

The filter is a deny list on top of bubblewrap's namespaces: everything is allowed except
what a card-game bot never needs and what would widen its reach:

- creating processes (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``; ``clone3``
  answers ENOSYS so the C library falls back to ``clone``): threads work, children don't,
  so a bot cannot fork-bomb nor leave a process behind. The Python host's zygote, which
  never runs the bot's code, may fork: each of its children loads stricter rules
  (:func:`process_filter_bpf`) on top of the rest before the bot's code runs: no process,
  no thread, no act on another process, no change to what it shares with the zygote and the
  next match's process (its descriptors' status flags, owner and signal, the pipes' sizes,
  locks, /tmp's extended attributes and inode flags), no namespace, no mount. That host's
  keepers may make a mount namespace and mount a tmpfs on /tmp, with fixed arguments
  (:data:`KEEPER_CALLS`): each child's /tmp of its own;
- sockets of any family but ``AF_UNIX`` (the network namespace is empty anyway);
- where the bot's code runs (a Python match's process, a C++ program; a Java bot's JVM once
  its host has loaded :func:`inode_filter_bpf`), pipes and sockets, and where it may start
  threads (C++, Java) pidfds: their inodes are numbered from counters of the machine's
  (:data:`INODE_CALLS`, :data:`PIDFD_CALLS`);
- memory the address-space limit does not see: System V shared memory, message queues and
  semaphores, POSIX message queues, ``memfd_create`` (see docs/sandbox.md, "Memory");
- namespaces (``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag), mounts;
- looking into or tampering with other processes (``ptrace``, ``process_vm_*``, ``kcmp``,
  ``pidfd_getfd``, ``perf_event_open``);
- wide kernel attack surface (``bpf``, ``userfaultfd``, ``io_uring_*``, keyrings) and
  administration calls that need capabilities the sandbox has dropped anyway.

An argument the kernel reads as 32 bits (a signal, a command, a descriptor) is compared on
its low 32 bits only: the caller may fill the register's upper half, which the kernel drops.
Calls made for another architecture (i386 through ``int 0x80``, x32) kill the process.
:func:`filter_bpf` gives the compiled program that bubblewrap loads with ``--seccomp FD``;
:func:`filter_text` gives libseccomp's readable rendering of it (see docs/sandbox.md).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os

# libseccomp's constants (seccomp.h); stable ABI since 2.x.
_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ATTR_ACT_BADARCH = 2
_CMP_NE = 1
_CMP_MASKED_EQ = 7
#: an argument the kernel takes as an ``int`` (a signal, a command, a descriptor, a resource)
#: is compared on these bits: the kernel drops the register's upper half, so a value with
#: it set (``kill(pid, 0x100000009)``, SIGKILL to the kernel) must not pass for another
LOW32 = 0xFFFFFFFF

AF_UNIX = 1
PRIO_PROCESS = 0
IOPRIO_WHO_PROCESS = 1
CLONE_THREAD = 0x00010000
CLONE_NEWNS = 0x00020000
CLONE_NEW_FLAGS = {
    "CLONE_NEWNS": CLONE_NEWNS,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}

#: namespaces and mounts, refused with EPERM whatever their arguments (but see KEEPER_CALLS)
NAMESPACE_CALLS = (
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig",
    "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
)  # fmt: skip
MS_NOSUID, MS_NODEV = 0x2, 0x4
#: What a forking host's keepers may do of NAMESPACE_CALLS (the Python host's, which never
#: run the bot's code: bots/languages/python/host.py, Child): each makes a mount namespace
#: of its own (``unshare`` with exactly this flag) and mounts a new tmpfs on /tmp there
#: (``mount`` with exactly these flags), so that every process it forks for the bot has a
#: /tmp of its own, whose inode numbers count nothing an earlier process made. The filter
#: bwrap loads for such a host (``filter_bpf(processes=False)``) refuses these calls with any
#: other arguments and the rest of NAMESPACE_CALLS; the rules each child loads before the
#: bot's code runs (:func:`process_filter_bpf`) refuse all of them (and the child has no
#: capability left: the keeper drops them all before it forks it).
KEEPER_CALLS = {"unshare": (0, CLONE_NEWNS), "mount": (3, MS_NOSUID | MS_NODEV)}
#: calls refused with EPERM, whatever their arguments (and NAMESPACE_CALLS)
DENIED = (
    # other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "perf_event_open",
    # memory that RLIMIT_AS does not see: System V shared memory, message queues and
    # semaphores, POSIX message queues, memory-backed files (neither runtime uses them)
    "shmget", "shmat", "shmctl", "msgget", "msgsnd", "semget", "mq_open", "mq_timedsend",
    "memfd_create", "memfd_secret",
    # kernel attack surface
    "bpf", "userfaultfd", "io_uring_enter", "io_uring_register", "keyctl", "add_key",
    "request_key",
    # administration (needs dropped capabilities anyway)
    "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "swapon", "swapoff", "acct", "quotactl", "syslog", "settimeofday",
    "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "iopl",
    "ioperm", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "vhangup", "uselib",
    "nfsservctl",
)  # fmt: skip
#: calls that create processes, refused with EPERM (threads are made with clone +
#: CLONE_THREAD, ruled apart)
PROCESS_CALLS = ("fork", "vfork")
#: a child of the Python host may act on no other process: in these rules, a value the host
#: puts its own process ID in when it loads them (:func:`process_filter_bpf`), and the
#: calls whose first argument must be it (a signal, a queued signal, a pidfd) or 0, "the
#: caller" (a priority, a limit, a scheduling or memory policy). Else a match's process
#: could leave a mark on the next match's, forked ahead and waiting (the Python host,
#: bots/languages/python/host.py), or on the zygote, whose settings every later child
#: inherits.
SELF_PLACEHOLDER = 0x5E1F0BAD
OWN_PROCESS_CALLS = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open")
CALLER_CALLS = (
    "sched_setaffinity", "sched_setparam", "sched_setscheduler", "sched_setattr", "prlimit64",
    "migrate_pages", "move_pages",
)  # fmt: skip
#: the machine's page cache, which every sandbox shares: a bot that evicts a page of a file
#: all can read (posix_fadvise's DONTNEED) or caches it, and another that sees whether it is
#: cached without touching it (mincore, cachestat, a read with RWF_NOWAIT), pass bits to
#: each other: the first seating of a deal to the fresh process of its second, or two
#: accounts' bots at one table. Refused (EPERM; a read with RWF_NOWAIT: EOPNOTSUPP, as a
#: file system without it answers, and callers read without it). What stays is timing a
#: read: a page a bot read is cached, and it cannot evict it again
PAGE_CACHE_CALLS = ("fadvise64", "mincore", "readahead", "cachestat")
NOWAIT_CALLS = {"preadv2": 5, "pwritev2": 5}  # the flags' argument (x86_64, arm64)
RWF_NOWAIT = 0x08
#: calls that answer ENOSYS so that callers fall back to an older call we can inspect
NOT_IMPLEMENTED = ("clone3", "io_uring_setup")
#: SIGKILL (and RLIMIT_CPU, whose hard limit sends it): a bot may not send it to any
#: process, itself included, nor have the kernel send it (a timer's or SIGIO's signal, its
#: parent's death), nor lower its CPU-time limit: so a SIGKILL that the platform did not send,
#: and that is not the bot's memory cgroup's or its CPU-time limit's, is someone else's (the
#: machine's), and its match is played again (bots.running.process, _outside_kill). The
#: calls and the argument that holds the signal: refused (EPERM) when it is SIGKILL
SIGKILL = 9
#: the signals an operator or a service manager stops a process with (SIGTERM, SIGINT,
#: SIGHUP), refused as SIGKILL is: one pending on a bot's stopped process was sent from
#: outside (bots.running.process, BotProcess.resume: the platform's trouble; a paused bot of
#: the worker's, sent SIGTERM by an operator, was stored as its crash in a rated match)
OUTSIDE_SIGNALS = (SIGKILL, 15, 2, 1)
SIGNAL_ARGUMENT = {
    "kill": 1, "tkill": 1, "tgkill": 2, "rt_sigqueueinfo": 1, "rt_tgsigqueueinfo": 2,
    "pidfd_send_signal": 1,
}  # fmt: skip
#: an exit status of 128 or more (its low byte's top bit set): a process's status reads as
#: 128 + N when signal N killed it (bubblewrap's, a shell's), so a bot exiting with 137 would
#: pass for a SIGKILL from outside. The calls that end a process with a status: killed
#: (SIGSYS, the bot's crash) when it is one of those
EXIT_CALLS = ("exit", "exit_group")
SIGNAL_LIKE_STATUS = 0x80
F_SETSIG = 10
#: a session or a process group of its own: with one a bot's process could take a terminal
#: of its own (a pty), whose line discipline sends its foreground group SIGINT or SIGHUP, in
#: the background, after the call that asked for it: refused where the bot's code runs (the
#: sandbox's first process is made a session's leader by bubblewrap, before any of it runs)
SESSION_CALLS = ("setsid", "setpgid")
PR_SET_PDEATHSIG = 1
RLIMIT_CPU = 0
#: calls refused with EPERM whatever their arguments where a bot's code runs: a POSIX
#: timer's signal is named in memory, which the filter cannot read (setitimer stays)
TIMER_CALLS = ("timer_create",)
#: What a child of the Python host shares with the zygote, and so with the next match's
#: process (forked ahead, and forked after it): the descriptors it inherits, stdin, stderr
#: (1 and 2) and the protocol's stdout (3), pipes whose open file descriptions (status flags,
#: owner, signal, locks) and sizes outlive any process; and /tmp, were it shared, whose
#: extended attributes and inode flags would outlive a wipe (each child has a /tmp of its
#: own, KEEPER_CALLS: these rules stay all the same). A match's process
#: may change none of it: a mark the next process would read at its start (an audit's bot
#: wrote a card into the pipes' sizes). The fcntl commands refused on any descriptor (a
#: copy of one of those, by dup or over a socket, is another number for the same one):
#: F_SETFL (status flags: Python's os.set_blocking uses an ioctl, FIONBIO), F_SETOWN,
#: F_SETSIG, F_SETOWN_EX, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ. The
#: host puts back whatever a child changed all the same (bots/languages/python/host.py,
#: Shared), so that a way round these rules would leave no mark either
SHARED_FCNTL = (4, 8, 10, 15, 37, 38, 1024, 1026, 1031)
#: the descriptors a child inherits from the zygote
SHARED_FDS = (0, 1, 2, 3)
#: ioctls that set a status flag (O_NONBLOCK, O_ASYNC): refused on SHARED_FDS (Python's
#: os.set_blocking and socket.setblocking use FIONBIO on a bot's own descriptors)
FLAG_IOCTLS = (0x5421, 0x5452)  # FIONBIO, FIOASYNC
#: ioctls that set a file's inode flags (chattr: no-dump, no-atime...), refused on any
#: descriptor: FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR
INODE_FLAG_IOCTLS = (0x40086602, 0x401C5820)
#: calls refused whatever their arguments in a match's process: whole-file locks (flock, on
#: the open file description, which outlives the process), extended attributes (of /tmp:
#: Python's shutil.copy2 goes on without them), and a signal by pidfd (a descriptor of a
#: /proc/PID folder serves as one: the rules on ``kill`` could not see whose it is)
SHARED_CALLS = ("flock", "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "pidfd_send_signal")
#: calls that make an inode numbered from the one counter the machine's pipes and sockets
#: take their numbers from (the kernel's ``get_next_ino``, in batches of 1024 a CPU): a
#: process that made N of them passed N to the next process of the machine that makes one
#: and reads its number (``fstat``, ``/proc/self/fd``). An audit's bot, on one CPU of its
#: choosing (``sched_setaffinity``), made 50,000 pipes at the end of one match, and the
#: next match's process, another sandbox, read a number 1-19 past the last of them in the
#: pipe it made at its start: a card or two a deal, and more with room for the noise.
#: Refused (pipes: EPERM; sockets: EAFNOSUPPORT, as for any family a sandbox has no use
#: for) where the bot's code runs and no runtime needs them: a Python match's process and a
#: C++ program. Node makes pipes of its own as it starts (and a JavaScript bot's realm has
#: no call that makes or reads one); the JVM's file channels make a socket pair as they load
#: (refused from the start, ``Files.createTempFile`` and ``javax.crypto`` failed), so the Java
#: host loads these rules for every thread once they have, before the bot's class
#: (:func:`inode_filter_bpf`, bots/languages/java/seal.c)
INODE_CALLS = ("pipe", "pipe2", "socket", "socketpair")
SOCKET_CALLS = ("socket", "socketpair")
#: a pidfd's inode number is its process's (or thread's) number in pidfs, taken from one
#: counter of the machine's that every process and thread made anywhere moves by one: a bot
#: that starts N threads moves it by N, and the next sandbox's process reads it in a pidfd
#: of its own (``fstat``). An audit's C++ bot started 20,000 threads late in one match, and
#: the next match's process, in another sandbox, read its own number 20,005 past the one it
#: had read before. Refused (EPERM) with :data:`INODE_CALLS` where the bot's code runs and
#: may start threads (a C++ program, a Java bot's JVM once sealed): ``pidfd_open`` and a
#: ``clone`` that asks for a pidfd (``CLONE_PIDFD``; ``clone3`` answers ENOSYS). A Python
#: match's process may start no thread (and open a pidfd of its own only, made when the
#: zygote forked it); a JavaScript bot's realm has no call for either
PIDFD_CALLS = ("pidfd_open",)
CLONE_PIDFD = 0x00001000


class SeccompUnavailable(RuntimeError):
    """libseccomp cannot be loaded or refused the filter; the message says how to fix it."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(
            f"libseccomp is missing ({exc}); install Debian's libseccomp2"
        ) from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_export_pfc.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def _check(result: int, what: str) -> None:
    if result < 0:
        raise SeccompUnavailable(f"libseccomp: {what} failed: {os.strerror(-result)}")


def _export(
    kind: str,
    *,
    processes: bool = True,
    rest: bool = True,
    others: bool = False,
    keepers: bool = False,
    inodes: bool = True,
    inodes_only: bool = False,
) -> bytes:
    lib = _library()
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise SeccompUnavailable("libseccomp: seccomp_init failed")
    try:
        _check(lib.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, _ACT_KILL_PROCESS), "attr_set")

        def rule(name: str, action: int, *conditions: tuple[int, int, int, int]) -> None:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0:
                return  # not a call of this architecture (fork on arm64...)
            array = (_ArgCmp * len(conditions))(*(_ArgCmp(*c) for c in conditions))
            _check(lib.seccomp_rule_add_array(ctx, action, nr, len(conditions), array), name)

        def no_inodes() -> None:  # (INODE_CALLS)
            for name in INODE_CALLS:
                errno_ = errno.EAFNOSUPPORT if name in SOCKET_CALLS else errno.EPERM
                rule(name, _errno_action(errno_))

        def no_pidfd() -> None:  # (PIDFD_CALLS)
            for name in PIDFD_CALLS:
                rule(name, _errno_action(errno.EPERM))
            rule("clone", _errno_action(errno.EPERM), (0, _CMP_MASKED_EQ, CLONE_PIDFD, CLONE_PIDFD))

        if inodes_only:  # (inode_filter_bpf)
            no_inodes()
            no_pidfd()
        if processes:
            for name in PROCESS_CALLS:
                rule(name, _errno_action(errno.EPERM))
            if others:
                # no thread either: each takes a number from the counter that process IDs
                # come from, which the next match's process could read in its own threads'
                rule("clone", _errno_action(errno.EPERM))
            else:
                # clone(flags, ...): flags is argument 0 on x86_64 and arm64.
                rule("clone", _errno_action(errno.EPERM), (0, _CMP_MASKED_EQ, CLONE_THREAD, 0))
        if others:
            eperm = _errno_action(errno.EPERM)
            for command in SHARED_FCNTL:
                rule("fcntl", eperm, (1, _CMP_MASKED_EQ, LOW32, command))
            for command in FLAG_IOCTLS:
                for fd in SHARED_FDS:
                    rule(
                        "ioctl",
                        eperm,
                        (0, _CMP_MASKED_EQ, LOW32, fd),
                        (1, _CMP_MASKED_EQ, LOW32, command),
                    )
            for command in INODE_FLAG_IOCTLS:
                rule("ioctl", eperm, (1, _CMP_MASKED_EQ, LOW32, command))
            for name in SHARED_CALLS:
                rule(name, eperm)
            no_inodes()
            for name in NAMESPACE_CALLS:  # (the keeper's, which forked it: KEEPER_CALLS)
                rule(name, eperm)
            for name in OWN_PROCESS_CALLS:
                rule(name, eperm, (0, _CMP_NE, SELF_PLACEHOLDER, 0))
            rule("tkill", eperm)  # a thread by its number alone: tgkill names the process
            for name in CALLER_CALLS:
                rule(name, eperm, (0, _CMP_NE, 0, 0))
            # setpriority(which, who, ...) and ioprio_set(which, who, ...): the caller only
            rule("setpriority", eperm, (0, _CMP_NE, PRIO_PROCESS, 0))
            rule("setpriority", eperm, (1, _CMP_NE, 0, 0))
            rule("ioprio_set", eperm, (0, _CMP_NE, IOPRIO_WHO_PROCESS, 0))
            rule("ioprio_set", eperm, (1, _CMP_NE, 0, 0))
        if processes or others:  # where the bot's code runs: no SIGKILL (see SIGKILL)
            eperm = _errno_action(errno.EPERM)

            def low(arg: int, value: int) -> tuple[int, int, int, int]:
                return (arg, _CMP_MASKED_EQ, LOW32, value)  # see LOW32

            for sig in OUTSIDE_SIGNALS:
                for name, arg in SIGNAL_ARGUMENT.items():
                    rule(name, eperm, low(arg, sig))
                if not others:  # (a match's process may set no signal at all: SHARED_FCNTL)
                    rule("fcntl", eperm, low(1, F_SETSIG), low(2, sig))
                rule("prctl", eperm, low(0, PR_SET_PDEATHSIG), low(1, sig))
            for name in SESSION_CALLS:
                rule(name, eperm)
            rule("setrlimit", eperm, low(0, RLIMIT_CPU))
            rule("prlimit64", eperm, low(1, RLIMIT_CPU), (2, _CMP_NE, 0, 0))
            for name in TIMER_CALLS:
                rule(name, eperm)
            for name in EXIT_CALLS:
                rule(
                    name,
                    _ACT_KILL_PROCESS,
                    (0, _CMP_MASKED_EQ, SIGNAL_LIKE_STATUS, SIGNAL_LIKE_STATUS),
                )
        if rest:
            for name in DENIED:
                rule(name, _errno_action(errno.EPERM))
            for name in NAMESPACE_CALLS:
                if keepers and name in KEEPER_CALLS:
                    arg, value = KEEPER_CALLS[name]
                    rule(name, _errno_action(errno.EPERM), (arg, _CMP_NE, value, 0))
                else:
                    rule(name, _errno_action(errno.EPERM))
            for name in NOT_IMPLEMENTED:
                rule(name, _errno_action(errno.ENOSYS))
            for name in PAGE_CACHE_CALLS:
                rule(name, _errno_action(errno.EPERM))
            for name, arg in NOWAIT_CALLS.items():
                rule(
                    name,
                    _errno_action(errno.EOPNOTSUPP),
                    (arg, _CMP_MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT),
                )
            if inodes:
                for name in SOCKET_CALLS:
                    rule(name, _errno_action(errno.EAFNOSUPPORT), (0, _CMP_NE, AF_UNIX, 0))
            else:
                no_inodes()
                no_pidfd()
            for flag in CLONE_NEW_FLAGS.values():
                rule("clone", _errno_action(errno.EPERM), (0, _CMP_MASKED_EQ, flag, flag))

        fd = os.memfd_create("seccomp", os.MFD_CLOEXEC)
        try:
            export = lib.seccomp_export_bpf if kind == "bpf" else lib.seccomp_export_pfc
            _check(export(ctx, fd), f"export_{kind}")
            size = os.lseek(fd, 0, os.SEEK_END)
            return os.pread(fd, size, 0)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(ctx)


@functools.cache
def filter_bpf(*, processes: bool = True, inodes: bool = True) -> bytes:
    """The compiled filter (classic BPF, ``struct sock_filter`` array) for bwrap --seccomp.
    ``processes=False`` leaves out the rules on creating processes, and lets the host's
    keepers make the mount namespace and the mount that give each child a /tmp of its own
    (KEEPER_CALLS, with those arguments only): for a host that forks a fresh child per
    match, each child of which loads :func:`process_filter_bpf` on top before the bot's code
    runs (filters stack: a call must pass both), which refuses them. ``inodes=False``
    refuses making pipes and sockets (:data:`INODE_CALLS`) and pidfds (:data:`PIDFD_CALLS`),
    for a runtime that needs none."""
    return _checked(_export("bpf", processes=processes, keepers=not processes, inodes=inodes))


@functools.cache
def process_filter_bpf() -> bytes:
    """The rules on creating processes, on acting on other processes, on changing what it
    shares with them (SHARED_FCNTL) and on namespaces and mounts (NAMESPACE_CALLS), for a
    child of such a host: it puts its own process ID where the rules hold SELF_PLACEHOLDER."""
    return _checked(_export("bpf", rest=False, others=True))


@functools.cache
def inode_filter_bpf() -> bytes:
    """Only the rules on making pipes, sockets and pidfds (:data:`INODE_CALLS`,
    :data:`PIDFD_CALLS`), for a runtime that makes its own pipes or sockets as it starts and
    loads this filter on top of :func:`filter_bpf` once it has, before the bot's code runs
    (the Java host: bots/languages/java/seal.c)."""
    return _checked(_export("bpf", processes=False, rest=False, inodes_only=True))


def _checked(program: bytes) -> bytes:
    if not program or len(program) % 8:
        raise SeccompUnavailable("libseccomp exported an empty or malformed filter")
    return program


def filter_text() -> str:
    """libseccomp's pseudo-code rendering of the filter, for humans."""
    return _export("pfc").decode()
