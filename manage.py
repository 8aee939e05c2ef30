#!/usr/bin/env python
"""Django's command-line utility for Card Arena."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    if sys.argv[1:2] == ["arena"]:
        # The arena needs no database, no app and no server: it runs without Django (its
        # settings are read as a plain module where the sandbox needs them), unless one of
        # Django's own options asks for Django's command runner.
        from bots.arena import command

        if not any(arg.split("=")[0] in command.DJANGO_OPTIONS for arg in sys.argv[2:]):
            command.main(sys.argv)
            return
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
