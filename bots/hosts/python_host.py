"""Card Arena's Python bot host (protocol version 1).

Runs one bot file in its own process and answers the JSON-lines protocol on stdin/stdout,
as described in docs/bot-protocol.md. It needs the standard library only and nothing of the
project, because it runs inside the sandbox with nothing but the bot file next to it.

    python3 python_host.py /path/to/bot.py
"""

import errno
import importlib.util
import json
import os
import re
import signal
import sys
import traceback

PROTOCOL = 1
MAX_REQUEST = 1 << 20
#: set by ``arena --no-sandbox`` (bots.launch.debug_launch): the private folder the bot runs in
FILE_GUARD_ENV = "CARD_ARENA_FILE_GUARD"
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: audit events that name paths the guard checks -> how many of their first arguments are paths
READ_EVENTS = {"open": 1, "os.listdir": 1, "os.scandir": 1}
WRITE_EVENTS = {"os.mkdir": 1, "os.remove": 1, "os.rmdir": 1, "os.truncate": 1,
                "os.rename": 2, "os.link": 2, "os.symlink": 2}  # fmt: skip


def send(out, message):
    out.write(json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n")
    out.flush()


def describe(exc):
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load(path):
    """Import the bot file; return (Bot class, name) or raise RuntimeError with a reason."""
    if not os.path.isfile(path):
        raise RuntimeError(f"no such file: {path}")
    stem = os.path.splitext(os.path.basename(path))[0]
    module_name = "bot_" + re.sub(r"\W", "_", stem)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    # beside the bot: its toolkit modules (movecheck.py); last, so that a bot file named
    # like a standard module (random.py) does not shadow it for its own imports
    sys.path.append(os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import is a failure too
        traceback.print_exc()
        raise RuntimeError(f"failed at import: {describe(exc)}") from None
    cls = getattr(module, "Bot", None)
    if not isinstance(cls, type):
        raise RuntimeError("no top-level class Bot")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name.strip():
        name = stem
    return cls, name.strip()[:64]


def serve(cls, name, requests, out):
    methods = sorted(m for m in dir(cls) if not m.startswith("_") and callable(getattr(cls, m)))
    send(
        out,
        {
            "type": "hello",
            "protocol": PROTOCOL,
            "language": "python",
            "name": name,
            "methods": methods,
        },
    )
    bot = None
    # a notice ("tell") is answered only if it fails, by the next reply instead of that
    # request's own; the notices after it are not run
    failed = None
    for raw in requests:
        if len(raw) > MAX_REQUEST:
            print("request too long", file=sys.stderr)
            return 2
        message = json.loads(raw)
        kind, rid = message.get("type"), message.get("id")
        if kind == "quit":
            return 0
        if kind == "begin":
            failed = None  # a new match: nothing of the last one is reported in it
        elif kind == "tell":
            if failed is None:
                failed = tell(bot, message)
            continue
        elif failed is not None:
            reply, failed = failed, None
            if kind == "end":
                bot = None
            reply["id"] = rid
            send(out, reply)
            continue
        try:
            if kind == "begin":
                bot = cls()
                reply = {"type": "ok"}
            elif kind == "end":
                bot = None
                times = os.times()
                reply = {"type": "ok", "cpu": round(times.user + times.system, 3)}
            elif kind == "call":
                method = message["method"]
                if bot is None:
                    raise RuntimeError("call before begin")
                if method.startswith("_"):
                    raise AttributeError(f"{method} is not a bot method")
                value = getattr(bot, method)(*message.get("args", []))
                try:
                    json.dumps(value, allow_nan=False)
                except (TypeError, ValueError):
                    raise TypeError(
                        f"{method} returned {type(value).__name__} {value!r:.80}, "
                        "which is not plain JSON data"
                    ) from None
                reply = {"type": "return", "value": value}
            else:
                raise RuntimeError(f"unknown request type {kind!r}")
        except MemoryError:
            bot = None  # let go of what the bot holds, so that the reply can be written
            reply = {"type": "error", "error": "MemoryError", "kind": "memory"}
            traceback.print_exc()
        except Exception as exc:  # noqa: BLE001 - every bot failure is reported, not fatal
            traceback.print_exc()
            reply = {"type": "error", "error": describe(exc)}
        reply["id"] = rid
        send(out, reply)
    return 0


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
    # RLIMIT_CPU's soft limit. In the sandbox the host is its PID namespace's init, which
    # ignores a signal left at its default action, so it must act on it itself.
    os.write(2, b"\nCPU time limit exceeded\n")
    os._exit(128 + signum)


def main(argv):
    if hasattr(signal, "SIGXCPU"):
        signal.signal(signal.SIGXCPU, on_cpu_limit)
    # The protocol owns the real stdout; whatever the bot prints goes to stderr (its log).
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if len(argv) != 2:
        send(out, {"type": "fatal", "error": "usage: python_host.py BOT_FILE"})
        return 2
    guarded = os.environ.pop(FILE_GUARD_ENV, None)
    if guarded:
        guard_files(guarded)
    try:
        cls, name = load(argv[1])
    except RuntimeError as exc:
        send(out, {"type": "fatal", "error": str(exc)})
        return 1
    requests = (line for line in sys.stdin.buffer if line.strip())
    return serve(cls, name, requests, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
