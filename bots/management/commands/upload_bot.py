"""``manage.py upload_bot``: store a new version of a bot and validate it in the sandbox."""

from __future__ import annotations

import argparse
import contextlib
import logging
import re
import shlex
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser, OutputWrapper
from django.db import DatabaseError

from bots.arena.command import compile_pending, compiling_note, with_another_game
from bots.competition.status import bot_status
from bots.competition.uploads import (
    ForAnotherGame,
    UploadError,
    stored_note,
    upload,
    validate,
    validation_deferred,
)
from bots.models import BotVersion
from bots.names import declared_name, plain_username
from bots.running.process import PlatformError
from bots.worker import ValidationHeartbeat
from games.engine import interrupts, untrusted
from games.engine.files import safe_filename
from games.engine.terminal import stream_width, wrapped
from games.management.database import DatabaseCommand
from games.registry import add_game_argument, game_slugs, get_game


class Command(DatabaseCommand):
    help = "Upload a bot file as a new version of USER's bot NAME, then validate it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="the bot's file (its language from its suffix)")
        parser.add_argument("--user", required=True, help="the bot's owner (username)")
        add_game_argument(
            parser, "the bot's game: {games} (default: %(default)s)", default=game_slugs()[0]
        )
        parser.add_argument(
            "--name",
            help="the bot's name (default: as manage.py arena names it: the name its class Bot "
            "sets, else the file's stem)",
        )
        parser.add_argument(
            "--create-user",
            action="store_true",
            help="create the user if there is none (with no password: manage.py changepassword "
            "sets one, to log in on the site)",
        )
        parser.add_argument(
            "--wait",
            action="store_true",
            help="then follow the version until it is rated (validation, placement matches, "
            "rank), or rejected (at validation, or taken off the ladder for faulting in its "
            "matches); the placement matches need a running manage.py worker",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=1800.0,
            metavar="SECONDS",
            help="with --wait: give up waiting after this long (default %(default)g)",
        )
        parser.add_argument("--poll", type=float, default=2.0, help=argparse.SUPPRESS)
        parser.add_argument(
            "--defer",
            action="store_true",
            help="leave the validation to a worker instead of validating here",
        )

    def handle(self, *args, **opts) -> None:
        #: the version stored (for the line said if the command is stopped)
        self._version: BotVersion | None = None
        #: its count of claims while this command holds its validation (None: it does not)
        self._claims: int | None = None
        # the log's records are for the worker's and the server's logs; a person running
        # this command reads its own lines (-v 2 shows the records too)
        with _quiet_log(opts["verbosity"] < 2), interrupts.interruptible():
            try:
                self._upload(opts)
            except KeyboardInterrupt as exc:  # (Ctrl-C, a SIGTERM)
                self._interrupted(exc)

    def _interrupted(self, exc: KeyboardInterrupt) -> NoReturn:
        """Stopped: say in a line what was left (nothing uploaded, or the version as it
        stands now: a validation stopped here is a worker's to do, as the version is left
        waiting) and how to follow it; exit with 130 (143 for a SIGTERM)."""
        version = self._version
        if version is None:
            line = "interrupted: nothing was uploaded"
        else:
            owner = untrusted.printable(self._owner)
            try:
                # a validation held here is given back, for the next worker free at once (as
                # a stopped worker gives back its own); a command killed outright leaves it
                # to a worker once its lease runs out (WORKER_LEASE_S)
                self._give_back("upload_bot was stopped during the validation", retry_s=0.0)
                version.refresh_from_db()
            except DatabaseError:  # (stopped within a query: where it stands is unknown)
                state = "is stored"
            else:
                state = {
                    BotVersion.VALIDATING: "is stored and a worker will validate it",
                    BotVersion.ACTIVE: "is active",
                    BotVersion.REJECTED: "was rejected",
                    BotVersion.RETIRED: "was retired",
                }.get(version.status, f"is {version.status}")
            line = (
                f"interrupted: v{version.number} {state}; follow it with manage.py standings "
                f"--user {owner}"
            )
        interrupts.stop(wrapped(line, self._width(self.stderr)), exc, self.stderr)

    def _upload(self, opts: dict) -> None:
        path: Path = opts["file"]
        if not path.is_file():
            self._fail(
                untrusted.printable(f"{path}: no such file"), "no such file (its path: above)"
            )
        users = get_user_model()
        #: the user this command created, said once the upload is stored (a refused upload
        #: deletes it again: a typo's account is not left behind)
        created = None
        if opts["create_user"]:
            owner = users.objects.filter(username=opts["user"]).first()
            if owner is None:
                owner = users(username=opts["user"])
                try:
                    plain_username(opts["user"])  # said by name, before Django's generic rule
                    owner.clean_fields(exclude=["password"])
                except ValidationError as exc:
                    problems = "; ".join(exc.messages)
                    said = untrusted.printable(f"cannot create user {opts['user']!r}: {problems}")
                    self._fail(said, "the user was not created (why: above)")
                owner.set_unusable_password()  # (no password anyone could guess)
                owner.save()
                created = owner
        else:
            try:
                owner = users.objects.get(username=opts["user"])
            except users.DoesNotExist:
                raise CommandError(f"no user {opts['user']!r} (see --create-user)") from None
        code = path.read_bytes()
        self._given = path
        name = opts["name"] or declared_name(path.name, code)
        # stored with its validation claimed, as a worker claims one, unless it is left to a
        # worker (--defer): no worker validates it too (both did: double compiles, double
        # matches, and the log printed was whichever finished first)
        lease_s = None if opts["defer"] else float(settings.WORKER_LEASE_S)
        try:
            version = upload(owner, opts["game"], name, path.name, code, claimed_for=lease_s)
        except (ForAnotherGame, UploadError) as exc:
            if isinstance(exc, ForAnotherGame):
                said = f"{exc.found.why} {exc.found.advice('upload')}"
            else:
                said = at_the_command_line(str(exc))
            if created is not None:  # (nothing was uploaded: the user is not kept either)
                created.delete()
                said += f" (user {created.get_username()} was not created)"
            self._fail(untrusted.printable(said), "the file was not uploaded (why: above)")
        if created is not None:
            name_said = untrusted.printable(created.get_username())
            self._say(
                f"created user {name_said}, with no password yet: to log in on the site (My "
                f"bots shows your bot's code, log and faults), set one with manage.py "
                f"changepassword {shlex.quote(name_said)}"
            )
        self._version, self._owner = version, owner.get_username()
        if lease_s is not None:
            self._claims = version.validation_claims
        named = "" if opts["name"] else f": named as {path.name} says; --name chooses another"
        self._say(f"stored {version} (id {version.pk}){named}")
        if lease_s is not None:  # (not --defer)
            # (the name and bytes its validation writes and compiles: bots.running.playing)
            written = safe_filename(version.filename), version.code.encode()
            if compile_pending(get_game(opts["game"]), *written):
                self._say(compiling_note(str(path)), self.stderr)
            try:
                with _renewed(version, lease_s):
                    version = validate(version)
                self._claims = None  # (a verdict, or a pause after trouble: not held)
            except PlatformError as exc:  # the machine's trouble, never the bot's
                self._not_validated(version, exc, opts["wait"])
            else:
                if version.status == BotVersion.ACTIVE:
                    self._say(f"active: {version} (id {version.pk})")
                else:
                    self._rejected(version, path)
        if opts["wait"]:
            self._follow(version, opts["timeout"], opts["poll"])

    def _give_back(self, reason: str, retry_s: float | None = None) -> None:
        """No verdict here: the validation this command holds (if it still does) is left to
        a worker, after ``retry_s`` (:func:`uploads.validation_deferred`)."""
        if self._version is None or self._claims is None:
            return
        claims, self._claims = self._claims, None
        more = {} if retry_s is None else {"retry_s": retry_s}
        validation_deferred(self._version, reason, claims=claims, **more)

    def _follow(self, version: BotVersion, timeout: float, poll: float) -> None:
        """Say each change of the bot's status until the version is rated, rejected, or taken
        off the ladder for faulting in its matches (bots.competition.faults)."""
        end = time.monotonic() + timeout
        said = ""
        while True:
            version.refresh_from_db()
            status = bot_status(version.bot)
            if version.status == BotVersion.REJECTED and not version.is_taken_off:
                self._rejected(version, getattr(self, "_given", None))  # (its log says why, once)
            if status.detail != said:
                said = status.detail
                self._say(untrusted.printable(said))
            if version.is_taken_off:  # passed validation, then faulted in its matches
                raise CommandError(f"v{version.number} was taken off the ladder (why: above)")
            if version.status != BotVersion.VALIDATING and status.rated:
                break
            if version.status == BotVersion.RETIRED:
                raise CommandError(f"{version} was retired: a newer version replaced it")
            if time.monotonic() >= end:
                owner = untrusted.printable(version.bot.owner.get_username())
                self._say(f"manage.py standings --user {owner} shows where it stands", self.stderr)
                raise CommandError(f"still waiting after {timeout:g} s (where it stands: above)")
            self.pause(poll)
        if status.last_fault:
            self._say(untrusted.printable(f"latest fault: {status.last_fault}"))

    def _not_validated(self, version: BotVersion, exc: PlatformError, wait: bool) -> None:
        """The platform could not validate the version here (a machine too busy to compile
        it, no free sandbox slot): no verdict, no fault of the bot's. Said in a few lines, no
        traceback; the version is left for a worker, which tries again after a pause (as it
        does with its own such trouble: :func:`uploads.validation_deferred`). Followed with
        ``--wait``; else the command ends with an error (exit status 1)."""
        self._give_back(str(exc))  # (unless a worker took it meanwhile)
        self._say(untrusted.printable(f"v{version.number} was not validated: {exc}"), self.stderr)
        owner = untrusted.printable(version.bot.owner.get_username())
        if wait:
            self._say("a worker (manage.py worker) will validate it; following it:", self.stderr)
            return
        self._say(
            f"it waits for a worker (manage.py worker), which will try again: follow it on My "
            f"bots or with manage.py standings --user {owner}",
            self.stderr,
        )
        raise CommandError(f"v{version.number} is not validated yet (why: above)")

    def _rejected(self, version: BotVersion, given: Path | None = None) -> NoReturn:
        """The validation's log, which ends with the refusal, as a terminal shows it
        harmlessly: it holds what the bot wrote (escape sequences shown as ``\x1b``, never
        acted on); then a short error. A file for another game is told its ``--game``. The
        sandbox runs the file under the name the version keeps (the bot's: ``starter.py``),
        which its compiler's and its tracebacks' lines name: where the ``given`` file's
        name is another, a first line says which file that is."""
        log = version.validation_log.rstrip()
        if given is not None and (note := stored_note(version, log, given.name)):
            log = f"{note}\n{log}"
        if version.reason and version.reason not in log:  # (a refusal of no fault of its own)
            log += f"\nrejected: {version.reason}"
        text = untrusted.printable(with_another_game(log, "upload"))
        self.stderr.write(wrapped(text, self._width(self.stderr), keep_indented=True))
        raise CommandError(f"v{version.number} rejected at validation (why: above)")

    def _fail(self, message: str, summary: str) -> NoReturn:
        """Stop with ``message`` (printable text) as the CommandError's, if that fits a line
        of the terminal; else with ``summary``, ``message`` wrapped above it."""
        if "\n" not in message and len(f"CommandError: {message}") <= self._width(self.stderr):
            raise CommandError(message)
        self._say(message, self.stderr)
        raise CommandError(summary)

    def _width(self, to: OutputWrapper) -> int:
        return stream_width(getattr(to, "_out", to))

    def _say(self, text: str, to: OutputWrapper | None = None) -> None:
        """A line (or a few) of printable text, wrapped to the terminal's width (``COLUMNS``,
        else 80 columns, when it is not one), each line's rest indented."""
        to = to or self.stdout
        to.write(wrapped(text, self._width(to)))

    def pause(self, seconds: float) -> None:
        """Between two looks at the bot (a test plays the worker's part here)."""
        time.sleep(seconds)


