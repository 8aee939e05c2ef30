"""``manage.py upload_bot``: store a new version of a bot and validate it in the sandbox."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import NoReturn

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.competition.status import bot_status
from bots.competition.uploads import UploadError, upload, validate
from bots.models import BotVersion
from bots.names import declared_name, plain_username
from games.engine import untrusted
from games.registry import add_game_argument, game_slugs


class Command(BaseCommand):
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
            "--create-user", action="store_true", help="create the user if there is none"
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
        path: Path = opts["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        users = get_user_model()
        if opts["create_user"]:
            owner = users.objects.filter(username=opts["user"]).first()
            if owner is None:
                owner = users(username=opts["user"])
                try:
                    plain_username(opts["user"])  # said by name, before Django's generic rule
                    owner.clean_fields(exclude=["password"])
                except ValidationError as exc:
                    problems = "; ".join(exc.messages)
                    raise CommandError(f"cannot create user {opts['user']!r}: {problems}") from None
                owner.set_unusable_password()
                owner.save()
        else:
            try:
                owner = users.objects.get(username=opts["user"])
            except users.DoesNotExist:
                raise CommandError(f"no user {opts['user']!r} (see --create-user)") from None
        code = path.read_bytes()
        name = opts["name"] or declared_name(path.name, code)
        try:
            version = upload(owner, opts["game"], name, path.name, code)
        except UploadError as exc:
            raise CommandError(str(exc)) from None
        named = "" if opts["name"] else f": named as {path.name} says; --name chooses another"
        self.stdout.write(f"stored {version} (id {version.pk}){named}")
        if not opts["defer"]:
            version = validate(version)
            if version.status == BotVersion.ACTIVE:
                self.stdout.write(f"active: {version} (id {version.pk})")
            else:
                self._rejected(version)
        if opts["wait"]:
            self._follow(version, opts["timeout"], opts["poll"])

    def _follow(self, version: BotVersion, timeout: float, poll: float) -> None:
        """Say each change of the bot's status until the version is rated, rejected, or taken
        off the ladder for faulting in its matches (bots.competition.faults)."""
        end = time.monotonic() + timeout
        said = ""
        while True:
            version.refresh_from_db()
            status = bot_status(version.bot)
            if status.detail != said:
                said = status.detail
                self.stdout.write(untrusted.printable(said))
            if version.is_taken_off:  # passed validation, then faulted in its matches
                raise CommandError(untrusted.printable(f"v{version.number} {version.reason}"))
            if version.status == BotVersion.REJECTED:
                self._rejected(version)
            if version.status != BotVersion.VALIDATING and status.rated:
                break
            if version.status == BotVersion.RETIRED:
                raise CommandError(f"{version} was retired: a newer version replaced it")
            if time.monotonic() >= end:
                raise CommandError(
                    f"still waiting after {timeout:g} s: {said} (manage.py standings --user "
                    f"{version.bot.owner.get_username()} shows where it stands)"
                )
            self.pause(poll)
        if status.last_fault:
            self.stdout.write(untrusted.printable(f"latest fault: {status.last_fault}"))

    def _rejected(self, version: BotVersion) -> NoReturn:
        """The validation's log and the refusal, as a terminal shows them harmlessly: they
        hold what the bot wrote (escape sequences shown as ``\x1b``, never acted on)."""
        self.stderr.write(untrusted.printable(version.validation_log))
        raise CommandError(untrusted.printable(f"rejected: {version.reason}"))

    def pause(self, seconds: float) -> None:
        """Between two looks at the bot (a test plays the worker's part here)."""
        time.sleep(seconds)
