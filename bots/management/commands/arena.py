"""``manage.py arena`` as a Django command, for ``call_command("arena", ...)``: the command
itself is bots.arena.command, which ``manage.py arena`` runs without Django."""

from __future__ import annotations

from typing import Any

from django.core.management.base import (
    BaseCommand,
    CommandError,
    CommandParser,
    DjangoHelpFormatter,
)

from bots.arena import command
from games.engine import interrupts
from games.engine.terminal import stream_width, wrapped


class HelpFormatter(command.WholeWords, DjangoHelpFormatter):
    pass


class Command(BaseCommand):
    help = command.help_text()
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        # the help as ``manage.py arena --help`` shows it without Django: no name cut in two
        parser.formatter_class = HelpFormatter
        command.add_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        with interrupts.interruptible():
            try:
                command.play(opts, self.stdout)
            except command.UsageError as exc:
                raise CommandError(str(exc)) from None
            except command.Interrupted as exc:
                width = stream_width(getattr(self.stderr, "_out", None))
                interrupts.stop(wrapped(exc.line, width), exc.cause, self.stderr)
            except KeyboardInterrupt as exc:  # (before or after the tournament)
                interrupts.stop("interrupted", exc, self.stderr)