#: the site's way to a new version of a bot already competing or being validated
#: (bots.competition.uploads.check_room), which the command takes by ``--name``
NEW_VERSION = "upload your code as a new version of "


def at_the_command_line(reason: str) -> str:
    """An upload's refusal in the command's words: where the site says to upload the code as
    a new version of a bot ("... of starter, or retire it on My bots first"), the command
    names the option that does it (``--name starter``). (The site's words go on with what
    makes room instead: "or retire it on My bots first", or, for a bot whose version is
    being validated, "or wait for the verdict on starter v2 ...")"""
    one = re.search(
        re.escape(NEW_VERSION) + r"(.+?), or (?:retire it on My bots first|wait for the verdict)",
        reason,
    )
    if one is not None:
        name = one.group(1)
        option = f"--name {shlex.quote(name)}"
        return reason.replace(f"{NEW_VERSION}{name},", f"{NEW_VERSION}{name} ({option}),", 1)
    return reason.replace(
        f"{NEW_VERSION}one of them,", f"{NEW_VERSION}one of them (--name and its name),", 1
    )


@contextlib.contextmanager
def _renewed(version: BotVersion, lease_s: float) -> Iterator[None]:
    """While the command validates ``version``, its validation's lease (taken with the
    upload) is renewed as a worker renews its own (a C++ or Java compile alone may outlast
    the lease): no worker takes it meanwhile."""
    beat = ValidationHeartbeat(version, lease_s)
    beat.start()
    try:
        yield
    finally:
        beat.stop()


@contextlib.contextmanager
def _quiet_log(quiet: bool) -> Iterator[None]:
    """While ``quiet``: the console handler of the settings' LOGGING shows warnings and
    errors only (a placement's scheduling, logged at INFO for the worker's and the server's
    logs, is no line for a person's terminal); as it was after."""
    handlers = [h for h in logging.getLogger().handlers if h.get_name() == "console"]
    levels = [h.level for h in handlers]
    if quiet:
        for handler in handlers:
            handler.setLevel(max(handler.level, logging.WARNING))
    try:
        yield
    finally:
        for handler, level in zip(handlers, levels, strict=True):
            handler.setLevel(level)
