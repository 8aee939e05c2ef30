"""``manage.py arena`` as a Django command, for ``call_command("arena", ...)``: the command
itself is bots.arena.command, which ``manage.py arena`` runs without Django."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.arena import command


class Command(BaseCommand):
    help = command.help_text()
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        command.add_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            command.play(opts, self.stdout)
        except command.UsageError as exc:
            raise CommandError(str(exc)) from None
