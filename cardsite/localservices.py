"""Throwaway PostgreSQL and Redis servers on 127.0.0.1, for tests and local runs.

Standard library only, so that test fixtures can import it before anything else is set up,
and so that scripts can run it:

    python -m cardsite.localservices start [--dir DIR] [--state FILE] [--only postgres|redis]
    python -m cardsite.localservices stop [--state FILE]

``start`` prints ``export DATABASE_URL=... REDIS_URL=...`` lines for ``eval`` and writes what
it started to a state file; ``stop`` reads that file, stops the servers and removes their
folders. Progress and errors go to stderr.

From Python::

    with postgres_server(tmp_dir) as pg, redis_server(tmp_dir) as redis:
        os.environ["DATABASE_URL"] = pg.url  # superuser, so Django can create test databases
        os.environ["REDIS_URL"] = redis.url

PostgreSQL comes from Debian's packages (``/usr/lib/postgresql/*/bin``; ``PG_BIN`` overrides).
It refuses to run as root, so as root its folder belongs to the ``postgres`` system user and
its programs run through ``runuser -u postgres --``.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import pwd
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PG_SUPERUSER = "postgres"
PG_SYSTEM_USER = "postgres"
DEFAULT_DBNAME = "card_arena"
START_TIMEOUT = 30.0
START_ATTEMPTS = 3  # a free port can be taken by someone else before the server binds it
LOG_TAIL_LINES = 40


class ServiceError(RuntimeError):
    """A server could not be started or stopped; the message says why and shows its log."""


# --------------------------------------------------------------------------------------------
# helpers


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def log_tail(path: Path | str, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = Path(path).read_text(errors="replace")
    except OSError as exc:
        return f"(no log: {exc})"
    tail = text.splitlines()[-lines:]
    return "\n".join("    " + line for line in tail) if tail else "(log is empty)"


def _failure(what: str, detail: str, logfile: Path | str) -> ServiceError:
    name = os.path.basename(logfile)
    return ServiceError(f"{what}: {detail}\n  last lines of its {name}:\n{log_tail(logfile)}")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie has exited already; it only waits for its parent to collect it.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _pid_is(pid: int, program: str) -> bool:
    """True if pid is alive and runs ``program`` (guards against a recycled pid)."""
    if not _pid_alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return program.encode() in fh.read()
    except OSError:
        return True  # no /proc: trust the pid


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return True
        time.sleep(0.05)
    return not _pid_alive(pid)


def _run(cmd: list[str], what: str, logfile: Path, **kwargs) -> subprocess.CompletedProcess:
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
    except OSError as exc:
        raise _failure(what, f"could not run {cmd[0]}: {exc}", logfile) from exc
    if result.returncode != 0:
        output = (result.stdout + result.stderr).strip()
        raise _failure(what, f"{shlex.join(cmd)} exited {result.returncode}:\n{output}", logfile)
    return result


def _rmtree(path: str | None) -> None:
    if path:
        shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# PostgreSQL


def postgres_bindir() -> Path:
    """The folder with initdb, pg_ctl and pg_isready: PG_BIN, else the newest Debian one."""
    candidates: list[Path] = []
    if os.environ.get("PG_BIN"):
        candidates.append(Path(os.environ["PG_BIN"]))
    versions = glob.glob("/usr/lib/postgresql/*/bin")
    versions.sort(key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0)
    candidates.extend(Path(p) for p in reversed(versions))
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for candidate in candidates:
        if (candidate / "initdb").is_file() and (candidate / "pg_ctl").is_file():
            return candidate
    raise ServiceError(
        "PostgreSQL server programs (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin "
        "or on PATH: install Debian's postgresql package (scripts/setup does, as root) "
        "or set PG_BIN"
    )


def _ensure_system_user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    # The same user Debian's postgresql package would create.
    home = ["--home", "/var/lib/postgresql", "--shell", "/bin/bash"]
    commands = [
        ["adduser", "--system", "--group", "--quiet", "--no-create-home", *home, name],
        ["useradd", "--system", "--user-group", "--no-create-home", *home, name],
    ]
    for cmd in commands:
        if shutil.which(cmd[0]):
            subprocess.run(cmd, capture_output=True, check=False)
            with contextlib.suppress(KeyError):
                return pwd.getpwnam(name)
    raise ServiceError(f"could not create the system user {name!r} to run PostgreSQL as root")


def _can_traverse(path: Path, user: pwd.struct_passwd) -> bool:
    """Whether ``user`` may reach files inside ``path`` (search permission all the way)."""
    groups = set(os.getgrouplist(user.pw_name, user.pw_gid))
    for part in [path, *path.parents]:
        try:
            st = os.stat(part)
        except OSError:
            return False
        if st.st_uid == user.pw_uid:
            bit = stat.S_IXUSR
        elif st.st_gid in groups:
            bit = stat.S_IXGRP
        else:
            bit = stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


def _short_tmp() -> str:
    return "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()


@dataclass
class PostgresServer:
    """A running throwaway PostgreSQL; ``url`` is a superuser DATABASE_URL."""

    workdir: str  # everything of this server: data/, sock/, postgres.log
    port: int
    bindir: str
    run_as: str | None  # OS user that owns and runs it when we are root, else None
    dbname: str = DEFAULT_DBNAME
    user: str = PG_SUPERUSER
    pid: int | None = None
    stopped: bool = field(default=False, compare=False)

    @property
    def url(self) -> str:
        return f"postgres://{self.user}@127.0.0.1:{self.port}/{self.dbname}"

    @property
    def datadir(self) -> str:
        return os.path.join(self.workdir, "data")

    @property
    def sockdir(self) -> str:
        return os.path.join(self.workdir, "sock")

    @property
    def logfile(self) -> str:
        return os.path.join(self.workdir, "postgres.log")

    def _cmd(self, program: str, *args: str) -> list[str]:
        cmd = [os.path.join(self.bindir, program), *args]
        if self.run_as:
            return [shutil.which("runuser") or "/usr/sbin/runuser", "-u", self.run_as, "--", *cmd]
        return cmd

    def _pg(self, what: str, program: str, *args: str) -> subprocess.CompletedProcess:
        return _run(self._cmd(program, *args), what, Path(self.logfile), cwd=self.workdir)

    def is_ready(self) -> bool:
        # Over TCP, as clients will connect; pg_isready needs no particular OS user.
        cmd = [os.path.join(self.bindir, "pg_isready"), "-q", "-h", "127.0.0.1"]
        cmd += ["-p", str(self.port), "-U", self.user, "-d", "postgres", "-t", "2"]
        return subprocess.run(cmd, capture_output=True, check=False).returncode == 0

    def pause(self) -> None:
        """Shut the server down as an administrator would (clients get AdminShutdown), keeping
        its data: :meth:`resume` starts it again on the same port (for outage tests)."""
        self._pg("PostgreSQL did not stop", "pg_ctl", "-D", self.datadir, "-m", "fast", "-w",
                 "stop")  # fmt: skip
        self.pid = None

    def resume(self, timeout: float = START_TIMEOUT) -> None:
        _run_postgres(self, timeout)

    def stop(self) -> None:
        """Stop the server and remove its folder. Safe to call more than once."""
        if self.stopped:
            return
        self.stopped = True
        try:
            if os.path.isdir(self.datadir):
                result = subprocess.run(
                    self._cmd(
                        "pg_ctl", "-D", self.datadir, "-m", "immediate", "-w", "-t", "20", "stop"
                    ),
                    cwd=self.workdir,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if result.returncode != 0 and self.pid and _pid_is(self.pid, "postgres"):
                    os.kill(self.pid, signal.SIGQUIT)
                    if not _wait_gone(self.pid, 10):
                        os.kill(self.pid, signal.SIGKILL)
                        _wait_gone(self.pid, 5)
            elif self.pid and _pid_is(self.pid, "postgres"):
                os.kill(self.pid, signal.SIGKILL)
        finally:
            _rmtree(self.workdir)

    def to_dict(self) -> dict:
        fields = ("workdir", "port", "bindir", "run_as", "dbname", "user", "pid")
        return {name: getattr(self, name) for name in fields} | {"url": self.url}

    def __enter__(self) -> PostgresServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _postgres_workdir(base_dir: Path, run_as: pwd.struct_passwd | None) -> str:
    # Unix sockets allow ~107 bytes of path; and as root, the postgres user must reach it.
    def usable(path: Path) -> bool:
        too_long = len(str(path)) + len("/pg-xxxxxxxx/sock/.s.PGSQL.65535") > 100
        return not too_long and (run_as is None or _can_traverse(path, run_as))

    parent = base_dir if usable(base_dir) else Path(_short_tmp())
    workdir = tempfile.mkdtemp(prefix="pg-", dir=parent)
    os.mkdir(os.path.join(workdir, "sock"), 0o700)
    if run_as is not None:
        for path in (workdir, os.path.join(workdir, "sock")):
            os.chown(path, run_as.pw_uid, run_as.pw_gid)
    return workdir


def start_postgres(
    base_dir: str | os.PathLike[str] | None = None,
    *,
    dbname: str = DEFAULT_DBNAME,
    timeout: float = START_TIMEOUT,
) -> PostgresServer:
    """initdb a new cluster under ``base_dir`` (a temp folder if None) and start it.

    It listens on a free port of 127.0.0.1 and on a unix socket in its own folder, with fsync
    off, trusts local connections, and has a database ``dbname`` besides ``postgres``.
    """
    bindir = postgres_bindir()
    run_as = _ensure_system_user(PG_SYSTEM_USER) if os.geteuid() == 0 else None
    base = Path(base_dir) if base_dir is not None else Path(_short_tmp())
    base.mkdir(parents=True, exist_ok=True)
    last_error: ServiceError | None = None
    for _attempt in range(START_ATTEMPTS):
        server = PostgresServer(
            workdir=_postgres_workdir(base.resolve(), run_as),
            port=free_port(),
            bindir=str(bindir),
            run_as=run_as.pw_name if run_as else None,
            dbname=dbname,
        )
        try:
            _start_postgres(server, timeout)
            return server
        except ServiceError as exc:
            in_use = "already in use" in log_tail(server.logfile)
            server.stop()
            last_error = exc
            if not in_use:
                break
        except BaseException:
            server.stop()
            raise
    assert last_error is not None
    raise last_error


def _start_postgres(server: PostgresServer, timeout: float) -> None:
    what = "PostgreSQL did not start"
    initdb_args = ["-D", server.datadir, "-U", server.user, "-A", "trust", "-E", "UTF8"]
    initdb_args += ["--locale=C", "--no-sync", "--no-instructions"]
    server._pg(what, "initdb", *initdb_args)
    _run_postgres(server, timeout)
    if server.dbname != "postgres":
        where = ["-h", server.sockdir, "-p", str(server.port), "-U", server.user]
        server._pg(
            f"could not create database {server.dbname!r}", "createdb", *where, server.dbname
        )


def _run_postgres(server: PostgresServer, timeout: float) -> None:
    """Start the server on its data folder and wait until it takes connections."""
    what = "PostgreSQL did not start"
    options = [
        f"-p {server.port}",
        "-c listen_addresses=127.0.0.1",
        f"-c unix_socket_directories={server.sockdir}",
        "-c fsync=off",
        "-c synchronous_commit=off",
        "-c full_page_writes=off",
        # test runs side by side (scripts/run-tests --jobs) each hold pools, and so do the
        # sites and workers their tests start
        "-c max_connections=200",
        "-c shared_buffers=32MB",
    ]
    pg_ctl_args = ["-D", server.datadir, "-l", server.logfile, "-o", " ".join(options)]
    server._pg(what, "pg_ctl", *pg_ctl_args, "-w", "-t", str(int(timeout)), "start")
    server.pid = _postmaster_pid(server.datadir)
    deadline = time.monotonic() + timeout
    while not server.is_ready():
        if server.pid and not _pid_alive(server.pid):
            raise _failure(what, "the server exited", server.logfile)
        if time.monotonic() > deadline:
            raise _failure(
                what, f"not ready on 127.0.0.1:{server.port} in {timeout}s", server.logfile
            )
        time.sleep(0.1)


def _postmaster_pid(datadir: str) -> int | None:
    try:
        with open(os.path.join(datadir, "postmaster.pid")) as fh:
            return int(fh.readline().strip())
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def postgres_server(
    base_dir: str | os.PathLike[str] | None = None, **kwargs
) -> Iterator[PostgresServer]:
    server = start_postgres(base_dir, **kwargs)
    try:
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------------------------
# Redis


def redis_ping(port: int, host: str = "127.0.0.1", timeout: float = 1.0) -> bool:
    """True if a Redis server answers PING with PONG on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _redis_shutdown(port: int) -> None:
    with (
        contextlib.suppress(OSError),
        socket.create_connection(("127.0.0.1", port), timeout=2) as sock,
    ):
        sock.sendall(b"*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n")
        sock.recv(64)  # the server closes the connection as it exits


