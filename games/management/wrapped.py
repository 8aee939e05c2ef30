"""A management command whose error is wrapped to the terminal, as the arena's is."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.engine.terminal import console_width, wrapped


class WrappedErrorCommand(BaseCommand):
    """A command that, run from the command line, has its error wrapped between words to the
    terminal's width: Django prints it on one line after "CommandError: ", whatever its
    length (a refused record's reason runs to three hundred characters)."""

    def execute(self, *args: Any, **options: Any) -> Any:
        try:
            return super().execute(*args, **options)
        except CommandError as exc:
            if not getattr(self, "_called_from_command_line", False):
                raise
            width = console_width(options.get("stderr") or self.stderr)
            # (a path longer than the line's rest starts on the next line, kept whole)
            said = wrapped(f"CommandError: {exc}", width).removeprefix("CommandError:")
            raise CommandError(said.removeprefix(" "), returncode=exc.returncode) from None
