"""The tournament worker: a polling loop whose every step says whether it found work.

``manage.py worker`` runs :class:`Worker`. A step validates one uploaded version or plays
one match job: claim (short transaction), play in the sandbox with a heartbeat thread
extending the lease, store (short transaction, only if the job is still ours). SIGTERM sets
a flag: the current match finishes, then the loop ends; a second SIGTERM gives the job back
to the queue at once.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field

from django.db import connection

from bots import competition, uploads
from bots.playing import ProcessCache
from bots.sandbox import SandboxUnavailable

log = logging.getLogger("bots.worker")


class Interrupted(Exception):
    """Raised in the main thread by a second SIGTERM."""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass
class Options:
    lease_s: float = 60.0
    max_attempts: int = 3
    poll_s: float = 1.0
    #: seconds between regular ladder rounds of a game (0: never start them)
    ladder_interval_s: float = 0.0
    validate: bool = True
    #: sandboxed bot processes kept alive between matches (0: a fresh process per match)
    process_cache: int = 0


@dataclass
class Counters:
    played: int = 0
    validated: int = 0
    lost: int = 0
    released: int = 0
    faults: int = 0
    last: str = ""
    current: str = ""
    started: float = field(default_factory=time.monotonic)


class Heartbeat(threading.Thread):
    """Extends the lease of the held job every third of the lease, on its own database
    connection; notes when the job was lost."""

    def __init__(self, held: competition.Claim, lease_s: float) -> None:
        super().__init__(daemon=True, name=f"heartbeat-{held.job.pk}")
        self.held, self.lease_s = held, lease_s
        self.lost = False
        self._stop_event = threading.Event()

    def run(self) -> None:
        try:
            while not self._stop_event.wait(self.lease_s / 3):
                if not competition.heartbeat(self.held, self.lease_s):
                    self.lost = True
                    log.warning("event=lease.lost job=%s", self.held.job.pk)
                    return
        finally:
            connection.close()

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


class Worker:
    def __init__(self, options: Options | None = None, name: str | None = None) -> None:
        self.options = options or Options()
        self.name = name or worker_name()
        self.stopping = False
        self.counters = Counters()
        self._last_ladder_check = 0.0
        self.cache = (
            ProcessCache(self.options.process_cache) if self.options.process_cache else None
        )

    # ---- signals ------------------------------------------------------------------------
    def on_sigterm(self, *_: object) -> None:
        if self.stopping:
            raise Interrupted
        self.stopping = True
        log.info("event=worker.stopping worker=%s", self.name)

    # ---- steps --------------------------------------------------------------------------
    def step(self) -> bool:
        """Do one piece of work; False if there was none."""
        if self.options.validate and self.validate_one():
            return True
        if self.play_one():
            return True
        return self.maybe_schedule()

    def validate_one(self) -> bool:
        version = uploads.claim_validation(self.name, self.options.lease_s)
        if version is None:
            return False
        self.counters.current = f"validating {version}"
        try:
            version = uploads.validate(version)
        except SandboxUnavailable as exc:
            # the lease runs out and a worker that can run the sandbox validates it
            log.error("event=validation.deferred version=%s reason=%r", version.pk, str(exc))
            self._sleep(self.options.poll_s)
            return True
        except Exception:  # a fault of ours: logged, retried when the lease ends
            log.exception("event=validation.error version=%s", version.pk)
            self.counters.current = ""
            self._sleep(self.options.poll_s)
            return True
        self.counters.validated += 1
        self.counters.current = ""
        log.info(
            "event=version.validated version=%s status=%s reason=%r",
            version.pk,
            version.status,
            version.reason,
        )
        return True

    def play_one(self) -> bool:
        held = competition.claim(self.name, self.options.lease_s, self.options.max_attempts)
        if held is None:
            return False
        job = held.job
        self.counters.current = f"job {job.pk} ({job.game}, tournament {job.tournament_id})"
        log.info("event=job.claimed job=%s attempt=%s worker=%s", job.pk, held.attempt, self.name)
        beat = Heartbeat(held, self.options.lease_s)
        beat.start()
        try:
            played = competition.play_job(job, self.cache)
        except Interrupted:
            competition.release(held, "the worker was stopped", count_attempt=False)
            self.counters.released += 1
            log.info("event=job.released job=%s reason=stopped", job.pk)
            raise
        except SandboxUnavailable as exc:
            competition.release(held, f"sandbox unavailable on {self.name}: {exc}")
            self.counters.released += 1
            log.error("event=job.released job=%s reason=%r", job.pk, str(exc))
            self._sleep(self.options.poll_s)
            return True
        except Exception as exc:  # a fault of ours: the job fails at its attempt cap
            log.exception("event=job.error job=%s", job.pk)
            competition.release(held, f"error on {self.name}: {type(exc).__name__}: {exc}")
            self.counters.released += 1
            self.counters.current = ""
            return True
        finally:
            beat.stop()
        match = competition.store_result(held, played)
        self.counters.current = ""
        if match is None:
            self.counters.lost += 1
            return True
        self.counters.played += 1
        faults = [f"{r.fault_kind}@{n}" for n, r in enumerate(played.seats) if r.fault_kind]
        self.counters.faults += len(faults)
        self.counters.last = f"job {job.pk}: scores {played.outcome.result.get('scores')}" + (
            f" faults {' '.join(faults)}" if faults else ""
        )
        log.info(
            "event=job.done job=%s match=%s attempt=%s worker=%s scores=%s faults=%s secs=%.3f",
            job.pk,
            match.pk,
            held.attempt,
            self.name,
            played.outcome.result.get("scores"),
            ",".join(faults) or "-",
            played.duration_s,
        )
        return True

    def maybe_schedule(self) -> bool:
        interval = self.options.ladder_interval_s
        now = time.monotonic()
        if interval <= 0 or now - self._last_ladder_check < min(interval, 30):
            return False
        self._last_ladder_check = now
        from games.registry import game_slugs

        started = False
        for game in game_slugs():
            if competition.maybe_ladder_round(game, interval) is not None:
                started = True
        return started

    # ---- loops --------------------------------------------------------------------------
    def run(self, *, once: bool = False, batch: bool = False, on_idle=None) -> int:
        """Loop until stopped; ``once``: one step; ``batch``: until a step finds nothing.
        Returns the number of steps that found work."""
        worked = 0
        try:
            while not self.stopping:
                found = self.step()
                worked += found
                if once or (batch and not found):
                    break
                if not found:
                    if on_idle is not None:
                        on_idle()
                    self._sleep(self.options.poll_s)
        except Interrupted:
            log.info("event=worker.interrupted worker=%s", self.name)
        finally:
            self.close()
        return worked

    def close(self) -> None:
        """End the bot processes kept for later matches."""
        if self.cache is not None:
            self.cache.close()

    def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < end:
            time.sleep(min(0.1, end - time.monotonic()))