@dataclass
class RedisServer:
    """A running throwaway Redis with nothing saved to disk; ``url`` is a REDIS_URL."""

    workdir: str
    port: int
    pid: int
    _proc: subprocess.Popen | None = field(default=None, repr=False, compare=False)
    stopped: bool = field(default=False, compare=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def logfile(self) -> str:
        return os.path.join(self.workdir, "redis.log")

    def is_ready(self) -> bool:
        return redis_ping(self.port)

    def stop(self) -> None:
        """Stop the server and remove its folder. Safe to call more than once."""
        if self.stopped:
            return
        self.stopped = True
        try:
            if _pid_is(self.pid, "redis-server"):
                _redis_shutdown(self.port)
                if not _wait_gone(self.pid, 5) and _pid_is(self.pid, "redis-server"):
                    os.kill(self.pid, signal.SIGTERM)
                    if not _wait_gone(self.pid, 5):
                        os.kill(self.pid, signal.SIGKILL)
            if self._proc is not None:
                self._proc.wait(timeout=10)
        finally:
            _rmtree(self.workdir)

    def to_dict(self) -> dict:
        return {"workdir": self.workdir, "port": self.port, "pid": self.pid}

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_redis(
    base_dir: str | os.PathLike[str] | None = None, *, timeout: float = START_TIMEOUT
) -> RedisServer:
    """Start ``redis-server`` on a free port of 127.0.0.1, with no persistence."""
    program = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
    )
    if program is None:
        raise ServiceError(
            "redis-server not found: install Debian's redis-server package "
            "(scripts/setup does, as root)"
        )
    base = Path(base_dir) if base_dir is not None else Path(_short_tmp())
    base.mkdir(parents=True, exist_ok=True)
    last_error: ServiceError | None = None
    for _attempt in range(START_ATTEMPTS):
        workdir = tempfile.mkdtemp(prefix="redis-", dir=base)
        port = free_port()
        try:
            return _start_redis(program, workdir, port, timeout)
        except ServiceError as exc:
            in_use = "in use" in log_tail(os.path.join(workdir, "redis.log"))
            _rmtree(workdir)
            last_error = exc
            if not in_use:
                break
    assert last_error is not None
    raise last_error


