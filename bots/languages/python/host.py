"""Card Arena's Python bot host (protocol version 1).

Runs one bot file and answers the JSON-lines protocol on stdin/stdout, as described in
docs/bot-protocol.md. It needs the standard library only and nothing of the project, because
it runs inside the sandbox with nothing but the bot file next to it.

    python3 python_host.py [--control FD] [--process-filter FILE] [--wipe DIR] BOT_FILE

A bot process is never dealt a deal it has played: the controller sends ``renew`` before a
match whose deal the bot's process has seen, and the next match is played by a fresh process.
This one (the "zygote") never runs a line of the bot's code. It forks a child that loads the
bot, says hello and exits; then a child forked ahead (a "spare") waits until the last child
is gone, reads its first match's ``begin``, loads the bot and plays its matches, each with a
new instance of the bot's class, until ``renew`` (or ``quit``). Each child is forked by a
"keeper" of its own (the zygote forks the keeper), which waits for the child's end, puts
back what the child shares with the next one and empties the folder ``--wipe`` names, then
tells the zygote and ends (:class:`Child`); in the sandbox (``--process-filter``), that folder
(its /tmp) is not shared at all: each keeper mounts a new tmpfs there, in a mount namespace of
its own, for its child alone, which ends with the keeper. Nothing the bot's code did in
one child (memory, threads, files in /tmp, the state of the pipes every child inherits and
of /tmp itself: :class:`Shared`) reaches the next, nor does the zygote count the child's CPU
time or page faults (its keepers, whose children they are, are never waited for). With
``--control FD`` the zygote writes one line on that descriptor after each child is gone
(``{"exited": N, "cpu": SECONDS}``): after a ``renew`` the controller sends the next match
only after it, so that a child that lingers never sees it; the child does not have the
descriptor, and the zygote is not dumpable, so that no child can reach it through /proc.
With ``--process-filter FILE`` (in the sandbox) each child loads that seccomp filter
(classic BPF) before the bot's code runs: the bot cannot create processes, though the
zygote and the keepers can, nor act on another process (signals, priority, limits,
scheduling) nor change what it shares with the next child (its inherited descriptors'
status flags, owner, signal and locks, the pipes' sizes, /tmp's attributes), nor make a
namespace or a mount (bots/sandbox/seccomp.py), so a child can leave no mark on the spare
waiting beside it, on the zygote whose settings later children inherit, or in what they
share. Between matches the controller stops the sandbox's processes (SIGSTOP), so that no
code of the bot runs there (bots/running/process.py, BotProcess.pause).
"""

import contextlib
import errno
import fcntl
import gc
import importlib
import importlib.util
import json
import os
import re
import resource  # noqa: F401 - os.wait4's rusage: loaded once, not by every keeper
import select
import signal
import struct
import sys
import time
import traceback

PROTOCOL = 1
MAX_REQUEST = 1 << 20
#: set by ``arena --no-sandbox`` (bots.running.launch.debug_launch): the private folder the
#: bot runs in
FILE_GUARD_ENV = "CARD_ARENA_FILE_GUARD"
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: audit events that name paths the guard checks -> how many of their first arguments are paths
READ_EVENTS = {"open": 1, "os.listdir": 1, "os.scandir": 1}
WRITE_EVENTS = {"os.mkdir": 1, "os.remove": 1, "os.rmdir": 1, "os.truncate": 1,
                "os.rename": 2, "os.link": 2, "os.symlink": 2}  # fmt: skip


#: JSON as every reply is written: compact, no NaN or infinity (one encoder for every call:
#: ``json.dumps`` with options makes a new one each time)
ENCODE = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode


#: the deepest a reply may be nested (games/engine/untrusted.py, MAX_DEPTH)
MAX_DEPTH = 32
#: what the host says on stderr when the bot closed the descriptor its replies go out on:
#: the arena reads it (bots/running/process.py, CLOSED_MARKER: the same words)
CLOSED_OUTPUT = "the bot closed its output"
#: the exit status that goes with it
CLOSED_STATUS = 74


class OutputClosed(BaseException):
    """The protocol's output is gone (the bot closed its descriptor): no reply can be
    written. A BaseException, so that no handler of a bot's failures takes it for one."""


class NestedTooDeep(Exception):
    """A reply too deep for the encoder (RecursionError)."""


def put(out, text):
    """Write a reply line; OutputClosed if its descriptor is closed (EBADF) or its reader
    gone (EPIPE)."""
    try:
        out.write(text)
        out.flush()
    except OSError as exc:
        if exc.errno not in (errno.EBADF, errno.EPIPE):
            raise
        raise OutputClosed(exc.strerror or str(exc)) from None


def send(out, message):
    put(out, ENCODE(message) + "\n")


#: what a bot's error ran into that the sandbox does not have, as docs/bot-protocol.md ("What
#: a bot can use") says it: a module outside the standard library, the network, a file
NO_MODULE = "bots get Python's standard library only"
NO_NETWORK = "the sandbox has no network"
NO_FILE = "only the bot's own file is in the sandbox"
#: errors of a socket (socket() of any family but AF_UNIX is refused in the sandbox) or of a
#: connection, which only a network would have answered
NETWORK_ERRNOS = frozenset(
    [errno.EAFNOSUPPORT, errno.ENETUNREACH, errno.ENETDOWN, errno.EHOSTUNREACH, errno.ECONNREFUSED]
)
#: the most of an exception's own words a reason keeps when it says where and why after them
#: (the arena quotes 1,200 characters of an error: bots/running/process.py, QUOTE)
MESSAGE_CHARS = 900


