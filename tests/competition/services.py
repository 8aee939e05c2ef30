"""A Card Arena site on a throwaway PostgreSQL (or on its default SQLite file), driven through
its commands in subprocesses (the reliability tests need workers that can be killed)."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[2]
TABLES = (
    "bots_ratinghistory, bots_rating, bots_leaderboardrow, bots_matchseat, bots_match, "
    "bots_matchjob, bots_tournament, bots_botversion, bots_bot, bots_ratingledger, auth_user"
)


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen
    log: Path

    def claimed(self) -> list[int]:
        return [int(n) for n in re.findall(r"event=job\.claimed job=(\d+)", self.text())]

    def text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout=timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


@dataclass
class Site:
    #: a DATABASE_URL, or "" for the site's default SQLite file in ``var``
    url: str
    var: Path
    workers: list[Worker] = field(default_factory=list)
    #: more environment for every command
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        if self.url:
            env["DATABASE_URL"] = self.url
        env.update(CARD_ARENA_VAR=str(self.var), **self.extra_env, **extra)
        return env

    @classmethod
    def migrated(cls, url: str, base: Path, **extra_env: str) -> Site:
        """A site whose folder is ``base/var``, its database (``url``, or SQLite there)
        migrated."""
        var = base / "var"
        var.mkdir()
        site = cls(url, var, extra_env=extra_env)
        site.manage("migrate", "-v", "0")
        return site

    @property
    def sqlite_path(self) -> Path:
        return self.var / "db.sqlite3"

    def manage(self, *args: str, timeout: float = 120, **extra: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done.stdout

    def upload(self, path: Path, user: str, **extra: str) -> None:
        # named after the file, as the tests' queries expect (not as its class says)
        self.manage(
            "upload_bot", str(path), "--user", user, "--name", path.stem, "--create-user", **extra
        )

    def start_worker(self, name: str, *args: str, validate: bool = False) -> Worker:
        """``manage.py worker`` in the background, logging to ``var``; it plays jobs only,
        unless ``validate``."""
        log = self.var / f"worker-{name}.log"
        only_jobs = [] if validate else ["--no-validate"]
        with log.open("w") as out:
            proc = subprocess.Popen(
                [sys.executable, "manage.py", "worker", "--name", name, "--display", "log",
                 *only_jobs, "--ladder-interval", "0", "--poll", "0.2", *args],
                cwd=ROOT, env=self.env(), stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        worker = Worker(name, proc, log)
        self.workers.append(worker)
        return worker

    def sql(self, query: str, *params: Any) -> list[tuple]:
        if not self.url:
            conn = sqlite3.connect(self.sqlite_path, timeout=30, isolation_level=None)
            try:
                cur = conn.execute(query.replace("%s", "?").replace("now()", "datetime('now')"),
                                   params)  # fmt: skip
                return cur.fetchall() if cur.description else []
            finally:
                conn.close()
        with psycopg.connect(self.url, autocommit=True) as conn:
            cur = conn.execute(query, params)
            return cur.fetchall() if cur.description else []

    def one(self, query: str, *params: Any) -> Any:
        return self.sql(query, *params)[0][0]

    def wait_for(self, query: str, *params: Any, timeout: float = 60) -> Any:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            rows = self.sql(query, *params)
            if rows and rows[0][0] is not None:
                return rows[0][0]
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for: {query}")

    def reset(self) -> None:
        for worker in self.workers:
            worker.kill()
        self.workers.clear()
        self.sql(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE")
