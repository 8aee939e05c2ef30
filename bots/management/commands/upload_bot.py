"""``manage.py upload_bot``: store a new version of a bot and validate it in the sandbox."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.models import BotVersion
from bots.names import declared_name, plain_username
from bots.uploads import UploadError, upload, validate
from games.registry import game_slugs


class Command(BaseCommand):
    help = "Upload a bot file as a new version of USER's bot NAME, then validate it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--user", required=True, help="the bot's owner (username)")
        parser.add_argument("--game", default=game_slugs()[0], help="(default: %(default)s)")
        parser.add_argument(
            "--name",
            help="the bot's name (default: as manage.py arena names it: the name its class Bot "
            "sets, else the file's stem)",
        )
        parser.add_argument(
            "--create-user", action="store_true", help="create the user if there is none"
        )
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
        self.stdout.write(f"stored {version} (id {version.pk})")
        if opts["defer"]:
            return
        version = validate(version)
        if version.status == BotVersion.ACTIVE:
            self.stdout.write(f"active: {version} (id {version.pk})")
        else:
            self.stderr.write(version.validation_log)
            raise CommandError(f"rejected: {version.reason}")
