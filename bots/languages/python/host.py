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
new instance of the bot's class, until ``renew`` (or ``quit``). Nothing the bot's code did in
one child (memory, threads, files in the folder ``--wipe`` names, the sandbox's /tmp, which
the zygote empties after each child) reaches the next. With ``--control FD`` the zygote
writes one line on that descriptor after each child is gone (``{"exited": N, "cpu":
SECONDS}``): after a ``renew`` the controller sends the next match only after it, so that a
child that lingers never sees it; the child does not have the descriptor, and the zygote is
not dumpable, so that no child can reach it through /proc. With ``--process-filter FILE``
(in the sandbox) each child loads that seccomp filter (classic BPF) before the bot's code
runs: the bot cannot create processes, though the zygote can, nor act on another process
(signals, priority, limits, scheduling: bots/sandbox/seccomp.py), so a child can leave no
mark on the spare waiting beside it or on the zygote whose settings later children inherit.
Between matches the controller stops the sandbox's processes (SIGSTOP), so that no code of
the bot runs there (bots/running/process.py, BotProcess.pause).
"""

import contextlib
import errno
import gc
import importlib
import importlib.util
import json
import os
import re
import signal
import sys
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


def send(out, message):
    out.write(ENCODE(message) + "\n")
    out.flush()


def describe(exc):
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


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
        raise RuntimeError(f"failed at import: {describe(exc)}") from None
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


def serve(cls, requests, out):
    """Play one match: from its ``begin`` to its ``end`` (MATCH_OVER), or until ``quit`` or
    the end of stdin (FINISHED)."""
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
                failed = tell(bot, message)
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
        except Exception as exc:  # noqa: BLE001 - every bot failure is reported, not fatal
            traceback.print_exc()
            reply = {"type": "error", "error": describe(exc)}
        if value_json is not None:
            out.write(f'{{"type":"return","value":{value_json},"id":{ENCODE(rid)}}}\n')
            out.flush()
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


def tell(bot, message):
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
        return failure | {"error": describe(exc)}
    return None


def guard_files(root):
    """Outside the sandbox (``arena --no-sandbox``), fail the file accesses the sandbox would
    fail, with its errors: reading or listing anything but what the sandbox mounts (the
    standard library and /usr/lib, /proc, /dev, the private folder ``root`` holding the bot)
    and the folders that lead there (FileNotFoundError, as for a path the sandbox does not
    have); writing anywhere but ``root/tmp`` and /dev (read-only file system). An audit hook
    sees Python's own opens (open, os.open, os.listdir...), not C code's, and it is no
    security boundary: it only keeps a bot from working here and failing there."""

    def resolve(path):
        return os.path.realpath(os.path.abspath(os.fsdecode(path)))

    def within(path, folders):
        return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)

    def leads_to(path, folders):  # "/" and "/usr" are there in the sandbox too
        return any(f.startswith(path.rstrip(os.sep) + os.sep) for f in folders)

    mounted = ["/usr/lib", "/usr/lib64", "/proc", "/dev", "/etc/ld.so.cache"]
    readable = [resolve(p) for p in (*mounted, *sys.path, sys.executable, root)]
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
            if not write and (within(path, readable) or leads_to(path, readable)):
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


def hello(path, code, out, guard, made=None):
    """The hello child's part: load the bot, say hello (or why it cannot load)."""
    if guard is not None:
        guard()
    try:
        cls, name = load(path, code, made)
    except RuntimeError as exc:
        send(out, {"type": "fatal", "error": str(exc)})
        return 1
    send(out, hello_message(cls, name))
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
        send(out, {"type": "error", "kind": "load", "error": str(exc), "id": rid})
        return 1
    try:
        while True:
            status = serve(loaded[0], requests, out)
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