def describe(exc, bot_file=None):
    """An exception as a reason says it: its type and message; raised by the bot's code
    (``bot_file``: the bot file's path), also where in that file (the deepest line of it in
    the traceback: "KeyError: 7 (my_bot.py, line 25)") and what of the sandbox it ran into,
    if that is what it says ("...; the sandbox has no network")."""
    text = str(exc)
    said = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if bot_file is None:
        return said
    try:
        where, hint = bot_line(exc, bot_file), sandbox_hint(exc)
    except Exception:  # noqa: BLE001 - an exception of the bot's that cannot be read: its words
        where = hint = ""
    if not where and not hint:
        return said
    if len(said) > MESSAGE_CHARS:
        said = said[: MESSAGE_CHARS - 3] + "..."
    return said + where + (f"; {hint}" if hint else "")


def bot_line(exc, bot_file):
    """Where in the bot's file the exception was raised, as " (my_bot.py, line 25)": the
    deepest line of that file in its traceback, by the file's name as it was given (not its
    path in the sandbox); "" if the traceback does not pass through it."""
    line = None
    for frame, number in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == bot_file and number is not None:
            line = number
    return f" ({os.path.basename(bot_file)}, line {line})" if line is not None else ""


def sandbox_hint(exc):
    """What the sandbox does not have that the exception (or the one it was raised from, or
    urllib's reason) says it looked for, in a few words (NO_MODULE...), or ""."""
    error = exc
    for _ in range(4):  # (a chain a bot made may be a loop)
        if not isinstance(error, BaseException):
            break
        if isinstance(error, ModuleNotFoundError):
            top = (error.name or "").partition(".")[0]
            # (the game's helper modules sit beside the bot: one of them is never missing)
            return NO_MODULE if top and top not in sys.stdlib_module_names else ""
        socket = sys.modules.get("socket")  # (only a bot that imported it meets its errors)
        if socket is not None and isinstance(error, (socket.gaierror, socket.herror)):
            return NO_NETWORK
        if isinstance(error, OSError) and error.errno in NETWORK_ERRNOS:
            return NO_NETWORK
        if isinstance(error, FileNotFoundError) and error.filename is not None:
            return NO_FILE
        reason = getattr(error, "reason", None)  # urllib's URLError: the socket's error
        error = reason if isinstance(reason, BaseException) else error.__cause__
    return ""


def compile_bot(path):
    """The bot file compiled (its code does not run), or the error that compiling raised:
    the zygote compiles it once, every match's process runs it."""
    try:
        with open(path, "rb") as fh:
            source = fh.read()
    except OSError:
        return RuntimeError(f"no such file: {path}")
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        return exc


#: standard library modules bots often import, whose import does nothing but define things:
#: the zygote imports those a bot's code names (see warm)
WARM = frozenset(
    [
        "array",
        "bisect",
        "collections",
        "copy",
        "dataclasses",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "hashlib",
        "heapq",
        "itertools",
        "json",
        "math",
        "operator",
        "random",
        "re",
        "statistics",
        "string",
        "struct",
        "time",
        "typing",
    ]
)


def warm(code):
    """Import, in the zygote, the common standard library modules (WARM) that the bot's
    compiled code names (none of it runs): every match's process then finds them loaded, as
    a process that served many matches did."""
    names = set()
    codes = [code]
    while codes:
        current = codes.pop()
        codes.extend(c for c in current.co_consts if isinstance(c, type(current)))
        names.update(n.partition(".")[0] for n in current.co_names)
    for name in sorted(names & WARM):
        importlib.import_module(name)


