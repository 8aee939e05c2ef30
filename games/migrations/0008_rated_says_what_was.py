from django.db import migrations
from django.db.models import Exists, OuterRef


def rated_as_it_was(apps, schema_editor):
    """A live table's match, and its finished table, are rated when its people were (a
    rating history row names the match); before, every table match said rated, and a table
    a guest sat down at kept saying it was. Open and playing tables: a guest's seat, or a
    game that rates no people, makes them unrated (games.live.tables.unrated_reason)."""
    Match = apps.get_model("bots", "Match")
    Table = apps.get_model("games", "Table")
    TableSeat = apps.get_model("games", "TableSeat")
    History = apps.get_model("games", "PersonRatingHistory")
    people_rated = Exists(History.objects.filter(match=OuterRef("pk")))
    table_matches = Match.objects.filter(job__isnull=True, tournament__isnull=True)
    table_matches.filter(~people_rated).update(rated=False)
    Table.objects.filter(match__isnull=False, match__rated=False).update(rated=False)
    guest_seat = TableSeat.objects.filter(table=OuterRef("pk"), kind="person", user__isnull=True)
    Table.objects.filter(state__in=["open", "playing"]).filter(Exists(guest_seat)).update(
        rated=False
    )
    from bots.ladder.people import game_rates_people
    from games.registry import game_slugs

    alone = [slug for slug in game_slugs() if not game_rates_people(slug)]
    Table.objects.filter(game__in=alone).update(rated=False)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_table_bot_limits"),
        ("bots", "0013_worker_time"),
    ]

    operations = [migrations.RunPython(rated_as_it_was, migrations.RunPython.noop)]
