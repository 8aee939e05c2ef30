"""A built-in bot's seat, at a table and in its match, is named as every page names that bot:
house/NAME (the house's entry of it on the leaderboards), no longer builtin:NAME."""

from django.db import migrations
from django.db.models import F, Value
from django.db.models.functions import Concat

SEATS = [("games", "TableSeat"), ("bots", "MatchSeat")]


def _rename(apps, old: str, new: str) -> None:
    for app, model in SEATS:
        seats = apps.get_model(app, model).objects.filter(builtin__gt="")
        seats.filter(name=Concat(Value(old), F("builtin"))).update(
            name=Concat(Value(new), F("builtin"))
        )


def forwards(apps, schema_editor):
    _rename(apps, "builtin:", "house/")


def backwards(apps, schema_editor):
    _rename(apps, "house/", "builtin:")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_names_as_long_as_usernames"),
        ("bots", "0016_names_as_long_as_usernames"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