def _start_redis(program: str, workdir: str, port: int, timeout: float) -> RedisServer:
    logfile = os.path.join(workdir, "redis.log")
    cmd = [program, "--port", str(port), "--bind", "127.0.0.1", "--protected-mode", "yes"]
    cmd += ["--save", "", "--appendonly", "no", "--dir", workdir, "--daemonize", "no"]
    # two databases for each test process of a parallel run (tests/halves.py)
    cmd += ["--databases", "64"]
    with open(logfile, "ab") as log:
        # A session of its own: Ctrl-C in the terminal does not reach it; stop() does.
        proc = subprocess.Popen(
            cmd,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = RedisServer(workdir=workdir, port=port, pid=proc.pid, _proc=proc)
    what = "Redis did not start"
    deadline = time.monotonic() + timeout
    try:
        while not server.is_ready():
            if proc.poll() is not None:
                raise _failure(what, f"redis-server exited {proc.returncode}", logfile)
            if time.monotonic() > deadline:
                raise _failure(what, f"no PONG on 127.0.0.1:{port} in {timeout}s", logfile)
            time.sleep(0.05)
    except BaseException:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        raise
    return server


@contextlib.contextmanager
def redis_server(base_dir: str | os.PathLike[str] | None = None, **kwargs) -> Iterator[RedisServer]:
    server = start_redis(base_dir, **kwargs)
    try:
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------------------------
# command line


def _default_state_file() -> Path:
    var = os.environ.get("CARD_ARENA_VAR") or Path(__file__).resolve().parent.parent / "var"
    return Path(var) / "localservices.json"


def _write_state(path: Path, state: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n")
    tmp.replace(path)


def _stop_from_state(state: dict) -> list[str]:
    """Stop what a state file describes; returns error messages (empty when all went well)."""
    errors = []
    if "redis" in state:
        try:
            RedisServer(**state["redis"]).stop()
        except Exception as exc:  # noqa: BLE001 - reported, and the other server still stops
            errors.append(f"redis: {exc}")
    if "postgres" in state:
        try:
            info = {k: v for k, v in state["postgres"].items() if k != "url"}
            PostgresServer(**info).stop()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(f"postgres: {exc}")
    if state.get("owns_dir"):
        _rmtree(state.get("dir"))
    return errors


def _cmd_start(args: argparse.Namespace) -> int:
    state_file = Path(args.state).resolve()
    if state_file.exists():
        print(f"localservices: {state_file} exists: stopping what it lists first", file=sys.stderr)
        _stop_from_state(json.loads(state_file.read_text()))
        state_file.unlink()
    owns_dir = args.dir is None
    base = Path(args.dir or tempfile.mkdtemp(prefix="card-arena-services-", dir=_short_tmp()))
    base.mkdir(parents=True, exist_ok=True)
    if owns_dir:
        base.chmod(0o711)  # lets the postgres user (when we are root) keep its folder in it
    state: dict = {"dir": str(base.resolve()), "owns_dir": owns_dir}
    exports = {}
    try:
        if args.only in (None, "postgres"):
            started = time.monotonic()
            pg = start_postgres(base)
            state["postgres"] = pg.to_dict()
            _write_state(state_file, state)
            exports["DATABASE_URL"] = pg.url
            print(
                f"localservices: PostgreSQL ready at {pg.url} ({time.monotonic() - started:.1f}s)",
                file=sys.stderr,
            )
        if args.only in (None, "redis"):
            started = time.monotonic()
            redis = start_redis(base)
            state["redis"] = redis.to_dict()
            _write_state(state_file, state)
            exports["REDIS_URL"] = redis.url
            print(
                f"localservices: Redis ready at {redis.url} ({time.monotonic() - started:.1f}s)",
                file=sys.stderr,
            )
    except BaseException as exc:
        _stop_from_state(state)
        state_file.unlink(missing_ok=True)
        if isinstance(exc, ServiceError):
            print(f"localservices: error: {exc}", file=sys.stderr)
            return 1
        raise
    for name, value in exports.items():
        print(f"export {name}={shlex.quote(value)}")
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    state_file = Path(args.state).resolve()
    try:
        state = json.loads(state_file.read_text())
    except FileNotFoundError:
        print(f"localservices: nothing to stop ({state_file} does not exist)", file=sys.stderr)
        return 0
    errors = _stop_from_state(state)
    state_file.unlink(missing_ok=True)
    for error in errors:
        print(f"localservices: error stopping {error}", file=sys.stderr)
    if not errors:
        print("localservices: stopped", file=sys.stderr)
    return 1 if errors else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cardsite.localservices",
        description="Start or stop a throwaway PostgreSQL and Redis on 127.0.0.1.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start them and print shell export lines")
    start.add_argument("--dir", help="folder for their files (default: a new temp folder)")
    start.add_argument("--only", choices=["postgres", "redis"], help="start just this one")
    stop = sub.add_parser("stop", help="stop what start started")
    for command in (start, stop):
        command.add_argument(
            "--state",
            default=str(_default_state_file()),
            help="file recording what was started (default: %(default)s)",
        )
    args = parser.parse_args(argv)
    return _cmd_start(args) if args.command == "start" else _cmd_stop(args)


if __name__ == "__main__":
    sys.exit(main())
