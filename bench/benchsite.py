"""A site of a bench's own: Django set up on SQLite in a folder of its own, migrated, with
no PostgreSQL or Redis from the environment (the figures must not depend on what the shell
happens to point at). Used by the benches that time pages in one process."""

from __future__ import annotations

import os
from pathlib import Path


def setup_django(var: Path) -> None:
    """Set Django up with ``var`` as the site's folder (``CARD_ARENA_VAR``) and migrate."""
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        CARD_ARENA_VAR=str(var),
        DJANGO_SETTINGS_MODULE="cardsite.settings",
        DEBUG="0",
        SECURE="0",
        ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