class Spare:
    """The next child, forked ahead while the current one plays, with the bot's module made
    (not run: see :func:`zygote`): it waits on ``go`` before it reads a line of its first
    match or runs one of the bot's (the zygote writes it once the last child is gone and
    /tmp is empty). The rules each child loads (--process-filter) keep every
    child from reaching another process: no signal, priority, limit or scheduling change
    but its own, no thread (docs/sandbox.md), so nothing of the match being played can
    reach it while it waits. Its bot starts when its first match does."""

    def __init__(self, path, code, out, control, apply_filter, guard, made):
        go_r, self.go_fd = os.pipe()

        def part():
            os.close(self.go_fd)
            if os.read(go_r, 1) != b".":
                return FINISHED  # the zygote is gone, or let this one go
            os.close(go_r)
            return match(path, code, out, guard, made)

        self.pid = spawn(part, control, apply_filter)
        os.close(go_r)

    def go(self):
        """Let it take its match: False if it was gone before it was told (nothing of the
        bot's ran in it: the caller forks another)."""
        try:
            told = os.write(self.go_fd, b".") == 1
        except OSError:
            told = False
        self._close()
        if not told:
            self.discard()
        return told

    def _close(self):
        fd, self.go_fd = self.go_fd, None
        if fd is not None:
            os.close(fd)

    def discard(self):
        """End it unused, and wait until it is gone."""
        self._close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            ended(self.pid)


def spawn(part, control, apply_filter):
    """Fork a child that runs ``part()`` and exits with what it returns; the child closes
    the control pipe and loads the process filter before anything else."""
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    status = 70
    try:
        if control is not None:
            os.close(control)
        if apply_filter is not None:
            apply_filter()
        if "random" in sys.modules:  # warmed in the zygote: each match draws its own seed
            sys.modules["random"].seed()
        status = part()
    except BaseException:  # noqa: BLE001 - whatever happens, the child ends here
        traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            sys.stderr.flush()
        os._exit(status)


def ended(pid):
    """Wait until the child ``pid`` has ended: (its exit status as a shell gives it, the
    CPU seconds it used)."""
    while True:
        _, status, usage = os.wait4(pid, os.WUNTRACED | os.WCONTINUED)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def zygote(path, out, control, process_filter, guard, tmp):
    """Fork a child for the hello, then one for the matches until each ``renew`` (see the
    module's docstring). Each child is forked ahead, while the one before it plays, and
    loads the bot as soon as that one is gone; it waits until its first match begins, so
    that its start costs the match little. Returns the exit status: 0 when told to quit, else
    the status of the child that ended otherwise than expected (a signal as 128 + its
    number, as a shell says it)."""
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
    # What is here now lasts: the children's garbage collections need not visit (and so
    # copy the pages of) any of it.
    gc.freeze()
    pid = spawn(lambda: hello(path, code, out, guard, made), control, apply_filter)
    spares = [Spare(path, code, out, control, apply_filter, guard, made)]
    try:
        return serve_matches(pid, spares, path, code, out, control, apply_filter, guard, tmp, made)
    finally:
        for spare in spares:
            spare.discard()


def serve_matches(pid, spares, path, code, out, control, apply_filter, guard, tmp, made):
    """The zygote's loop: each child ended, the next one let go (see :func:`zygote`).
    ``spares`` holds the child forked ahead, if any (the caller ends it)."""
    exited = 0
    while True:
        status, cpu = ended(pid)
        if status == FINISHED:
            return 0
        if status != MATCH_OVER:
            return 128 - status if status < 0 else status
        if tmp is not None:
            wipe(tmp)
        exited += 1
        if control is not None:
            os.write(
                control, (json.dumps({"exited": exited, "cpu": round(cpu, 4)}) + "\n").encode()
            )
        if not spares:
            spares.append(Spare(path, code, out, control, apply_filter, guard, made))
        tries = 1
        while not spares[0].go():
            if tries == SPARE_TRIES:  # each one dies unbidden: the host cannot go on
                print("the bot's host stopped: no match's process would start", file=sys.stderr)
                return 3
            tries += 1
            spares[0] = Spare(path, code, out, control, apply_filter, guard, made)
        pid = spares.pop().pid
        # the match after it: forked now, while nothing of this match has been read
        spares.append(Spare(path, code, out, control, apply_filter, guard, made))


def main(argv):
    if hasattr(signal, "SIGXCPU"):
        signal.signal(signal.SIGXCPU, on_cpu_limit)
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
