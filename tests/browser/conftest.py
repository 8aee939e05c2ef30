"""A live Card Arena for browser tests: Daphne and the worker as real processes, Chromium
driven by Playwright.

The site runs on a free port of 127.0.0.1 with its own CARD_ARENA_VAR (a temporary folder:
secret key, static files, and the SQLite database). When the test run has a PostgreSQL
server (DATABASE_URL, as in the second run of scripts/run-tests), the site gets a database
of its own on that server, created here and dropped afterwards, and REDIS_URL is passed on
with another Redis database number, so the live site never touches the test process's
databases. See docs/testing.md.

Chromium is Debian's (``apt-get install chromium``): Playwright's own browser download is not
used. A missing Chromium fails the tests; it never skips them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.halves import redis_url_for_site
from tests.ports import listening_socket

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
LOG_TAIL = 120  # lines of each process's log shown when a test fails

CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-extensions",
    "--no-first-run",
    "--mute-audio",
]

#: the environment of a site whose worker validates and places bots with as few matches as
#: still gives every bot a result against each other (tests/browser, tests/deploy)
SMALL_PLACEMENT = {"BOT_VALIDATION_MATCHES": "1", "PLACEMENT_DEALS": "1"}

VIEWPORTS = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}


# --------------------------------------------------------------------------------------------
# Chromium


def chromium_executable() -> str:
    """Debian's Chromium, or CHROMIUM=/path/to/chrome; fails (never skips) without one."""
    wanted = os.environ.get("CHROMIUM")
    found = wanted or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found or not os.access(found, os.X_OK):
        pytest.fail(
            "Chromium is needed for the browser tests and was not found "
            f"({'CHROMIUM=' + wanted if wanted else 'no chromium on the PATH'}). "
            "Install it with `apt-get install chromium` (scripts/setup does, as root), "
            "or point CHROMIUM at a Chrome/Chromium binary.",
            pytrace=False,
        )
    return found


def chromium_args() -> list[str]:
    args = list(CHROMIUM_ARGS)
    if os.geteuid() == 0:
        # Chromium's own sandbox refuses to start as root.
        args.append("--no-sandbox")
    return args


# --------------------------------------------------------------------------------------------
# the live site


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log_path: Path

    def log_tail(self, lines: int = LOG_TAIL) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


@dataclass
class LiveSite:
    """The running site: its address, environment and processes."""

    var: Path
    env: dict[str, str]
    database: str  # "sqlite" or "postgresql"
    base_url: str = ""
    processes: list[Process] = field(default_factory=list)
    #: the listening sockets its servers were handed (closed when it stops)
    sockets: list[socket.socket] = field(default_factory=list)

    def url(self, path: str) -> str:
        return self.base_url + path

    def manage(self, *args: str, timeout: float = 300) -> str:
        """Runs ``manage.py ARGS`` against the live site's database; returns its output."""
        done = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise AssertionError(
                f"manage.py {' '.join(args)} exited {done.returncode}:\n"
                f"{done.stdout}\n{done.stderr}"
            )
        return done.stdout

    def spawn(self, name: str, argv: list[str], pass_fds: Sequence[int] = ()) -> Process:
        log_path = self.var / f"{name}.log"
        with open(log_path, "ab") as log:
            popen = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                # its own process group, so that stopping it reaches its children too
                start_new_session=True,
                pass_fds=pass_fds,
            )
        process = Process(name, popen, log_path)
        self.processes.append(process)
        return process

    def logs(self) -> str:
        parts = []
        for process in self.processes:
            state = process.popen.poll()
            status = "running" if state is None else f"exited {state}"
            parts.append(f"---- {process.name} ({status}) ----\n{process.log_tail()}")
        return "\n".join(parts)

    def stop(self) -> None:
        """SIGTERM to each process group, then SIGKILL to what is left; always reaps."""
        for process in reversed(self.processes):
            _signal_group(process.popen, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for process in reversed(self.processes):
            try:
                process.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(process.popen, signal.SIGKILL)
                process.popen.wait(timeout=STOP_TIMEOUT)
            # children that outlived their parent (the group is gone once they are)
            _signal_group(process.popen, signal.SIGKILL)
        for sock in self.sockets:
            sock.close()


def _signal_group(popen: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(popen.pid, sig)


def wait_for_health(site: LiveSite, daphne: Process) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    last_error = "no answer yet"
    while time.monotonic() < deadline:
        if daphne.popen.poll() is not None:
            raise RuntimeError(f"daphne exited {daphne.popen.returncode}")
        try:
            with urllib.request.urlopen(site.url("/healthz"), timeout=5) as response:
                if response.status == 200 and b'"ok": true' in response.read():
                    return
                last_error = f"HTTP {response.status}"
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            last_error = str(exc)
        time.sleep(0.2)
    raise RuntimeError(f"/healthz did not answer within {START_TIMEOUT:.0f}s: {last_error}")


def start_daphne(site: LiveSite) -> Process:
    """The site's server (Daphne: cardsite/serve.py) on a socket the test opened (a port no
    other process can take meanwhile), answering /healthz."""
    sock, port = listening_socket()
    site.sockets.append(sock)
    site.base_url = f"http://127.0.0.1:{port}"
    argv = [sys.executable, "-m", "cardsite.serve", "--fd", str(sock.fileno())]
    daphne = site.spawn("daphne", [*argv, "cardsite.asgi:application"], pass_fds=[sock.fileno()])
    try:
        wait_for_health(site, daphne)
    except RuntimeError as exc:
        pytest.fail(f"the live site did not start: {exc}\n{site.logs()}", pytrace=False)
    return daphne


@contextlib.contextmanager
def site_database(env: dict[str, str]) -> Iterator[str]:
    """SQLite in the site's folder, or a database of its own on the run's PostgreSQL server."""
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        env.pop("DATABASE_URL", None)
        yield "sqlite"
        return
    import psycopg
    from psycopg import sql

    name = f"card_arena_browser_{os.getpid()}_{secrets.token_hex(3)}"
    parts = urlsplit(url)
    env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + name))
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield "postgresql"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(scope="package")
def live_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSite]:
    """Migrated, static files collected, built-in bots seeded, validated and placed; then
    Daphne and one worker running in the background."""
    var = tmp_path_factory.mktemp("live-site")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "DJANGO_SETTINGS_MODULE"))
    }
    env.update(
        CARD_ARENA_VAR=str(var),
        DJANGO_SETTINGS_MODULE="cardsite.settings",
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE="0",  # plain http on the loopback
        PYTHONUNBUFFERED="1",
        LOG_LEVEL="INFO",
        # regular ladder rounds would compete with the placement matches the tests wait for
        LADDER_INTERVAL_S="0",
        # one validation match and one deal a pairing in placement, not two: the leaderboards
        # get their rows and results at half the cost (most of it the Blackjack++ cfr bot's)
        **SMALL_PLACEMENT,
    )
    redis = os.environ.get("REDIS_URL", "")
    if redis:
        env["REDIS_URL"] = redis_url_for_site(redis)
    else:
        env.pop("REDIS_URL", None)
    with site_database(env) as database:
        site = LiveSite(var=var, env=env, database=database)
        try:
            site.manage("migrate", "--noinput", "-v", "0")
            site.manage("collectstatic", "--noinput", "-v", "0")
            site.manage("seed_builtins")
            # The built-ins validated and their placement matches played before the first
            # page loads, so the leaderboards the tests look at have rows and results.
            site.manage(
                "worker", "--batch", "--display", "log", "--ladder-interval", "0", timeout=600
            )
            start_daphne(site)
            site.spawn(
                "worker",
                [
                    sys.executable,
                    str(ROOT / "manage.py"),
                    "worker",
                    "--display",
                    "log",
                    "--poll",
                    "0.2",
                    "--ladder-interval",
                    "0",
                ],
            )
            yield site
        finally:
            site.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    """A failed browser test shows the logs of Daphne and the worker."""
    report = yield
    if report.failed:
        site = item.funcargs.get("live_site") if hasattr(item, "funcargs") else None
        if isinstance(site, LiveSite) and site.processes:
            report.sections.append(("live site logs", site.logs()))
    return report


