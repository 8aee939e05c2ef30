"""Fill what 0007 adds from what is stored: the results by opponent from the matches, and
each rating update's place in its bot's history."""

from django.db import migrations

from bots.ladder.aggregates import COUNTERS, tally_rows

BATCH = 5000


def fill(apps, schema_editor):
    MatchSeat = apps.get_model("bots", "MatchSeat")
    OpponentResult = apps.get_model("bots", "OpponentResult")
    OpponentResult.objects.all().delete()
    seats = MatchSeat.objects.order_by("match_id", "seat").values_list(
        "match_id", "match__game", "bot_id", "name", "score"
    )
    totals = tally_rows(seats.iterator(chunk_size=BATCH))
    rows = []
    for (bot_id, key), values in sorted(totals.items()):
        kind, _, value = key.partition(":")
        rows.append(
            OpponentResult(
                bot_id=bot_id,
                key=key,
                opponent_id=int(value) if kind == "bot" else None,
                name="" if kind == "bot" else value,
                **dict(zip(COUNTERS, values, strict=True)),
            )
        )
    OpponentResult.objects.bulk_create(rows, batch_size=BATCH)


def number(apps, schema_editor):
    """1, 2, ... in each bot's history, in the order the updates were written."""
    RatingHistory = apps.get_model("bots", "RatingHistory")
    table = schema_editor.quote_name(RatingHistory._meta.db_table)
    schema_editor.execute(
        f"UPDATE {table} SET number = places.n FROM (SELECT id, ROW_NUMBER() OVER "
        f"(PARTITION BY bot_id ORDER BY id) AS n FROM {table}) AS places "
        f"WHERE {table}.id = places.id"
    )


class Migration(migrations.Migration):
    dependencies = [("bots", "0007_opponent_results")]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.RunPython(number, migrations.RunPython.noop),
    ]