def module_for(path):
    """The bot file's module, made and registered but not run (none of the bot's code runs
    here): (module, None), or (None, the RuntimeError that says why it cannot be)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    module_name = "bot_" + re.sub(r"\W", "_", stem)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        return None, RuntimeError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    # beside the bot: its toolkit modules (movecheck.py); last, so that a bot file named
    # like a standard module (random.py) does not shadow it for its own imports
    sys.path.append(os.path.dirname(os.path.abspath(path)))
    return module, None


def load(path, code=None, made=None):
    """Import the bot file (``code``: it compiled, see compile_bot; ``made``: what
    module_for gave, if it ran already); return (Bot class, name) or raise RuntimeError
    with a reason."""
    code = compile_bot(path) if code is None else code
    if isinstance(code, RuntimeError):
        raise code
    stem = os.path.splitext(os.path.basename(path))[0]
    module, error = made if made is not None else module_for(path)
    if error is not None:
        raise error
    try:
        if isinstance(code, BaseException):
            raise code
        exec(code, module.__dict__)
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import is a failure too
        traceback.print_exception(exc)
        raise RuntimeError(f"failed at import: {describe(exc, path)}") from None
    cls = getattr(module, "Bot", None)
    if not isinstance(cls, type):
        raise RuntimeError("no top-level class Bot")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name.strip():
        name = stem
    return cls, name.strip()[:64]


def hello_message(cls, name):
    methods = sorted(m for m in dir(cls) if not m.startswith("_") and callable(getattr(cls, m)))
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "language": "python",
        "name": name,
        "methods": methods,
        # a deal seen before is played by a fresh process (see the module's docstring)
        "isolation": "process",
    }


def serve(cls, requests, out, bot_file=None):
    """Play one match: from its ``begin`` to its ``end`` (MATCH_OVER), or until ``quit`` or
    the end of stdin (FINISHED). ``bot_file``: the bot file's path, which an error's reason
    names the line of (see describe)."""
    bot = None
    # a notice ("tell") is answered only if it fails, by the next reply instead of that
    # request's own; the notices after it are not run
    failed = None
    for raw in requests:
        message = json.loads(raw)
        kind, rid = message.get("type"), message.get("id")
        value_json = None
        if kind == "quit":
            return FINISHED
        if kind == "begin":
            failed = None
        elif kind == "tell":
            if failed is None:
                failed = tell(bot, message, bot_file)
            continue
        elif failed is not None:
            reply, failed = failed, None
            reply["id"] = rid
            send(out, reply)
            if kind == "end":
                return MATCH_OVER
            continue
        try:
            if kind == "begin":
                bot = cls()
                reply = {"type": "ok"}
            elif kind == "end":
                bot = None
                times = os.times()
                send(out, {"type": "ok", "cpu": round(times.user + times.system, 3), "id": rid})
                return MATCH_OVER
            elif kind == "call":
                method = message["method"]
                if bot is None:
                    raise RuntimeError("call before begin")
                if method.startswith("_"):
                    raise AttributeError(f"{method} is not a bot method")
                value = getattr(bot, method)(*message.get("args", []))
                try:
                    value_json = ENCODE(value)  # checked and written in one go
                except RecursionError:
                    raise NestedTooDeep(
                        f"{method} returned a value nested more than {MAX_DEPTH} deep"
                    ) from None
                except (TypeError, ValueError):
                    raise TypeError(
                        f"{method} returned {type(value).__name__} {value!r:.80}, "
                        "which is not plain JSON data"
                    ) from None
            else:
                raise RuntimeError(f"unknown request type {kind!r}")
        except MemoryError:
            bot = None  # let go of what the bot holds, so that the reply can be written
            reply = {"type": "error", "error": "MemoryError", "kind": "memory"}
            traceback.print_exc()
        except NestedTooDeep as exc:  # the reply's fault (invalid), not an error it raised
            print(exc, file=sys.stderr)
            reply = {"type": "error", "error": str(exc), "kind": "nested"}
        except Exception as exc:  # noqa: BLE001 - every bot failure is reported, not fatal
            traceback.print_exc()
            reply = {"type": "error", "error": describe(exc, bot_file)}
        if value_json is not None:
            put(out, f'{{"type":"return","value":{value_json},"id":{ENCODE(rid)}}}\n')
            continue
        reply["id"] = rid
        send(out, reply)
    return FINISHED


class Lines:
    """The non-empty lines of a descriptor, read unbuffered beyond ``pending`` (what the
    zygote had already read of the match), so that a child never reads past its match."""

    def __init__(self, fd, pending=b""):
        self.fd = fd
        self.pending = bytearray(pending)

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            newline = self.pending.find(b"\n")
            if newline >= 0:
                line = bytes(self.pending[:newline])
                del self.pending[: newline + 1]
                if line.strip():
                    return line
                continue
            if len(self.pending) > MAX_REQUEST:
                raise RequestTooLong
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise StopIteration
            self.pending += chunk


class RequestTooLong(Exception):
    pass


def tell(bot, message, bot_file=None):
    """Run a notice; None if it went well, else the error reply that reports it."""
    method = message.get("method")
    failure = {"type": "error", "told": message.get("id"), "method": method}
    try:
        if bot is None:
            raise RuntimeError("call before begin")
        if not isinstance(method, str) or method.startswith("_"):
            raise AttributeError(f"{method} is not a bot method")
        getattr(bot, method)(*message.get("args", []))
    except MemoryError:
        traceback.print_exc()
        return failure | {"error": "MemoryError", "kind": "memory"}
    except Exception as exc:  # noqa: BLE001 - every bot failure is reported, not fatal
        traceback.print_exc()
        return failure | {"error": describe(exc, bot_file)}
    return None


def guard_files(root):
    """Outside the sandbox (``arena --no-sandbox``), fail the file accesses the sandbox would
    fail, with its errors: reading or listing anything but what the sandbox mounts (the
    standard library and /usr/lib, /dev, the folder /proc (empty there), the private folder
    ``root`` holding the bot) and the folders that lead there (FileNotFoundError, as for a
    path the sandbox does not have); writing anywhere but ``root/tmp`` and /dev (read-only
    file system). An audit hook sees Python's own opens (open, os.open, os.listdir...), not
    C code's, and it is no security boundary: it only keeps a bot from working here and
    failing there."""

    def resolve(path):
        return os.path.realpath(os.path.abspath(os.fsdecode(path)))

    def within(path, folders):
        return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)

    def leads_to(path, folders):  # "/" and "/usr" are there in the sandbox too
        return any(f.startswith(path.rstrip(os.sep) + os.sep) for f in folders)

    mounted = ["/usr/lib", "/usr/lib64", "/dev", "/etc/ld.so.cache"]
    readable = [resolve(p) for p in (*mounted, *sys.path, sys.executable, root)]
    # a match's process has an empty /proc (PrivateTmp.mount): the folder is there, and
    # nothing in it
    empty = [resolve("/proc")]
    writable = [resolve(p) for p in (os.path.join(root, "tmp"), "/dev")]

    def hook(event, args):
        count = READ_EVENTS.get(event) or WRITE_EVENTS.get(event)
        if count is None:
            return
        write = event in WRITE_EVENTS or (
            event == "open" and isinstance(args[2], int) and args[2] & WRITE_FLAGS
        )
        for given in args[:count]:
            if given is None or isinstance(given, int):
                continue  # a file descriptor (or the working folder, for listdir())
            path = resolve(given)
            if write and within(path, writable):
                continue
            if not write and (within(path, readable) or leads_to(path, readable) or path in empty):
                continue
            folder = os.path.dirname(path)
            if write and (within(folder, readable) or leads_to(folder, readable)):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), given)
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), given)

    sys.addaudithook(hook)


def on_cpu_limit(signum, frame):
    # RLIMIT_CPU's soft limit: a child ends with the words the arena looks for. (In the
    # sandbox the zygote is its PID namespace's init, which ignores a signal left at its
    # default action.)
    os.write(2, b"\nCPU time limit exceeded\n")
    os._exit(128 + signum)


# ---- the zygote: a fresh process for every match ----------------------------------------
#: a child's exit statuses that the zygote expects: its part is done (hello said, or match
#: played to its end) / the controller said quit or closed stdin
MATCH_OVER = 86
FINISHED = 87
PR_SET_DUMPABLE = 4
#: how many spares in a row may be gone before they are let go, before the host gives up
SPARE_TRIES = 3
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def prctl():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    # prctl(int option, unsigned long arg2, ...): an address must go whole, not as an int
    libc.prctl.argtypes = [ctypes.c_int, *[ctypes.c_ulong] * 4]

    def call(option, *args):
        if libc.prctl(option, *args, *([0] * (4 - len(args)))) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl({option}): {os.strerror(err)}")

    return ctypes, call


#: where the process filter's rules hold the process ID of the child that loads them (see
#: bots/sandbox/seccomp.py, SELF_PLACEHOLDER: the same value)
SELF_PLACEHOLDER = 0x5E1F0BAD
#: a classic BPF instruction "jump if the accumulator equals k" (BPF_JMP | BPF_JEQ | BPF_K)
JEQ_K = 0x15


def load_filter(path):
    """A child's own seccomp filter, loaded before the bot's code runs (see the docstring),
    with the child's own process ID put where its rules name "this process"."""
    with open(path, "rb") as fh:
        program = fh.read()
    if not program or len(program) % 8:
        raise RuntimeError(f"{path}: not a seccomp filter")
    ctypes, call = prctl()
    own = [
        at
        for at in range(0, len(program), 8)
        if int.from_bytes(program[at : at + 2], "little") == JEQ_K
        and int.from_bytes(program[at + 4 : at + 8], "little") == SELF_PLACEHOLDER
    ]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))

    def apply():
        pid = os.getpid().to_bytes(4, "little")
        for at in own:
            buffer[at + 4 : at + 8] = pid
        call(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog))

    return apply


