from django.db import migrations, models
from django.db.models import Exists, OuterRef


def chosen_as_far_as_known(apps, schema_editor):
    """A stored table was unrated by its opener's choice where nothing else can have made it
    so: a signed-in person opened it in a game that rates people, no guest sat at it and no
    bot failed to start (which says so in its ``error``). A table a guest sat at cannot say
    whether its opener unticked "Rated" too: it is taken as not, so its rematch is rated."""
    Table = apps.get_model("games", "Table")
    TableSeat = apps.get_model("games", "TableSeat")
    from bots.ladder.people import game_rates_people
    from games.registry import game_slugs

    rating = [slug for slug in game_slugs() if game_rates_people(slug)]
    guest_seat = TableSeat.objects.filter(table=OuterRef("pk"), kind="person", user__isnull=True)
    Table.objects.filter(rated=False, created_by__isnull=False, game__in=rating, error="").filter(
        ~Exists(guest_seat)
    ).update(unrated_chosen=True)


class Migration(migrations.Migration):
    dependencies = [("games", "0008_rated_says_what_was")]

    operations = [
        migrations.AddField(
            model_name="table",
            name="unrated_chosen",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(chosen_as_far_as_known, migrations.RunPython.noop),
    ]