# --------------------------------------------------------------------------------------------
# the browser


@pytest.fixture(scope="package")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, args=chromium_args(), headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


class ConsoleErrors:
    """Console errors and uncaught exceptions of a page, as ``kind: text`` lines."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def on_console(self, message) -> None:
        if message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            self.errors.append(f"console.error: {message.text} ({where})")

    def on_page_error(self, error) -> None:
        self.errors.append(f"uncaught: {error}")

    def take(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors


@dataclass
class Tab:
    page: object  # playwright.sync_api.Page
    console: ConsoleErrors


def open_tab(browser, live_site: LiveSite, viewport: str = "desktop") -> Tab:
    context = browser.new_context(
        base_url=live_site.base_url,
        viewport=VIEWPORTS[viewport],
        is_mobile=viewport == "phone",
        has_touch=viewport == "phone",
        device_scale_factor=1,
    )
    context.set_default_timeout(15_000)
    # Chromium logs a refusal of the Content-Security-Policy as a console error; say it in
    # one line of our own too, so that no violation goes unnoticed whatever the log says.
    context.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => console.error("
        "'CSP violation: ' + e.effectiveDirective + ' refused ' + (e.blockedURI || 'inline')))"
    )
    page = context.new_page()
    console = ConsoleErrors()
    page.on("console", console.on_console)
    page.on("pageerror", console.on_page_error)
    return Tab(page, console)


@pytest.fixture
def tab(browser, live_site: LiveSite) -> Iterator[Tab]:
    """A desktop-sized page in a fresh browser context (no cookies)."""
    opened = open_tab(browser, live_site)
    try:
        yield opened
    finally:
        opened.page.context.close()


@pytest.fixture
def open_tabs(browser, live_site: LiveSite) -> Iterator:
    """``open_tabs(viewport)`` opens more pages; all are closed at the end."""
    tabs: list[Tab] = []

    def make(viewport: str = "desktop") -> Tab:
        tabs.append(open_tab(browser, live_site, viewport))
        return tabs[-1]

    try:
        yield make
    finally:
        for opened in tabs:
            opened.page.context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where screenshots go: CARD_ARENA_ARTIFACTS, else var/test-artifacts/screenshots/."""
    folder = Path(os.environ.get("CARD_ARENA_ARTIFACTS") or ROOT / "var/test-artifacts/screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def form_for_two(page, game: str, timer: str):
    """The lobby of ``game`` opened in ``page``, its "Create a table" form filled in for the
    person and one open seat with a turn timer of ``timer`` (its label: "60 seconds"); the
    form, for the test to fill in more and submit."""
    page.goto(f"/games/{game}/tables/")
    form = page.get_by_role("region", name="Create a table")
    form.get_by_label("Seat 1", exact=True).select_option("me")
    form.get_by_label("Seat 2", exact=True).select_option(label="Open: another person joins")
    form.get_by_label("Turn timer").select_option(label=timer)
    return form