def hello(path, code, out, guard, made=None):
    """The hello child's part: load the bot, say hello (or why it cannot load)."""
    if guard is not None:
        guard()
    try:
        try:
            cls, name = load(path, code, made)
        except RuntimeError as exc:
            send(out, {"type": "fatal", "error": str(exc)})
            return 1
        send(out, hello_message(cls, name))
    except OutputClosed as exc:
        return output_closed(exc)
    return MATCH_OVER


def match(path, code, out, guard, made=None):
    """A match child's part, once the zygote let it go (the last child is gone): read its
    first match's ``begin`` (or ``quit``), load the bot and play matches, each with a new
    instance of its class, until ``renew`` (the next match's deal is one this process has
    played: a fresh child plays it) or ``quit``. Returns its exit status."""
    requests = Lines(0)
    first = next(requests, None)
    kind = json.loads(first).get("type") if first is not None else "quit"
    if kind == "quit":
        return FINISHED
    if kind != "begin":
        raise RuntimeError(f"a match must start with begin, not {kind!r}")
    requests.pending[:0] = first + b"\n"  # served again, as the match's first request
    if guard is not None:
        guard()
    try:
        loaded = load(path, code, made)
    except RuntimeError as exc:
        rid = json.loads(first).get("id")
        try:
            send(out, {"type": "error", "kind": "load", "error": str(exc), "id": rid})
        except OutputClosed as closed:
            return output_closed(closed)
        return 1
    try:
        while True:
            status = serve(loaded[0], requests, out, path)
            if status != MATCH_OVER:
                return status
            line = next(requests, None)  # between matches (stopped by the controller)
            message = json.loads(line) if line is not None else {"type": "quit"}
            kind = message.get("type")
            if kind == "renew":
                send(out, {"type": "ok", "id": message.get("id")})
                return MATCH_OVER  # read nothing more: the next child reads the next match
            if kind == "quit":
                return FINISHED
            if kind != "begin":
                raise RuntimeError(f"a match must start with begin, not {kind!r}")
            requests.pending[:0] = line + b"\n"
    except RequestTooLong:
        print("request too long", file=sys.stderr)
        return 2
    except OutputClosed as exc:
        return output_closed(exc)


def output_closed(exc):
    """The bot closed the protocol's output: its last words, which the arena reads ("the
    bot closed its output during draft_pick"), and the exit status that goes with them."""
    print(f"{CLOSED_OUTPUT}: its reply could not be written ({exc})", file=sys.stderr)
    return CLOSED_STATUS


