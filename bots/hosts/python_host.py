"""Card Arena's Python bot host (protocol version 1).

Runs one bot file in its own process and answers the JSON-lines protocol on stdin/stdout,
as described in docs/bot-protocol.md. It needs the standard library only and nothing of the
project, because it runs inside the sandbox with nothing but the bot file next to it.

    python3 python_host.py /path/to/bot.py
"""

import importlib.util
import json
import os
import re
import signal
import sys
import traceback

PROTOCOL = 1
MAX_REQUEST = 1 << 20


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
    try:
        cls, name = load(argv[1])
    except RuntimeError as exc:
        send(out, {"type": "fatal", "error": str(exc)})
        return 1
    requests = (line for line in sys.stdin.buffer if line.strip())
    return serve(cls, name, requests, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
