"""Commands that read and write the database say plainly when it is older than the code.

A checkout updated (``git pull``) and a command run before ``migrate`` met a table or a column
that is not there yet: Django's traceback, 40 lines ending in "no such column:
bots_botversion.taken_off". :class:`DatabaseCommand` turns that into one instruction. The
migrations are looked at only after a database error (loading them takes a tenth of a
second, which a command that works need not pay); a long-running command (the worker) asks
:func:`behind` once as it starts instead, before it waits out errors as outages.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

MIGRATE = ".venv/bin/python manage.py migrate"


def unapplied(using: str = DEFAULT_DB_ALIAS) -> tuple[list[str], bool]:
    """The migrations the database ``using`` lacks, in the order they apply ("app.name"), and
    whether it has none of them at all (a new database)."""
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[using])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    missing = [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]
    return missing, not executor.loader.applied_migrations


def behind(using: str = DEFAULT_DB_ALIAS) -> str | None:
    """What to tell a person whose database lacks migrations of this code, or None (none
    lacking, or the database cannot be asked: the error that led here then stands). Lines
    that fit 80 columns after Django's "CommandError: "."""
    try:
        missing, new = unapplied(using)
    except DatabaseError:
        return None
    if not missing:
        return None
    if new:
        said = "the database has no tables yet. Make them with"
    else:
        count = "a migration is" if len(missing) == 1 else f"{len(missing)} migrations are"
        said = (
            f"the database is behind this code: {count} not applied\n"
            f"(the first: {missing[0]}). Apply them with"
        )
    return f"{said}\n  {MIGRATE}\n(scripts/run-site does so as it starts), then run this again."


class DatabaseCommand(BaseCommand):
    """A command whose database errors first ask whether the database is behind the code."""

    def execute(self, *args: Any, **options: Any) -> Any:
        try:
            return super().execute(*args, **options)
        except DatabaseError as exc:
            said = behind(options.get("database") or DEFAULT_DB_ALIAS)
            if said is not None:
                raise CommandError(said) from exc
            raise