def wipe(folder):
    """Remove everything under ``folder`` (not the folder), whatever modes a child left."""
    os.chmod(folder, 0o700)
    with os.scandir(folder) as entries:
        children = list(entries)
    for entry in children:
        if entry.is_dir(follow_symlinks=False):
            wipe(entry.path)
            os.rmdir(entry.path)
        else:
            os.unlink(entry.path)


# ---- what the children share, put back after each -----------------------------------------
F_SETOWN_EX, F_GETOWN_EX = 15, 16
F_SETSIG, F_GETSIG = 10, 11
F_OFD_SETLK = 37
F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
FIONREAD = 0x541B
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS = 0x80086601, 0x40086602
#: struct flock: unlock the whole file (F_UNLCK from offset 0 to the end)
UNLOCK_ALL = struct.pack("hhqqi", fcntl.F_UNLCK, os.SEEK_SET, 0, 0, 0).ljust(32, b"\0")
#: how long a child's keeper waits for the arena to read what the child wrote last
READ_WAIT_S = 10.0


class Shared:
    """What a child shares with the zygote and with every child after it, held by something
    that outlives it: the open file descriptions of the descriptors it inherits (their
    status flags, owner and signal, locks) and the pipes behind them (their size); and /tmp
    itself (its times, extended attributes and inode flags; what is in it is wiped). Any of
    it a child changed, the next child would read at its start: a mark across matches (an
    audit's bot wrote the first cards it was offered into the pipes' sizes, and its next
    process, dealt the same deal, read them). A child's own rules refuse those changes
    (bots/sandbox/seccomp.py, SHARED_FCNTL); the zygote records all of it before any child
    runs, and each child's keeper puts it back once the child is gone, before the next child
    may go on, whatever way round those rules a child found.

    With ``private`` (in the sandbox) /tmp is not shared at all: each keeper mounts a new
    tmpfs there for its child alone (:meth:`own_tmp`), which ends with the keeper. A wiped
    /tmp would still say how many files the children before made in it (its tmpfs numbers
    inodes from one counter: a new file's number counts them)."""

    def __init__(self, tmp, fds, private=False):
        # ``fds``: the descriptors every child inherits from the zygote, stdin (the
        # requests), stderr (1 and 2, the bot's log) and the protocol's stdout (see main):
        # pipes the arena made
        self.inherited = tuple(fds)
        self.fds = {}
        for fd in fds:
            with contextlib.suppress(OSError):  # (not open)
                self.fds[fd] = fd_state(fd)
        self.tmp = tmp
        self.private = None
        if tmp is not None:
            info = os.stat(tmp)
            self.tmp_times = (info.st_atime_ns, info.st_mtime_ns)
            if private:
                self.private = PrivateTmp(tmp)
            else:
                self.tmp_flags = inode_flags(tmp)
                self.tmp_xattrs = set(os.listxattr(tmp))

    def own_tmp(self):
        """In a keeper, before it forks its child (``private``): a mount namespace of the
        keeper's own, a new tmpfs on /tmp there (as large as the sandbox's, its times the
        sandbox's /tmp's), and no capability left (the child inherits none)."""
        self.private.mount(self.tmp_times)

    def pipes(self):
        """The shared descriptors that are pipes."""
        return [fd for fd, state in self.fds.items() if state[3] is not None]

    def restore_fds(self, sizes=True):
        """Put back each shared descriptor's state (with ``sizes``, its pipe's size too):
        False if a pipe's size could not be (it holds more than that: its reader has yet to
        read it)."""
        done = True
        for fd, (flags, owner, sig, size) in self.fds.items():
            # locks held by the open file description itself (a child's end does not free
            # them: the zygote holds the description)
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, F_OFD_SETLK, UNLOCK_ALL)
            if fcntl.fcntl(fd, fcntl.F_GETFL) != flags:
                fcntl.fcntl(fd, fcntl.F_SETFL, flags)
            if fcntl.fcntl(fd, F_GETOWN_EX, bytes(8)) != owner:
                fcntl.fcntl(fd, F_SETOWN_EX, owner)
            if fcntl.fcntl(fd, F_GETSIG) != sig:
                fcntl.fcntl(fd, F_SETSIG, sig)
            if sizes and size is not None and fcntl.fcntl(fd, F_GETPIPE_SZ) != size:
                try:
                    fcntl.fcntl(fd, F_SETPIPE_SZ, size)
                except OSError:
                    done = False
        return done

    def restore_tmp(self):
        """Empty /tmp, and put back its own attributes, inode flags and times."""
        folder = self.tmp
        wipe(folder)
        for name in set(os.listxattr(folder)) - self.tmp_xattrs:
            os.removexattr(folder, name)
        if self.tmp_flags is not None and inode_flags(folder) != self.tmp_flags:
            inode_flags(folder, self.tmp_flags)
        os.utime(folder, ns=self.tmp_times)  # last: emptying it changed them


CLONE_NEWNS = 0x00020000
#: the only flags of unshare and mount that the sandbox's filter lets a keeper use (and
#: that a keeper uses: bots/sandbox/seccomp.py, KEEPER_CALLS)
MS_NOSUID, MS_NODEV = 0x2, 0x4
#: the empty /proc a keeper mounts for its child: one inode (its root), no room to write
PROC_OPTIONS = b"size=4k,nr_inodes=1,mode=0555"
PR_CAPBSET_READ, PR_CAPBSET_DROP = 23, 24
#: capset's header: _LINUX_CAPABILITY_VERSION_3 (two 32-bit sets of each kind), this thread
CAPABILITY_VERSION_3 = 0x20080522


