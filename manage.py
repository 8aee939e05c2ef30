#!/usr/bin/env python
"""Django's command-line utility for Card Arena."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsite.settings")
    if sys.argv[1:2] == ["arena"]:
        # The arena needs no database, no installed app and no server: it runs without
        # Django's set-up, which would import every app (Daphne's server among them).
        from django.conf import settings

        from bots.management.commands.arena import Command

        settings.DEBUG  # noqa: B018 - loads the settings (SANDBOX_* among them), not the apps
        Command().run_from_argv(sys.argv)
        return
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
