"""Bot processes: one child process per bot, speaking the JSON-lines protocol.

:class:`BotProcess` owns the process (start, bounded reads, stderr capture, kill of the
whole process group). :class:`ProcessAgent` makes it an Agent for the match runner.
The command line comes from a launcher (see ``bots.launch``), so the sandbox slots in
without touching this module.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.engine.agents import Agent, AgentFault, BotCall, SeatInfo
from games.engine.game import Prompt

PROTOCOL = 1
#: longest line a bot may send (bytes); longer is an "output" fault
MAX_LINE = 64 * 1024
#: how much of a bot's stderr is kept in memory for its owner (the tail)
STDERR_TAIL = 16 * 1024


class BotStartError(Exception):
    """A bot that cannot even start: the message names the problem in one line."""


@dataclass(frozen=True)
class Launch:
    """What to run: the command line, its environment and working folder."""

    argv: Sequence[str]
    env: dict[str, str]
    cwd: str | None = None
    #: extra clean-up when the process is gone (the sandbox removes its folders)
    cleanup: Any = None


@dataclass
class Hello:
    name: str
    language: str
    methods: list[str] = field(default_factory=list)


class StderrSink:
    """Drains a bot's stderr so it can never block on a full pipe; keeps the tail in memory
    and, if given a log file, the first ``log_limit`` bytes there."""

    def __init__(self, log_path: Path | None, log_limit: int = 1 << 20) -> None:
        self.total = 0
        self._tail = bytearray()
        self._log = log_path.open("ab") if log_path else None
        self._log_limit = log_limit
        self._logged = 0
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            self.total += len(chunk)
            self._tail += chunk
            del self._tail[:-STDERR_TAIL]
            if self._log is not None and self._logged < self._log_limit:
                part = chunk[: self._log_limit - self._logged]
                self._log.write(part)
                self._logged += len(part)
                if self._logged >= self._log_limit:
                    self._log.write(b"\n[stderr log truncated here]\n")
                self._log.flush()

    def mark(self, text: str) -> None:
        """A line of context in the log (match boundaries)."""
        if self._log is not None and self._logged < self._log_limit:
            with self._lock:
                self._log.write(text.encode() + b"\n")
                self._log.flush()

    def tail(self, limit: int = STDERR_TAIL) -> str:
        with self._lock:
            return bytes(self._tail[-limit:]).decode("utf-8", "replace")

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


class BotProcess:
    """One running bot. Restartable: after a fault the process is killed and the next
    match starts a new one."""

    def __init__(self, launch: Launch, *, label: str, stderr_log: Path | None = None) -> None:
        self.launch = launch
        self.label = label
        self.stderr = StderrSink(stderr_log)
        self.hello: Hello | None = None
        self.starts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[tuple[float, bytes | None]] = queue.Queue()
        self._next_id = 0

    # ---- life cycle ---------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, timeout: float) -> Hello:
        """Start the process and read its hello. Raises AgentFault("startup", ...)."""
        self.kill()
        self._lines = queue.Queue()
        self.starts += 1
        try:
            self._proc = subprocess.Popen(
                list(self.launch.argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.launch.env,
                cwd=self.launch.cwd,
                start_new_session=True,  # its own process group: killed as a whole
            )
        except OSError as exc:
            raise AgentFault("startup", f"cannot start {self.launch.argv[0]}: {exc}") from None
        threading.Thread(target=self._read_stdout, args=(self._proc,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self._proc,), daemon=True).start()
        _, message = self._read(timeout, "start-up")
        if message.get("type") == "fatal":
            self.kill()
            raise AgentFault("startup", str(message.get("error", "the bot could not start")))
        if message.get("type") != "hello" or message.get("protocol") != PROTOCOL:
            self.kill()
            raise AgentFault("protocol", f"expected a hello line, got {_short(message)}")
        self.hello = Hello(
            name=str(message.get("name") or "bot"),
            language=str(message.get("language") or "?"),
            methods=[str(m) for m in message.get("methods", [])],
        )
        return self.hello

    def kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                proc.stdin.write(b'{"type":"quit"}\n')  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.2)
        # The group goes even if the bot's main process exited: children it left behind too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]
        if self.launch.cleanup is not None:
            self.launch.cleanup()

    def close(self) -> None:
        self.kill()
        self.stderr.close()

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- requests -----------------------------------------------------------------------
    def request(self, message: dict[str, Any]) -> int:
        """Write one request; returns its id. Raises AgentFault("crash") if the pipe broke."""
        if not self.alive:
            raise AgentFault("crash", self._death_reason())
        self._next_id += 1
        line = json.dumps({"id": self._next_id, **message}, separators=(",", ":")) + "\n"
        try:
            self._proc.stdin.write(line.encode())  # type: ignore[union-attr]
            self._proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError):
            raise AgentFault("crash", self._death_reason()) from None
        return self._next_id

    def reply(self, request_id: int, timeout: float, what: str) -> tuple[float, dict[str, Any]]:
        """The reply to ``request_id``: (arrival time, message). Raises AgentFault."""
        arrived, message = self._read(timeout, what)
        if message.get("id") != request_id:
            self.kill()
            raise AgentFault("protocol", f"reply to {what} has the wrong id: {_short(message)}")
        return arrived, message

    def _read(self, timeout: float, what: str) -> tuple[float, dict[str, Any]]:
        try:
            arrived, line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            self.kill()
            raise AgentFault("timeout", f"no answer to {what} within {timeout:.2f} s") from None
        if line is None:
            self._lines.put((arrived, None))  # stays closed for later reads
            reason = self._death_reason()
            self.kill()
            raise AgentFault("crash", f"{reason} during {what}")
        if len(line) > MAX_LINE:
            self.kill()
            raise AgentFault("output", f"a line of over {MAX_LINE} bytes during {what}")
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            self.kill()
            raise AgentFault("protocol", f"not a JSON line during {what}: {_short(line)}") from None
        if not isinstance(message, dict):
            self.kill()
            raise AgentFault("protocol", f"not a JSON object during {what}: {_short(line)}")
        return arrived, message

    def _death_reason(self) -> str:
        proc = self._proc
        code = proc.poll() if proc is not None else None
        if code is None and proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = proc.wait(timeout=0.5)
        if code is None:
            return "the bot closed its output"
        if code < 0:
            try:
                return f"the bot was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"the bot was killed by signal {-code}"
        return f"the bot exited with status {code}"

    # ---- reader threads -----------------------------------------------------------------
    def _read_stdout(self, proc: subprocess.Popen[bytes]) -> None:
        stream = proc.stdout
        assert stream is not None
        lines = self._lines
        try:
            while True:
                line = stream.readline(MAX_LINE + 1)
                if not line:
                    break
                lines.put((time.monotonic(), line))
                if len(line) > MAX_LINE:
                    break  # the reader hears of the oversized line and kills the bot
        except (OSError, ValueError):
            pass
        lines.put((time.monotonic(), None))

    def _read_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        stream = proc.stderr
        assert stream is not None
        try:
            while chunk := stream.read1(65536):  # type: ignore[attr-defined]
                self.stderr.feed(chunk)
        except (OSError, ValueError):
            pass


def _short(value: object, limit: int = 120) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else repr(value)
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ProcessAgent(Agent):
    """A seat played by a bot process. One process serves consecutive matches; each match
    begins with a fresh bot instance (the host's ``begin``)."""

    def __init__(self, process: BotProcess, bot_call: BotCall, *, startup_timeout: float = 10.0):
        self.process = process
        self.bot_call = bot_call
        self.startup_timeout = startup_timeout
        self.name = process.hello.name if process.hello else process.label
        self._pending: tuple[int, str] | None = None

    def begin(self, info: SeatInfo, timeout: float) -> None:
        self.process.stderr.mark(f"--- match start: {info.game}, seat {info.seat} ---")
        if not self.process.alive:
            self.process.start(timeout)
        rid = self.process.request(
            {"type": "begin", "game": info.game, "seat": info.seat, "seats": info.num_seats}
        )
        self._check(*self.process.reply(rid, timeout, "start of match"), what="start of match")

    def send(self, prompt: Prompt) -> None:
        method, args = self.bot_call(prompt)
        rid = self.process.request({"type": "call", "method": method, "args": args})
        self._pending = (rid, method)

    def receive(self, timeout: float) -> Any:
        assert self._pending is not None, "receive() without send()"
        rid, method = self._pending
        self._pending = None
        arrived, message = self.process.reply(rid, timeout, method)
        self.answered_at = arrived
        return self._check(arrived, message, what=method)

    def end(self, result: dict[str, Any]) -> None:
        if self.process.alive:
            try:
                rid = self.process.request({"type": "end"})
                self.process.reply(rid, 1.0, "end of match")
            except AgentFault:
                self.process.kill()

    def _check(self, arrived: float, message: dict[str, Any], what: str) -> Any:
        kind = message.get("type")
        if kind == "error":
            raise AgentFault("exception", f"{what} raised {message.get('error', '?')}")
        if kind == "return":
            return message.get("value")
        if kind == "ok":
            return None
        self.process.kill()
        raise AgentFault("protocol", f"unexpected reply to {what}: {_short(message)}")