class PrivateTmp:
    """What a keeper needs to give its child a /tmp of its own (see :meth:`mount`), made
    ready once in the zygote, so that each keeper only makes its calls. The zygote starts
    with the capabilities that takes (CAP_SYS_ADMIN and CAP_SETPCAP, in the sandbox's own
    user namespace: bots.sandbox.isolation) and never runs the bot's code."""

    def __init__(self, tmp):
        import ctypes

        self.tmp = tmp
        libc = ctypes.CDLL(None, use_errno=True)
        self.get_errno = ctypes.get_errno
        self.unshare = libc.unshare
        self.unshare.argtypes = [ctypes.c_int]
        self.mount_call = libc.mount
        self.mount_call.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
        self.prctl = libc.prctl
        self.prctl.argtypes = [ctypes.c_int, *[ctypes.c_ulong] * 4]
        self.capset = libc.capset
        self.capset.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        # capset(header, data): every capability dropped (the data's 2 x 3 sets all empty)
        self.cap_header = ctypes.create_string_buffer(struct.pack("Ii", CAPABILITY_VERSION_3, 0))
        self.cap_data = ctypes.create_string_buffer(bytes(24))
        # the capabilities of the bounding set (the zygote's, which the keepers inherit):
        # those two
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            last = int(fh.read())
        self.bounding = [c for c in range(last + 1) if self.prctl(PR_CAPBSET_READ, c, 0, 0, 0) > 0]
        # each child's is as large as the sandbox's own, and holds as many files
        info = os.statvfs(tmp)
        self.options = (
            f"size={info.f_blocks * info.f_frsize},nr_inodes={info.f_files},mode=0700"
        ).encode()

    def _fail(self, what):
        err = self.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")

    def mount(self, times):
        """Give the calling process (a keeper) a mount namespace of its own, a new tmpfs on
        /tmp there (its times ``times``), and its working folder in it; then drop every
        capability, bounding set included, so that the child it forks has none. The tmpfs
        ends with the last process in the namespace: the keeper, which outlives its
        child."""
        if self.unshare(CLONE_NEWNS) != 0:
            self._fail("unshare")
        if self.mount_call(b"tmpfs", self.tmp.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                           self.options) != 0:  # fmt: skip
            self._fail(f"mount {self.tmp}")
        os.chdir(self.tmp)  # (the working folder was the /tmp under it)
        os.utime(self.tmp, ns=times)
        # and an empty /proc: each file of a process's own there (/proc/self/fd/N...) takes
        # its inode's number, as it is looked up, from the machine's counter that numbers
        # pipes and sockets too, which a bot moved by looking entries up anew and its next
        # process read (docs/sandbox.md, "How a bot is started"). Neither the child nor
        # the keeper reads /proc from here on.
        if self.mount_call(b"none", b"/proc", b"tmpfs", MS_NOSUID | MS_NODEV,
                           PROC_OPTIONS) != 0:  # fmt: skip
            self._fail("mount /proc")
        for cap in self.bounding:
            if self.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                self._fail("prctl(PR_CAPBSET_DROP)")
        if self.capset(self.cap_header, self.cap_data) != 0:
            self._fail("capset")


def fd_state(fd):
    """A descriptor's state that outlives a process: (status flags, owner (struct
    f_owner_ex), signal, pipe size or None)."""
    state = [
        fcntl.fcntl(fd, fcntl.F_GETFL),
        fcntl.fcntl(fd, F_GETOWN_EX, bytes(8)),
        fcntl.fcntl(fd, F_GETSIG),
        None,
    ]
    with contextlib.suppress(OSError):  # (not a pipe)
        state[3] = fcntl.fcntl(fd, F_GETPIPE_SZ)
    return tuple(state)


def inode_flags(folder, flags=None):
    """A folder's inode flags (chattr's), as bytes, or None where the file system has none;
    with ``flags``, set them."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if flags is not None:
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags)
            return flags
        buffer = bytearray(8)
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buffer)
        return bytes(buffer)
    except OSError:
        if flags is not None:
            raise
        return None
    finally:
        os.close(fd)


def drain_stdin():
    """Read and drop what a child left in stdin. The arena writes nothing from the end of a
    match's process to the zygote's word that it is gone, so this is only what the child
    wrote into the pipe itself (a sandbox that runs as the worker's own user may open its
    stdin for writing, through /proc/self/fd): the next child must not read it."""
    while select.select([0], [], [], 0)[0]:
        if not os.read(0, 65536):
            break  # the end of stdin: the arena closed it


def unread(fds):
    """How many bytes wait in the pipes ``fds`` (the writing end says it too)."""
    total = 0
    for fd in fds:
        with contextlib.suppress(OSError):
            total += struct.unpack("i", fcntl.ioctl(fd, FIONREAD, bytes(4)))[0]
    return total


def await_read(shared):
    """Wait until the arena has read all a child wrote on stdout and stderr (the next child
    could tell how much of it waits in the pipes). The arena reads them once it has sent the
    next request (it waits for the zygote's word first), so: wait for that (no CPU), then
    for the pipes to empty. False if they do not within READ_WAIT_S."""
    outputs = [fd for fd in shared.pipes() if fd != 0]
    if not unread(outputs):
        return True
    select.select([0], [], [])
    deadline = time.monotonic() + READ_WAIT_S
    while unread(outputs):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0002)
    return True


# ---- the zygote's children, each with a keeper -------------------------------------------
class Child:
    """One of the zygote's children (the hello's, or a match's), and its *keeper*, which
    the zygote forks and which forks the child: the keeper waits for the child's end, tells
    the zygote the child's exit status and CPU time, puts back what the child shares with
    the next one (:class:`Shared`), empties /tmp (in the sandbox: gives the child a /tmp of
    its own before it forks it, which ends with the keeper), waits until the arena has read
    what the child wrote, and exits; the zygote lets the next child go once it is gone. The
    keeper, not the zygote, is the child's parent, so that the zygote, whose children the
    kernel does not keep (it ignores SIGCHLD), never counts the child's CPU time or page
    faults as its children's (/proc/1/stat, which every child can read: a child could leave
    a number there by touching pages), nor grows with the work of emptying what it left. A
    child that ``waits`` (a spare, forked ahead) reads its first match only once told to go
    (:meth:`go`: the last child and its keeper are gone)."""

    def __init__(self, part, apply_filter, shared, *, waits, hello=False):
        go_r, self.go_fd = os.pipe() if waits else (None, None)
        report_r, report_w = os.pipe()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the keeper
            status = 70
            try:
                keep = sorted({*shared.inherited, report_w, *([go_r] if waits else [])})
                for low, high in zip([-1, *keep], [*keep, 1 << 20], strict=True):
                    if low + 1 < high:  # (an empty range would close them all)
                        os.closerange(low + 1, high)  # the control pipe, the others' pipes
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                status = keeper(part, go_r, report_w, apply_filter, shared, hello)
            except BaseException:  # noqa: BLE001 - whatever happens, the keeper ends here
                traceback.print_exc()
            finally:
                with contextlib.suppress(BaseException):
                    sys.stderr.flush()
                os._exit(status)
        os.close(report_w)
        if go_r is not None:
            os.close(go_r)
        self.keeper, self.report_fd = pid, report_r
        # the child's pid, once the keeper has forked it: so the processes' numbers follow
        # one order (keeper, child, the next keeper...)
        said = self._read(4)
        self.pid = int.from_bytes(said, "little") if len(said) == 4 else 0

    def go(self):
        """Let it take its match: False if it was gone before it was told (nothing of the
        bot's ran in it: the caller forks another)."""
        try:
            told = os.write(self.go_fd, b".") == 1
        except OSError:
            told = False
        self._close_go()
        if not told:
            self.discard()
        return told

    def _close_go(self):
        fd, self.go_fd = self.go_fd, None
        if fd is not None:
            os.close(fd)

    def _read(self, size):
        data = b""
        while len(data) < size:
            chunk = os.read(self.report_fd, size - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def result(self):
        """Wait until the child has ended: (its exit status as a shell gives it, the CPU
        seconds it used), as its keeper tells. If the keeper ended without telling (killed),
        the child is ended too, and its status is a SIGKILL's."""
        said = self._read(REPORT.size)
        if len(said) < REPORT.size:
            if self.pid:
                with contextlib.suppress(OSError):
                    os.kill(self.pid, signal.SIGKILL)
            return -signal.SIGKILL, 0.0
        return REPORT.unpack(said)

    def gone(self):
        """Wait until the keeper is gone (once the arena has read what the child wrote last,
        and the shared state is back as it was: see :func:`keeper`); False if the keeper
        could not put it all back."""
        rest = self._read(1)
        os.close(self.report_fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.keeper, 0)  # (SIGCHLD ignored: returns once it is gone)
        while os.path.exists(f"/proc/{self.keeper}"):  # (its last moment: be sure)
            time.sleep(0.0001)
        return rest == b""

    def discard(self):
        """End it unused (a spare told nothing reads the end of its pipe and ends)."""
        self._close_go()


#: a keeper's word on its child: exit status, CPU seconds
REPORT = struct.Struct("<id")


def keeper(part, go_r, report, apply_filter, shared, hello):
    """A keeper's part (see :class:`Child`): in the sandbox, give the child a /tmp of its
    own (:meth:`Shared.own_tmp`; if it cannot, the keeper ends without forking it); fork the
    child, which loads the process filter before anything else and runs ``part``; wait for
    its end; tell the zygote on ``report`` (the child's pid at once, then its exit status and
    CPU time); put back what it may have changed of what it shares with the next child (``!``
    on ``report`` if something could not be)."""
    if shared.private is not None:
        try:
            shared.own_tmp()
        except OSError as exc:
            print(
                f"the bot's host stopped: it could not give the bot a /tmp of its own "
                f"({describe(exc)})",
                file=sys.stderr,
            )
            return 3
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        status = 70
        try:
            os.close(report)
            if apply_filter is not None:
                apply_filter()
            if "random" in sys.modules:  # warmed in the zygote: each match draws its own seed
                sys.modules["random"].seed()
            status = part(go_r)
        except BaseException:  # noqa: BLE001 - whatever happens, the child ends here
            traceback.print_exc()
        finally:
            with contextlib.suppress(BaseException):
                sys.stderr.flush()
            os._exit(status)
    if go_r is not None:
        os.close(go_r)
    os.write(report, pid.to_bytes(4, "little"))
    status, cpu = ended(pid)
    if status == MATCH_OVER and not hello:  # (after the hello, the arena may write at once)
        drain_stdin()
    try:
        os.write(report, REPORT.pack(status, cpu))
    except BrokenPipeError:  # the zygote is gone (it ended, and let its spare go): no one to tell
        return 0
    if status != MATCH_OVER:
        return 0
    # while the zygote tells the arena, which then sends the next match: the next child
    # reads it only once this is done and the keeper gone
    try:
        shared.restore_fds(sizes=False)
        if shared.tmp is not None and shared.private is None:
            shared.restore_tmp()  # (a /tmp of its own ends with this process)
        if not (await_read(shared) and shared.restore_fds()):
            raise RuntimeError("its pipes could not be put back as they were")
    except (OSError, RuntimeError) as exc:
        print(f"the bot's host stopped: {describe(exc)}", file=sys.stderr)
        os.write(report, b"!")
    return 0


def ended(pid):
    """Wait until the child ``pid`` has ended: (its exit status as a shell gives it, the CPU
    seconds it used)."""
    while True:
        _, status, usage = os.wait4(pid, os.WUNTRACED | os.WCONTINUED)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def zygote(path, out, control, process_filter, guard, tmp):
    """Fork a child for the hello, then one for the matches until each ``renew`` (see the
    module's docstring), each under a keeper of its own (:class:`Child`). Each child is
    forked ahead, while the one before it plays, and loads the bot as soon as that one is
    gone; it waits until its first match begins, so that its start costs the match little.
    Returns the exit status: 0 when told to quit, else the status of the child that ended
    otherwise than expected (a signal as 128 + its number, as a shell says it)."""
    apply_filter = load_filter(process_filter) if process_filter else None
    if control is not None:
        _, call = prctl()
        call(PR_SET_DUMPABLE, 0)
    code = compile_bot(path)
    if isinstance(code, type(warm.__code__)):
        warm(code)
    # The bot's module, made once (none of its code runs): each child runs the bot's code
    # in its own copy. Made here, the import system's first-use work is done once, not in
    # every child (about 0.6 ms of CPU each).
    made = module_for(path)
    # before any child runs: what each keeper puts back
    # in the sandbox (a process filter), each child gets a /tmp of its own (Shared)
    shared = Shared(tmp, (0, 1, 2, out.fileno()), private=process_filter is not None)
    # the keepers are not kept once they end: their children's counts never reach this one
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    # What is here now lasts: the children's garbage collections need not visit (and so
    # copy the pages of) any of it.
    gc.freeze()

    def spare():
        def part(go_r):
            if os.read(go_r, 1) != b".":
                return FINISHED  # the zygote is gone, or let this one go
            os.close(go_r)
            return match(path, code, out, guard, made)

        return Child(part, apply_filter, shared, waits=True)

    first = Child(
        lambda _: hello(path, code, out, guard, made), apply_filter, shared, waits=False, hello=True
    )
    spares = [spare()]
    try:
        return serve_matches(first, spares, spare, control)
    finally:
        for left in spares:
            left.discard()


def serve_matches(current, spares, spare, control):
    """The zygote's loop: each child ended, the next one let go (see :func:`zygote`).
    ``spares`` holds the child forked ahead, if any (the caller ends it); ``spare()`` forks
    one."""
    exited = 0
    while True:
        status, cpu = current.result()
        if status == FINISHED:
            return 0
        if status != MATCH_OVER:
            return 128 - status if status < 0 else status
        exited += 1
        if control is not None:
            os.write(
                control, (json.dumps({"exited": exited, "cpu": round(cpu, 4)}) + "\n").encode()
            )
        if not current.gone():
            return 3
        if not spares:
            spares.append(spare())
        tries = 1
        while not spares[0].go():
            if tries == SPARE_TRIES:  # each one dies unbidden: the host cannot go on
                print("the bot's host stopped: no match's process would start", file=sys.stderr)
                return 3
            tries += 1
            spares[0].result()
            spares[0].gone()
            spares[0] = spare()
        current = spares.pop()
        # the match after it: forked now, while nothing of this match has been read
        spares.append(spare())


def main(argv):
    if hasattr(signal, "SIGXCPU"):
        signal.signal(signal.SIGXCPU, on_cpu_limit)
    # SIGINT ends the process as SIGTERM does, rather than raise KeyboardInterrupt wherever
    # the host or the bot is: only an operator or a service manager sends it (the sandbox
    # lets no bot), and its death by it is then the platform's trouble, never "the bot
    # exited with status 70" (a bot may still set a handler of its own)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # The protocol owns the real stdout; whatever the bot prints goes to stderr (its log).
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    args = argv[1:]
    options = {"--control": None, "--process-filter": None, "--wipe": None}
    while len(args) > 1 and args[0] in options:
        options[args[0]], args = args[1], args[2:]
    control = options["--control"]
    if len(args) != 1 or (control is not None and not control.isdigit()):
        send(out, {"type": "fatal", "error": USAGE})
        return 2
    guarded = os.environ.pop(FILE_GUARD_ENV, None)
    guard = (lambda: guard_files(guarded)) if guarded else None
    try:
        control = int(control) if control is not None else None
        return zygote(args[0], out, control, options["--process-filter"], guard, options["--wipe"])
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"the bot's host stopped: {describe(exc)}", file=sys.stderr)
        return 3


USAGE = "usage: python_host.py [--control FD] [--process-filter FILE] [--wipe DIR] BOT_FILE"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
